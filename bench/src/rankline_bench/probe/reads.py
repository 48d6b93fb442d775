"""Measure the CPU cost of each read endpoint in-process: µs of CPU per request, no wrk.

Bulk-loads N bench players (``rankline_bench.load``) into a temporary SQLite store (or the
given PostgreSQL database, with ``--redis-url`` for the Redis index), starts the real
serving app through its lifespan, and calls it directly as ASGI: no sockets, no HTTP
parsing, so the figure is rankline's own share of a request (uvicorn adds ≈40 µs here).
CPU time (``time.process_time``) is used rather than wall time, so another busy process
on the machine moves the figure less; on Redis it leaves out the Redis server's own work.

    rankline bench probe reads --n 200000
    rankline bench probe reads --n 200000 --profile rank    # cProfile top 25
    rankline bench probe reads --endpoints rank,rank-meta,top,top-meta,deep,cursor
    rankline bench probe reads --served    # as `rankline serve` serves it: with request ids
    rankline bench probe reads --lean --rounds 3 --endpoints rank,around,top  # beside plain code
    rankline bench probe reads --n 10000000 --data-dir /tmp/rl10m  # load once, reuse
    rankline bench probe reads --redis-url redis://127.0.0.1:6379/7 --concurrency 32 \\
        --database-url postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_probe
"""

from __future__ import annotations

import asyncio
import cProfile
import gc
import pstats
import random
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from rankline.http.app import serving_app
from rankline.observability import observe
from rankline.settings import Settings
from rankline.store import admin
from rankline_bench import lean, load

KEY = "read-probe-key"
LEAN_READS = ("rank", "around", "top")
"""The reads the lean reference answers."""
ENDPOINTS = (
    "rank",
    "around",
    "top",
    "deep",
    "friends",
    "rank-meta",
    "around-meta",
    "top-meta",
    "cursor",
)
"""``-meta``: the same read with ``metadata=true``; ``cursor``: deep's page by its cursor."""


@dataclass(frozen=True)
class Options:
    n: int = 200_000
    count: int = 5000
    concurrency: int = 1
    endpoints: str = ""
    profile: str = ""
    data_dir: Path | None = None
    database_url: str | None = None
    redis_url: str | None = None
    reuse: bool = False
    served: bool = False
    """Through ``observe``'s wrapper, as a server serves the app (request ids)."""
    lean: bool = False
    """Also time the lean reference (``rankline_bench.lean``) in process on rank, around and
    top, and give its CPU per request over rankline's."""
    rounds: int = 1
    """Times each endpoint is measured (with ``lean``, alternating with the lean reference);
    the median after several."""


def run(options: Options) -> None:
    chosen = [e for e in options.endpoints.split(",") if e]
    unknown = [e for e in chosen if e not in ENDPOINTS]
    if unknown:
        raise ValueError(f"--endpoints takes some of {', '.join(ENDPOINTS)}, not {unknown}")
    if options.reuse and not options.database_url:
        raise ValueError("--reuse is for --database-url; a --data-dir holding a store is reused")
    asyncio.run(main(options))


def _scope(method: str, path: str, query: str = "") -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [
            (b"host", b"probe"),
            (b"authorization", f"Bearer {KEY}".encode()),
            (b"content-type", b"application/json"),
        ],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }


async def _call(app: Any, method: str, path: str, query: str = "", body: bytes = b"") -> int:
    return (await _answer(app, method, path, query, body))[0]


async def _answer(
    app: Any, method: str, path: str, query: str = "", body: bytes = b""
) -> tuple[int, bytes]:
    status = 0
    sent: list[bytes] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            sent.append(message.get("body", b""))

    await app(_scope(method, path, query), receive, send)
    return status, b"".join(sent)


