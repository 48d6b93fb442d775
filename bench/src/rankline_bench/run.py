"""``rankline bench``: load N players, then measure every endpoint against the ceiling.

For each backend (``memory``: the in-process index + SQLite in a temporary directory;
``redis``: Redis database 8 + the PostgreSQL database ``rankline_bench``, both emptied
first), in this order, one server at a time:

1. migrate, define the board, (memory) measure an empty server's RSS, bulk-load N players;
2. run the ceiling (raw ASGI app, same server software, options and worker count), then
   the lean reference (``bench.lean``: the rank, around and top-100 reads from a plain sorted
   list and dict over the same players) on the same server software;
3. start ``rankline serve`` and time its index build; measure memory; (redis) time
   ``rankline rebuild``;
4. wrk against each read endpoint at full load, then a load sweep of rank, around and
   top-100 at 25%, 50% and 80% of that maximum (per-connection pauses, wrk's ``delay()``);
5. the write→visible probe, then the write endpoints (single, batch, asynchronous batch,
   mixed, a batch of rated matches), counting the score events (the rated matches) that
   reached SQL (for the asynchronous batch: what the log took, and how long the appliers
   needed after the burst to apply all of it);
6. (redis) the naive SQL rank on PostgreSQL and raw redis-benchmark ZREVRANK;
7. with the server stopped, the storage floor: the group commit's SQL alone, back to back
   (``probes.write_floor``), beside the batch ingest.

With ``--log-url`` every server of the memory and redis backends keeps the ingestion log on
that engine, in a log of the run's and backend's own, which is dropped when the backend is
done; the backend's label and its section of the result name the engine.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import os
import platform
import secrets
import shutil
import sqlite3
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from rankline import __version__
from rankline.boards import Board
from rankline.http.server import DEFAULT_SERVER, SERVERS
from rankline.log.factory import engine_name
from rankline.runtime.clock import SystemClock
from rankline.settings import Settings
from rankline.store import admin
from rankline_bench import cluster_run, dense_run, load, probes, report, servers, wrk
from rankline_bench.harness import Backend
from rankline_bench.load import Dataset

PG_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_bench"
CLUSTER_PG_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_bench_cluster"
"""The cluster run's own database: a redis run elsewhere on the machine leaves it alone."""
REDIS_URL = "redis://127.0.0.1:6379/8"
SCRATCH_REDIS_URL = "redis://127.0.0.1:6379/7"
"""Redis databases of their own: 0 is the default one, 9 and up belong to the test suite."""
QUICK_N, FULL_N = 1_000_000, 10_000_000
QUICK_SECONDS, FULL_SECONDS = 10.0, 30.0
SWEEP = (0.25, 0.5, 0.8)
WARMUP_SECONDS = 2.0
MEMORY_N = 1_000_000
"""Memory per entry is judged at 1M entries: a larger run also measures it there,
on a server of its own, before loading the rest."""
DRAIN_SECONDS = 30.0
APPLY_STALL_SECONDS = 30.0
"""An asynchronous burst fails when its applying makes no progress for this long."""
"""The longest wait for a server to answer what wrk left queued; then it is restarted."""


@dataclass(frozen=True)
class Endpoint:
    name: str
    label: str
    events: int = 0
    """Score events each request submits (0: a read)."""
    connections: int | None = None
    """Fewer connections than the run's, where each request is itself big."""
    sweep: bool = False
    asynchronous: bool = False
    """Answered 202 once in the ingestion log (``Prefer: respond-async``); applied behind."""
    rated: bool = False
    """Sends match results to the rating board; its events are rated matches."""


ENDPOINTS = (
    Endpoint("rank", "GET player rank", sweep=True),
    Endpoint("around", "GET around k=5", sweep=True),
    Endpoint("friends", "POST friends (100)"),
    Endpoint("top", "GET top-100", sweep=True),
    Endpoint("top_deep", "GET top page at offset N/2"),
    Endpoint("rank_token", "GET player rank, player token"),
    Endpoint("submit", "POST score (single)", events=1),
    Endpoint("batch", "POST batch (1,000 scores)", events=1000, connections=4),
    Endpoint(
        "batch_async",
        "POST batch async (1,000 scores, Prefer: respond-async)",
        events=1000,
        connections=4,
        asynchronous=True,
    ),
    Endpoint("mixed", "mixed 10 reads : 1 write", events=1),
    Endpoint(
        "matches",
        "POST match batch (1,000 two-player Elo matches, rating board)",
        events=1000,
        connections=4,
        rated=True,
    ),
)


