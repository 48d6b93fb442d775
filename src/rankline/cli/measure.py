"""The measuring commands: ``rankline bench`` (and its probes), ``soak`` and ``check-history``."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from rankline.cli.probes import probe_app
from rankline.cli.shared import Group, Typer, needs_bench, run_measure
from rankline.http.server import DEFAULT_SERVER

bench_app = Typer(cls=Group, add_completion=False)
bench_app.add_typer(probe_app, name="probe")


@bench_app.callback(invoke_without_command=True)
def bench(
    ctx: typer.Context,
    quick: Annotated[
        bool, typer.Option("--quick", help="N=1,000,000 and 10 s per endpoint: under 10 minutes.")
    ] = False,
    n: Annotated[
        int | None, typer.Option(min=1, help="Players to load (default 10,000,000; quick 1M).")
    ] = None,
    duration: Annotated[
        float | None, typer.Option(min=1, help="Seconds per endpoint (default 30; quick 10).")
    ] = None,
    backends: Annotated[
        str,
        typer.Option(
            help="Comma-separated: memory (in-process index + SQLite in a temporary "
            "directory), redis (Redis db 8 + PostgreSQL database rankline_bench, both "
            "emptied first), cluster (a local 6-node Redis Cluster it starts and the "
            "PostgreSQL database rankline_bench_cluster: the reads on an unsharded and a "
            "sharded board, one after the other; needs redis-server) and dense (memory per "
            "entry of a plain and a dense-rank board, on both backends, in Redis db 5 + "
            "PostgreSQL database rankline_bench_dense)."
        ),
    ] = "memory,redis",
    json_path: Annotated[
        Path | None,
        typer.Option("--json", help="Result file (default bench-results/<timestamp>.json)."),
    ] = None,
    markdown: Annotated[
        Path | None,
        typer.Option(help="Also write the results section of this page, e.g. docs/performance.md."),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            help="Server workers for the redis backend, and for its ceiling (memory: 1).",
        ),
    ] = 1,
    connections: Annotated[int, typer.Option(min=1, help="wrk connections.")] = 64,
    threads: Annotated[int, typer.Option(min=1, help="wrk threads.")] = 1,
    profile: Annotated[
        bool,
        typer.Option("--profile", help="Also profile the server with py-spy in a player-rank run."),
    ] = False,
    seed: Annotated[int, typer.Option(help="Seed of the generated scores.")] = 1,
    server: Annotated[
        str, typer.Option(help="HTTP server of rankline and of the ceiling: granian or uvicorn.")
    ] = DEFAULT_SERVER,
    memory_only: Annotated[
        bool,
        typer.Option(
            "--memory-only",
            help="Only measure the memory per entry at N (at most 1,000,000) of a plain board "
            "and of a board with a subscore, on each backend (no wrk needed).",
        ),
    ] = False,
    endpoints: Annotated[
        str,
        typer.Option(
            help="Comma-separated endpoints to measure (default: all): rank, around, "
            "friends, top, top_deep, rank_token (rank with a player token), submit, batch, "
            "batch_async, mixed, matches (rated matches). The ceilings and baselines run as "
            "always.",
        ),
    ] = "",
    log_url: Annotated[
        str,
        typer.Option(
            help="Put this ingestion log in front of the memory and redis backends' writes "
            "(asynchronous batches, rated matches) instead of each store's own: "
            "nats://127.0.0.1:4222 (NATS JetStream), kafka://host:9092 or "
            "sqlite+aiosqlite:///path/log.db. Each backend's servers use a log of the run's "
            "own, bench_<run>_<backend>, dropped at the end; the report names the engine.",
        ),
    ] = "",
) -> None:
    """Benchmark rankline with wrk against a raw ASGI ceiling on this machine (needs wrk;
    the redis backend needs the local PostgreSQL and Redis). See docs/performance.md."""
    needs_bench("bench")
    if ctx.invoked_subcommand is not None:  # `rankline bench probe ...`
        return
    import shlex
    import sys

    from rankline_bench import run

    run_measure(
        lambda: run.make_options(
            quick=quick,
            n=n,
            duration=duration,
            backends=backends,
            json_path=json_path,
            markdown=markdown,
            workers=workers,
            connections=connections,
            threads=threads,
            profile=profile,
            seed=seed,
            server=server,
            command=shlex.join(["rankline", *sys.argv[1:]]),
            memory_only=memory_only,
            endpoints=endpoints,
            log_url=log_url,
        ),
        run.main,
    )


Players = Annotated[int, typer.Option(min=1, help="Players on the bench board.")]
Seconds = Annotated[float, typer.Option(min=0.5, help="Seconds per measurement.")]
Rounds = Annotated[int, typer.Option(min=1, help="Rounds (the medians are reported).")]
Processes = Annotated[int, typer.Option(min=1, help="Load processes.")]
"""The options of the gRPC measurements (``bench grpc``, ``bench grpc-servers``)."""


@bench_app.command("grpc")
def bench_grpc(
    players: Players = 100_000,
    seconds: Seconds = 5.0,
    rounds: Rounds = 3,
    processes: Processes = 2,
    backend: Annotated[
        str,
        typer.Option(
            help="memory (the embedded stack, one worker) or redis (Redis db 4 + PostgreSQL "
            "database rankline_bench_grpc, both emptied first)."
        ),
    ] = "memory",
    workers: Annotated[
        int, typer.Option(min=1, help="Server workers sharing both ports (redis only).")
    ] = 1,
) -> None:
    """A rank read and a batch of 1,000 submissions over gRPC beside the same over HTTP, on
    one `rankline serve --grpc-port`: calls/s, p99 and the server's CPU per call, median of
    the rounds. See docs/performance.md."""
    from rankline_bench.grpc_run import Options, measure, table

    options = Options(
        players=players,
        seconds=seconds,
        rounds=rounds,
        processes=processes,
        backend=backend,
        workers=workers,
    )
    try:
        options.plan()
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    print(table(measure(options)))


@bench_app.command("grpc-servers")
def bench_grpc_servers(
    players: Players = 100_000,
    seconds: Seconds = 5.0,
    rounds: Rounds = 3,
    processes: Processes = 2,
    threads: Annotated[int, typer.Option(min=1, help="The threaded server's threads.")] = 4,
) -> None:
    """grpcio's asyncio server (the one rankline serves with) beside its threaded server,
    both answering with the same handlers in one process on the embedded stack: a health
    check and a rank read, calls/s, p99 and the server's CPU per call. See
    docs/performance.md."""
    from rankline_bench.grpc_servers import Options, measure, table

    options = Options(
        players=players, seconds=seconds, rounds=rounds, processes=processes, threads=threads
    )
    print(table(measure(options), threads))


@bench_app.command("answers")
def bench_answers(
    out: Annotated[
        Path | None, typer.Option("--out", help="Record the answers to this JSON file.")
    ] = None,
    grpc: Annotated[
        bool, typer.Option("--grpc", help="Play the script over gRPC too (a second server).")
    ] = False,
    compare: Annotated[
        tuple[Path, Path] | None,
        typer.Option("--compare", help="Compare two recordings: print each answer that differs."),
    ] = None,
) -> None:
    """Play a fixed script of several hundred calls (reads, writes, refusals) on a fresh
    embedded server and record every answer, times and tokens masked; or compare two
    recordings, exit 1 if any answer differs. See docs/performance.md."""
    from rankline_bench import answers

    raise typer.Exit(answers.main(out, grpc, compare))


class RetryAfter(StrEnum):
    """What an overload's writer does after a 429."""

    ignore = "ignore"
    heed = "heed"


