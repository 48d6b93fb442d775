"""Caps on what a request carries: metadata (RANKLINE_MAX_METADATA_BYTES), display names and
friend lists; anything over a cap is 422 naming the field and records nothing."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from helpers_api import AUTH, JSON, error_locs, open_app, open_client, put_board
from rankline import ManualClock, Settings

# The HTTP edge (request size caps): one stack is enough.
pytestmark = pytest.mark.edge


def _with(settings: Settings, **changes: Any) -> Settings:
    return settings.model_copy(update=changes)


def _score(player: str, score: int = 10, **extra: Any) -> dict[str, Any]:
    return {"player_id": player, "score": score, "match_id": f"m-{player}", **extra}


async def test_metadata_is_capped(settings: Settings, clock: ManualClock) -> None:
    async with (
        open_app(_with(settings, max_metadata_bytes=100), clock) as app,
        open_client(app) as client,
    ):
        await put_board(client, "arena")
        small = {"note": "x" * 80}  # 93 bytes as JSON
        big = {"note": "x" * 100}
        ok = await client.post(
            "/v1/boards/arena/scores", json=_score("p1", metadata=small), headers=AUTH
        )
        assert ok.status_code == 200, ok.text
        refused = await client.post(
            "/v1/boards/arena/scores", json=_score("p2", metadata=big), headers=AUTH
        )
        assert error_locs(refused) == [["body", "metadata"]]
        batch = {"scores": [{"board": "arena", **_score("p3", metadata=big)}]}
        response = await client.post("/v1/scores/batch", json=batch, headers=AUTH)
        [result] = response.json()["results"]
        assert result["error"]["status"] == 422
        assert result["error"]["errors"][0]["loc"] == ["body", "scores", 0, "metadata"]
        profile = await client.put("/v1/players/p1", json={"metadata": big}, headers=AUTH)
        assert error_locs(profile) == [["body", "metadata"]]
        top = (await client.get("/v1/boards/arena/top")).json()
        assert [e["player_id"] for e in top["entries"]] == ["p1"]


async def test_metadata_default_cap_refuses_megabytes(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    huge = {"blob": "x" * 3_000_000}
    response = await client.post(
        "/v1/boards/arena/scores", json=_score("p1", metadata=huge), headers=AUTH
    )
    assert error_locs(response) == [["body", "metadata"]]
    assert "4096" in response.json()["detail"]


async def test_display_name_and_friend_lists_are_capped(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    long_name = await client.put("/v1/players/p1", json={"display_name": "x" * 101}, headers=AUTH)
    assert error_locs(long_name) == [["body", "display_name"]]
    friends = [f"f{i}" for i in range(5001)]
    stored = await client.put("/v1/players/p1/friends", json={"friends": friends}, headers=AUTH)
    assert error_locs(stored) == [["body", "friends"]]
    asked = await client.post(
        "/v1/boards/arena/players/p1/friends", json={"friends": friends}, headers=JSON
    )
    assert error_locs(asked) == [["body", "friends"]]
    fits = await client.put(
        "/v1/players/p1/friends", json={"friends": friends[:5000]}, headers=AUTH
    )
    assert fits.status_code == 200, fits.text


async def test_the_service_caps_metadata_whatever_edge_calls_it(
    settings: Settings, clock: ManualClock
) -> None:
    """The cap is the write path's own: ``Scores.prepare`` refuses long metadata before it
    looks for the board (a 422, not the 404 of a board that does not exist)."""
    from rankline.errors import InvalidInput

    async with open_app(_with(settings, max_metadata_bytes=100), clock) as app:
        scores = app.state.service.scores
        with pytest.raises(InvalidInput) as refused:
            await scores.prepare(
                "no-such-board",
                player="p1",
                match_id="m",
                score=1,
                at=None,
                scopes=None,
                metadata={"note": "x" * 100},
            )
        assert refused.value.errors == [
            {
                "loc": ["body", "metadata"],
                "msg": "metadata is 111 bytes as JSON; at most 100 are accepted",
            }
        ]
