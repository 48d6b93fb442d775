"""Top-K snapshots by time: two workers on one database take each interval once, a missed
interval is skipped, stored snapshots never change, ``GET …/top?at=`` answers the latest at or
before the instant, ``GET …/snapshots`` lists them, and they go after ``keep_days``. Every
test but the one of the board's options runs on each backend stack (the second worker is a
second service where the stack allows one, else a second taker on the same database)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from helpers_api import (
    AUTH,
    assert_problem,
    get_json,
    iso,
    open_app,
    open_client,
    put_board,
    submit,
    top,
    utc,
)
from rankline import ManualClock, Settings
from rankline.lifecycle.snapshots import Snapshots
from rankline.store.snapshots import SnapshotStore
from rankline.types import LeaderboardId

START = utc(2026, 11, 21, 12, 0, 0)
SNAPSHOTS = {"every_seconds": 10, "k": 3, "keep_days": 1}


@asynccontextmanager
async def _second_worker(
    settings: Settings, clock: ManualClock, app: Starlette
) -> AsyncIterator[Snapshots]:
    """Another worker's taker: a second service on the same database and Redis (with an
    in-process index, where workers cannot share one: a second taker of the same service)."""
    service = app.state.service
    if settings.redis_url is None:
        store = SnapshotStore(service.store)
        yield Snapshots(store, service.boards, service.gateway, clock, "second")
        return
    async with AsyncExitStack() as stack:
        other = await stack.enter_async_context(open_app(settings, clock))
        await other.state.service.boards.refresh()
        yield other.state.service.snapshots


async def _take(workers: list[Snapshots]) -> list[tuple[LeaderboardId, int]]:
    """Both workers at once: everything either took."""
    found = await asyncio.gather(*(w.take_due() for w in workers))
    return [taken for each in found for taken in each]


def _names(body: dict[str, Any]) -> list[tuple[str, int]]:
    return [(e["player_id"], e["score"]) for e in body["entries"]]


async def test_two_workers_take_each_interval_once_and_skip_missed_ones(
    settings: Settings, clock: ManualClock
) -> None:
    clock.set(START)
    settings = settings.model_copy(update={"snapshot_check_seconds": 0})  # the test takes them
    async with open_app(settings, clock) as app, open_client(app) as client:
        await put_board(client, "arena", windows=["all_time", "daily"], snapshots=SNAPSHOTS)
        for i, score in enumerate([50, 40, 30, 20]):
            await submit(client, "arena", f"p{i}", score, "m1")
        async with _second_worker(settings, clock, app) as second:
            workers = [app.state.service.snapshots, second]
            taken: list[tuple[LeaderboardId, int]] = []
            tops: dict[datetime, list[tuple[str, int]]] = {}
            for step in range(4):
                now = START + timedelta(seconds=10 * step + 3)
                clock.set(now)
                tops[now] = _names(await top(client, "arena", limit=3))
                taken += await _take(workers)
                taken += await _take(workers)  # again in the same interval: nothing more
                await submit(client, "arena", f"new{step}", 45 + step, "m1")
            # a worker down for three intervals: the current one is taken, none back-filled
            clock.set(START + timedelta(seconds=73))
            taken += await _take(workers)
        counts = Counter(taken)
        assert set(counts.values()) == {1}
        slots = sorted({slot for _, slot in counts})
        first = int(START.timestamp()) // 10
        assert slots == [first, first + 1, first + 2, first + 3, first + 7]
        assert {lb.window for lb, _ in counts} == {"all_time", "daily"}
        assert len(counts) == 2 * len(slots)

        listing = await get_json(client, "/v1/boards/arena/snapshots")
        assert [s["taken_at"] for s in listing["snapshots"]] == [
            iso(START + timedelta(seconds=s)) for s in (73, 33, 23, 13, 3)
        ]
        assert [s["entries"] for s in listing["snapshots"]] == [3] * 5
        assert [s["total"] for s in listing["snapshots"]] == [8, 7, 6, 5, 4]
        # each stored top is the top as it was, whatever came since
        for when, expected in tops.items():
            for later in (when, when + timedelta(seconds=6)):
                body = await top(client, "arena", at=iso(later))
                assert _names(body) == expected
                assert body["taken_at"] == body["as_of"] == iso(when)
        daily = await top(client, "arena", at=iso(START + timedelta(seconds=15)), window="daily")
        assert (daily["period"], daily["total"]) == ("2026-11-21", 5)
        assert _names(
            await top(client, "arena", at=iso(START + timedelta(seconds=5)), limit=2)
        ) == [
            ("p0", 50),
            ("p1", 40),
        ]
        # before the first snapshot, or on a board that keeps none: 404
        assert_problem(await client.get("/v1/boards/arena/top", params={"at": iso(START)}), 404)
        await put_board(client, "plain")
        at = {"at": iso(START + timedelta(seconds=5))}
        assert_problem(await client.get("/v1/boards/plain/top", params=at), 404)
        bad = await client.get("/v1/boards/arena/top", params={"at": "yesterday"})
        assert bad.status_code == 422

        # kept keep_days: a day later, what is older goes
        clock.set(START + timedelta(days=1, seconds=20))
        await _take([app.state.service.snapshots])
        left = await get_json(client, "/v1/boards/arena/snapshots", window="all_time")
        assert [s["taken_at"] for s in left["snapshots"]] == [
            iso(START + timedelta(days=1, seconds=20)),
            iso(START + timedelta(seconds=73)),
            iso(START + timedelta(seconds=33)),
            iso(START + timedelta(seconds=23)),
        ]


@pytest.mark.edge
async def test_snapshot_options_are_checked_and_shown(client: httpx.AsyncClient) -> None:
    board = await put_board(client, "arena", snapshots={"every_seconds": 30})
    assert board["snapshots"] == {"every_seconds": 30, "k": 100, "keep_days": 7}
    assert "snapshots" not in await put_board(client, "plain")
    response = await client.put(
        "/v1/boards/fast", json={"snapshots": {"every_seconds": 5}}, headers=AUTH
    )
    assert_problem(response, 422)
