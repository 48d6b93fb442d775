"""Board definitions across workers.

Two services (each with its own app and caches) share one Redis index and one durable
store, as two ``rankline serve`` workers do.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from backends import ALL, Backend, selected
from helpers_api import AUTH, assert_problem, get_json, open_app, open_client, put_board, submit
from rankline import ManualClock, Settings

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
