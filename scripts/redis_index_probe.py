"""Measure the Redis ranking index: bulk-load rate and memory per entry.

Loads N synthetic standings into one leaderboard of an empty scratch Redis database through
``RedisIndex.load`` (the rebuild path, in the rebuild's 50,000-entry chunks), then reports
the load time, entries/s and ``INFO memory`` used_memory growth per entry. For scale it then
times the raw ceiling in the same run: the same keys sent as pipelined multi-member ZADDs to
a bare sorted set (no player map, no revision check). It FLUSHDBs the database it is given
before and after, so never point it at a database in use.

    PYTHONPATH=src .venv/bin/python scripts/redis_index_probe.py --entries 1000000 --db 7
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from collections.abc import Iterator

from rankline.index.redis import RedisIndex
from rankline.ordering import encode
from rankline.types import LeaderboardId, PlayerId, SortKey

LEADERBOARD = LeaderboardId("probe", "all_time", "all", "global")
CHUNK = 50_000
"""What ``IndexKeeper`` hands to ``load`` per call on a shared index."""


def entries(n: int, start: int, stop: int, seed: int) -> Iterator[tuple[PlayerId, SortKey, int]]:
    """Standings of players ``p{i}`` with random scores, as the durable store streams them."""
    rng = random.Random(seed + start)
    for i in range(start, stop):
        score = rng.randrange(0, 10 * n)
        at = 1_790_000_000_000_000 + rng.randrange(0, 86_400_000_000)
        player = f"p{i}"
        yield player, encode(score, at, player, "desc"), 1


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


async def probe(url: str, n: int, keep: bool, reserve: bool) -> dict[str, float]:
    index = RedisIndex(url)
    await index.start()
    try:
        await index.client.flushdb(asynchronous=True)
        before = await used_memory(index)
        cpu_before, started, client_cpu = (
            await redis_cpu(index),
            time.perf_counter(),
            time.process_time(),
        )
        if reserve:
            await index.reserve(LEADERBOARD, n)
        for start in range(0, n, CHUNK):
            await index.load(LEADERBOARD, list(entries(n, start, min(n, start + CHUNK), 7)))
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--db", type=int, default=7, help="scratch Redis database (FLUSHDB!)")
    parser.add_argument("--host", default="127.0.0.1:6379")
    parser.add_argument("--keep", action="store_true", help="leave the data in the database")
    parser.add_argument(
        "--reserve", action="store_true", help="size the buckets first (RedisIndex.reserve)"
    )
    args = parser.parse_args()
    if args.db == 0 or args.db >= 9:
        parser.error("databases 0 and 9+ belong to the service and the test suites")
    url = f"redis://{args.host}/{args.db}"
    print(json.dumps(asyncio.run(probe(url, args.entries, args.keep, args.reserve))))


if __name__ == "__main__":
    main()
