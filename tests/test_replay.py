"""``rankline replay`` rebuilds the standings from the score events, as the writes made them.

On every store (SQLite, PostgreSQL, MariaDB; the in-process and the Redis index): a varied
workload goes through the real API (best, latest, sum and first boards; daily and weekly
windows; scopes; duplicates; late submissions after a period's grace; a banned and an erased
player). Every standing (with its revision) and every leaderboard's reads are recorded; then
the standings are deleted (and Redis flushed), the replay runs, and the standings, the reads
and ``maintenance.verify`` must come out as before.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import delete, select

from helpers_api import AUTH, iso, open_app, open_client, put_board, submit, unmoved
from helpers_backends import ALL, Backend, flush_redis, selected
from helpers_procs import cli_env, run_cli
from rankline import ManualClock, Settings
from rankline.errors import NotFound
from rankline.index import maintenance
from rankline.runtime.clock import from_micros
from rankline.service import Rankline
from rankline.store import schema as t
from rankline.store.sql import SqlStore
from rankline.writing import replay
from rankline.writing.writer import Outcome, Submission

KEEP = {"daily": 3650, "weekly": 3650}
"""Retention long enough that the CLI (on the machine's clock) sees every period live."""
BOARDS: dict[str, dict[str, Any]] = {
    "arena": {
        "windows": ["all_time", "daily", "weekly"],
        "scopes": ["region"],
        "grace_seconds": 60,
    },
    "status": {"policy": "latest", "windows": ["all_time", "daily"]},
    "xp": {"policy": "sum", "windows": ["all_time", "weekly"], "scopes": ["mode"]},
    "opener": {"policy": "first", "windows": ["daily"], "grace_seconds": 60},
    "sprint": {"order": "asc", "windows": ["all_time", "weekly"], "grace_seconds": 0},
}


@pytest.fixture(params=[name for name in selected() if name != "cluster-postgresql"])
def stack(request: pytest.FixtureRequest) -> Backend:
    return ALL[request.param]


async def _post(client: httpx.AsyncClient, path: str, method: str = "POST") -> None:
    response = await client.request(method, path, headers=AUTH)
    assert response.status_code in (200, 204), response.text


async def _workload(client: httpx.AsyncClient, clock: ManualClock) -> None:
    for board, spec in BOARDS.items():
        await put_board(client, board, retention_days=KEEP, **spec)
    players = [f"p{i:02d}" for i in range(12)]
    for day in range(3):  # Saturday, Sunday (the week's last day), Monday (a new week)
        for i, player in enumerate(players):
            region = "EU" if i % 3 else "US"
            score = (i * 37 + day * 11) % 50
            await submit(client, "arena", player, score, f"a-{day}-{i}", scopes={"region": region})
            await submit(client, "status", player, score + day, f"s-{day}-{i}")
            await submit(client, "xp", player, i + 1, f"x-{day}-{i}", scopes={"mode": "duo"})
            await submit(client, "xp", player, 2, f"y-{day}-{i}", scopes={"mode": "solo"})
            await submit(client, "opener", player, score, f"o-{day}-{i}")
            await submit(client, "sprint", player, 1000 - score, f"r-{day}-{i}")
        # A retry is recognised and changes nothing.
        again = await submit(
            client, "arena", "p01", (37 + day * 11) % 50, f"a-{day}-1", scopes={"region": "EU"}
        )
        assert again["duplicate"] is True
        # latest: an older `at` than the standing's loses.
        await submit(client, "status", "p02", 999, f"old-{day}", at=_ago(clock, hours=30))
        if day == 0:
            await submit(client, "arena", "cheat", 10_000, "c-1", scopes={"region": "EU"})
            await submit(client, "xp", "cheat", 500, "c-2", scopes={"mode": "duo"})
            await _post(client, "/v1/players/cheat/ban")
            await submit(client, "arena", "gone", 7, "g-1", scopes={"region": "US"})
            await _post(client, "/v1/players/gone", "DELETE")
        if day >= 1:
            # After yesterday's close and grace: its daily leaderboards stay as they were,
            # the week (still open on Sunday, closed on Monday) and all_time count it.
            for i, player in enumerate(players[:4]):
                late = await submit(
                    client,
                    "arena",
                    player,
                    50 + day * 10 + i,
                    f"late-{day}-{i}",
                    at=_ago(clock, hours=20),
                    scopes={"region": "EU"},
                )
                assert late["applied"] is True
                await submit(
                    client, "opener", f"new{i}", 5, f"late-o-{day}-{i}", at=_ago(clock, hours=20)
                )
                await submit(
                    client, "sprint", player, 1, f"late-r-{day}-{i}", at=_ago(clock, hours=20)
                )
        clock.advance(86_400)


def _ago(clock: ManualClock, hours: int) -> str:
    return iso(from_micros(clock.now()) - timedelta(hours=hours))


async def _standings(store: SqlStore) -> list[tuple[Any, ...]]:
    s = t.standings
    async with store.engine.connect() as conn:
        rows = await conn.execute(select(s).order_by(*s.primary_key.columns))
        return [tuple(r) for r in rows]


async def _wipe(store: SqlStore) -> None:
    async with store.engine.begin() as conn:
        await conn.execute(delete(t.standings))


async def _reads(client: httpx.AsyncClient, rows: list[tuple[Any, ...]]) -> dict[Any, Any]:
    """Every leaderboard's top page and a player's view on each (answers without as_of)."""
    found: dict[Any, Any] = {}
    for board, window, period, scope in sorted({r[:4] for r in rows}):
        params = {"window": window, "period": period, "scope": scope, "limit": 1000}
        response = await client.get(f"/v1/boards/{board}/top", params=params)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body.get("degraded") is not True
        found[board, window, period, scope] = (body["total"], body["entries"])
        player = next(r[4] for r in rows if r[:4] == (board, window, period, scope))
        params.pop("limit")
        response = await client.get(f"/v1/boards/{board}/players/{player}", params=params)
        assert response.status_code in (200, 404), response.text  # banned: 404
        view = response.json()
        view.pop("as_of", None)
        # movement is known only to the index that saw the changes: a replay starts it afresh
        found[board, window, period, scope, player] = unmoved(view)
    return found


async def _record(settings: Settings, clock: ManualClock) -> tuple[list[Any], dict[Any, Any]]:
    async with open_app(settings, clock) as app, open_client(app) as client:
        await _workload(client, clock)
        service: Rankline = app.state.service
        rows = await _standings(service.store)
        return rows, await _reads(client, rows)


async def _check(
    settings: Settings, clock: ManualClock, rows: list[Any], reads: dict[Any, Any]
) -> None:
    """The app started on the replayed store reads as before, and its index verifies."""
    async with open_app(settings, clock) as app, open_client(app) as client:
        service: Rankline = app.state.service
        assert await _standings(service.store) == rows
        assert await _reads(client, rows) == reads
        report = await maintenance.verify(service.keeper, service.store, service.boards.boards())
        assert report.count == 0, report.differences


async def test_replay_rebuilds_the_standings_the_writes_made(
    settings: Settings, clock: ManualClock
) -> None:
    rows, reads = await _record(settings, clock)
    # The workload reached what it is meant to: closed periods, scopes, a ban, an erasure.
    assert {r[1] for r in rows} == {"all_time", "daily", "weekly"}
    assert any(r[4] == "cheat" for r in rows) and not any(r[4] == "gone" for r in rows)
    assert max(r[7] for r in rows) >= 3  # revisions grew
    store = SqlStore(settings.database)
    try:
        await _wipe(store)
        assert await _standings(store) == []
        first = await replay.replay(store)
        assert await _standings(store) == rows
        assert (first.standings, first.removed, first.unexplained) == (len(rows), 0, 0)
        assert sorted(first.boards) == sorted(BOARDS)
        assert first.leaderboards == len({r[:4] for r in rows})
        second = await replay.replay(store, max_held=7)  # again, written in many flushes
        assert await _standings(store) == rows
        assert (second.events, second.standings, second.removed) == (
            first.events,
            len(rows),
            len(rows),
        )
    finally:
        await store.close()
    if settings.redis_url:
        flush_redis(settings.redis_url)
    await _check(settings, clock, rows, reads)


async def test_replay_of_some_boards_leaves_the_others(
    settings: Settings, clock: ManualClock
) -> None:
    rows, _ = await _record(settings, clock)
    store = SqlStore(settings.database)
    try:
        await _wipe(store)
        done = await replay.replay(store, ["arena", "xp"])
        assert done.boards == ["arena", "xp"]
        assert await _standings(store) == [r for r in rows if r[0] in ("arena", "xp")]
        with pytest.raises(NotFound, match="no board 'nope'"):
            await replay.replay(store, ["nope"])
    finally:
        await store.close()


async def test_a_write_committed_after_its_period_closed_is_replayed_as_it_was(
    settings: Settings, clock: ManualClock
) -> None:
    """Received a moment before the day closed, committed after: the writer found the day
    closed; the event's ``applied`` tells the replay so."""
    async with open_app(settings, clock) as app, open_client(app) as client:
        await put_board(client, "opener", retention_days=KEEP, **BOARDS["opener"])
        service: Rankline = app.state.service
        board = next(b for b in service.boards.boards() if b.id == "opener")
        midnight = (clock.now() // 86_400_000_000 + 1) * 86_400_000_000
        closes = midnight + 60_000_000
        clock.set(closes + 1_000_000)
        late = Submission(board, "p1", "m1", 5, midnight - 1, closes - 1_000)
        on_time = Submission(board, "p2", "m2", 6, midnight - 2, midnight - 3)
        outcomes = await service.writer.submit([late, on_time])
        assert [o.standings[0].reason for o in outcomes if isinstance(o, Outcome)] == [
            "closed",
            "closed",
        ]
        rows = await _standings(service.store)
    assert rows == []
    store = SqlStore(settings.database)
    try:
        done = await replay.replay(store)
        assert await _standings(store) == []
        assert (done.events, done.late_closes, done.unexplained) == (2, 2, 0)
    finally:
        await store.close()


async def test_the_command_replays_and_rebuilds_the_index(
    settings: Settings, clock: ManualClock
) -> None:
    rows, reads = await _record(settings, clock)
    urls = {"redis_url": settings.redis_url} if settings.redis_url else {}
    if settings.database_url:
        urls["database_url"] = settings.database_url
    env = cli_env(settings.data_dir, **urls)
    if not settings.database_url and not settings.redis_url:
        async with open_app(settings, clock):  # an embedded server holds the data directory
            held = await asyncio.to_thread(run_cli, "replay", "--yes", env=env)
        assert held.returncode == 2 and "is in use by process" in held.stderr, held.stderr
    store = SqlStore(settings.database)
    try:
        await _wipe(store)
    finally:
        await store.close()
    if settings.redis_url:
        flush_redis(settings.redis_url)
    asked = await asyncio.to_thread(run_cli, "replay", env=env)  # no answer: nothing changes
    assert asked.returncode == 1 and "nothing was changed" in asked.stderr, asked.stderr
    done = await asyncio.to_thread(run_cli, "replay", "--yes", env=env, timeout=180)
    assert done.returncode == 0, done.stderr
    leaderboards = len({r[:4] for r in rows})
    assert f"wrote {len(rows):,} standings on {leaderboards} leaderboards" in done.stderr
    assert f"of {len(BOARDS)} boards" in done.stderr
    if settings.redis_url:
        assert "rebuilt the shared index" in done.stderr and "; 0 differences" in done.stderr
    else:
        assert "next start of `rankline serve`" in done.stderr
    await _check(settings, clock, rows, reads)
