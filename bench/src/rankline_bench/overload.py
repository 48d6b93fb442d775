"""``rankline bench overload``: writes far beyond what the server commits, with rank reads
beside them, on the embedded default (one worker, SQLite) and on Redis + PostgreSQL (two
workers).

Each round, on one running server:

1. **unloaded**: ``unloaded_clients`` connections each keep one batch of ``batch`` new
   submissions in flight for ``seconds``: the synchronous rate this server commits unloaded;
2. **overload**: ``clients`` connections each keep one such batch in flight for ``seconds``:
   each new request the moment the last is answered, 200 or 429 (``retry_after="ignore"``,
   the harshest load), or, after a 429, once its ``Retry-After`` has passed (``"heed"``, as
   rankline's own clients do);
3. **overload with reads**: the same writes again, while ``readers`` connections read
   players' ranks on another board, each its next read the moment the last is answered;
4. the overload board's total is compared with the submissions answered 200 in both
   phases: nothing acknowledged lost, nothing refused written.

The goodput is phase 2's: in phase 3 the readers, asking as fast as they are answered, take
as much of the server as the writes do, and the writes' share of it is what it measures
(reported beside it as ``goodput_with_reads``), not how well the server sheds writes.

Reported, median of the rounds: the unloaded rate, the goodput under overload (submissions
answered 200 per second) and its share of the unloaded rate, the share of requests answered
429 (and how many lacked Retry-After), the answer latency of the admitted writes (p50, p99,
max) and of the refused ones (max), the rank reads' p99 during the overload (phase 3) and
the goodput beside them, what the server itself timed in phase 3 (the share of the rank reads
it answered within 100 ms, and of its event loops' lateness samples at most 25 ms: from its
``/metrics``, so that the time a read spends in the server is told from the time it spends
reaching it), the count lost or extra, and where the overload's CPU went
(phase 2; ``cpu_share``: the load's processes, the server's, PostgreSQL's backends of this
benchmark, the Redis server, and the rest of the machine, in cores). Load runs in
``processes`` processes of its own (asyncio and a lean HTTP/1.1 client,
``rankline_bench.raw_http``: on the server's own cores, a full client's CPU would be measured
as the server's latency).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import statistics
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from prometheus_client.parser import text_string_to_metric_families

from rankline_bench import cpu_share, raw_http, servers, stack

DATABASE_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_overload"
REDIS_URL = "redis://127.0.0.1:6379/5"
"""Scratch databases of their own (recreated and flushed)."""
READ_BOARD = "overload-reads"
_AUTH = {"Authorization": f"Bearer {stack.KEY}"}
_WRITE_HEADERS = {**_AUTH, "Content-Type": "application/json"}
_MARK = "@@@@@@"
"""Where a request's number goes in its players' ids, zero-padded to its width: every request
of a connection the same length, so that one prepared request's Content-Length holds for
all."""


@dataclass(frozen=True)
class Options:
    backends: tuple[str, ...] = ("memory", "redis")
    clients: int = 128
    batch: int = 1000
    seconds: float = 15.0
    readers: int = 32
    rounds: int = 3
    processes: int = 2
    unloaded_clients: int = 4
    players: int = 10_000
    """Players on the board the reads ask about."""
    deadline_ms: int | None = None
    """The server's RANKLINE_WRITE_DEADLINE_MS (None: its default)."""
    retry_after: str = "ignore"
    """What a writer does after a 429: ``ignore`` (sends again at once) or ``heed`` (waits
    its Retry-After first)."""
    hold_early: bool | None = None
    """The server's RANKLINE_WRITE_HOLD_EARLY (None: its default, on)."""


@dataclass(frozen=True)
class Job:
    """One load process's share: ``connections`` writers (or readers) for ``seconds``."""

    url: str
    kind: str
    board: str
    connections: int
    seconds: float
    batch: int
    prefix: str
    players: int
    heed: bool = False
    """A writer waits a 429's Retry-After before it sends again."""


@dataclass
class Outcome:
    accepted: int = 0
    """Submissions answered 200 without an error of their own."""
    admitted: list[float] = field(default_factory=list)
    """Seconds each write answered 200 took."""
    refused: list[float] = field(default_factory=list)
    """Seconds each write answered 429 took."""
    no_retry_after: int = 0
    other: dict[int, int] = field(default_factory=dict)
    """Other statuses (and 0: a transport error) by count."""
    reads: list[float] = field(default_factory=list)
    elapsed: float = 0.0
    """Seconds from the start to the last answer (requests in flight at the end included)."""


def run_job(job: Job) -> Outcome:
    return asyncio.run(_job(job))