@dataclass(frozen=True)
class Options:
    n: int
    duration: float
    backends: tuple[str, ...]
    json_path: Path
    markdown: Path | None
    workers: int
    connections: int
    threads: int
    profile: bool
    quick: bool
    seed: int
    command: str
    server: str = DEFAULT_SERVER
    """The HTTP server of rankline and of the ceiling (``rankline.http.server``)."""
    memory_only: bool = False
    """Only the memory per entry of a plain board and of one with a subscore (no wrk)."""
    endpoints: tuple[str, ...] = ()
    """The endpoints to measure (empty: every one)."""
    log_url: str = ""
    """The ingestion log of the memory and redis backends' servers (empty: each store's
    default), under a log name of the run's and backend's own, dropped afterwards."""

    @property
    def measured(self) -> tuple[Endpoint, ...]:
        return tuple(e for e in ENDPOINTS if not self.endpoints or e.name in self.endpoints)

    @property
    def mode(self) -> str:
        """quick or full, or custom when N or the duration differ from the mode's."""
        n, seconds = (QUICK_N, QUICK_SECONDS) if self.quick else (FULL_N, FULL_SECONDS)
        if (self.n, self.duration) != (n, seconds):
            return "custom"
        return "quick" if self.quick else "full"

    @property
    def sweep_seconds(self) -> float:
        return max(2.0, self.duration * 0.3)

    @property
    def at80_seconds(self) -> float:
        return max(3.0, self.duration * 0.5)

    @property
    def visible_samples(self) -> int:
        return 300 if self.quick else 500

    @property
    def ready_timeout(self) -> float:
        return max(180.0, self.n / 10_000)


def make_options(
    *,
    quick: bool,
    n: int | None,
    duration: float | None,
    backends: str,
    json_path: Path | None,
    markdown: Path | None,
    workers: int,
    connections: int,
    threads: int,
    profile: bool,
    seed: int,
    command: str,
    server: str = DEFAULT_SERVER,
    memory_only: bool = False,
    endpoints: str = "",
    log_url: str = "",
) -> Options:
    names = tuple(b.strip() for b in backends.split(",") if b.strip())
    chosen = tuple(e.strip() for e in endpoints.split(",") if e.strip())
    known = [e.name for e in ENDPOINTS]
    if any(e not in known for e in chosen):
        raise ValueError(f"--endpoints takes some of {', '.join(known)}, not {endpoints!r}")
    unknown = [b for b in names if b not in ("memory", "redis", "cluster", "dense")]
    if unknown or not names:
        raise ValueError(f"--backends takes memory, redis, cluster and/or dense, not {backends!r}")
    if server not in SERVERS:
        raise ValueError(f"--server takes {' or '.join(SERVERS)}, not {server!r}")
    if log_url:
        try:
            engine_name(log_url)
        except ValueError as exc:
            raise ValueError(f"--log-url: {exc}") from None
        if memory_only or not {"memory", "redis"} & set(names):
            raise ValueError(
                "--log-url puts a log in front of the memory and redis backends' writes: "
                "measure one of them (and not with --memory-only)"
            )
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return Options(
        n=n or (QUICK_N if quick else FULL_N),
        duration=duration or (QUICK_SECONDS if quick else FULL_SECONDS),
        backends=names,
        json_path=json_path or Path("bench-results") / f"{stamp}.json",
        markdown=markdown,
        workers=workers,
        connections=connections,
        threads=threads,
        profile=profile,
        quick=quick,
        seed=seed,
        command=command,
        server=server,
        memory_only=memory_only,
        endpoints=chosen,
        log_url=log_url,
    )


def backend(name: str, workers: int, log_url: str = "", log_name: str = "") -> Backend:
    """The memory or redis backend; with ``log_url``, its servers keep the ingestion log
    there, named ``log_name``, and its label names the log's engine."""
    if name == "memory":
        label, database_url, redis_url, workers = "memory index + SQLite", None, None, 1
    else:
        label, database_url, redis_url = "Redis + PostgreSQL", PG_URL, REDIS_URL
    if log_url:
        label += f" + {engine_name(log_url)}"
    return Backend(name, label, database_url, redis_url, workers, log_url, log_name)


def log_of(plan: Backend) -> dict[str, Any]:
    """Where ``plan``'s servers keep the ingestion log, for the result: the engine, and with
    a log URL that URL and the log's name."""
    store = plan.database_url or "sqlite+aiosqlite://"  # the memory backend's: SQLite
    found: dict[str, Any] = {"engine": engine_name(plan.log_url, store)}
    if plan.log_url:
        found |= {"url": plan.log_url, "name": plan.log_name}
    return found


AT_80_MISS = 0.06
"""How far the measured 80% point may land from its target before it is corrected from
that run and measured once more (the machine's speed drifts between runs)."""
AT_80_RUNS = 3
"""Measured runs of the 80% point at most: a run short of 75% of the maximum leaves its p99
target unjudged, and the per-connection pauses move the rate by whole milliseconds."""


def pause_ms(target_rps: float, connections: int, latency_ms: float) -> float:
    """The pause after each response that makes ``connections`` connections, each waiting
    ``latency_ms`` for an answer, send ``target_rps`` requests a second in all."""
    return max(0.0, connections * 1000 / target_rps - latency_ms)


