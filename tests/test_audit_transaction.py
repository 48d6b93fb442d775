"""The audit log has an entry for a change made by hand exactly when the change committed:
board definitions (create, change, freeze, unfreeze, delete), tournament definitions, bans,
unbans, erasure and moderation each write their entry in the change's own transaction, on
every store.

The proof uses the real database: a trigger refuses the audit row of a change whose reason
is ``refused`` (on PostgreSQL a deferred constraint trigger, so the transaction fails at
COMMIT, after every statement of the change and its record ran). Each change made with that
reason is answered with an error and leaves nothing behind: neither the change nor an entry.
A change that fails on its own (nothing to unban, no such board, a definition refused)
leaves no entry either."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from helpers_api import AUTH, assert_problem, get_json, ranking, submit
from helpers_backends import selected
from rankline.http.app import Application

STORES = [
    name for name in ("memory-sqlite", "memory-postgresql", "redis-mariadb") if name in selected()
]
pytestmark = pytest.mark.parametrize("stack", STORES, indirect=True)

REFUSED = "refused"
ERASED = "erased:" + hashlib.sha256(b"p1").hexdigest()[:12]

_SQLITE = [
    "CREATE TRIGGER rl_test_refuse BEFORE INSERT ON rl_audit WHEN NEW.reason = 'refused' "
    "BEGIN SELECT RAISE(ABORT, 'audit row refused by the test'); END",
]
_POSTGRESQL = [
    "CREATE OR REPLACE FUNCTION rl_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN IF NEW.reason = 'refused' THEN RAISE EXCEPTION 'audit row refused by the test'; "
    "END IF; RETURN NULL; END $$",
    "CREATE CONSTRAINT TRIGGER rl_test_refuse AFTER INSERT ON rl_audit "
    "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION rl_test_refuse()",
]
_MARIADB = [
    "CREATE TRIGGER rl_test_refuse BEFORE INSERT ON rl_audit FOR EACH ROW BEGIN "
    "IF NEW.reason = 'refused' THEN "
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'audit row refused by the test'; "
    "END IF; END",
]
_DROP = {
    "sqlite": ["DROP TRIGGER IF EXISTS rl_test_refuse"],
    "postgresql": [
        "DROP TRIGGER IF EXISTS rl_test_refuse ON rl_audit",
        "DROP FUNCTION IF EXISTS rl_test_refuse()",
    ],
    "mysql": ["DROP TRIGGER IF EXISTS rl_test_refuse"],
}


async def _run(engine: AsyncEngine, statements: list[str]) -> None:
    async with engine.begin() as conn:
        for statement in statements:
            await conn.exec_driver_sql(statement)


@pytest.fixture
async def refusing(app: Application) -> AsyncIterator[None]:
    """The trigger that refuses an audit row whose reason is ``refused``, in the app's own
    database (dropped again: the server databases outlive the test)."""
    engine: AsyncEngine = app.state.service.store.engine
    dialect = engine.dialect.name
    create = {"sqlite": _SQLITE, "postgresql": _POSTGRESQL, "mysql": _MARIADB}[dialect]
    await _run(engine, _DROP[dialect])
    await _run(engine, create)
    try:
        yield
    finally:
        await _run(engine, _DROP[dialect])


async def _log(client: httpx.AsyncClient) -> list[tuple[Any, ...]]:
    response = await client.get("/v1/audit", headers=AUTH)
    assert response.status_code == 200, response.text
    items = response.json()["items"]
    return [(i["action"], i.get("board"), i.get("player_id"), i.get("reason")) for i in items][::-1]


def _refused(response: httpx.Response) -> None:
    """The change failed because its audit row could not be written (a write conflict on
    SQLite, whose trigger aborts as a constraint does; unavailable on the others)."""
    assert response.status_code in (409, 503), response.text


async def test_a_change_and_its_audit_entry_commit_together(
    client: httpx.AsyncClient, refusing: None
) -> None:
    refused, ok = {"reason": REFUSED}, {"reason": "ok"}
    definition = {"order": "desc", "windows": ["all_time"]}

    # board.create
    _refused(await client.put("/v1/boards/arena", params=refused, json=definition, headers=AUTH))
    assert_problem(await client.get("/v1/boards/arena"), 404)
    assert await _log(client) == []
    response = await client.put("/v1/boards/arena", params=ok, json=definition, headers=AUTH)
    assert response.status_code == 201, response.text
    for player, score in (("p1", 10), ("p2", 20), ("p3", 30)):
        await submit(client, "arena", player, score, f"m-{player}")

    # board.change, board.freeze, board.unfreeze
    for change in ({"title": "Arena"}, {"status": "frozen"}):
        response = await client.put(
            "/v1/boards/arena", params=refused, json={**definition, **change}, headers=AUTH
        )
        _refused(response)
        board = await get_json(client, "/v1/boards/arena")
        assert (board["status"], board["title"]) == ("active", "arena")
    response = await client.put(
        "/v1/boards/arena", params=ok, json={**definition, "title": "Arena"}, headers=AUTH
    )
    assert response.status_code == 200, response.text
    frozen = {**definition, "title": "Arena", "status": "frozen"}
    response = await client.put("/v1/boards/arena", params=ok, json=frozen, headers=AUTH)
    assert response.status_code == 200, response.text
    active = {**frozen, "status": "active"}
    _refused(await client.put("/v1/boards/arena", params=refused, json=active, headers=AUTH))
    assert (await get_json(client, "/v1/boards/arena"))["status"] == "frozen"
    response = await client.put("/v1/boards/arena", params=ok, json=active, headers=AUTH)
    assert response.status_code == 200, response.text
    # a change refused on its own (the order of a board with entries) records nothing
    changed = {**active, "order": "asc"}
    assert_problem(await client.put("/v1/boards/arena", json=changed, headers=AUTH), 409)

    # player.ban, player.unban (a mistyped query parameter is refused before anything)
    typo = {"reson": "ok"}
    assert_problem(await client.post("/v1/players/p1/ban", params=typo, headers=AUTH), 422)
    assert_problem(await client.delete("/v1/boards/arena", params=typo, headers=AUTH), 422)
    _refused(await client.post("/v1/players/p1/ban", params=refused, headers=AUTH))
    assert await ranking(client, "arena") == [("p3", 30), ("p2", 20), ("p1", 10)]
    response = await client.post("/v1/players/p1/ban", params=ok, headers=AUTH)
    assert response.status_code == 200, response.text
    _refused(await client.delete("/v1/players/p1/ban", params=refused, headers=AUTH))
    assert await ranking(client, "arena") == [("p3", 30), ("p2", 20)]
    response = await client.delete("/v1/players/p1/ban", params=ok, headers=AUTH)
    assert response.status_code == 200, response.text
    assert await ranking(client, "arena") == [("p3", 30), ("p2", 20), ("p1", 10)]
    assert_problem(await client.delete("/v1/players/p1/ban", headers=AUTH), 404)

    # moderation: entry.remove, match.void
    _refused(await client.delete("/v1/boards/arena/players/p3", params=refused, headers=AUTH))
    response = await client.post(
        "/v1/boards/arena/matches/m-p2/void", json={"reason": REFUSED}, headers=AUTH
    )
    _refused(response)
    assert await ranking(client, "arena") == [("p3", 30), ("p2", 20), ("p1", 10)]
    response = await client.post(
        "/v1/boards/arena/matches/m-p2/void", json={"reason": "ok"}, headers=AUTH
    )
    assert response.status_code == 200, response.text
    assert await ranking(client, "arena") == [("p3", 30), ("p1", 10)]

    # player.erase: the refused erasure keeps the player and their id in the log
    _refused(await client.delete("/v1/players/p1", params=refused, headers=AUTH))
    assert await ranking(client, "arena") == [("p3", 30), ("p1", 10)]
    assert ("player.ban", None, "p1", "ok") in await _log(client)
    response = await client.delete("/v1/players/p1", params=ok, headers=AUTH)
    assert response.status_code == 204, response.text
    assert await ranking(client, "arena") == [("p3", 30)]
    assert_problem(await client.delete("/v1/players/p1", headers=AUTH), 404)

    # board.delete
    _refused(await client.delete("/v1/boards/arena", params=refused, headers=AUTH))
    assert await ranking(client, "arena") == [("p3", 30)]
    response = await client.delete("/v1/boards/arena", params=ok, headers=AUTH)
    assert response.status_code == 204, response.text
    assert_problem(await client.delete("/v1/boards/arena", headers=AUTH), 404)

    assert await _log(client) == [
        ("board.create", "arena", None, "ok"),
        ("board.change", "arena", None, "ok"),
        ("board.freeze", "arena", None, "ok"),
        ("board.unfreeze", "arena", None, "ok"),
        ("player.ban", None, ERASED, "ok"),
        ("player.unban", None, ERASED, "ok"),
        ("match.void", "arena", None, "ok"),
        ("player.erase", None, ERASED, "ok"),
        ("board.delete", "arena", None, "ok"),
    ]


async def test_a_tournament_change_and_its_audit_entry_commit_together(
    client: httpx.AsyncClient, refusing: None
) -> None:
    refused, ok = {"reason": REFUSED}, {"reason": "ok"}
    cup = {"title": "Cup", "starts_at": "2026-11-21T12:10:00Z", "ends_at": "2026-11-21T12:20:00Z"}

    # tournament.create: refused, then made (over the board the refused create left)
    _refused(await client.put("/v1/tournaments/cup", params=refused, json=cup, headers=AUTH))
    assert_problem(await client.get("/v1/tournaments/cup"), 404)
    response = await client.put("/v1/tournaments/cup", params=ok, json=cup, headers=AUTH)
    assert response.status_code == 201, response.text

    # tournament.change
    renamed = {**cup, "title": "Big cup"}
    _refused(await client.put("/v1/tournaments/cup", params=refused, json=renamed, headers=AUTH))
    assert (await get_json(client, "/v1/tournaments/cup"))["title"] == "Cup"
    response = await client.put("/v1/tournaments/cup", params=ok, json=renamed, headers=AUTH)
    assert response.status_code == 200, response.text
    # refused on its own: another query parameter, a definition the API refuses
    typo = {"reson": "ok"}
    assert_problem(
        await client.put("/v1/tournaments/cup", params=typo, json=cup, headers=AUTH), 422
    )
    bad = {**cup, "ends_at": cup["starts_at"]}
    assert_problem(await client.put("/v1/tournaments/cup", json=bad, headers=AUTH), 422)

    # tournament.delete
    _refused(await client.delete("/v1/tournaments/cup", params=refused, headers=AUTH))
    assert (await get_json(client, "/v1/tournaments/cup"))["title"] == "Big cup"
    response = await client.delete("/v1/tournaments/cup", params=ok, headers=AUTH)
    assert response.status_code == 204, response.text
    assert_problem(await client.delete("/v1/tournaments/cup", headers=AUTH), 404)

    assert await _log(client) == [
        ("tournament.create", "cup", None, "ok"),
        ("tournament.change", "cup", None, "ok"),
        ("tournament.delete", "cup", None, "ok"),
    ]