def _requests(
    n: int, cursor: str = ""
) -> dict[str, Callable[[random.Random], tuple[str, str, str, bytes]]]:
    base = f"/v1/boards/{load.BOARD_ID}"

    def friends(rng: random.Random) -> tuple[str, str, str, bytes]:
        mates = [f"p:{rng.randrange(n)}" for _ in range(100)]
        body = orjson.dumps({"friends": mates})
        return "POST", f"{base}/players/p:{rng.randrange(n)}/friends", "", body

    return {
        "rank": lambda rng: ("GET", f"{base}/players/p:{rng.randrange(n)}", "", b""),
        "around": lambda rng: ("GET", f"{base}/players/p:{rng.randrange(n)}/around", "k=5", b""),
        "top": lambda rng: ("GET", f"{base}/top", "limit=100", b""),
        "deep": lambda rng: ("GET", f"{base}/top", f"limit=100&offset={n // 2}", b""),
        "friends": friends,
        "rank-meta": lambda rng: (
            "GET",
            f"{base}/players/p:{rng.randrange(n)}",
            "metadata=true",
            b"",
        ),
        "around-meta": lambda rng: (
            "GET",
            f"{base}/players/p:{rng.randrange(n)}/around",
            "k=5&metadata=true",
            b"",
        ),
        "top-meta": lambda rng: ("GET", f"{base}/top", "limit=100&metadata=true", b""),
        "cursor": lambda rng: ("GET", f"{base}/top", f"limit=100&cursor={cursor}", b""),
    }


async def _deep_cursor(app: Any, n: int) -> str:
    """The cursor after entry n // 2 - 1: its page is deep's page."""
    query = f"limit=1&offset={n // 2 - 1}"
    status, body = await _answer(app, "GET", f"/v1/boards/{load.BOARD_ID}/top", query)
    assert status == 200, body
    found: str = orjson.loads(body)["next"]
    return found


async def _measure(
    app: Any, make: Callable[..., Any], count: int, rng: random.Random, concurrency: int
) -> float:
    calls = [make(rng) for _ in range(count)]
    for call in calls[: min(200, count)]:  # warm up
        assert await _call(app, *call) == 200, call

    async def client(mine: list[tuple[str, str, str, bytes]]) -> None:
        for call in mine:
            await _call(app, *call)

    started = time.process_time()
    await asyncio.gather(*(client(calls[i::concurrency]) for i in range(concurrency)))
    return (time.process_time() - started) / count * 1e6


async def main(args: Options) -> None:
    tmp = str(args.data_dir or tempfile.mkdtemp(prefix="rankline-read-probe-"))
    url = args.database_url or f"sqlite+aiosqlite:///{tmp}/rankline.db"
    now = int(time.time() * 1e6)
    loaded = (Path(tmp) / "rankline.db").exists() if args.data_dir else args.reuse
    if not loaded:
        if args.database_url:
            await admin.recreate_database(url)
        await load.prepare(url, now)
        await load.load(url, load.Dataset(args.n, now - 10**9), now)
    settings = Settings(
        data_dir=Path(tmp),
        database_url=url,
        redis_url=args.redis_url,
        server_keys=KEY,
        read_keys=KEY,
    )
    if args.redis_url:
        import redis.asyncio as aioredis

        client = aioredis.from_url(args.redis_url)
        await client.flushdb()
        await client.aclose()
    try:
        await _probe(args, settings, load.Dataset(args.n, now - 10**9))
    finally:
        if args.data_dir is None:
            shutil.rmtree(tmp, ignore_errors=True)


async def _probe(args: Options, settings: Settings, data: load.Dataset) -> None:
    app = serving_app(settings)
    called: Any = app
    if args.served:
        called = observe(app, log_level=settings.log_level, log_format=settings.log_format)
    plain: lean.LeanApp | None = None
    if args.lean:
        plain = lean.LeanApp(data)
        plain.load()
    rng = random.Random(1)
    chosen = args.endpoints.split(",") if args.endpoints else list(_requests(args.n))
    async with app.running():
        await app.state.service.wait_ready()
        requests = _requests(args.n, await _deep_cursor(app, args.n))
        for name in chosen:
            ratios: list[float] = []
            for _ in range(args.rounds):
                per = await _timed(args, settings, called, name, requests[name], rng)
                if plain is not None and name in LEAN_READS:
                    reference = await _measure(
                        plain, requests[name], args.count, rng, args.concurrency
                    )
                    ratios.append(reference / per)
                    print(
                        f"{'':8} {reference:8.1f} µs CPU/request, the lean reference; "
                        f"lean / rankline {reference / per:.2f}"
                    )
                sys.stdout.flush()
            if len(ratios) > 1:
                print(
                    f"{name:8} lean / rankline, median of {len(ratios)} rounds: "
                    f"{statistics.median(ratios):.2f}"
                )
        if any(name.endswith("-meta") for name in chosen):
            await _metadata_memory(app.state.service, min(args.n, 20_000))


