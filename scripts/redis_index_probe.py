"""Measure the Redis ranking index: bulk-load rate and memory per entry.

Loads N synthetic standings into one leaderboard of an empty scratch Redis database through
``RedisIndex.load`` (the rebuild path, in the rebuild's 50,000-entry chunks), then reports
the load time, entries/s and ``INFO memory`` used_memory growth per entry. For scale it then
times the raw ceiling in the same run: the same keys sent as pipelined multi-member ZADDs to
a bare sorted set (no player map, no revision check). It FLUSHDBs the database it is given
before and after, so never point it at a database in use.

    PYTHONPATH=src .venv/bin/python scripts/redis_index_probe.py --entries 1000000 --db 7

``--path`` picks the load path (``fill``, the default, is what a rebuild of an empty index
uses; ``load`` the careful, revision-checked one). With ``--sql URL`` it instead times the
build from SQL as a server does at start (``IndexKeeper.load_all``: SQL scan, encoding and
the index's load overlapped):

    PYTHONPATH=src .venv/bin/python scripts/redis_index_probe.py --entries 10000000 --db 7 \
        --sql postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_probe
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from collections.abc import AsyncIterator, Iterator

from rankline.bench import load as bench_load
from rankline.clock import SystemClock
from rankline.index.keeper import IndexKeeper
from rankline.index.redis.index import RedisIndex
from rankline.index.redis.link import RedisLink
from rankline.ordering import encode
from rankline.store.sql import SqlStore
from rankline.types import LeaderboardId, PlayerId, SortKey

LEADERBOARD = LeaderboardId("probe", "all_time", "all", "global")
CHUNK = 50_000
"""What ``IndexKeeper`` hands to ``load`` per call on a shared index."""


def entries(n: int, start: int, stop: int, seed: int) -> Iterator[tuple[PlayerId, SortKey, int]]:
    """Standings of players ``p{i}``, ``p0`` best, as the durable store streams them: in
    rank order (the scan reads the rank index), scores and times otherwise random."""
    rng = random.Random(seed + start)
    for i in range(start, stop):
        score = 10 * (n - i) + rng.randrange(0, 10)
        at = 1_790_000_000_000_000 + rng.randrange(0, 86_400_000_000)
        player = f"p{i}"
        yield player, encode(score, at, player, "desc"), 1


async def chunks(n: int) -> AsyncIterator[list[tuple[PlayerId, SortKey, int]]]:
    for start in range(0, n, CHUNK):
        yield list(entries(n, start, min(n, start + CHUNK), 7))


async def used_memory(index: RedisIndex) -> int:
    info = await index.client.info("memory")
    return int(info["used_memory"])


async def keys_memory(index: RedisIndex) -> int:
    """MEMORY USAGE summed over this database's keys: unlike used_memory, blind to what
    other clients do in other databases meanwhile."""
    total = 0
    async for name in index.client.scan_iter(count=1000):
        total += int(await index.client.memory_usage(name) or 0)
    return total


async def redis_cpu(index: RedisIndex) -> float:
    """Seconds of CPU Redis's main thread (which runs every command) has used."""
    info = await index.client.info("cpu")
    return float(info["used_cpu_user_main_thread"]) + float(info["used_cpu_sys_main_thread"])


async def raw_zadd_rate(index: RedisIndex, n: int) -> float:
    """Entries/s of pipelined ZADDs of 1,000 members each, 50,000 per pipeline."""
    await index.client.flushdb(asynchronous=True)
    started = time.perf_counter()
    for start in range(0, n, CHUNK):
        keys = [key for _, key, _ in entries(n, start, min(n, start + CHUNK), 7)]
        async with index.client.pipeline(transaction=False) as pipe:
            for first in range(0, len(keys), 1000):
                pipe.zadd("probe:raw", dict.fromkeys(keys[first : first + 1000], 0))
            await pipe.execute()
    elapsed = time.perf_counter() - started
    await index.client.flushdb(asynchronous=True)
    return n / elapsed


