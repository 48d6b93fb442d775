"""``rankline bench grpc``: a rank read and a batch of 1,000 submissions over gRPC beside the
same over HTTP, against one ``rankline serve --grpc-port``, in rounds that alternate the two
so that the machine's noise falls on both. The server is the embedded default stack with one
worker, or (``backend="redis"``) Redis + PostgreSQL with ``workers`` processes sharing both
ports: the gRPC server's several-process mode.

Each measurement runs ``processes`` load processes (``grpc_load``) for ``seconds``; it reports
the calls per second, the p99 latency, and the server's CPU time per call (its processes' user
+ system time over the run, divided by the calls: what a call costs the server, whatever the
load clients, Redis or PostgreSQL cost on the same cores). Each figure is the median of the
rounds, and the ratio gRPC/HTTP is taken within each round before its median is.
"""

from __future__ import annotations

import multiprocessing
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace

import httpx

from rankline_bench import stack
from rankline_bench.grpc_load import BATCH, BOARD, Job, Outcome, player, run_job
from rankline_bench.servers import HOST, free_port, tree_cpu_seconds

KEY = stack.KEY
DATABASE_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_bench_grpc"
REDIS_URL = "redis://127.0.0.1:6379/4"
KINDS = ("floor", "rank", "batch")
PROTOCOLS = ("http", "grpc")
NAMES = {"floor": "health check", "rank": "rank read", "batch": f"batch of {BATCH:,}"}


@dataclass(frozen=True)
class Options:
    players: int = 100_000
    seconds: float = 5.0
    rounds: int = 3
    processes: int = 2
    rank_concurrency: int = 16
    batch_concurrency: int = 2
    backend: str = "memory"
    workers: int = 1
    database_url: str = DATABASE_URL
    redis_url: str = REDIS_URL

    def plan(self) -> stack.Plan:
        """The stack to serve from; ``ValueError`` for several workers on the embedded one."""
        if self.backend == "memory" and self.workers != 1:
            raise ValueError("the embedded stack serves from one worker: use --backend redis")
        found = stack.plan(self.backend, self.database_url, self.redis_url)
        return replace(found, worker_count=self.workers)


@dataclass
class Figure:
    """One measurement: calls per second, p99 in ms, server CPU ms per call, failures."""

    rate: float
    p99_ms: float
    server_ms: float
    failures: int


def _p99(latencies: list[float]) -> float:
    if not latencies:
        return float("nan")
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000


def _seed(url: str, players: int) -> None:
    """The bench board with ``players`` entries, through the HTTP batch endpoint; then known
    to every worker (``_known``)."""
    auth = {"Authorization": f"Bearer {KEY}"}
    with httpx.Client(base_url=url, headers=auth, timeout=120) as client:
        client.put(f"/v1/boards/{BOARD}", json={"title": "bench"}).raise_for_status()
        for start in range(0, players, BATCH):
            items = [
                {
                    "board": BOARD,
                    "player_id": player(i),
                    "score": i * 7 % 1_000_003,
                    "match_id": "seed",
                }
                for i in range(start, min(players, start + BATCH))
            ]
            for attempt in range(50):  # the worker that answers may not know the board yet
                answer = client.post("/v1/scores/batch", json={"scores": items})
                answer.raise_for_status()
                if all("error" not in r for r in answer.json()["results"]):
                    break
                time.sleep(0.1 * (attempt + 1))
            else:
                raise RuntimeError(f"seeding failed: {answer.text[:500]}")
    _known(url, auth, players)


def _known(url: str, auth: dict[str, str], players: int, timeout: float = 60.0) -> None:
    """Until 20 new connections in a row (each may land on any worker) read the whole board."""
    deadline = time.monotonic() + timeout
    running = 0
    while running < 20:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the board {BOARD!r} not read whole by every worker")
        headers = auth | {"Connection": "close"}
        answer = httpx.get(f"{url}/v1/boards/{BOARD}/top?limit=1", headers=headers, timeout=10)
        if answer.status_code == 200 and answer.json()["total"] == players:
            running += 1
        else:
            running = 0
            time.sleep(0.1)


