"""Measure the Redis index's full rebuild from PostgreSQL: entries/s and CPU µs per entry.

Bulk-loads N bench players (``rankline.bench.load``) into a PostgreSQL database of its own
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

    .venv/bin/python scripts/rebuild_probe.py --n 1000000
    .venv/bin/python scripts/rebuild_probe.py --n 1000000 --reuse --runs 3
    .venv/bin/python scripts/rebuild_probe.py --n 1000000 --reuse --profile   # cProfile top 30
    .venv/bin/python scripts/rebuild_probe.py --n 1000000 --reuse --drop      # drop it after
    .venv/bin/python scripts/rebuild_probe.py --n 1000000 --reuse --held 250000  # _FILL_HELD
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import os
import pstats
import resource
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from rankline.bench import load
from rankline.clock import SystemClock
from rankline.http.app import GC_THRESHOLDS
from rankline.index import keeper as indexing
from rankline.index.keeper import IndexKeeper
from rankline.index.redis import fill as redis_fill
from rankline.index.redis.index import RedisIndex
from rankline.index.redis.link import RedisLink
from rankline.store.sql import SqlStore

DATABASE_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_fill_probe"
REDIS_URL = "redis://127.0.0.1:6379/13"


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
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            query = sa.text(
                "SELECT pid FROM pg_stat_activity WHERE datname = :name AND pid <> pg_backend_pid()"
            )
            return [int(pid) for (pid,) in await conn.execute(query, {"name": name})]
    finally:
        await engine.dispose()


async def _redis(index: RedisIndex) -> tuple[float, float, int]:
    """Redis's main-thread CPU seconds, and EVALSHA's µs and calls since the last reset."""
    cpu = await index.client.info("cpu")
    stats = (await index.client.info("commandstats")).get("cmdstat_evalsha", {})
    main = float(cpu["used_cpu_user_main_thread"]) + float(cpu["used_cpu_sys_main_thread"])
    return main, float(stats.get("usec", 0)), int(stats.get("calls", 0))


async def rebuild(args: argparse.Namespace) -> dict[str, float]:
    """One rebuild of the bench board into the emptied Redis database."""
    index = RedisIndex(RedisLink(args.redis_url))
    await index.start()
    store = SqlStore(args.database_url)
    board = load.bench_board()
    keeper = IndexKeeper(index, store, SystemClock(), lambda: [board])
    marks: dict[str, float] = {}
    scan_rows = indexing.scan.scan_rows

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
        indexing.scan.scan_rows = marked  # type: ignore[assignment]
        try:
            if profiler is not None:
                profiler.enable()
            done = await keeper.load_all()
            if profiler is not None:
                profiler.disable()
        finally:
            indexing.scan.scan_rows = scan_rows  # type: ignore[assignment]
        elapsed, client = time.perf_counter() - started, time.process_time() - client_before
        redis_after, evalsha_usec, calls = await _redis(index)
        evalsha_usec, calls = evalsha_usec - usec_before, calls - calls_before
        sql = sum(map(_process_cpu, pids)) - sql_before
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


async def main(args: argparse.Namespace) -> None:
    gc.set_threshold(*GC_THRESHOLDS)  # as in a serving process, which rebuilds at start
    if args.held:
        redis_fill._FILL_HELD = args.held
    if not args.reuse:
        now = int(time.time() * 1e6)
        started = time.perf_counter()
        await load.recreate_database(args.database_url)
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
            await load.drop_database(args.database_url)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--database-url", default=DATABASE_URL)
    parser.add_argument("--redis-url", default=REDIS_URL)
    parser.add_argument("--reuse", action="store_true", help="the database holds the N already")
    parser.add_argument("--held", type=int, default=0, help="override redis_fill._FILL_HELD")
    parser.add_argument("--profile", action="store_true", help="cProfile the client, top 30")
    parser.add_argument("--drop", action="store_true", help="drop the database at the end")
    asyncio.run(main(parser.parse_args()))