@bench_app.command("overload")
def bench_overload(
    backends: Annotated[
        str, typer.Option(help="Comma-separated: memory (embedded, 1 worker), redis (2 workers).")
    ] = "memory,redis",
    clients: Annotated[int, typer.Option(min=1, help="Connections writing at once.")] = 128,
    batch: Annotated[int, typer.Option(min=1, max=1000, help="Submissions a request.")] = 1000,
    seconds: Annotated[float, typer.Option(min=1, help="Seconds of each phase.")] = 15.0,
    readers: Annotated[int, typer.Option(min=1, help="Connections reading ranks.")] = 32,
    rounds: Annotated[int, typer.Option(min=1, help="Rounds (the medians are reported).")] = 3,
    processes: Annotated[int, typer.Option(min=1, help="Load processes per side.")] = 2,
    deadline_ms: Annotated[
        int | None, typer.Option(help="The server's RANKLINE_WRITE_DEADLINE_MS (its default).")
    ] = None,
    retry_after: Annotated[
        RetryAfter,
        typer.Option(
            help="After a 429, a writer sends again at once (ignore) or once its Retry-After "
            "has passed (heed, as rankline's clients do).",
        ),
    ] = RetryAfter.ignore,
    hold_early: Annotated[
        bool | None,
        typer.Option(
            "--hold-early/--no-hold-early",
            help="The server's RANKLINE_WRITE_HOLD_EARLY (its default, on): a write sent on a "
            "connection before its last 429's Retry-After has passed waits until then.",
        ),
    ] = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Also write the figures.")
    ] = None,
) -> None:
    """Writes far beyond what the server commits, alone and then with rank reads beside them:
    goodput, 429 share and admitted writes' latency under overload, beside the unloaded
    synchronous rate of the same run; read p99 during the overload; nothing acknowledged
    lost; and the CPU, in cores, of the load, the server, PostgreSQL, Redis and the rest of
    the machine meanwhile. Uses the PostgreSQL database rankline_overload and Redis database 5
    (emptied). See docs/performance.md."""
    from rankline_bench import overload, stack

    options = overload.Options(
        backends=stack.parse_backends(backends),
        clients=clients,
        batch=batch,
        seconds=seconds,
        readers=readers,
        rounds=rounds,
        processes=processes,
        deadline_ms=deadline_ms,
        retry_after=retry_after.value,
        hold_early=hold_early,
    )
    overload.main(options, json_path)


