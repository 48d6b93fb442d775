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

``--servers uvicorn,granian --rounds 3`` compares the HTTP servers on the same store: the
rounds alternate between them (ceiling, then each endpoint), and a table of the medians
follows, with each endpoint's ratio taken within a round before its median is.

    rankline bench probe server --data-dir /tmp/rl1m --n 1000000 \\
        --servers uvicorn,granian --rounds 3 rank around top

With ``--lean``, the lean reference (``rankline_bench.lean``: the same rank, around and top
reads from a plain sorted list) is driven too, on the same server software, and each of
those reads prints the lean reference's CPU per request over rankline's: what ``rankline
bench`` reports as rankline's req/s over the lean reference's, measured as CPU, which other
work on the machine moves less.

Endpoints are the bench's wrk scripts (``bench/src/rankline_bench/lua``): rank, rank_token (the
rank read with a player token), around, top, top_deep, friends, submit, batch, mixed. Writes
go to the store: use a copy you can spare. With rank and rank_token, the server CPU of a
read with a token over a keyless one's follows (the medians of the rounds; goal <= 1.10x):

    rankline bench probe server --data-dir /tmp/rl1m --n 1000000 --rounds 3 rank rank_token
"""

from __future__ import annotations

import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rankline.http.server import DEFAULT_SERVER, SERVERS
from rankline.runtime.clock import SystemClock
from rankline_bench import servers, wrk

KEY = "server-probe-key"
LEAN_READS = ("rank", "around", "top")
"""The reads the lean reference answers."""
ENDPOINTS = (
    "rank",
    "rank_token",
    "around",
    "top",
    "top_deep",
    "friends",
    "submit",
    "batch",
    "mixed",
)
TOKEN_GOAL = 1.10
"""A rank read with a player token may cost at most this much of a keyless one's server CPU."""


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
    servers: tuple[str, ...] = (DEFAULT_SERVER,)
    rounds: int = 1
    lean: bool = False
    """Also drive the lean reference (``rankline_bench.lean``) on the reads it answers, and
    print its CPU per request over rankline's."""


def _pids(names: list[str]) -> list[int]:
    found: list[int] = []
    for name in names:
        out = subprocess.run(["pgrep", "-f", name], capture_output=True, text=True, check=False)
        found += [int(p) for p in out.stdout.split()]
    return found


def _drive(
    server: servers.Server, endpoint: str, args: Options, label: str = ""
) -> tuple[float, float]:
    """Drive ``endpoint`` for ``args.seconds``; print and return its requests/s and the
    server's CPU per request (µs)."""
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
        args={
            "n": args.n,
            "key": KEY,
            "token": servers.player_token(),
            "run": str(time.time_ns()),
            "seed": time.time_ns() % 2**31,
        },
    )
    after = {name: sum(map(servers.cpu_seconds, pids)) for name, pids in groups.items()}
    requests = result.requests * (1000 if endpoint == "batch" else 1)
    unit = "score" if endpoint == "batch" else "request"
    shares = "  ".join(
        f"{name} {1e6 * (after[name] - before[name]) / requests:7.1f} µs" for name in groups
    )
    name = f"lean:{endpoint}" if server.name == "lean" else endpoint
    print(f"{label}{name:9} {result.rps:9,.0f} req/s  CPU per {unit}: {shares}", flush=True)
    return result.rps, 1e6 * (after["server"] - before["server"]) / requests


