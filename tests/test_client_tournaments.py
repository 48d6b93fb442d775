"""The Python client's tournament calls, against the real app."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from helpers_api import SERVER_KEY, open_app
from rankline import ManualClock, Settings
from rankline.client import ApiError, AsyncClient


async def test_async_client_covers_the_tournament_endpoints(
    tmp_path: Path, clock: ManualClock
) -> None:
    settings = Settings(data_dir=tmp_path / "data", server_keys=SERVER_KEY)
    async with open_app(settings, clock) as app:
        transport = httpx.ASGITransport(app=app)
        async with AsyncClient("http://t", server_key=SERVER_KEY, transport=transport) as rl:
            made = await rl.put_tournament(
                "cup",
                starts_at="2026-11-21T11:00:00Z",
                ends_at="2026-11-21T12:30:00Z",
                grace_seconds=0,
                max_size=2,
                join_required=True,
                cohort_size=1,
                rewards=[{"ranks": [1, 1], "reward": {"gems": 5}}],
            )
            assert made["edition"]["state"] == "running"
            assert [t["id"] for t in (await rl.list_tournaments())["tournaments"]] == ["cup"]
            assert (await rl.get_tournament("cup"))["max_size"] == 2
            assert (await rl.join("cup", "a"))["players"] == 1
            await rl.join("cup", "b")
            with pytest.raises(ApiError) as full:
                await rl.join("cup", "c")
            assert full.value.status == 409
            await rl.submit_tournament("cup", "a", 10, match_id="m1")
            await rl.submit_tournament("cup", "b", 20, match_id="m1")
            top = await rl.tournament_top("cup", edition="1")
            assert [e["player_id"] for e in top["entries"]] == ["b", "a"]
            assert (await rl.tournament_player("cup", "a"))["rank"] == 2
            mine = await rl.tournament_player("cup", "a", scope="cohort")
            assert mine["rank"] == 1 and mine["scope"] == "cohort:1"  # a cohort of one
            around = await rl.tournament_around("cup", "a", k=1, scope="cohort")
            assert [e["player_id"] for e in around["entries"]] == ["a"]
            clock.advance(3600)
            await app.state.service.tournaments.finish()
            results = await rl.results("cup")
            assert results["results"][0] == {
                "rank": 1,
                "player_id": "b",
                "score": 20,
                "reward": {"gems": 5},
            }
            assert await rl.delete_tournament("cup") is None
