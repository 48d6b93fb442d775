"""Board definitions are read-your-writes across workers.

Two services (each with its own app, registry and caches) share one Redis index and one
durable store, as two ``rankline serve`` workers do. A board change acknowledged by one is
seen by the very next request to the other: the definition, the board list, writes (409 on
a frozen board, 404 on a deleted one) and leaderboard reads. No test here sleeps: no timer
decides what the other service sees.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from helpers_api import AUTH, assert_problem, get_json, open_app, open_client, put_board, submit
from helpers_backends import ALL, Backend, selected
from rankline import ManualClock, Rankline, Settings
from rankline.index.gateway import CheckedVersions
from rankline.index.redis.link import RedisLink

BOARD = "shared"


@pytest.fixture(params=[name for name in selected() if ALL[name].redis_url is not None])
def stack(request: pytest.FixtureRequest) -> Backend:
    """Only the shared index: several workers always run on Redis."""
    return ALL[request.param]


@pytest.fixture
async def pair(
    settings: Settings, clock: ManualClock
) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    async with (
        open_app(settings, clock) as one,
        open_app(settings, clock) as other,
        open_client(one) as a,
        open_client(other) as b,
    ):
        yield a, b


async def _board(client: httpx.AsyncClient) -> dict[str, Any]:
    return await get_json(client, f"/v1/boards/{BOARD}")


async def _listed(client: httpx.AsyncClient) -> dict[str, dict[str, Any]]:
    body = await get_json(client, "/v1/boards")
    return {board["id"]: board for board in body["boards"]}


async def _top(client: httpx.AsyncClient) -> list[tuple[str, int]]:
    body = await get_json(client, f"/v1/boards/{BOARD}/top")
    return [(e["player_id"], e["score"]) for e in body["entries"]]


async def _post(client: httpx.AsyncClient, player: str, score: int) -> httpx.Response:
    body = {"player_id": player, "score": score, "match_id": f"m-{player}-{score}"}
    return await client.post(f"/v1/boards/{BOARD}/scores", json=body, headers=AUTH)


async def test_board_changes_are_seen_at_once_by_another_worker(
    pair: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    a, b = pair
    # Both have read the board list (and so hold a registry) before anything changes.
    assert await _listed(a) == await _listed(b) == {}

    # Created on one: the other reads it, lists it, takes a write, ranks it.
    created = await put_board(a, BOARD, title="Shared", windows=["all_time"])
    assert await _board(b) == created
    assert await _listed(b) == {BOARD: created}
    await submit(b, BOARD, "p1", 10)
    assert await _top(b) == [("p1", 10)]
    assert await _top(a) == [("p1", 10)]
    player = await get_json(b, f"/v1/boards/{BOARD}/players/p1")
    assert player["rank"] == 1

    # Renamed on one: the other shows the new title at once, in the board and the list.
    renamed = await put_board(a, BOARD, 200, title="Renamed", windows=["all_time"])
    assert (await _board(b))["title"] == "Renamed"
    assert await _listed(b) == {BOARD: renamed}

    # Frozen on one: the other shows it frozen, refuses writes, still answers reads.
    frozen = await put_board(a, BOARD, 200, title="Renamed", status="frozen")
    assert (await _board(b))["status"] == "frozen"
    assert await _listed(b) == {BOARD: frozen}
    assert_problem(await _post(b, "p2", 20), 409)
    assert await _top(b) == [("p1", 10)]

    # Thawed on one: the other takes writes again at once.
    await put_board(a, BOARD, 200, title="Renamed", status="active")
    assert (await _board(b))["status"] == "active"
    await submit(b, BOARD, "p2", 20)
    assert await _top(b) == [("p2", 20), ("p1", 10)]
    assert await _top(a) == [("p2", 20), ("p1", 10)]

    # Deleted on one: gone from the other's board, list, writes and reads.
    response = await a.delete(f"/v1/boards/{BOARD}", headers=AUTH)
    assert response.status_code == 204, response.text
    assert_problem(await b.get(f"/v1/boards/{BOARD}"), 404)
    assert await _listed(b) == {}
    assert_problem(await _post(b, "p3", 30), 404)
    assert_problem(await b.get(f"/v1/boards/{BOARD}/top"), 404)
    assert_problem(await b.get(f"/v1/boards/{BOARD}/players/p1"), 404)

    # Recreated on one with another order: the other ranks by the new definition.
    again = await put_board(a, BOARD, order="asc", windows=["all_time"])
    assert await _board(b) == again
    assert await _top(b) == []
    await submit(b, BOARD, "p4", 5)
    await submit(a, BOARD, "p5", 7)
    assert await _top(b) == [("p4", 5), ("p5", 7)]


async def test_a_board_changed_elsewhere_is_updated_not_created(
    pair: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    a, b = pair
    assert await _listed(b) == {}
    await put_board(a, BOARD, windows=["all_time"])
    await submit(a, BOARD, "p1", 10)
    # The other one never read this board: its PUT still checks the stored definition.
    response = await b.put(f"/v1/boards/{BOARD}", json={"order": "asc"}, headers=AUTH)
    assert_problem(response, 409)
    updated = await put_board(b, BOARD, 200, title="Again", windows=["all_time"])
    assert await _board(a) == updated


async def test_degraded_worker_reads_board_changes_from_sql(
    pair: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    """A worker that cannot use Redis (degraded) takes board definitions from SQL."""
    a, b = pair
    await put_board(a, BOARD, windows=["all_time"])
    await submit(a, BOARD, "p1", 10)
    assert await _top(b) == [("p1", 10)]
    b_service: Rankline = b._transport.app.state.service  # type: ignore[attr-defined]
    # The other one loses its index: no watch loop brings it back during this test.
    for task in b_service._tasks:
        if task.get_name() == "rankline-watch":
            task.cancel()
    b_service.health.degrade("told to by the test")
    assert (await get_json(b, f"/v1/boards/{BOARD}/top"))["degraded"] is True
    await put_board(a, BOARD, 200, status="frozen")
    assert (await _board(b))["status"] == "frozen"
    assert_problem(await _post(b, "p2", 20), 409)
    response = await a.delete(f"/v1/boards/{BOARD}", headers=AUTH)
    assert response.status_code == 204, response.text
    assert_problem(await b.get(f"/v1/boards/{BOARD}"), 404)
    assert_problem(await b.get(f"/v1/boards/{BOARD}/top"), 404)
    assert await _listed(b) == {}


async def test_a_write_is_checked_against_the_stored_definition(
    pair: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    """The group commit checks a submission against the definition it reads in its own
    transaction, whatever the worker's registry held when it validated the request."""
    a, b = pair
    await put_board(a, BOARD, windows=["all_time"], scopes=["region"])
    await submit(b, BOARD, "p1", 10)
    await put_board(a, BOARD, 200, windows=["all_time"], scopes=["region"], max_score=50)
    response = await _post(b, "p2", 60)
    assert_problem(response, 422)
    assert await _top(a) == [("p1", 10)]
    await submit(b, BOARD, "p2", 50)
    assert await _top(a) == [("p2", 50), ("p1", 10)]


async def test_a_board_change_that_cannot_be_announced_changes_nothing(
    pair: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    """Without Redis the other workers could not learn of a change: it answers 503 and
    records nothing."""
    a, b = pair
    await put_board(a, BOARD, windows=["all_time"])
    a_service: Rankline = a._transport.app.state.service  # type: ignore[attr-defined]
    lost = RedisLink("redis://127.0.0.1:1/0")  # nothing listens there
    kept, a_service.boards._versions = (
        a_service.boards._versions,
        CheckedVersions(lost.board_versions(), a_service.health),
    )
    try:
        response = await a.put(f"/v1/boards/{BOARD}", json={"status": "frozen"}, headers=AUTH)
        assert_problem(response, 503)
        response = await a.delete(f"/v1/boards/{BOARD}", headers=AUTH)
        assert_problem(response, 503)
    finally:
        a_service.boards._versions = kept
        await lost.close()
    assert (await _board(b))["status"] == "active"
    assert (await _board(a))["status"] == "active"
    await submit(b, BOARD, "p1", 10)