def run(args: Options) -> None:
    unknown = [e for e in args.endpoints if e not in ENDPOINTS]
    if unknown or not args.endpoints:
        raise ValueError(f"the endpoints are some of {', '.join(ENDPOINTS)}, not {unknown}")
    if not args.servers or any(s not in SERVERS for s in args.servers):
        raise ValueError(f"--servers takes {' and/or '.join(SERVERS)}, not {args.servers}")
    settings = {
        "data_dir": str(args.data_dir or tempfile.mkdtemp(prefix="rankline-server-probe-")),
        "server_keys": KEY,
        "log_level": "warning",
    }
    if args.database_url:
        settings["database_url"] = args.database_url
    if args.redis_url:
        settings["redis_url"] = args.redis_url
    log = Path(tempfile.mkdtemp(prefix="rankline-server-probe-")) / "server.log"
    rates: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    for round_ in range(1, args.rounds + 1):
        for software in args.servers:
            env = servers.bench_env(**settings, server=software)
            label = (
                f"{software} round {round_}: " if len(args.servers) > 1 or args.rounds > 1 else ""
            )
            with servers.running(servers.ceiling_server(env, 1, log)) as ceiling:
                rates.setdefault((software, "ceiling"), []).append(
                    _drive(ceiling, "ceiling", args, label)[0]
                )
            lean = _lean(env, log, args, label)
            with servers.running(servers.rankline_server(env, 1, log)) as server:
                for endpoint in args.endpoints:
                    rps, cpu = _drive(server, endpoint, args, label)
                    rates.setdefault((software, endpoint), []).append(rps)
                    cpus.setdefault((software, endpoint), []).append(cpu)
                    if endpoint in lean:
                        print(
                            f"{label}{endpoint:9} lean reference's CPU per request over "
                            f"rankline's: {lean[endpoint] / cpu:.2f}x",
                            flush=True,
                        )
    if len(args.servers) > 1 or args.rounds > 1:
        print(medians(args.servers, ("ceiling", *args.endpoints), rates, args.rounds))
    if {"rank", "rank_token"} <= set(args.endpoints):
        for software in args.servers:
            print(token_cost(cpus[software, "rank"], cpus[software, "rank_token"]), flush=True)


def token_cost(keyless: list[float], token: list[float]) -> str:
    """The server CPU of a rank read with a player token over a keyless one's, as the
    medians of the rounds, against ``TOKEN_GOAL``."""
    ratio = statistics.median(token) / statistics.median(keyless)
    verdict = "met" if ratio <= TOKEN_GOAL else "NOT met"
    return (
        f"rank with a player token: {statistics.median(token):.1f} µs of server CPU per "
        f"request, keyless {statistics.median(keyless):.1f} µs (medians of {len(token)} "
        f"round(s)): {ratio:.3f}x, goal <= {TOKEN_GOAL:.2f}x {verdict}"
    )


def _lean(env: dict[str, str], log: Path, args: Options, label: str) -> dict[str, float]:
    """With ``--lean``: the lean reference's CPU per request (µs) on each read it answers."""
    reads = [e for e in args.endpoints if e in LEAN_READS] if args.lean else []
    if not reads:
        return {}
    # its own players' scores (seed 1) and times: the CPU of a read does not depend on them
    reference = servers.lean_server(env, 1, log, args.n, SystemClock().now(), 1)
    with servers.running(reference) as lean:
        return {endpoint: _drive(lean, endpoint, args, label)[1] for endpoint in reads}


def medians(
    names: tuple[str, ...],
    endpoints: tuple[str, ...],
    rates: dict[tuple[str, str], list[float]],
    rounds: int,
) -> str:
    """The median requests/s of each server and endpoint as a markdown table; with two
    servers, the second's over the first's, taken within each round, then the median."""
    head = ["endpoint", *(f"{name} (req/s)" for name in names)]
    if len(names) == 2:
        head.append(f"{names[1]} / {names[0]}")
    lines = [f"median of {rounds} round(s)", "| " + " | ".join(head) + " |"]
    lines.append("|" + "---|" * len(head))
    for endpoint in endpoints:
        row = [endpoint]
        row += [f"{statistics.median(rates[name, endpoint]):,.0f}" for name in names]
        if len(names) == 2:
            first, second = (rates[name, endpoint] for name in names)
            ratio = statistics.median(b / a for a, b in zip(first, second, strict=True))
            row.append(f"{ratio:.2f}")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)
