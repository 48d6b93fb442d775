"""Ranking extras: when a read's period ends and closes (``period_ends_at``, ``closes_at``),
the rank a score would get (``rank-of``), tiers and dense ranks, each checked on every
backend stack against a naive model of the leaderboard."""

from __future__ import annotations

from typing import Any

import httpx
from starlette.applications import Starlette

from helpers_api import get_json, put_board, submit, utc
from rankline import ManualClock
from test_stream import SSE

# --- period_ends_at and closes_at -----------------------------------------------------------

SEASONS = [{"id": "s1", "start": "2026-11-01T00:00:00Z", "end": "2026-12-01T00:00:00Z"}]


async def test_every_read_says_when_its_period_ends_and_closes(client: httpx.AsyncClient) -> None:
    await put_board(
        client,
        "arena",
        windows=["all_time", "daily", "weekly", "monthly"],
        seasons=SEASONS,
        grace_seconds=60,
    )
    await submit(client, "arena", "p1", 10)
    expected: dict[str, tuple[str | None, str | None]] = {
        "all_time": (None, None),
        "daily": ("2026-11-22T00:00:00.000Z", "2026-11-22T00:01:00.000Z"),
        "weekly": ("2026-11-23T00:00:00.000Z", "2026-11-23T00:01:00.000Z"),
        "monthly": ("2026-12-01T00:00:00.000Z", "2026-12-01T00:01:00.000Z"),
        "season": ("2026-12-01T00:00:00.000Z", "2026-12-01T00:01:00.000Z"),
    }
    for window, (ends, closes) in expected.items():
        for path, method, body in (
            ("/v1/boards/arena/top", "GET", None),
            ("/v1/boards/arena/players/p1", "GET", None),
            ("/v1/boards/arena/players/p1/around", "GET", None),
            ("/v1/boards/arena/players/p1/friends", "POST", {"friends": []}),
            ("/v1/boards/arena/ranks", "POST", {"player_ids": ["p1"]}),
        ):
            response = await client.request(method, path, params={"window": window}, json=body)
            assert response.status_code == 200, response.text
            answer = response.json()
            assert (answer["period_ends_at"], answer["closes_at"]) == (ends, closes), (
                window,
                path,
            )


async def test_a_past_period_and_a_changed_grace_show_in_the_head(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"])
    await submit(client, "arena", "p1", 10)
    body = await get_json(client, "/v1/boards/arena/top", window="daily", period="2026-11-20")
    assert (body["period_ends_at"], body["closes_at"]) == (
        "2026-11-21T00:00:00.000Z",
        "2026-11-21T00:05:00.000Z",
    )
    await put_board(client, "arena", 200, windows=["all_time", "daily"], grace_seconds=3600)
    body = await get_json(client, "/v1/boards/arena/players/p1", window="daily")
    assert body["closes_at"] == "2026-11-22T01:00:00.000Z"
    clock.set(utc(2026, 11, 22, 0, 30))  # a new day: the default period moves with it
    body = await get_json(client, "/v1/boards/arena/top", window="daily")
    assert (body["period"], body["period_ends_at"]) == ("2026-11-22", "2026-11-23T00:00:00.000Z")


async def test_stream_events_carry_the_period_end(
    app: Starlette, client: httpx.AsyncClient
) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"])
    await submit(client, "arena", "p1", 10)
    async with SSE(app, "arena", window="daily", players="p1") as stream:
        seen: dict[str, Any] = {}
        while len(seen) < 2:
            name, data = await stream.next()
            seen[name] = data
    for name in ("top", "player"):
        assert seen[name]["period_ends_at"] == "2026-11-22T00:00:00.000Z", name
        assert seen[name]["closes_at"] == "2026-11-22T00:05:00.000Z", name
