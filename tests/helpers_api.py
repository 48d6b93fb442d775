"""Helpers shared by the tests/test_api_*.py files: requests with checked answers."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import httpx
from asgi_lifespan import LifespanManager

from rankline import ManualClock, Settings
from rankline.http import create_app
from rankline.http.app import Application

SERVER_KEY = "test-server-key"
AUTH = {"Authorization": f"Bearer {SERVER_KEY}"}
JSON = {"content-type": "application/json"}
TIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
NOW = "2026-11-21T12:00:00.000Z"
"""The conftest clock's start, as every `as_of` shows it while the clock stands still."""


MOVEMENT = ("previous_rank", "best_rank")
"""A player view's movement: what the live index recorded at the player's changes, null
where nothing vouches for it (after a rebuild, from SQL or the archive, on a sharded board)."""


def unmoved(body: Any) -> Any:
    """``body`` without the movement fields, at any depth: for comparing answers read where
    movement differs by design (its own tests check it: test_api_movement.py)."""
    if isinstance(body, dict):
        return {key: unmoved(value) for key, value in body.items() if key not in MOVEMENT}
    if isinstance(body, list | tuple):
        return type(body)(unmoved(value) for value in body)
    return body


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def iso(when: datetime) -> str:
    """RFC 3339 with milliseconds, as the API renders times."""
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def assert_time(value: Any) -> None:
    assert isinstance(value, str) and TIME_RE.match(value), value


def assert_problem(response: httpx.Response, status: int) -> dict[str, Any]:
    """An RFC 9457 problem with the given status; returns its body."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert {"type", "title", "status", "detail"} <= body.keys()
    assert set(body) <= {"type", "title", "status", "detail", "errors", "existing", "reason"}
    assert body["status"] == status
    assert isinstance(body["type"], str) and body["type"]
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str)
    assert "Traceback" not in response.text
    return body


def error_locs(response: httpx.Response) -> list[list[str | int]]:
    body = assert_problem(response, 422)
    assert body["errors"], body
    for item in body["errors"]:
        assert isinstance(item["msg"], str) and item["msg"]
    return [item["loc"] for item in body["errors"]]


async def put_board(
    client: httpx.AsyncClient, board_id: str, expect: int = 201, **spec: Any
) -> dict[str, Any]:
    response = await client.put(f"/v1/boards/{board_id}", json=spec, headers=AUTH)
    assert response.status_code == expect, response.text
    body: dict[str, Any] = response.json()
    return body


async def post_score(
    client: httpx.AsyncClient, board_id: str, body: dict[str, Any]
) -> httpx.Response:
    return await client.post(f"/v1/boards/{board_id}/scores", json=body, headers=AUTH)


async def submit(
    client: httpx.AsyncClient,
    board_id: str,
    player: str,
    score: int,
    match: str | None = None,
    at: datetime | str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """Submit one score and return the 200 answer."""
    body: dict[str, Any] = {
        "player_id": player,
        "score": score,
        "match_id": match or f"m-{player}-{score}",
        **extra,
    }
    if at is not None:
        body["at"] = at if isinstance(at, str) else iso(at)
    response = await post_score(client, board_id, body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def recorded(
    client: httpx.AsyncClient, players: list[str], board: str = "arena"
) -> dict[str, int]:
    """How many submissions the store holds for each player on ``board`` (its history)."""
    counts = {}
    for player in players:
        history = await client.get(f"/v1/players/{player}/history", params={"board": board})
        counts[player] = len(history.json()["items"]) if history.status_code == 200 else 0
    return counts


async def get_json(client: httpx.AsyncClient, url: str, **params: Any) -> dict[str, Any]:
    response = await client.get(url, params=params or None)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = response.json()
    return body


async def top(client: httpx.AsyncClient, board_id: str, **params: Any) -> dict[str, Any]:
    return await get_json(client, f"/v1/boards/{board_id}/top", **params)


async def ranking(client: httpx.AsyncClient, board_id: str, **params: Any) -> list[tuple[str, int]]:
    """(player_id, score) of a leaderboard's top 1000, in rank order."""
    body = await top(client, board_id, limit=1000, **params)
    return [(e["player_id"], e["score"]) for e in body["entries"]]


@asynccontextmanager
async def open_app(settings: Settings, clock: ManualClock) -> AsyncIterator[Application]:
    """A started app (lifespan run, index built) for settings other than the conftest ones."""
    application = create_app(settings, clock=clock)
    async with LifespanManager(application, startup_timeout=60, shutdown_timeout=60):
        await application.state.service.wait_ready()
        yield application


@asynccontextmanager
async def open_client(app: Application) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://rankline.test") as c:
        yield c


@asynccontextmanager
async def serve(settings: Settings, clock: ManualClock) -> AsyncIterator[httpx.AsyncClient]:
    """A client for a freshly started app on ``settings``."""
    async with open_app(settings, clock) as app, open_client(app) as client:
        yield client