def latency_from(pause: float, achieved_rps: float, connections: int) -> float:
    """The per-request time (answer + client) a run with ``pause`` actually had."""
    return max(0.0, connections * 1000 / achieved_rps - pause)


class Bench:
    def __init__(self, options: Options, console: Console) -> None:
        self.o = options
        self.console = console
        self.key = "rk_bench_" + secrets.token_urlsafe(16)
        self.run_id = secrets.token_hex(3)
        self.wrk_runs: collections.Counter[str] = collections.Counter()
        """wrk runs so far by label: each draws its players and scores from a seed of its own."""
        self.now = SystemClock().now()
        self.data = Dataset(options.n, at0=self.now - options.n - 1_000_000, seed=options.seed)
        self.tmp = Path(tempfile.mkdtemp(prefix="rankline-bench-"))
        self.failed: list[str] = []

    # --- the whole run ---------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        started = time.perf_counter()
        results: dict[str, Any] = {
            "rankline_bench": 1,
            "command": self.o.command,
            "started_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "mode": self.o.mode,
            "n": self.o.n,
            "duration_s": self.o.duration,
            "connections": self.o.connections,
            "threads": self.o.threads,
            "server": self.o.server,
            "seed": self.o.seed,
            "machine": machine(),
            "versions": {},
            "backends": {},
        }
        try:
            for name in self.o.backends:
                if self.o.memory_only:
                    mode = backend(name, self.o.workers)
                    self.console.rule(f"{mode.label}: memory per entry, N={self.o.n:,}")
                    results["backends"][name] = part = {"label": mode.label}
                    self.attempt(part, "outcome", partial(self.memory_boards, mode, part))
                    continue
                if name == "cluster":
                    self.console.rule(f"Redis Cluster, N={self.o.n:,} per board")
                    results["cluster"] = {}
                    self.attempt(
                        results, "cluster", lambda: cluster_run.measure(self, CLUSTER_PG_URL)
                    )
                    continue
                if name == "dense":
                    self.console.rule(f"dense ranks: memory per entry, N={self.o.n:,}")
                    results["dense"] = {}
                    plans = [backend("memory", 1), backend("redis", 1)]
                    self.attempt(results, "dense", partial(dense_run.measure, self, plans))
                    continue
                log_name = f"bench_{self.run_id}_{name}"  # a run never meets another's log
                plan = backend(name, self.o.workers, self.o.log_url, log_name)
                self.console.rule(f"{plan.label}, N={self.o.n:,}")
                section: dict[str, Any] = {
                    "label": plan.label,
                    "workers": plan.workers,
                    "log": log_of(plan),
                }
                results["backends"][name] = section  # filled as it goes: kept if it fails
                try:
                    self.attempt(section, "outcome", partial(self.backend, plan, section))
                finally:
                    if plan.log_url:
                        self.attempt(section["log"], "dropped", partial(self.drop_log, plan))
            results["versions"] = versions(self.o.backends)
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)
        results["wall_seconds"] = time.perf_counter() - started
        results["targets"] = report.targets(results)
        results["failed"] = self.failed
        return results

    def prepared(
        self, plan: Backend, data_dir: Path, boards: Sequence[Board] = ()
    ) -> tuple[dict[str, str], str, int]:
        """A fresh durable store for ``plan`` with ``boards`` defined (default: the bench
        board) and an empty index: the server environment, the store's URL, and the RSS of
        a server on the empty store (0 on Redis, whose memory is measured in Redis)."""
        url = plan.database_url or Settings(data_dir=data_dir).database
        settings = {
            "data_dir": str(data_dir),
            "server_keys": self.key,
            "log_level": "info",
            "server": self.o.server,  # the ceiling follows it (``servers.ceiling_server``)
        }
        if plan.database_url:
            settings["database_url"] = plan.database_url
        if plan.redis_url:
            settings["redis_url"] = plan.redis_url
        if plan.log_url:
            settings |= {"log_url": plan.log_url, "log_name": plan.log_name}
        env = servers.bench_env(**settings)
        self.step("preparing the durable store")
        if plan.database_url:
            asyncio.run(admin.recreate_database(plan.database_url))
        asyncio.run(load.prepare(url, self.now, boards))
        rss_empty = 0
        if plan.redis_url:
            probes.flush_db(plan.redis_url)
        else:
            with servers.running(self.server(env, plan, "empty"), self.o.ready_timeout) as empty:
                rss_empty = empty.rss_bytes()
        return env, url, rss_empty

    def memory_boards(self, plan: Backend, section: dict[str, Any]) -> str:
        """Memory per entry at N (at most 1M) of the bench board, plain and with a
        subscore (8 more bytes per ordering key), each on a store and index of its own."""
        n = min(self.o.n, MEMORY_N)
        kinds = {"plain": load.bench_board(), "subscore": load.bench_board(subscore="desc")}
        for kind, board in kinds.items():
            self.step(f"{kind} board")
            env, url, rss_empty = self.prepared(plan, self.tmp / f"{plan.name}-{kind}", [board])
            section[f"load_{kind}"] = self.bulk_load(url, 0, n, board)
            measure = partial(self.memory_at, env, plan, rss_empty, n)
            self.attempt(section, f"memory_{kind}", measure)
            found = section[f"memory_{kind}"]
            if "bytes_per_entry" in found:
                self.step(f"{kind} board: {found['bytes_per_entry']:,.1f} B per entry")
        plain, sub = section.get("memory_plain", {}), section.get("memory_subscore", {})
        if "bytes_per_entry" in plain and "bytes_per_entry" in sub:
            section["subscore_extra_bytes_per_entry"] = (
                sub["bytes_per_entry"] - plain["bytes_per_entry"]
            )
        return "measured"

    def backend(self, plan: Backend, section: dict[str, Any]) -> str:
        self.wrk_runs.clear()  # every backend gets the same draws (``run_seed``)
        env, url, rss_empty = self.prepared(plan, self.tmp / plan.name)
        if self.o.n > MEMORY_N:  # the memory goals are judged at 1M entries
            section["load_first"] = self.bulk_load(url, 0, MEMORY_N)
            self.attempt(
                section, "memory_1m", lambda: self.memory_at(env, plan, rss_empty, MEMORY_N)
            )
            section["load"] = self.bulk_load(url, MEMORY_N, self.o.n)
        else:
            section["load"] = self.bulk_load(url, 0, self.o.n)
        asyncio.run(load.settle(url))
        section["ceiling"] = self.ceiling(env, plan).to_json()
        self.attempt(section, "lean", lambda: self.lean(env, plan))
        used_before = probes.redis_memory(plan.redis_url) if plan.redis_url else {}
        server = self.server(env, plan, "rankline")
        with self.bar("building the index", self.o.n) as update:

            def building(body: dict[str, Any]) -> None:
                update(body.get("rebuild", {}).get("done", 0))

            server.start()
            try:
                ready = server.wait_ready(self.o.ready_timeout, building)
            except BaseException:
                server.stop()
                raise
        try:
            section["rebuild"] = self.rebuild_figures(server, ready)
            self.attempt(
                section, "memory", lambda: self.memory(server, plan, rss_empty, used_before)
            )
            if plan.redis_url:
                self.attempt(section, "rebuild_command", lambda: self.rebuild_command(env))
            self.measure(server, section, plan, url, lambda: self.ceiling(env, plan, "again"))
        finally:
            server.stop()
        self.attempt(section, "write_floor", lambda: self.write_floor(url))
        if plan.redis_url:
            probes.flush_db(plan.redis_url)
        return "measured"

    def measure(
        self,
        server: servers.Server,
        section: dict[str, Any],
        plan: Backend,
        db_url: str,
        ceiling_again: Callable[[], wrk.WrkResult],
    ) -> None:
        ceiling = section["ceiling"]["rps"]
        self.wrk(server, "rank", self.o.connections, WARMUP_SECONDS, label="warming up")
        endpoints: dict[str, Any] = {}
        section["endpoints"] = endpoints
        maxima: dict[str, wrk.WrkResult] = {}
        for e in [e for e in self.o.measured if not e.events]:
            result = self.endpoint(server, e, ceiling, endpoints)
            if result is not None:
                maxima[e.name] = result
        # The ceiling again, with this server idle: the machine's speed drifts (other
        # tenants), so every ratio is taken to the mean of the runs before and after.
        self.attempt(section, "ceiling_after", lambda: ceiling_again().to_json())
        ceiling = report.mean_ceiling(section) or ceiling
        for item in endpoints.values():
            if item.get("ratio") is not None:
                item["ratio"] = report.ratio(item["rps"], ceiling)
        lean = section.get("lean", {})
        for name in report.READS:
            if name in endpoints and "rps" in lean.get(name, {}):
                endpoints[name]["of_lean"] = report.ratio(endpoints[name]["rps"], lean[name]["rps"])
        section["sweeps"], section["at_80"] = {}, {}
        for e in self.o.measured:
            if e.sweep and e.name in maxima:
                self.attempt(
                    section["sweeps"], e.name, partial(self.sweep, server, e, maxima[e.name])
                )
                points = section["sweeps"][e.name]
                if isinstance(points, list):
                    section["at_80"][e.name] = points[-1]
        if self.o.profile:
            self.attempt(section, "profile", lambda: self.profile(server))
        self.step("write→visible probe")
        self.attempt(
            section,
            "write_visible",
            lambda: asyncio.run(
                probes.write_visible(server.url, self.key, self.data, self.o.visible_samples)
            ),
        )
        for e in [e for e in self.o.measured if e.events]:
            count = probes.count_matches if e.rated else probes.count_events
            before = asyncio.run(count(db_url))
            result = self.endpoint(server, e, ceiling, endpoints)
            if result is None:
                continue
            if e.asynchronous:
                endpoints[e.name] |= self.applied_behind(db_url, before, result, e.events)
                continue
            added = asyncio.run(count(db_url)) - before
            # Requests still in flight when wrk stopped commit while the server drains.
            endpoints[e.name] |= {
                "durable_events": added,
                "durable_events_per_s": added / (result.seconds + result.drain_s),
            }
        batch = endpoints.get("batch", {})
        if "durable_events_per_s" in batch:
            section["batch_ingest"] = {
                "events_per_s": batch["durable_events_per_s"],
                "requested_per_s": batch["rps"] * 1000,
            }
        rated = endpoints.get("matches", {})
        if "durable_events_per_s" in rated:
            section["rated_matches"] = {
                "matches_per_s": rated["durable_events_per_s"],
                "requested_per_s": rated["rps"] * 1000,
            }
        burst = endpoints.get("batch_async", {})
        if "accepted_per_s" in burst:
            section["async_ingest"] = {
                k: burst[k] for k in ("accepted_per_s", "applied_per_s", "caught_up_s")
            }
        if plan.database_url and plan.database_url.startswith("postgresql"):
            self.step("naive SQL rank on PostgreSQL")
            self.attempt(section, "naive_sql", lambda: self.naive_sql(plan, section))
        if plan.redis_url:
            self.step("redis-benchmark ZREVRANK")
            self.attempt(
                section,
                "redis_benchmark",
                lambda: probes.redis_benchmark(SCRATCH_REDIS_URL, self.o.n),
            )

    def applied_behind(
        self, db_url: str, before: int, result: wrk.WrkResult, per_request: int
    ) -> dict[str, Any]:
        """After an asynchronous burst: what the log took (every 2xx answer is durable in
        it), then how long the appliers took to bring the score events up to it."""
        accepted = (result.requests - result.error_count) * per_request
        burst = result.seconds + result.drain_s
        started = time.perf_counter()
        applied = asyncio.run(probes.count_events(db_url)) - before
        last_progress, last = started, applied
        with self.bar("applying the burst", accepted) as update:
            while applied < accepted and time.perf_counter() - last_progress < APPLY_STALL_SECONDS:
                time.sleep(0.2)
                applied = asyncio.run(probes.count_events(db_url)) - before
                update(applied)
                if applied > last:
                    last_progress, last = time.perf_counter(), applied
        caught_up = time.perf_counter() - started
        if applied < accepted:
            raise RuntimeError(
                f"the appliers stalled at {applied:,} of {accepted:,} accepted submissions"
            )
        self.step(
            f"async burst: {accepted / burst:,.0f} durable in the log/s; applied "
            f"{caught_up:.1f} s after the burst ended ({applied / (burst + caught_up):,.0f}/s)"
        )
        return {
            "accepted": accepted,
            "accepted_per_s": accepted / burst,
            "applied": applied,
            "caught_up_s": caught_up,
            "applied_per_s": applied / (burst + caught_up),
        }

    def attempt(self, section: dict[str, Any], key: str, work: Callable[[], Any]) -> None:
        """Run one measurement into ``section[key]``; a failure is recorded and reported,
        and the run goes on (a long run is not lost to one broken probe)."""
        try:
            section[key] = work()
        except Exception as exc:
            message = f"{key}: {type(exc).__name__}: {exc}"
            section[key] = {"failed": message}
            self.failed.append(message)
            self.console.print(f"[bold red]FAILED[/bold red] {escape(message)}")

    def naive_sql(self, plan: Backend, section: dict[str, Any]) -> dict[str, Any]:
        assert plan.database_url is not None
        naive = asyncio.run(probes.naive_sql_rank(plan.database_url, self.data))
        # One query at a time against the HTTP rank at light load (the sweep's first
        # point), not at full load, where the p50 is mostly waiting in the queue.
        points = section.get("sweeps", {}).get("rank")
        light = min(points, key=lambda p: p["rps"]) if isinstance(points, list) else None
        http = (light or section["endpoints"].get("rank") or {}).get("p50_ms")
        naive["http_p50_ms"] = http
        naive["http_load"] = f"{light['target_fraction']:.0%} of max" if light else "max"
        naive["ratio_to_http_p50"] = report.ratio(naive["median_ms"], http)
        self.step(f"naive SQL rank: median {naive['median_ms']:.1f} ms")
        return naive

    def drop_log(self, plan: Backend) -> bool:
        """Drop the backend's scratch log, as the bench drops its scratch databases."""
        self.step(f"dropping the ingestion log {plan.log_name} ({plan.log_url})")
        asyncio.run(probes.drop_log(plan.log_url, plan.log_name))
        return True

    def write_floor(self, url: str) -> dict[str, Any]:
        """The batch write's SQL alone at N (``probes.write_floor``); the report sets the
        batch ingest beside it."""
        self.step("storage floor of a batch write (the group commit's SQL alone)")
        floor = asyncio.run(probes.write_floor(url, self.data, self.o.duration, seed=self.o.seed))
        self.step(f"storage floor: {floor['events_per_s']:,.0f} events/s")
        return floor

    # --- steps -----------------------------------------------------------------------------

    def server(self, env: dict[str, str], plan: Backend, name: str) -> servers.Server:
        log = self.tmp / f"{plan.name}-{name}.log"
        return servers.rankline_server(env, plan.workers, log)

    def bulk_load(
        self, url: str, first: int, end: int, board: Board | None = None
    ) -> dict[str, Any]:
        started = time.perf_counter()
        with self.bar("bulk load into SQL", end - first) as update:
            rows = asyncio.run(load.load(url, self.data, self.now, update, first, end, board))
        seconds = time.perf_counter() - started
        self.step(f"loaded {rows:,} players in {seconds:.1f} s ({rows / seconds:,.0f}/s)")
        return {"rows": rows, "seconds": seconds, "rows_per_s": rows / seconds}

    def ceiling(self, env: dict[str, str], plan: Backend, run: str = "") -> wrk.WrkResult:
        log = self.tmp / f"{plan.name}-ceiling{run}.log"
        with servers.running(servers.ceiling_server(env, plan.workers, log), 60) as server:
            self.wrk(server, "ceiling", self.o.connections, WARMUP_SECONDS, label="warming up")
            result = self.wrk(server, "ceiling", self.o.connections, self.o.duration)
        wrk.check("ceiling", result)
        name = f"ceiling {run}".strip()
        self.step(f"{name}: {result.rps:,.0f} req/s, p99 {result.p99_ms:.2f} ms")
        return result

    def lean(self, env: dict[str, str], plan: Backend) -> dict[str, Any]:
        """The reads of ``report.READS`` on the lean reference, each at full load."""
        log = self.tmp / f"{plan.name}-lean.log"
        data = self.data
        server = servers.lean_server(env, plan.workers, log, data.n, data.at0, data.seed)
        found: dict[str, Any] = {}
        with servers.running(server, self.o.ready_timeout) as lean:
            self.wrk(lean, "rank", self.o.connections, WARMUP_SECONDS, label="warming up")
            for name in report.READS:
                label = f"lean reference: {name}"
                result = self.wrk(lean, name, self.o.connections, self.o.duration, label=label)
                wrk.check(label, result)
                found[name] = result.to_json()
                self.step(f"{label}: {result.rps:,.0f} req/s, p99 {result.p99_ms:.2f} ms")
        return found

    def rebuild_figures(self, server: servers.Server, ready_seconds: float) -> dict[str, Any]:
        logged = server.logged_build()
        if logged is None:
            return {"entries": 0, "ready_seconds": ready_seconds}
        entries, seconds, per_second = logged
        self.step(f"index built: {entries:,} entries at {per_second:,.0f}/s")
        return {
            "entries": entries,
            "seconds": seconds,
            "entries_per_s": per_second,
            "ready_seconds": ready_seconds,
            "how": "logged by the server's own build from SQL at start"
            + (" (after a Redis FLUSHDB)" if server.env.get("RANKLINE_REDIS_URL") else ""),
        }

    def memory_at(
        self, env: dict[str, str], plan: Backend, rss_empty: int, n: int
    ) -> dict[str, Any]:
        """Memory per entry with the first ``n`` players loaded, on a server of its own."""
        self.step(f"memory per entry at {n:,} entries")
        used_before = probes.redis_memory(plan.redis_url) if plan.redis_url else {}
        with servers.running(self.server(env, plan, "memory"), self.o.ready_timeout) as server:
            found = self.memory(server, plan, rss_empty, used_before, n)
        if plan.redis_url:
            probes.flush_db(plan.redis_url)
        return found

    def memory(
        self,
        server: servers.Server,
        plan: Backend,
        rss_empty: int,
        used_before: dict[str, int],
        n: int | None = None,
    ) -> dict[str, Any]:
        n = n or self.o.n
        if plan.redis_url is None:
            rss = server.rss_bytes()
            return {
                "entries": n,
                "bytes_per_entry": (rss - rss_empty) / n,
                "rss_loaded": rss,
                "rss_empty": rss_empty,
                "how": "server RSS with N entries minus RSS with an empty store, / N",
            }
        used = probes.redis_memory(plan.redis_url)
        keys_bytes, keys = probes.redis_keys_memory(plan.redis_url)
        return {
            "entries": n,
            **probes.memory_per_entry(used_before, used, n),
            "keys_bytes_per_entry": keys_bytes / n,
            "keys": keys,
            "how": "(growth of Redis used_memory during the build, less the growth of its "
            "clients' buffers and script cache) / N; raw_bytes_per_entry without that "
            "correction; keys_bytes_per_entry: MEMORY USAGE of the database's keys, / N",
        }

    def rebuild_command(self, env: dict[str, str]) -> dict[str, Any]:
        self.step("timing `rankline rebuild` (reload over the built index, then verify)")
        seconds, _ = servers.run_cli(["rebuild"], env, self.o.ready_timeout * 3)
        self.step(f"`rankline rebuild`: {seconds:.1f} s ({self.o.n / seconds:,.0f} entries/s)")
        return {
            "entries": self.o.n,
            "seconds": seconds,
            "entries_per_s": self.o.n / seconds,
            "how": "wall time of `rankline rebuild`: process start, load, verify pass",
        }

    def endpoint(
        self, server: servers.Server, e: Endpoint, ceiling: float, into: dict[str, Any]
    ) -> wrk.WrkResult | None:
        connections = min(e.connections or self.o.connections, self.o.connections)
        board = load.RATED_BOARD_ID if e.rated else load.BOARD_ID
        result = self.wrk(server, e.name, connections, self.o.duration, label=e.label, board=board)
        item = result.to_json() | {"label": e.label}
        item["ratio"] = None if e.events > 1 else report.ratio(result.rps, ceiling)
        into[e.name] = item
        try:
            wrk.check(e.label, result)
        except wrk.WrkError as exc:
            item["failed"] = str(exc)
            item["server_errors"] = server.errors()
            self.failed.append(str(exc))
            self.console.print(f"[bold red]FAILED[/bold red] {escape(str(exc))}")
            for line in item["server_errors"]:
                self.console.print(f"    server log: {escape(line)}")
            return None
        share = "" if item["ratio"] is None else f" ({item['ratio']:.0%} of ceiling)"
        self.step(
            f"{e.label}: {result.rps:,.0f} req/s, p50 {result.p50_ms:.2f} / "
            f"p95 {result.p95_ms:.2f} / p99 {result.p99_ms:.2f} ms{share}"
        )
        return result

    def sweep(
        self, server: servers.Server, e: Endpoint, top: wrk.WrkResult
    ) -> list[dict[str, Any]]:
        """p99 at a few fractions of the maximum rate, each held by per-connection pauses
        (wrk's ``delay()``). The pause for each fraction comes from the answer time of the
        run before it; the last one (80%) first gets a short calibration run, since answers
        slow down as the load grows, and is then measured for longer (again, corrected from
        the last, while it lands more than ``AT_80_MISS`` away: ``AT_80_RUNS`` runs at most)."""
        c = self.o.connections
        points = [top.to_json() | {"target_fraction": 1.0, "fraction": 1.0}]
        latency = 1000 / top.rps  # about one request's service time, unloaded
        for fraction in SWEEP:
            target = fraction * top.rps
            label = f"{e.label} at {fraction:.0%}"
            pause = pause_ms(target, c, latency)
            result = self.wrk(server, e.name, c, self.o.sweep_seconds, delay=pause, label=label)
            if fraction == SWEEP[-1]:
                for _ in range(AT_80_RUNS):  # another measured run only when the last missed
                    if abs(result.rps / target - 1) > 0.03:
                        pause = pause_ms(target, c, latency_from(pause, result.rps, c))
                    result = self.wrk(
                        server, e.name, c, self.o.at80_seconds, delay=pause, label=label
                    )
                    if abs(result.rps / target - 1) <= AT_80_MISS:
                        break
            wrk.check(label, result)
            latency = latency_from(pause, result.rps, c)
            points.append(
                result.to_json() | {"target_fraction": fraction, "fraction": result.rps / top.rps}
            )
        last = points[-1]
        self.step(
            f"{e.label}: p99 {last['p99_ms']:.2f} ms at {last['rps']:,.0f} req/s "
            f"({last['fraction']:.0%} of max)"
        )
        return points

    def profile(self, server: servers.Server) -> dict[str, Any]:
        if not probes.Profiler.available():
            self.step("py-spy is not installed (the bench extra has it): no profile")
            return {"error": "py-spy not installed"}
        profiler = probes.Profiler(server.pid, self.o.duration)
        profiler.start()
        self.wrk(
            server, "rank", self.o.connections, self.o.duration, label="GET player rank, profiled"
        )
        found = profiler.finish()
        for frame in found.get("self", [])[:10]:
            self.step(f"  {frame['share']:6.1%}  {frame['frame']}")
        return found

    # --- helpers ---------------------------------------------------------------------------

    def run_seed(self, label: str) -> int:
        """The seed of the next wrk run labelled ``label``: from ``--seed``, the label and
        how many runs had that label, so a bench repeats, each backend gets the same draws
        for an endpoint, and no two runs of one server share a seed. With one seed for every
        run, each write endpoint sent the same players and scores as the one before it, and
        the repeats (no better than the standing they met) changed nothing, which made
        writes look cheaper."""
        self.wrk_runs[label] += 1
        return zlib.crc32(f"{self.o.seed}|{label}|{self.wrk_runs[label]}".encode()) % 2**31

    def wrk(
        self,
        server: servers.Server,
        endpoint: str,
        connections: int,
        seconds: float,
        *,
        delay: float = 0.0,
        label: str | None = None,
        board: str = load.BOARD_ID,
    ) -> wrk.WrkResult:
        """One wrk run; then wait until the server has worked off what wrk left queued
        (``drain_s`` in the result), so one run's backlog never slows the next."""
        args: dict[str, object] = {
            "n": self.o.n,
            "board": board,
            "key": self.key,
            "token": servers.player_token(),
            "run": f"{self.run_id}{endpoint}{connections}{round(delay * 100)}{time.monotonic_ns()}",
            "seed": self.run_seed(label or f"{endpoint} {connections} {delay}"),
        }
        if delay:
            args["delay"] = f"{delay:.3f}"
        with self.bar(label or endpoint, int(seconds), seconds=True) as update:
            result = wrk.run(
                server.url,
                endpoint,
                connections=connections,
                threads=self.o.threads,
                seconds=seconds,
                args=args,
                tick=lambda elapsed: update(min(int(elapsed), int(seconds))),
            )
        drain = server.wait_idle(DRAIN_SECONDS)
        if drain is None:
            self.step(
                f"{label or endpoint}: the server still works off its backlog after "
                f"{DRAIN_SECONDS:.0f} s; restarting it"
            )
            server.restart(self.o.ready_timeout)
            drain = DRAIN_SECONDS
        elif drain > 1:
            self.step(f"{label or endpoint}: the server took {drain:.1f} s to work off its backlog")
        return dataclasses.replace(result, drain_s=drain)

    def step(self, text: str) -> None:
        self.console.print(f"[dim]{time.strftime('%H:%M:%S')}[/dim] {escape(text)}")

    @contextmanager
    def bar(self, label: str, total: int, seconds: bool = False) -> Iterator[Callable[[int], None]]:
        columns: list[Any] = [TextColumn("{task.description}"), BarColumn()]
        columns += (
            [TimeElapsedColumn()] if seconds else [MofNCompleteColumn(), TimeRemainingColumn()]
        )
        quiet = not self.console.is_terminal
        with Progress(*columns, console=self.console, transient=True, disable=quiet) as progress:
            task = progress.add_task(label, total=total)
            yield lambda done: progress.update(task, completed=done)


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    ram = 0.0
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram = int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_gb": ram,
        "kernel": platform.release(),
        "load_before": load,
    }


