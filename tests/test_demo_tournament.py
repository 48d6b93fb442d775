"""The demo's webhook receiver, fed by a real service: it verifies the signature, prints
each edition once (a repeated delivery is acknowledged, not shown again) and refuses a
body whose signature does not match."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from helpers_api import AUTH, SERVER_KEY, open_app, open_client
from rankline import ManualClock, Settings
from rankline.demo.tournament import Receiver, podium
from rankline.tournaments.webhooks import signature


async def test_the_demo_receiver_prints_each_edition_once(
    tmp_path: Path, clock: ManualClock
) -> None:
    shown: list[dict[str, Any]] = []
    settings = Settings(
        data_dir=tmp_path / "data", server_keys=SERVER_KEY, tournament_check_seconds=3600
    )
    with Receiver("demo-secret", shown.append) as receiver:
        async with open_app(settings, clock) as app, open_client(app) as client:
            spec = {
                "starts_at": "2026-11-21T11:59:00Z",
                "ends_at": "2026-11-21T12:01:00Z",
                "grace_seconds": 0,
                "rewards": [{"ranks": [1, 1], "reward": {"gems": 500}}],
                "webhook": {"url": receiver.url, "secret": receiver.secret},
            }
            put = await client.put("/v1/tournaments/sprint", json=spec, headers=AUTH)
            assert put.status_code == 201
            for player, score in (("ada", 30), ("bo", 20)):
                body = {"player_id": player, "score": score, "match_id": "r1"}
                sent = await client.post("/v1/tournaments/sprint/scores", json=body, headers=AUTH)
                assert sent.status_code == 200
            clock.advance(3600)
            assert await app.state.service.finish_tournaments() == [("sprint", "1", True)]
            body = (await client.get("/v1/tournaments/sprint/results")).content
        async with httpx.AsyncClient() as http:
            forged = await http.post(
                receiver.url, content=body, headers={"X-Rankline-Signature": "sha256=00"}
            )
            assert forged.status_code == 401
            again = await http.post(
                receiver.url,
                content=body,
                headers={"X-Rankline-Signature": signature(receiver.secret, body)},
            )
            assert again.status_code == 200  # a repeat: acknowledged, not shown twice
    assert [r["id"] for r in shown] == ["sprint/1/1795262340000000"]
    lines = podium(shown[0], {"ada": "Ada"})
    assert lines[1] == "  #1 Ada 30  reward {'gems': 500}"
    assert lines[-1] == "  1 players rewarded"
