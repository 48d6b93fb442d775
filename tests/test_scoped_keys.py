"""Server keys limited to boards: ``key:pattern|pattern`` writes only the boards whose id
matches, per item in a batch, and never changes players."""

from __future__ import annotations

from typing import Any

import pytest

from helpers_api import AUTH, assert_problem, open_app, open_client, put_board
from rankline import ManualClock, Settings
from rankline.http import auth

# The HTTP edge (what a scoped key may do): one stack is enough.
pytestmark = pytest.mark.edge

GAME_A = "key-game-a"
A_AUTH = {"Authorization": f"Bearer {GAME_A}"}


def _with(settings: Settings, **changes: Any) -> Settings:
    return settings.model_copy(update=changes)


def _score(player: str, score: int = 10, **extra: Any) -> dict[str, Any]:
    return {"player_id": player, "score": score, "match_id": f"m-{player}", **extra}


def _scoped(settings: Settings, clock: ManualClock) -> Any:
    """An app where GAME_A writes only the boards game-a-* and shared."""
    return open_app(
        _with(settings, server_keys=f"{settings.server_keys},{GAME_A}:game-a-*|shared"), clock
    )


async def test_scoped_key_writes_only_its_boards(settings: Settings, clock: ManualClock) -> None:
    async with _scoped(settings, clock) as app, open_client(app) as client:
        await put_board(client, "game-b-solo")
        created = await client.put("/v1/boards/game-a-solo", json={}, headers=A_AUTH)
        assert created.status_code == 201, created.text
        ok = await client.post("/v1/boards/game-a-solo/scores", json=_score("p1"), headers=A_AUTH)
        assert ok.status_code == 200, ok.text
        for method, path, body in [
            ("PUT", "/v1/boards/game-b-solo", {"title": "mine now"}),
            ("POST", "/v1/boards/game-b-solo/scores", _score("p1")),
            ("DELETE", "/v1/boards/game-b-solo", None),
            ("PUT", "/v1/boards/game-b-new", {}),
        ]:
            response = await client.request(method, path, json=body, headers=A_AUTH)
            problem = assert_problem(response, 403)
            assert "game-a-*|shared" in problem["detail"]
            assert "game-b-" in problem["detail"]
        assert (await client.get("/v1/boards/game-b-solo")).json()["title"] != "mine now"
        assert (await client.get("/v1/boards/game-b-new")).status_code == 404
        top = await client.get("/v1/boards/game-b-solo/top")
        assert top.json()["entries"] == []


async def test_scoped_key_batch_refuses_other_boards_per_item(
    settings: Settings, clock: ManualClock
) -> None:
    async with _scoped(settings, clock) as app, open_client(app) as client:
        await put_board(client, "game-a-solo")
        await put_board(client, "game-b-solo")
        items = [
            {"board": "game-a-solo", **_score("p1")},
            {"board": "game-b-solo", **_score("p2")},
        ]
        response = await client.post("/v1/scores/batch", json={"scores": items}, headers=A_AUTH)
        assert response.status_code == 200, response.text
        first, second = response.json()["results"]
        assert first["index"] == 0 and first["applied"] is True
        assert second["index"] == 1 and second["error"]["status"] == 403
        assert "game-b-solo" in second["error"]["detail"]
        assert (await client.get("/v1/boards/game-b-solo/top")).json()["entries"] == []
        # an unlimited key writes both
        response = await client.post("/v1/scores/batch", json={"scores": items}, headers=AUTH)
        assert [r.get("error") for r in response.json()["results"]] == [None, None]


async def test_scoped_key_cannot_change_players(settings: Settings, clock: ManualClock) -> None:
    async with _scoped(settings, clock) as app, open_client(app) as client:
        for method, path, body in [
            ("PUT", "/v1/players/p1", {"display_name": "Ada"}),
            ("PUT", "/v1/players/p1/friends", {"friends": ["p2"]}),
            ("POST", "/v1/players/p1/ban", None),
            ("DELETE", "/v1/players/p1/ban", None),
            ("DELETE", "/v1/players/p1", None),
        ]:
            response = await client.request(method, path, json=body, headers=A_AUTH)
            assert "without board limits" in assert_problem(response, 403)["detail"]
        allowed = await client.put("/v1/players/p1", json={"display_name": "Ada"}, headers=AUTH)
        assert allowed.status_code == 201, allowed.text


def test_server_key_format() -> None:
    assert auth.parse_server_key("plain-key") == ("plain-key", None)
    key, scope = auth.parse_server_key("k1:game-a-*|arena")
    assert key == "k1" and scope is not None
    assert scope.allows("game-a-solo") and scope.allows("arena")
    assert not scope.allows("game-b-solo") and not scope.allows("arena-2")
    for bad in ("k1:", "k1:a||b", ":game-a-*", "k1:a b"):
        with pytest.raises(ValueError, match="key:pattern"):
            auth.parse_server_key(bad)
    keys = auth.Keys(["plain", "k1:game-a-*"], [])
    assert keys._scopes[0] is None and keys._scopes[1] is not None