def versions(backends: tuple[str, ...]) -> dict[str, str]:
    def package(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    found = {
        "python": platform.python_version(),
        "rankline": __version__,
        "uvicorn": package("uvicorn"),
        "granian": package("granian"),
        "uvloop": package("uvloop"),
        "httptools": package("httptools"),
        "starlette": package("starlette"),
        "sqlite": sqlite3.sqlite_version,
    }
    if "redis" in backends:
        found["redis"] = probes.redis_version(REDIS_URL)
        found["postgresql"] = asyncio.run(probes.postgres_version(PG_URL))
    found["wrk"] = wrk.version().removeprefix("wrk ").split(" ")[0]
    return found


def main(options: Options, console: Console) -> int:
    """Run the benchmark, write the JSON (and the doc and chart), print the tables;
    1 if an endpoint failed."""
    if options.memory_only:
        return _memory_only(options, console)
    if shutil.which("wrk") is None:
        console.print(
            "[bold red]error:[/bold red] wrk is not installed: `apt-get install wrk` "
            "(`make bench` installs it)"
        )
        return 2
    bench = Bench(options, console)
    results = bench.run()
    report.write_json(options.json_path, results)
    chart = options.json_path.with_suffix(".png")
    if not report.plot(results, chart):
        console.print("matplotlib is not installed (the bench extra has it): no chart")
    if options.markdown is not None:
        png = options.markdown.with_suffix(".png")
        drawn = bool(results["backends"]) and report.plot(results, png)
        report.write_markdown(options.markdown, results, png.name if drawn else None)
        console.print(f"wrote {options.markdown}" + (f" and {png}" if drawn else ""))
    report.print_report(results, console)
    console.print(
        f"results: {options.json_path}; chart: {chart}; "
        f"wall time {results['wall_seconds'] / 60:.1f} min"
    )
    return 1 if results["failed"] else 0


def _memory_only(options: Options, console: Console) -> int:
    """``--memory-only``: the memory per entry of a plain board and of one with a
    subscore, per backend; the JSON, and a line per backend."""
    results = Bench(options, console).run()
    report.write_json(options.json_path, results)
    for name, section in results["backends"].items():
        plain = section.get("memory_plain", {}).get("bytes_per_entry")
        sub = section.get("memory_subscore", {}).get("bytes_per_entry")
        if plain is not None and sub is not None:
            console.print(
                f"{name}: {plain:,.1f} B per entry on a plain board, {sub:,.1f} B with a "
                f"subscore (+{sub - plain:,.1f} B)"
            )
    console.print(f"results: {options.json_path}")
    return 1 if results["failed"] else 0
