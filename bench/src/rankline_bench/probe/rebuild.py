"""Measure the Redis index's full rebuild from PostgreSQL: entries/s and CPU µs per entry.

Bulk-loads N bench players (``rankline_bench.load``) into a PostgreSQL database of its own
(once: ``--reuse`` takes the database as it is), then rebuilds the bench board into an
emptied Redis database the way a server does at start (``IndexKeeper.load_all``: the SQL
scan, ``RedisIndex.fill``) and prints, per run, the rate and where the CPU went, per entry:

- Redis: ``INFO cpu`` of its main thread (which runs every script), and EVALSHA's own
  time from ``INFO commandstats``; ``keys`` is Redis's CPU until the scan is exhausted
  (mostly FILL_KEYS; the player-map writes join in once ``_FILL_HELD`` fields are held),
  ``flush`` the rest (the FILL_BUCKETS writes still held, and the end);
- client: this process's CPU (``time.process_time``: asyncpg, the encoding, redis-py),
  and its peak RSS so far (it holds up to ``_FILL_HELD`` player-map fields);
- PostgreSQL: the CPU of this database's backends (from ``/proc``; the machine's own
  PostgreSQL, so it must run here).

The machine is shared: compare CPU per entry rather than the rate, and repeat (``--runs``).

    rankline bench probe rebuild --n 1000000
    rankline bench probe rebuild --n 1000000 --reuse --runs 3
    rankline bench probe rebuild --n 1000000 --reuse --profile   # cProfile top 30
    rankline bench probe rebuild --n 1000000 --reuse --drop      # drop it after
    rankline bench probe rebuild --n 1000000 --reuse --held 250000  # _FILL_HELD
"""

from __future__ import annotations

import asyncio
import cProfile
import gc
import os
import pstats
import resource
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from rankline.boards import Board
from rankline.http.app import GC_THRESHOLDS
from rankline.index.base import PLAIN
from rankline.index.keeper import IndexHealth, IndexKeeper
from rankline.index.redis import fill as redis_fill
from rankline.index.redis.index import RedisIndex
from rankline.index.redis.link import RedisLink
from rankline.runtime.clock import SystemClock
from rankline.store import admin, scan
from rankline.store.opening import open_store, store_settings
from rankline.store.sql import SqlStore
from rankline_bench import load
from rankline_bench.scratch import REBUILD_DATABASE_URL, REBUILD_REDIS_URL

DATABASE_URL = REBUILD_DATABASE_URL
REDIS_URL = REBUILD_REDIS_URL


@dataclass(frozen=True)
class Options:
    n: int = 1_000_000
    runs: int = 1
    database_url: str = DATABASE_URL
    redis_url: str = REDIS_URL
    reuse: bool = False
    held: int = 0
    profile: bool = False
    drop: bool = False


def run(options: Options) -> None:
    asyncio.run(main(options))


@dataclass(frozen=True)
class _Boards:
    board: Board

    def boards(self) -> list[Board]:
        return [self.board]