_ScratchDatabase = Annotated[
    str | None,
    typer.Option(
        help="PostgreSQL database of the redis backend (dropped and recreated; default: "
        "rankline_soak on 127.0.0.1)."
    ),
]
_ScratchRedis = Annotated[
    str | None,
    typer.Option(help="Redis database of the redis backend (flushed; default: db 6 on 127.0.0.1)."),
]


def soak(
    minutes: Annotated[float, typer.Option(min=0.1, help="Minutes of load per backend.")] = 10.0,
    backends: Annotated[
        str,
        typer.Option(
            help="Comma-separated: memory (one worker, in-process index, SQLite in a temporary "
            "directory; the whole server restarts midway) and redis (two workers on Redis "
            "database 6 and the PostgreSQL database rankline_soak, both emptied first; one "
            "worker restarts midway)."
        ),
    ] = "memory,redis",
    rate: Annotated[float, typer.Option(min=1, help="Requests per second, in all.")] = 200.0,
    clients: Annotated[int, typer.Option(min=1, help="Concurrent connections.")] = 32,
    players: Annotated[int, typer.Option(min=1, help="Players on the soak board.")] = 10_000,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Also write every figure to this file.")
    ] = None,
    database_url: _ScratchDatabase = None,
    redis_url: _ScratchRedis = None,
) -> None:
    """Mixed reads and writes against a real server for minutes, with a restart midway:
    requests, p50/p99, 5xx and memory per minute, and a verdict per goal (RSS growth at most
    5%, stable p99, no 5xx). Exit 1 when a goal is missed."""
    needs_bench("soak")
    from rankline_bench import soak as soaking
    from rankline_bench import stack

    run_measure(
        lambda: soaking.Options(
            minutes=minutes,
            backends=stack.parse_backends(backends),
            rate=rate,
            clients=clients,
            players=players,
            json_path=json_path,
            database_url=database_url or stack.PG_URL,
            redis_url=redis_url or stack.REDIS_URL,
        ),
        soaking.main,
    )


def check_history(
    seconds: Annotated[
        float, typer.Option(min=1, help="Seconds of recording per backend.")
    ] = 180.0,
    backends: Annotated[
        str,
        typer.Option(
            help="Comma-separated: redis (two workers on Redis database 6 and the PostgreSQL "
            "database rankline_soak, both emptied first; one worker is killed midway) and "
            "memory (one worker, in-process index, SQLite; the server is killed midway)."
        ),
    ] = "redis,memory",
    writers: Annotated[int, typer.Option(min=1, help="Concurrent writers.")] = 6,
    readers: Annotated[int, typer.Option(min=1, help="Concurrent readers.")] = 6,
    players: Annotated[
        int, typer.Option(min=1, help="Players (few, so writes and reads of one player overlap).")
    ] = 20,
    json_path: Annotated[
        Path | None,
        typer.Option("--json", help="Also write the recorded history and the result here."),
    ] = None,
    database_url: _ScratchDatabase = None,
    redis_url: _ScratchRedis = None,
) -> None:
    """Record concurrent writes (a best board and a sum board) and reads across workers and
    a crash, then check that every read is explained by a serial order of the acknowledged
    writes. Prints the violations per rule; exit 1 if any."""
    needs_bench("check-history")
    from rankline_bench import history_run, stack

    run_measure(
        lambda: history_run.Options(
            seconds=seconds,
            backends=stack.parse_backends(backends),
            writers=writers,
            readers=readers,
            players=players,
            json_path=json_path,
            database_url=database_url or stack.PG_URL,
            redis_url=redis_url or stack.REDIS_URL,
        ),
        history_run.main,
    )