async def _job(job: Job) -> Outcome:
    # a lean HTTP/1.1 client (``raw_http``): the load shares the server's cores, and a full
    # client's own CPU a request would otherwise be most of the latency measured
    outcome = Outcome()
    address = urlsplit(job.url)
    host, port = address.hostname or "127.0.0.1", address.port or 80
    connections = [raw_http.Connection(host, port) for _ in range(job.connections)]
    started = time.monotonic()
    stop = started + job.seconds
    work = _write if job.kind == "write" else _read
    try:
        await asyncio.gather(*(work(c, job, n, stop, outcome) for n, c in enumerate(connections)))
    finally:
        for connection in connections:
            await connection.close()
    outcome.elapsed = time.monotonic() - started
    return outcome


async def _write(
    connection: raw_http.Connection, job: Job, n: int, stop: float, outcome: Outcome
) -> None:
    # one request per connection, its players renamed for each request by a bytes replace: a
    # load process keeps up with its connections (building each body afresh would make the
    # client's own event loop the wait measured)
    head = f"{job.prefix}-{n}-"
    items = ",".join(
        f'{{"board":"{job.board}","player_id":"{head}{_MARK}-{i}","score":1,"match_id":"m"}}'
        for i in range(job.batch)
    )
    body = f'{{"scores":[{items}]}}'.encode()
    template = raw_http.request(b"POST", "/v1/scores/batch", _WRITE_HEADERS, body)
    sent = 0
    while time.monotonic() < stop:
        data = template.replace(_MARK.encode(), str(sent).encode().rjust(len(_MARK), b"0"))
        sent += 1
        started = time.monotonic()
        try:
            status, headers, answer = await connection.send(data)
        except (raw_http.Closed, OSError):
            outcome.other[0] = outcome.other.get(0, 0) + 1
            continue
        took = time.monotonic() - started
        if status == 200:
            outcome.admitted.append(took)
            outcome.accepted += job.batch - answer.count(b'"error":')
        elif status == 429:
            outcome.refused.append(took)
            after = headers.get(b"retry-after")
            if after is None:
                outcome.no_retry_after += 1
            elif job.heed:
                await asyncio.sleep(max(0.0, min(float(after), stop - time.monotonic())))
        else:
            outcome.other[status] = outcome.other.get(status, 0) + 1


async def _read(
    connection: raw_http.Connection, job: Job, n: int, stop: float, outcome: Outcome
) -> None:
    while time.monotonic() < stop:
        player = f"reader-{n * 7919 % job.players}"
        n += job.connections
        data = raw_http.request(b"GET", f"/v1/boards/{job.board}/players/{player}", _AUTH)
        started = time.monotonic()
        try:
            status, _, _ = await connection.send(data)
        except (raw_http.Closed, OSError):
            outcome.other[0] = outcome.other.get(0, 0) + 1
            continue
        if status == 200:
            outcome.reads.append(time.monotonic() - started)
        else:
            outcome.other[status] = outcome.other.get(status, 0) + 1