async def _timed(
    args: Options,
    settings: Settings,
    called: Any,
    name: str,
    make: Callable[..., Any],
    rng: random.Random,
) -> float:
    """One measurement of endpoint ``name``, printed (under cProfile when ``--profile``
    names it; with Redis's own CPU per request on Redis): µs of CPU per request."""
    redis_before = redis_after = None
    if args.profile == name:
        profiler = cProfile.Profile()
        profiler.enable()
        per = await _measure(called, make, args.count, rng, args.concurrency)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    else:
        redis_before = await _redis_usage(settings.redis_url)
        per = await _measure(called, make, args.count, rng, args.concurrency)
        redis_after = await _redis_usage(settings.redis_url)
    at_once = f"{args.count} requests, {args.concurrency} at a time"
    print(f"{name:8} {per:8.1f} µs CPU/request  (n={args.n:,}, {at_once})")
    if redis_before and redis_after:
        # The warm-up's requests are counted too: same endpoint, same cost.
        done = args.count + min(200, args.count)
        cpu = (redis_after["cpu"] - redis_before["cpu"]) / done * 1e6
        calls = redis_after["evalsha_calls"] - redis_before["evalsha_calls"]
        usec = redis_after["evalsha_usec"] - redis_before["evalsha_usec"]
        each = usec / calls if calls else 0.0
        print(
            f"{'':8} {cpu:8.1f} µs of Redis CPU/request; "
            f"{calls / done:.2f} EVALSHA/request, {each:.1f} µs each"
        )
    return per


async def _metadata_memory(service: Any, count: int) -> None:
    """The memory the entry-metadata cache takes per entry held (tracemalloc, after a
    collection), and the CPU of a lookup of 100 entries it does not hold (one query) and of
    100 it holds."""
    board = await service.boards.find(load.BOARD_ID)
    leaderboard = service.boards.resolve(board, None, None, None).leaderboard
    _, keys = await service.index.page(leaderboard, 0, count)
    cache = service.entry_metadata
    cache.forget()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    started = time.process_time()
    for i in range(0, len(keys), 100):
        await cache.of(board, keys[i : i + 100])
    missed = time.process_time() - started
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    started = time.process_time()
    for i in range(0, len(keys), 100):
        await cache.of(board, keys[i : i + 100])
    hit = time.process_time() - started
    batches = len(keys) / 100
    print(
        f"metadata {held / len(keys):8.0f} B per entry held ({len(keys):,} entries); "
        f"100 entries: {missed / batches * 1e6:.0f} µs CPU looked up, "
        f"{hit / batches * 1e6:.0f} µs held"
    )


async def _redis_usage(url: str | None) -> dict[str, float] | None:
    """Redis's CPU seconds (user + system) and its EVALSHA count and µs so far: the
    difference of two readings is a read's cost inside Redis. (Differences, not CONFIG
    RESETSTAT: that would wipe the statistics of anyone else measuring on this Redis.)"""
    if url is None:
        return None
    import redis.asyncio as aioredis

    client = aioredis.from_url(url)
    try:
        cpu = await client.info("cpu")
        stats = (await client.info("commandstats")).get("cmdstat_evalsha", {})
    finally:
        await client.aclose()
    return {
        "cpu": float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]),
        "evalsha_calls": float(stats.get("calls", 0)),
        "evalsha_usec": float(stats.get("usec", 0)),
    }
