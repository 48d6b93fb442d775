"""The audit log: every change made by hand, with who (a key's fingerprint, never the key),
when, what and why; newest first, paged with a cursor, filtered by board and player; a key
limited to boards reads only theirs."""

from __future__ import annotations

import hashlib
from typing import Any

import httpx
import pytest

from helpers_api import (
    AUTH,
    NOW,
    SERVER_KEY,
    assert_problem,
    get_json,
    open_app,
    open_client,
    put_board,
    submit,
)
from rankline import ManualClock, Settings
from rankline.client import ApiError, AsyncClient
from rankline.store.dead_letters import DeadLetter

# The edge and one SQL table: one stack is enough (test_moderation covers the stacks).
pytestmark = pytest.mark.edge

ACTOR = "key:" + hashlib.sha256(SERVER_KEY.encode()).hexdigest()[:12]
GAME_A = "key-game-a"
A_AUTH = {"Authorization": f"Bearer {GAME_A}"}
DAILY = ["all_time", "daily"]
ERASED = "erased:" + hashlib.sha256(b"p1").hexdigest()[:12]
A_ACTOR = "key:" + hashlib.sha256(GAME_A.encode()).hexdigest()[:12]


async def _audit(client: httpx.AsyncClient, **params: Any) -> dict[str, Any]:
    response = await client.get("/v1/audit", params=params, headers=AUTH)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _brief(items: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(i["action"], i.get("board"), i.get("player_id"), i.get("reason")) for i in items]