def measure(
    options: Options, progress: Callable[[str], None] = print
) -> dict[str, dict[str, list[Figure]]]:
    """Every round's figures, by kind and protocol."""
    found: dict[str, dict[str, list[Figure]]] = {k: {p: [] for p in PROTOCOLS} for k in KINDS}
    grpc_port = free_port()
    plan = options.plan()
    settings = {"RANKLINE_RATE_LIMITS": "false", "RANKLINE_GRPC_PORT": str(grpc_port)}
    spawn = multiprocessing.get_context("spawn")
    with (
        stack.running(plan, settings, "rankline-bench-grpc") as served,
        ProcessPoolExecutor(options.processes, mp_context=spawn) as pool,
    ):
        server = served.server
        progress(f"seeding {options.players:,} players")
        _seed(server.url, options.players)
        for round_ in range(options.rounds):
            for kind in KINDS:
                for protocol in PROTOCOLS:
                    concurrency = (
                        options.rank_concurrency if kind == "rank" else options.batch_concurrency
                    )
                    jobs = [
                        Job(
                            protocol,
                            kind,
                            HOST,
                            server.port,
                            grpc_port,
                            KEY,
                            options.players,
                            options.seconds,
                            concurrency,
                            seed=round_ * 100 + i,
                        )
                        for i in range(options.processes)
                    ]
                    server.wait_idle()
                    before = tree_cpu_seconds(server.pid)
                    outcomes: list[Outcome] = list(pool.map(run_job, jobs))
                    used = tree_cpu_seconds(server.pid) - before
                    figure = measured(outcomes, options.seconds, used)
                    found[kind][protocol].append(figure)
                    progress(
                        f"round {round_ + 1} {NAMES[kind]} {protocol}: "
                        f"{figure.rate:,.0f}/s p99 {figure.p99_ms:.1f} ms "
                        f"server {figure.server_ms:.3f} ms/call failures {figure.failures}"
                    )
    return found


def table(found: dict[str, dict[str, list[Figure]]]) -> str:
    """The medians as a markdown table, HTTP and gRPC side by side."""
    lines = [
        "| operation | HTTP calls/s | gRPC calls/s | gRPC/HTTP | HTTP p99 | gRPC p99 "
        "| HTTP server CPU/call | gRPC server CPU/call | failures |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [compared(NAMES[kind], found[kind]["http"], found[kind]["grpc"]) for kind in KINDS]
    return "\n".join(lines)


def measured(outcomes: list[Outcome], seconds: float, cpu_seconds: float) -> Figure:
    """The figure of one measurement: its load processes' ``outcomes`` over ``seconds``, the
    server having used ``cpu_seconds`` meanwhile."""
    calls = sum(o.calls for o in outcomes)
    return Figure(
        calls / seconds,
        _p99([t for o in outcomes for t in o.latencies]),
        cpu_seconds / calls * 1000 if calls else float("nan"),
        sum(o.failures for o in outcomes),
    )


def compared(name: str, one: list[Figure], other: list[Figure]) -> str:
    """A table row: the medians of the rounds of ``one`` and ``other`` side by side, and
    ``other``'s rate over ``one``'s (taken within each round, then its median)."""
    ratio = statistics.median(b.rate / a.rate for a, b in zip(one, other, strict=True))

    def median(figures: list[Figure], attribute: str) -> float:
        return float(statistics.median(getattr(f, attribute) for f in figures))

    failures = sum(f.failures for f in (*one, *other))
    return (
        f"| {name} | {median(one, 'rate'):,.0f} | {median(other, 'rate'):,.0f} "
        f"| {ratio:.2f} | {median(one, 'p99_ms'):.1f} ms | {median(other, 'p99_ms'):.1f} ms "
        f"| {median(one, 'server_ms'):.3f} ms | {median(other, 'server_ms'):.3f} ms "
        f"| {failures} |"
    )
