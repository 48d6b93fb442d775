"""``rankline bench grpc``: a rank read and a batch of 1,000 submissions over gRPC beside the
same over HTTP, against one ``rankline serve --grpc-port`` (embedded default stack, one
worker), in rounds that alternate the two so that the machine's noise falls on both.

Each measurement runs ``processes`` load processes (``grpc_load``) for ``seconds``; it reports
the calls per second, the p99 latency, and the server's CPU time per call (its process's
user + system time over the run, divided by the calls: what a call costs the server, whatever
the load clients cost on the same cores). Each figure is the median of the rounds, and the
ratio gRPC/HTTP is taken within each round before its median is.
"""

from __future__ import annotations

import multiprocessing
import statistics
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx

from rankline_bench.grpc_load import BATCH, BOARD, Job, Outcome, player, run_job
from rankline_bench.servers import (
    HOST,
    bench_env,
    free_port,
    rankline_server,
    running,
    tree_cpu_seconds,
)

KEY = "bench-key"
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
    """The bench board with ``players`` entries, through the HTTP batch endpoint."""
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
            client.post("/v1/scores/batch", json={"scores": items}).raise_for_status()


def measure(
    options: Options, progress: Callable[[str], None] = print
) -> dict[str, dict[str, list[Figure]]]:
    """Every round's figures, by kind and protocol."""
    found: dict[str, dict[str, list[Figure]]] = {k: {p: [] for p in PROTOCOLS} for k in KINDS}
    grpc_port = free_port()
    with tempfile.TemporaryDirectory(prefix="rankline-bench-grpc-") as temp:
        env = bench_env(
            data_dir=temp,
            server_keys=KEY,
            rate_limits="false",
            grpc_port=str(grpc_port),
            log_level="warning",
        )
        server = rankline_server(env, 1, Path(temp) / "server.log")
        spawn = multiprocessing.get_context("spawn")
        with running(server), ProcessPoolExecutor(options.processes, mp_context=spawn) as pool:
            progress(f"seeding {options.players:,} players")
            _seed(server.url, options.players)
            for round_ in range(options.rounds):
                for kind in KINDS:
                    for protocol in PROTOCOLS:
                        concurrency = (
                            options.rank_concurrency
                            if kind == "rank"
                            else options.batch_concurrency
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
                        calls = sum(o.calls for o in outcomes)
                        figure = Figure(
                            calls / options.seconds,
                            _p99([t for o in outcomes for t in o.latencies]),
                            used / calls * 1000 if calls else float("nan"),
                            sum(o.failures for o in outcomes),
                        )
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
    for kind in KINDS:
        http, grpc = found[kind]["http"], found[kind]["grpc"]
        ratio = statistics.median(g.rate / h.rate for h, g in zip(http, grpc, strict=True))

        def median(figures: list[Figure], attribute: str) -> float:
            return float(statistics.median(getattr(f, attribute) for f in figures))

        failures = sum(f.failures for f in (*http, *grpc))
        lines.append(
            f"| {NAMES[kind]} | {median(http, 'rate'):,.0f} | {median(grpc, 'rate'):,.0f} "
            f"| {ratio:.2f} | {median(http, 'p99_ms'):.1f} ms | {median(grpc, 'p99_ms'):.1f} ms "
            f"| {median(http, 'server_ms'):.3f} ms | {median(grpc, 'server_ms'):.3f} ms "
            f"| {failures} |"
        )
    return "\n".join(lines)