async def probe(url: str, n: int, keep: bool, path: str) -> dict[str, float]:
    index = RedisIndex(RedisLink(url))
    await index.start()
    try:
        await index.client.flushdb(asynchronous=True)
        before = await used_memory(index)
        cpu_before, started, client_cpu = (
            await redis_cpu(index),
            time.perf_counter(),
            time.process_time(),
        )
        if path == "fill":
            async for _ in index.fill(LEADERBOARD, n, chunks(n)):
                pass
        else:
            if path == "reserve":
                await index.reserve(LEADERBOARD, n)
            async for chunk in chunks(n):
                await index.load(LEADERBOARD, chunk)
        elapsed = time.perf_counter() - started
        client_cpu = time.process_time() - client_cpu
        server_cpu = await redis_cpu(index) - cpu_before
        total = await index.total(LEADERBOARD)
        assert total == n, f"loaded {total} of {n}"
        after = await used_memory(index)
        position = await index.position(LEADERBOARD, f"p{n // 2}")
        assert position is not None
        result = {
            "entries": n,
            "load_seconds": round(elapsed, 2),
            "entries_per_second": round(n / elapsed),
            "bytes_per_entry": round((after - before) / n, 1),
            "key_bytes_per_entry": round(await keys_memory(index) / n, 1),
            "redis_cpu_us_per_entry": round(server_cpu / n * 1e6, 2),
            "client_cpu_us_per_entry": round(client_cpu / n * 1e6, 2),
            "keys": await index.client.dbsize(),
        }
        print(json.dumps(result), flush=True)
        if not keep:
            result["raw_zadd_per_second"] = round(await raw_zadd_rate(index, n))
        return result
    finally:
        await index.close()


async def probe_sql(url: str, sql: str, n: int, path: str) -> dict[str, object]:
    """Build the index from SQL as a server does at start (``IndexKeeper.load_all``); the
    database holds the benchmark's board (``rankline.bench.load``; filled with N players
    first when it has no standings)."""
    store = SqlStore(sql)
    index = RedisIndex(RedisLink(url))
    try:
        total = await store.count_standings()
        if total == 0:
            now = int(time.time() * 1e6)
            await store.close()
            await bench_load.recreate_database(sql)
            await bench_load.prepare(sql, now)
            await bench_load.load(sql, bench_load.Dataset(n, now - 10**12), now)
            await bench_load.settle(sql)
            store = SqlStore(sql)
            total = await store.count_standings()
        await index.start()
        await index.client.flushdb(asynchronous=True)
        if path != "fill":
            index.fill = None  # type: ignore[assignment,method-assign]
        keeper = IndexKeeper(index, store, SystemClock(), lambda: [bench_load.bench_board()])
        before, cpu_before = await used_memory(index), await redis_cpu(index)
        started, client_cpu = time.perf_counter(), time.process_time()
        done = await keeper.load_all()
        elapsed = time.perf_counter() - started
        client_cpu = time.process_time() - client_cpu
        server_cpu = await redis_cpu(index) - cpu_before
        leaderboard = LeaderboardId(bench_load.BOARD_ID, "all_time", "all", "global")
        assert done == total == await index.total(leaderboard), (done, total)
        result = {
            "entries": done,
            "path": path,
            "build_seconds": round(elapsed, 2),
            "entries_per_second": round(done / elapsed),
            "bytes_per_entry": round((await used_memory(index) - before) / done, 1),
            "redis_cpu_us_per_entry": round(server_cpu / done * 1e6, 2),
            "client_cpu_us_per_entry": round(client_cpu / done * 1e6, 2),
        }
        await index.client.flushdb(asynchronous=True)
        return result
    finally:
        await index.close()
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--db", type=int, default=7, help="scratch Redis database (FLUSHDB!)")
    parser.add_argument("--host", default="127.0.0.1:6379")
    parser.add_argument("--keep", action="store_true", help="leave the data in the database")
    parser.add_argument(
        "--sql",
        metavar="URL",
        help="build from this database as a server does at start (filled with the "
        "benchmark's N players when it has no standings; use a database of its own)",
    )
    parser.add_argument(
        "--path",
        choices=["fill", "load", "reserve"],
        default="fill",
        help="fill: RedisIndex.fill (what a rebuild uses); load: RedisIndex.load, the careful "
        "path; reserve: reserve() then load",
    )
    args = parser.parse_args()
    if args.db == 0 or args.db >= 9:
        parser.error("databases 0 and 9+ belong to the service and the test suites")
    url = f"redis://{args.host}/{args.db}"
    if args.sql:
        print(json.dumps(asyncio.run(probe_sql(url, args.sql, args.entries, args.path))))
    else:
        print(json.dumps(asyncio.run(probe(url, args.entries, args.keep, args.path))))


if __name__ == "__main__":
    main()