def _process_cpu(pid: int) -> float:
    """User + system CPU seconds of a process (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _backends(url: str) -> list[int]:
    """The PIDs of the PostgreSQL backends connected to the database of ``url``."""
    name = make_url(url).database
    query = sa.text(
        "SELECT pid FROM pg_stat_activity WHERE datname = :name AND pid <> pg_backend_pid()"
    )
    async with (
        open_store(store_settings(url), schema="any") as store,
        store.engine.connect() as conn,
    ):
        return [int(pid) for (pid,) in await conn.execute(query, {"name": name})]


async def _redis(index: RedisIndex) -> tuple[float, float, int]:
    """Redis's main-thread CPU seconds, and EVALSHA's µs and calls since the last reset."""
    cpu = await index.client.info("cpu")
    stats = (await index.client.info("commandstats")).get("cmdstat_evalsha", {})
    main = float(cpu["used_cpu_user_main_thread"]) + float(cpu["used_cpu_sys_main_thread"])
    return main, float(stats.get("usec", 0)), int(stats.get("calls", 0))


async def rebuild(args: Options) -> dict[str, float]:
    """One rebuild of the bench board into the emptied Redis database."""
    link = RedisLink(args.redis_url)
    index = RedisIndex(link)
    shared = link.shared_index(PLAIN)
    await index.start()
    store = SqlStore.from_settings(store_settings(args.database_url))
    board = load.bench_board()
    clock = SystemClock()
    keeper = IndexKeeper(
        index, IndexHealth("redis", clock), store, clock, _Boards(board), shared=shared
    )
    marks: dict[str, float] = {}
    scan_rows = scan.scan_rows

    async def marked(*a: Any, **kw: Any) -> AsyncIterator[list[Any]]:
        async for rows in scan_rows(*a, **kw):
            yield rows
        marks["scanned"] = (await _redis(index))[0]

    try:
        await index.client.flushdb()
        await store.count_standings()  # opens the pooled connection the scan reuses
        pids = await _backends(args.database_url)
        sql_before = sum(map(_process_cpu, pids))
        redis_before, usec_before, calls_before = await _redis(index)
        profiler = cProfile.Profile() if args.profile else None
        started, client_before = time.perf_counter(), time.process_time()
        scan.scan_rows = marked
        try:
            if profiler is not None:
                profiler.enable()
            done = await keeper.load_all()
            if profiler is not None:
                profiler.disable()
        finally:
            scan.scan_rows = scan_rows
        elapsed, client = time.perf_counter() - started, time.process_time() - client_before
        redis_after, evalsha_usec, calls = await _redis(index)
        evalsha_usec, calls = evalsha_usec - usec_before, calls - calls_before
        sql = sum(map(_process_cpu, pids)) - sql_before
        await shared.mark_built()  # as the keeper does once a build is done: reads answer
        total = await index.total(next(iter(await index.leaderboards(load.BOARD_ID))))
        assert total == done == args.n, (total, done, args.n)
        if profiler is not None:
            pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
        scanned = marks.get("scanned", redis_after)
        return {
            "rate": done / elapsed,
            "seconds": elapsed,
            "redis": (redis_after - redis_before) / done * 1e6,
            "redis_keys": (scanned - redis_before) / done * 1e6,
            "redis_flush": (redis_after - scanned) / done * 1e6,
            "evalsha": evalsha_usec / done,
            "calls": calls,
            "client": client / done * 1e6,
            "sql": sql / done * 1e6,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }
    finally:
        await index.client.flushdb()
        await index.close()
        await store.close()


async def main(args: Options) -> None:
    gc.set_threshold(*GC_THRESHOLDS)  # as in a serving process, which rebuilds at start
    if args.held:
        redis_fill._FILL_HELD = args.held
    if not args.reuse:
        now = int(time.time() * 1e6)
        started = time.perf_counter()
        await admin.recreate_database(args.database_url)
        await load.prepare(args.database_url, now)
        await load.load(args.database_url, load.Dataset(args.n, now - 10**9), now)
        await load.settle(args.database_url)
        print(f"loaded {args.n:,} players in {time.perf_counter() - started:.0f} s")
    try:
        for run in range(args.runs):
            f = await rebuild(args)
            print(
                f"run {run + 1}: {f['rate']:>9,.0f} entries/s ({f['seconds']:.1f} s, n={args.n:,})"
                f" | µs/entry: Redis {f['redis']:.2f} (keys {f['redis_keys']:.2f},"
                f" flush {f['redis_flush']:.2f}; EVALSHA {f['evalsha']:.2f} in"
                f" {f['calls']:,.0f} calls), client {f['client']:.2f}, PostgreSQL {f['sql']:.2f}"
                f" | client peak RSS {f['peak_mb']:,.0f} MB",
                flush=True,
            )
    finally:
        if args.drop:
            await admin.drop_database(args.database_url)