def _split(total: int, parts: int) -> list[int]:
    return [n for n in (total // parts + (i < total % parts) for i in range(parts)) if n]


def _percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def _merge(outcomes: list[Outcome]) -> Outcome:
    merged = Outcome()
    for o in outcomes:
        merged.accepted += o.accepted
        merged.admitted += o.admitted
        merged.refused += o.refused
        merged.no_retry_after += o.no_retry_after
        merged.reads += o.reads
        merged.elapsed = max(merged.elapsed, o.elapsed)
        for status, count in o.other.items():
            merged.other[status] = merged.other.get(status, 0) + count
    return merged


def _seed(url: str, players: int) -> None:
    with httpx.Client(base_url=url, headers=_AUTH, timeout=120) as client:
        client.put(f"/v1/boards/{READ_BOARD}", json={"title": "reads"}).raise_for_status()
        for start in range(0, players, 1000):
            items = [
                {"board": READ_BOARD, "player_id": f"reader-{i}", "score": i, "match_id": "s"}
                for i in range(start, min(players, start + 1000))
            ]
            client.post("/v1/scores/batch", json={"scores": items}).raise_for_status()


def _board(url: str, board: str) -> None:
    with httpx.Client(base_url=url, headers=_AUTH, timeout=120) as client:
        client.put(f"/v1/boards/{board}", json={"title": board}).raise_for_status()


def _total(url: str, board: str) -> int:
    with httpx.Client(base_url=url, headers=_AUTH, timeout=120) as client:
        answer = client.get(f"/v1/boards/{board}/top", params={"limit": 1})
        answer.raise_for_status()
        return int(answer.json()["total"])


def _round(
    url: str,
    options: Options,
    pool: ProcessPoolExecutor,
    name: str,
    progress: Callable[[str], None],
    groups: cpu_share.Groups,
) -> dict[str, Any]:
    def jobs(kind: str, board: str, connections: int, prefix: str, heed: bool = False) -> list[Job]:
        return [  # each job's players its own
            Job(
                url,
                kind,
                board,
                n,
                options.seconds,
                options.batch,
                f"{prefix}{i}",
                options.players,
                heed,
            )
            for i, n in enumerate(_split(connections, options.processes))
        ]

    unloaded_board, overload_board = f"{name}-unloaded", f"{name}-overload"
    _board(url, unloaded_board)
    _board(url, overload_board)
    quiet = _merge(
        list(pool.map(run_job, jobs("write", unloaded_board, options.unloaded_clients, "u")))
    )
    unloaded_rate = quiet.accepted / quiet.elapsed
    progress(f"{name} unloaded: {unloaded_rate:,.0f} submissions/s")
    heed = options.retry_after == "heed"
    writes = jobs("write", overload_board, options.clients, "o", heed)
    before = cpu_share.sample(groups)
    load = _merge(list(pool.map(run_job, writes)))
    cpu = cpu_share.cores(before, cpu_share.sample(groups))
    beside = jobs("write", overload_board, options.clients, "b", heed)
    reads = jobs("read", READ_BOARD, options.readers, "r")
    timed = _server_times(url)
    futures = [pool.submit(run_job, job) for job in (*beside, *reads)]
    results = [f.result() for f in futures]
    timed = _difference(_server_times(url), timed)
    with_reads = _merge(results[: len(beside)])
    read = _merge(results[len(beside) :])
    stored = _total(url, overload_board)
    requests = len(load.admitted) + len(load.refused)
    goodput = load.accepted / load.elapsed
    figures = {
        "unloaded_rate": unloaded_rate,
        "goodput": goodput,
        "goodput_share": goodput / unloaded_rate if unloaded_rate else 0.0,
        "refused_share": len(load.refused) / requests if requests else 0.0,
        "refused": len(load.refused),
        "write_requests_per_s": requests / load.elapsed,
        "no_retry_after": load.no_retry_after,
        "admitted_p50_ms": _percentile(load.admitted, 0.5) * 1000,
        "admitted_p99_ms": _percentile(load.admitted, 0.99) * 1000,
        "admitted_max_ms": max(load.admitted, default=float("nan")) * 1000,
        "refused_max_ms": max(load.refused, default=float("nan")) * 1000,
        "read_p99_ms": _percentile(read.reads, 0.99) * 1000,
        "reads": len(read.reads),
        "goodput_with_reads": with_reads.accepted / with_reads.elapsed,
        "server_reads_within_100ms": _within(timed, "read", 0.1),
        "loop_lag_within_25ms": _within(timed, "lag", 0.025),
        "lost_or_extra": stored - load.accepted - with_reads.accepted,
        **{f"cpu_{part}": used for part, used in cpu.items()},
        "other": {str(k): v for k, v in {**load.other, **with_reads.other, **read.other}.items()},
    }
    progress(f"{name} overload: " + ", ".join(f"{k} {_shown(v)}" for k, v in figures.items()))
    return figures


def _server_times(url: str) -> dict[tuple[str, float], float]:
    """The server's own histograms so far (``/metrics``, every worker's summed), by bucket
    bound: ``read``, the time it took to answer the rank reads (200); ``lag``, how late
    its event loops ran a timer (sampled every 10 ms)."""
    found: dict[tuple[str, float], float] = {}
    text = httpx.get(f"{url}/metrics", headers=_AUTH, timeout=30).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = sample.labels
            if sample.name == "rankline_http_request_seconds_bucket":
                if labels.get("route") != "player" or labels.get("status") != "200":
                    continue
                kind = "read"
            elif sample.name == "rankline_event_loop_lag_seconds_bucket":
                kind = "lag"
            else:
                continue
            key = (kind, float(labels["le"]))
            found[key] = found.get(key, 0.0) + sample.value
    return found


def _difference(after: dict[Any, float], before: dict[Any, float]) -> dict[Any, float]:
    return {key: value - before.get(key, 0.0) for key, value in after.items()}


def _within(counts: dict[tuple[str, float], float], kind: str, bound: float) -> float:
    """The share of ``kind``'s observations at most ``bound`` seconds (nan: none)."""
    total = counts.get((kind, float("inf")), 0.0)
    return counts.get((kind, bound), 0.0) / total if total else float("nan")


def _shown(value: Any) -> str:
    return f"{value:,.2f}" if isinstance(value, float) else str(value)


def _groups(server: stack.Stack, backend: str) -> cpu_share.Groups:
    """The overload's processes by part: the load (this process's children but the
    server's), the server (its supervisor and workers) and, on Redis + PostgreSQL, the
    PostgreSQL backends of this benchmark's database and the Redis server (shared with
    whatever else uses it)."""

    def groups() -> dict[str, list[int]]:
        serving = server.pids()
        found = {
            "load": [p for p in servers.children(os.getpid()) if p not in serving],
            "server": serving,
        }
        if backend == "redis":
            database = urlsplit(DATABASE_URL).path.lstrip("/").encode()
            redis = urlsplit(REDIS_URL)
            found["postgresql"] = cpu_share.matching([b"postgres:", b" " + database + b" "])
            found["redis"] = cpu_share.matching([b"redis-server", f":{redis.port} ".encode()])
        return found

    return groups


@contextmanager
def _serving(backend: str, options: Options) -> Iterator[stack.Stack]:
    """The soak's stack for ``backend`` (``rankline_bench.stack``) on scratch databases of
    this benchmark's own, its rate limits off, its write deadline and holds as asked."""
    plan = stack.plan(backend, DATABASE_URL, REDIS_URL)
    settings = {"RANKLINE_RATE_LIMITS": "false"}
    if options.deadline_ms is not None:
        settings["RANKLINE_WRITE_DEADLINE_MS"] = str(options.deadline_ms)
    if options.hold_early is not None:
        settings["RANKLINE_WRITE_HOLD_EARLY"] = str(options.hold_early).lower()
    with stack.running(plan, settings, "rankline-overload") as running:
        yield running


def measure(options: Options, progress: Callable[[str], None] = print) -> dict[str, Any]:
    """Every round's figures and their medians, by backend."""
    found: dict[str, Any] = {"options": asdict(options), "backends": {}}
    spawn = multiprocessing.get_context("spawn")
    workers = options.processes * 2  # writers and readers at once
    with ProcessPoolExecutor(workers, mp_context=spawn) as pool:
        for backend in options.backends:
            with _serving(backend, options) as running:
                url = running.url
                progress(f"{backend}: seeding {options.players:,} players to read")
                _seed(url, options.players)
                rounds = [
                    _round(url, options, pool, f"round{n + 1}", progress, _groups(running, backend))
                    for n in range(options.rounds)
                ]
            medians = {
                key: statistics.median(r[key] for r in rounds)
                for key in rounds[0]
                if key != "other"
            }
            found["backends"][backend] = {"rounds": rounds, "median": medians}
    return found


LABELS = {"memory": "embedded (1 worker, SQLite)", "redis": "Redis + PostgreSQL (2 workers)"}


def table(found: dict[str, Any]) -> str:
    """The medians as a markdown table, a row per backend."""
    lines = [
        "| stack | unloaded sync rate | goodput under overload | share | 429 share "
        "| admitted p50 / p99 / max | refused max | read p99 (goodput beside the reads) "
        "| in the server: reads within 100 ms, loop late at most 25 ms "
        "| lost or extra "
        "| CPU, cores: load / server / PostgreSQL / Redis / other of the machine's |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for backend, figures in found["backends"].items():
        m = figures["median"]
        lines.append(
            f"| {LABELS.get(backend, backend)} | {m['unloaded_rate']:,.0f}/s "
            f"| {m['goodput']:,.0f}/s | {m['goodput_share']:.0%} | {m['refused_share']:.0%} "
            f"| {m['admitted_p50_ms']:,.0f} / {m['admitted_p99_ms']:,.0f} / "
            f"{m['admitted_max_ms']:,.0f} ms | {m['refused_max_ms']:,.0f} ms "
            f"| {m['read_p99_ms']:,.1f} ms ({m['goodput_with_reads']:,.0f}/s) "
            f"| {m['server_reads_within_100ms']:.1%}, {m['loop_lag_within_25ms']:.1%} "
            f"| {m['lost_or_extra']:.0f} | {_cpu(m)} |"
        )
    return "\n".join(lines)


def _cpu(figures: dict[str, float]) -> str:
    parts = ("load", "server", "postgresql", "redis", "other")
    shown = [f"{figures[f'cpu_{p}']:.2f}" if f"cpu_{p}" in figures else "-" for p in parts]
    return " / ".join(shown) + f" of {figures['cpu_capacity']:.1f}"


def main(options: Options, json_path: Path | None = None) -> None:
    found = measure(options)
    if json_path is not None:
        json_path.write_text(json.dumps(found, indent=2))
    print(table(found))
