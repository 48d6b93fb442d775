"""Server CPU per request under wrk, endpoint by endpoint, beside the ceiling's.

``rankline bench`` reports requests/s, which on a shared machine moves with whatever else
runs. This probe serves an existing store with ``rankline serve`` (and the raw ASGI
ceiling first), drives each endpoint with the bench's own wrk scripts, and divides the
CPU time the server processes used (from /proc, all threads: uvicorn, the app, SQLite's
thread) by the requests answered. Unlike ``rankline bench probe reads`` (in process, no sockets) it
includes what a real request costs the server around the app: the HTTP parsing and the
socket writes, about 22 µs of the ceiling's own here. Redis and PostgreSQL are separate
processes; ``--also redis-server,postgres`` adds their CPU per request.

    rankline bench probe reads --n 1000000 --data-dir /tmp/rl1m   # makes the store
    rankline bench probe server --data-dir /tmp/rl1m --n 1000000 rank top submit
    rankline bench probe server --n 1000000 --database-url postgresql+asyncpg://\\
postgres@127.0.0.1:5432/rankline_bench --redis-url redis://127.0.0.1:6379/8 \\
        --also redis-server,postgres rank around

With ``--lean``, the lean reference (``rankline.bench.lean``: the same rank, around and top
reads from a plain sorted list) is driven too, and each of those reads prints the lean
reference's CPU per request over rankline's: what ``rankline bench`` reports as rankline's
req/s over the lean reference's, measured as CPU, which other work on the machine moves less.

Endpoints are the bench's wrk scripts (``src/rankline/bench/lua``): rank, around, top,
top_deep, friends, submit, batch, mixed. Writes go to the store: use a copy you can spare.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rankline.bench import servers, wrk
from rankline.clock import SystemClock

KEY = "server-probe-key"
LEAN_READS = ("rank", "around", "top")
"""The reads the lean reference answers."""
ENDPOINTS = ("rank", "around", "top", "top_deep", "friends", "submit", "batch", "mixed")


@dataclass(frozen=True)
class Options:
    endpoints: tuple[str, ...]
    n: int
    data_dir: Path | None = None
    database_url: str | None = None
    redis_url: str | None = None
    seconds: float = 8.0
    connections: int = 64
    also: str = ""
    lean: bool = False
    """Also drive the lean reference (``rankline.bench.lean``) on the reads it answers, and
    print rankline's CPU per request over the lean reference's."""


def _pids(names: list[str]) -> list[int]:
    found: list[int] = []
    for name in names:
        out = subprocess.run(["pgrep", "-f", name], capture_output=True, text=True, check=False)
        found += [int(p) for p in out.stdout.split()]
    return found


def _drive(server: servers.Server, endpoint: str, args: Options) -> float:
    """Drive ``endpoint`` on ``server``, print its rate and CPU, return the server's CPU
    per request (µs)."""
    groups = {"server": [server.pid, *servers.children(server.pid)]}
    if args.also:
        groups["also"] = _pids(args.also.split(","))
    before = {name: sum(map(servers.cpu_seconds, pids)) for name, pids in groups.items()}
    result = wrk.run(
        server.url,
        endpoint,
        connections=args.connections,
        threads=1,
        seconds=args.seconds,
        # A seed per run too: with one seed, a write endpoint run twice would resend the
        # same players and scores, and the repeats change no standing.
        args={"n": args.n, "key": KEY, "run": str(time.time_ns()), "seed": time.time_ns() % 2**31},
    )
    after = {name: sum(map(servers.cpu_seconds, pids)) for name, pids in groups.items()}
    requests = result.requests * (1000 if endpoint == "batch" else 1)
    unit = "score" if endpoint == "batch" else "request"
    shares = "  ".join(
        f"{name} {1e6 * (after[name] - before[name]) / requests:7.1f} µs" for name in groups
    )
    label = f"{server.name}:{endpoint}" if server.name == "lean" else endpoint
    print(f"{label:9} {result.rps:9,.0f} req/s  CPU per {unit}: {shares}", flush=True)
    return 1e6 * (after["server"] - before["server"]) / requests


def run(args: Options) -> None:
    unknown = [e for e in args.endpoints if e not in ENDPOINTS]
    if unknown or not args.endpoints:
        raise ValueError(f"the endpoints are some of {', '.join(ENDPOINTS)}, not {unknown}")
    settings = {
        "data_dir": str(args.data_dir or tempfile.mkdtemp(prefix="rankline-server-probe-")),
        "server_keys": KEY,
        "log_level": "warning",
    }
    if args.database_url:
        settings["database_url"] = args.database_url
    if args.redis_url:
        settings["redis_url"] = args.redis_url
    env = servers.bench_env(**settings)
    log = Path(tempfile.mkdtemp(prefix="rankline-server-probe-")) / "server.log"
    with servers.running(servers.ceiling_server(env, 1, log)) as ceiling:
        _drive(ceiling, "ceiling", args)
    lean: dict[str, float] = {}
    reads = [e for e in args.endpoints if e in LEAN_READS] if args.lean else []
    if reads:
        # its own players' scores (seed 1) and times: the CPU of a read does not depend on them
        lean_server = servers.lean_server(env, 1, log, args.n, SystemClock().now(), 1)
        with servers.running(lean_server) as reference:
            for endpoint in reads:
                lean[endpoint] = _drive(reference, endpoint, args)
    with servers.running(servers.rankline_server(env, 1, log)) as server:
        for endpoint in args.endpoints:
            cpu = _drive(server, endpoint, args)
            if endpoint in lean:
                print(
                    f"{endpoint:9} lean reference's CPU per request over rankline's: "
                    f"{lean[endpoint] / cpu:.2f}x",
                    flush=True,
                )