async def test_every_hand_made_change_is_recorded_newest_first(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(settings, clock) as app, open_client(app) as client:
        await put_board(client, "arena", windows=DAILY)
        await put_board(client, "arena", 200, title="Arena", windows=DAILY)
        await put_board(client, "arena", 200, status="frozen", windows=DAILY)
        await put_board(client, "arena", 200, status="active", windows=DAILY)
        await submit(client, "arena", "p1", 10)  # a submission is no hand-made change
        await submit(client, "arena", "p2", 20)
        response = await client.post(
            "/v1/players/p1/ban", params={"reason": "aimbot"}, headers=AUTH
        )
        assert response.status_code == 200, response.text
        assert (await client.delete("/v1/players/p1/ban", headers=AUTH)).status_code == 200
        removed = await client.delete(
            "/v1/boards/arena/players/p2", params={"reason": "test account"}, headers=AUTH
        )
        assert removed.status_code == 200, removed.text
        reset = await client.post(
            "/v1/boards/arena/reset", json={"window": "daily", "reason": "restart"}, headers=AUTH
        )
        assert reset.status_code == 200, reset.text
        assert (await client.delete("/v1/players/p1", headers=AUTH)).status_code == 204
        await put_board(client, "other")
        assert (await client.delete("/v1/boards/other", headers=AUTH)).status_code == 204
        # failures are not recorded
        assert_problem(await client.delete("/v1/players/p1/ban", headers=AUTH), 404)
        assert_problem(await client.delete("/v1/boards/arena/players/p9", headers=AUTH), 404)
        assert_problem(await client.put("/v1/boards/x", json={"order": 1}, headers=AUTH), 422)

        body = await _audit(client)
        assert "next" not in body
        assert _brief(body["items"]) == [
            ("board.delete", "other", None, None),
            ("board.create", "other", None, None),
            ("player.erase", None, ERASED, None),
            ("board.reset", "arena", None, "restart"),
            ("entry.remove", "arena", "p2", "test account"),
            ("player.unban", None, ERASED, None),
            ("player.ban", None, ERASED, "aimbot"),
            ("board.unfreeze", "arena", None, None),
            ("board.freeze", "arena", None, None),
            ("board.change", "arena", None, None),
            ("board.create", "arena", None, None),
        ]
        items = body["items"]
        assert all(i["actor"] == ACTOR and i["at"] == NOW for i in items)
        assert SERVER_KEY not in str(body)
        assert [int(i["id"]) for i in items] == sorted((int(i["id"]) for i in items), reverse=True)
        assert items[3]["detail"] == {"removed": 1, "window": "daily", "period": "2026-11-21"}
        assert items[4]["detail"] == {"removed": 2}
        assert items[9]["detail"]["definition"]["title"] == "Arena"

        # filters and pages (an erased player's id is gone: their entries name a hash of it)
        assert (await _audit(client, player="p1"))["items"] == []
        assert _brief((await _audit(client, player=ERASED))["items"]) == [
            ("player.erase", None, ERASED, None),
            ("player.unban", None, ERASED, None),
            ("player.ban", None, ERASED, "aimbot"),
        ]
        arena = (await _audit(client, board="arena"))["items"]
        assert len(arena) == 6 and {i["board"] for i in arena} == {"arena"}
        seen: list[dict[str, Any]] = []
        page = await _audit(client, limit=4)
        while True:
            seen += page["items"]
            if "next" not in page:
                break
            assert len(page["items"]) == 4
            page = await _audit(client, limit=4, cursor=page["next"])
        assert seen == items
        for params in ({"cursor": "nope"}, {"limit": 0}, {"board": "Bad Id"}):
            response = await client.get("/v1/audit", params=params, headers=AUTH)
            assert_problem(response, 422)
        assert_problem(await client.get("/v1/audit"), 401)
        response = await client.post(
            "/v1/players/p9/ban", params={"reason": "x" * 1001}, headers=AUTH
        )
        assert_problem(response, 422)


async def test_a_key_limited_to_boards_moderates_and_reads_only_those(
    settings: Settings, clock: ManualClock
) -> None:
    scoped = settings.model_copy(update={"server_keys": f"{settings.server_keys},{GAME_A}:game-a*"})
    async with open_app(scoped, clock) as app, open_client(app) as client:
        for board in ("game-a", "game-b"):
            await put_board(client, board)
            await submit(client, board, "p1", 10)
        for method, path, body in [
            ("DELETE", "/v1/boards/game-b/players/p1", None),
            ("POST", "/v1/boards/game-b/reset", {}),
        ]:
            response = await client.request(method, path, json=body, headers=A_AUTH)
            assert_problem(response, 403)
        assert_problem(await client.get("/v1/audit", headers=A_AUTH), 422)
        response = await client.get("/v1/audit", params={"board": "game-b"}, headers=A_AUTH)
        assert_problem(response, 403)
        response = await client.delete("/v1/boards/game-a/players/p1", headers=A_AUTH)
        assert response.status_code == 200, response.text
        response = await client.get("/v1/audit", params={"board": "game-a"}, headers=A_AUTH)
        assert response.status_code == 200, response.text
        actors = [(i["action"], i["actor"]) for i in response.json()["items"]]
        assert actors == [("entry.remove", A_ACTOR), ("board.create", ACTOR)]
        game_b = await get_json(client, "/v1/boards/game-b/top")
        assert [e["player_id"] for e in game_b["entries"]] == ["p1"]


async def test_the_python_client_moderates_and_reads_the_log(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(settings, clock) as app:
        transport = httpx.ASGITransport(app=app)
        async with AsyncClient("http://t", server_key=SERVER_KEY, transport=transport) as rl:
            await rl.put_board("arena", windows=DAILY)
            for player, score in (("p:1", 10), ("p:2", 20), ("p:3", 30)):
                await rl.submit("arena", player, score, match_id="m1")
            await rl.submit("arena", "p:1", 5, match_id="m2")
            removed = await rl.remove_entry("arena", "p:3", window="daily", reason="dup")
            assert removed["removed"] == 1
            voided = await rl.void_match("arena", "m1", reason="bad server")
            assert voided["players"] == ["p:1", "p:2", "p:3"]
            top = await rl.top("arena")
            assert [(e["player_id"], e["score"]) for e in top["entries"]] == [("p:1", 5)]
            reset = await rl.reset("arena", window="daily")
            assert reset["removed"] == 1
            page = await rl.audit(board="arena", limit=2)
            assert [i["action"] for i in page["items"]] == ["board.reset", "match.void"]
            older = await rl.audit(board="arena", limit=2, cursor=page["next"])
            assert [i["action"] for i in older["items"]] == ["entry.remove", "board.create"]
            assert [i["action"] for i in (await rl.audit(player_id="p:3"))["items"]] == [
                "entry.remove"
            ]
            with pytest.raises(ApiError) as refused:
                await rl.void_match("arena", "m1")
            assert refused.value.status == 409
            assert (await rl.dead_letters(board="arena")) == {"total": 0, "items": []}


async def test_dead_letters_are_listed_for_the_server_key(
    settings: Settings, clock: ManualClock
) -> None:
    scoped = settings.model_copy(update={"server_keys": f"{settings.server_keys},{GAME_A}:game-a*"})
    async with open_app(scoped, clock) as app, open_client(app) as client:
        await app.state.service.dead_letters.add(
            [
                DeadLetter("game-a", "p1", "m1", 0, 7, "board frozen", '{"score": 5}', clock.now()),
                DeadLetter(
                    "game-b", "p2", "m2", 0, 8, "board deleted", '{"score": 6}', clock.now()
                ),
            ]
        )
        response = await client.get("/v1/dead-letters", headers=AUTH)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["total"] == 2
        assert [(i["board"], i["reason"], i["submission"]) for i in body["items"]] == [
            ("game-b", "board deleted", {"score": 6}),
            ("game-a", "board frozen", {"score": 5}),
        ]
        assert body["items"][0]["failed_at"] == NOW
        mine = await client.get("/v1/dead-letters", params={"board": "game-a"}, headers=A_AUTH)
        assert [i["player_id"] for i in mine.json()["items"]] == ["p1"]
        assert_problem(await client.get("/v1/dead-letters", headers=A_AUTH), 422)
        response = await client.get("/v1/dead-letters", params={"board": "game-b"}, headers=A_AUTH)
        assert_problem(response, 403)
        assert_problem(await client.get("/v1/dead-letters", params={"limit": 0}, headers=AUTH), 422)
