"""``rankline bench probe NAME``: each probe's options, then its module's ``run``
(``rankline_bench.probe``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rankline.cli.shared import Group, Typer, fail

probe_app = Typer(
    cls=Group,
    help="Narrow measurements beside the benchmark: the CPU a read or a request costs, "
    "write and rating rates through HTTP, the log's appends, the standings' SQL, a Redis "
    "rebuild and a replay. Each prints what it measured. See docs/performance.md.",
    no_args_is_help=True,
    add_completion=False,
)

_DatabaseUrl = Annotated[
    str | None,
    typer.Option(
        help="A PostgreSQL or MariaDB database (default: SQLite in a temporary directory)."
    ),
]
_RedisUrl = Annotated[
    str | None, typer.Option(help="A Redis index, flushed first (default: the in-process index).")
]


def _usage(error: ValueError) -> None:
    fail(str(error))


@probe_app.command()
def reads(
    n: Annotated[
        int, typer.Option(min=2, help="Players bulk-loaded on the bench board.")
    ] = 200_000,
    count: Annotated[int, typer.Option(min=1, help="Requests timed per endpoint.")] = 5000,
    concurrency: Annotated[int, typer.Option(min=1, help="Requests in flight.")] = 1,
    endpoints: Annotated[
        str,
        typer.Option(
            help="Comma-separated: rank, around, top, deep, friends, rank-meta, around-meta, "
            "top-meta (with metadata=true), cursor (deep's page by cursor) (default: all)."
        ),
    ] = "",
    profile: Annotated[
        str, typer.Option(help="An endpoint to run under cProfile instead (prints the top 25).")
    ] = "",
    data_dir: Annotated[
        Path | None,
        typer.Option(help="Keep the SQLite store here, and reuse it when it is there."),
    ] = None,
    database_url: _DatabaseUrl = None,
    redis_url: _RedisUrl = None,
    reuse: Annotated[
        bool,
        typer.Option(
            "--reuse", help="With --database-url: the database holds the players already."
        ),
    ] = False,
    served: Annotated[
        bool,
        typer.Option(
            "--served",
            help="Through the app as `rankline serve` serves it: with request ids (and JSON "
            "logs or traces when the environment asks for them).",
        ),
    ] = False,
    lean: Annotated[
        bool,
        typer.Option(
            "--lean",
            help="Also time the lean reference (plain Python answering the same reads) in "
            "process on rank, around and top, and print its CPU per request over rankline's.",
        ),
    ] = False,
    rounds: Annotated[
        int,
        typer.Option(
            min=1,
            help="Measure each endpoint this many times (with --lean, alternating with the "
            "lean reference, and the median ratio after).",
        ),
    ] = 1,
) -> None:
    """CPU time of each read endpoint, called in process through the serving app (no
    sockets, no HTTP parsing): rankline's own share of a request, in µs per request."""
    from rankline_bench.probe import reads as probe

    options = probe.Options(
        n,
        count,
        concurrency,
        endpoints,
        profile,
        data_dir,
        database_url,
        redis_url,
        reuse,
        served,
        lean,
        rounds,
    )
    try:
        probe.run(options)
    except ValueError as exc:
        _usage(exc)


@probe_app.command()
def server(
    endpoints: Annotated[
        list[str],
        typer.Argument(
            metavar="ENDPOINT...",
            help="The bench's wrk scripts to drive: rank, rank_token (rank with a player "
            "token), around, top, top_deep, friends, submit, batch, mixed. With rank and "
            "rank_token, the token's share of the server CPU follows.",
        ),
    ],
    n: Annotated[int, typer.Option(min=1, help="Players in the store (p:0 and on).")] = 200_000,
    data_dir: Annotated[
        Path | None,
        typer.Option(help="The embedded store to serve (`rankline bench probe reads` makes one)."),
    ] = None,
    database_url: _DatabaseUrl = None,
    redis_url: _RedisUrl = None,
    seconds: Annotated[float, typer.Option(min=0.5, help="Seconds of wrk per endpoint.")] = 8.0,
    connections: Annotated[int, typer.Option(min=1, help="wrk connections.")] = 64,
    also: Annotated[
        str,
        typer.Option(help="Comma-separated process names whose CPU to add, e.g. redis-server."),
    ] = "",
    servers: Annotated[
        str,
        typer.Option(
            help="Comma-separated HTTP servers to serve it with, in turn: granian and/or "
            "uvicorn (default: rankline serve's). Two: a table of their medians and ratio."
        ),
    ] = "",
    rounds: Annotated[
        int, typer.Option(min=1, help="Rounds, each on every server in turn; medians after.")
    ] = 1,
    lean: Annotated[
        bool,
        typer.Option(
            "--lean",
            help="Also drive the lean reference on rank, around and top, and print its CPU "
            "per request over rankline's.",
        ),
    ] = False,
) -> None:
    """Server CPU per request under wrk, endpoint by endpoint, beside the raw ASGI
    ceiling's (and the lean reference's with --lean): serves an existing store with
    `rankline serve` (writes go to it: use a copy you can spare). With --servers
    uvicorn,granian --rounds 3 it compares the HTTP servers."""
    from rankline_bench.probe import server as probe

    chosen = tuple(s.strip() for s in servers.split(",") if s.strip())
    options = probe.Options(
        tuple(endpoints),
        n,
        data_dir,
        database_url,
        redis_url,
        seconds,
        connections,
        also,
        chosen or probe.Options.servers,
        rounds,
        lean,
    )
    try:
        probe.run(options)
    except ValueError as exc:
        _usage(exc)


@probe_app.command()
def ingest(
    database_url: _DatabaseUrl = None,
    redis_url: _RedisUrl = None,
    fresh_database: Annotated[
        bool,
        typer.Option("--fresh-database", help="Drop and create the --database-url database first."),
    ] = False,
    mode: Annotated[
        str, typer.Option(help="batch, single or both (both: with --wrk only).")
    ] = "batch",
    respond_async: Annotated[
        bool,
        typer.Option(
            "--respond-async",
            help="Ask for 202 answers and time until every submission is applied.",
        ),
    ] = False,
    intake_only: Annotated[
        bool,
        typer.Option(
            "--intake-only",
            help="With --respond-async: the server takes the submissions without applying "
            "them (its CPU is the intake's alone), then restarts to apply them, timed apart.",
        ),
    ] = False,
    events: Annotated[int, typer.Option(min=1, help="Submissions timed.")] = 50_000,
    warmup: Annotated[int, typer.Option(min=0, help="Untimed submissions first.")] = 2_000,
    batch: Annotated[
        int, typer.Option(min=1, max=1000, help="Submissions per batch request.")
    ] = 1_000,
    clients: Annotated[int, typer.Option(min=1, help="Concurrent connections.")] = 4,
    players: Annotated[int, typer.Option(min=1, help="Distinct player ids.")] = 1_000_000,
    windows: Annotated[
        str, typer.Option(help="The board's windows, comma-separated.")
    ] = "all_time",
    policy: Annotated[str, typer.Option(help="The board's policy.")] = "best",
    preload: Annotated[
        int,
        typer.Option(min=0, help="Players on the bench board, bulk-loaded once and kept."),
    ] = 0,
    data_dir: Annotated[
        Path | None,
        typer.Option(help="The data directory to keep between runs (default: a temporary one)."),
    ] = None,
    wrk: Annotated[
        float,
        typer.Option(min=0, help="With --preload: drive the board with wrk for these seconds."),
    ] = 0,
    seed: Annotated[int | None, typer.Option(help="Seed of players and scores.")] = None,
    ready_timeout: Annotated[
        float, typer.Option(min=1, help="Seconds the server may take to start.")
    ] = 600,
    port: Annotated[int, typer.Option(min=0, help="The server's port (default: a free one).")] = 0,
    setting: Annotated[
        list[str] | None,
        typer.Option("--set", help="A server setting, NAME=value; repeat for several."),
    ] = None,
    gc: Annotated[
        str | None,
        typer.Option(help="gc.set_threshold arguments for the server, e.g. 50000,20,100."),
    ] = None,
    profile: Annotated[
        Path | None,
        typer.Option(
            help="Sample the server with py-spy: collapsed stacks by thread to this file, "
            "and print how busy each thread was."
        ),
    ] = None,
) -> None:
    """Durable ingest through the real HTTP API: batch or single submissions from
    concurrent clients against `rankline serve`, every answer checked; prints events/s and
    the server's CPU per submission."""
    from rankline_bench.probe import ingest as probe

    options = probe.Options(
        database_url=database_url,
        redis_url=redis_url,
        fresh_database=fresh_database,
        mode=mode,
        respond_async=respond_async,
        intake_only=intake_only,
        events=events,
        warmup=warmup,
        batch=batch,
        clients=clients,
        players=players,
        windows=windows,
        policy=policy,
        preload=preload,
        data_dir=data_dir,
        wrk=wrk,
        seed=seed,
        ready_timeout=ready_timeout,
        port=port,
        set=setting or [],
        gc=gc,
        profile=None if profile is None else str(profile),
    )
    try:
        probe.run(options)
    except ValueError as exc:
        _usage(exc)


@probe_app.command()
def ratings(
    system: Annotated[str, typer.Option(help="elo, glicko2 or openskill.")] = "elo",
    matches: Annotated[int, typer.Option(min=1, help="Two-player matches to rate.")] = 50_000,
    players: Annotated[int, typer.Option(min=2, help="Distinct players.")] = 10_000,
    batch: Annotated[
        int, typer.Option(min=1, max=1000, help="Matches per request (1: one a request).")
    ] = 1000,
    clients: Annotated[int, typer.Option(min=1, help="Concurrent connections.")] = 2,
    seed: Annotated[int, typer.Option(help="Seed of the matches.")] = 18,
    respond_async: Annotated[
        bool,
        typer.Option(
            "--respond-async", help="Ask for 202 answers and time until every match is rated."
        ),
    ] = False,
    database_url: _DatabaseUrl = None,
    redis_url: _RedisUrl = None,
    profile: Annotated[
        Path | None,
        typer.Option(help="Record a py-spy profile of the server here (.svg or .txt)."),
    ] = None,
) -> None:
    """Rated matches through the real HTTP API: two-player matches on a rating board of a
    fresh `rankline serve`, every answer checked; prints matches/s and request latency."""
    from rankline_bench.probe import ratings as probe

    options = probe.Options(
        system,
        matches,
        players,
        batch,
        clients,
        seed,
        respond_async,
        database_url,
        redis_url,
        None if profile is None else str(profile),
    )
    try:
        probe.run(options)
    except ValueError as exc:
        _usage(exc)


@probe_app.command()
def log(
    engine: Annotated[
        str,
        typer.Option(
            help="sqlite (a file beside a new store), sqlite-store (in the store's own file), "
            "nats (nats://127.0.0.1:4222), or a log URL."
        ),
    ] = "sqlite",
    batches: Annotated[int, typer.Option(min=1, help="Appends timed.")] = 50,
    batch: Annotated[int, typer.Option(min=1, help="Records per append.")] = 1000,
    payload: Annotated[int, typer.Option(min=0, help="Bytes of payload per record.")] = 200,
    partitions: Annotated[int, typer.Option(min=1, help="Partitions of the log.")] = 16,
) -> None:
    """Append throughput of the ingestion log: batches of records into one new log, timed;
    prints records/s and the median append."""
    from rankline_bench.probe import log as probe

    probe.run(probe.Options(engine, batches, batch, payload, partitions))


@probe_app.command()
def projection(
    players: Annotated[int, typer.Option(min=1, help="Standings in each file.")] = 10_000_000,
    batch: Annotated[int, typer.Option(min=1, help="Players per transaction.")] = 5000,
    seconds: Annotated[float, typer.Option(min=0.1, help="Seconds of updates per layout.")] = 30.0,
    data_dir: Annotated[
        Path | None,
        typer.Option(help="Keep the files here and reuse them (default: a temporary directory)."),
    ] = None,
    layouts: Annotated[
        str, typer.Option(help="Comma-separated: key, key+rank, standings, store.")
    ] = "key,key+rank,standings,store",
) -> None:
    """What the SQL standings cost per submission at N players, layout by layout, in plain
    sqlite3 with the group commit's settings; prints events/s and CPU per event."""
    from rankline_bench.probe import projection as probe

    try:
        probe.run(probe.Options(players, batch, seconds, data_dir, layouts))
    except ValueError as exc:
        _usage(exc)


@probe_app.command()
def snapshots(
    n: Annotated[int, typer.Option(min=1, help="Players on the bench board.")] = 200_000,
    k: Annotated[int, typer.Option(min=1, max=1000, help="Entries per snapshot.")] = 100,
    every_seconds: Annotated[
        int, typer.Option(min=10, help="The snapshots' interval, in seconds.")
    ] = 60,
    slots: Annotated[int, typer.Option(min=1, help="Snapshots to take.")] = 500,
    database_url: _DatabaseUrl = None,
) -> None:
    """Top-K snapshots: bytes stored per snapshot and per day of one leaderboard, and the
    CPU a snapshot takes (on a clock moved one interval at a time)."""
    from rankline_bench.probe import snapshots as probe

    probe.run(probe.Options(n, k, every_seconds, slots, database_url))


@probe_app.command()
def rebuild(
    n: Annotated[int, typer.Option(min=1, help="Players on the bench board.")] = 1_000_000,
    runs: Annotated[int, typer.Option(min=1, help="Rebuilds to time.")] = 1,
    database_url: Annotated[
        str | None,
        typer.Option(
            help="A PostgreSQL database of its own (recreated unless --reuse; default: "
            "rankline_fill_probe on 127.0.0.1)."
        ),
    ] = None,
    redis_url: Annotated[
        str | None,
        typer.Option(help="A Redis database of its own (flushed; default: db 13 on 127.0.0.1)."),
    ] = None,
    reuse: Annotated[
        bool, typer.Option("--reuse", help="The database holds the N players already.")
    ] = False,
    held: Annotated[
        int, typer.Option(min=0, help="Player-map fields the fill holds (0: its default).")
    ] = 0,
    profile: Annotated[
        bool, typer.Option("--profile", help="cProfile this process; print the top 30.")
    ] = False,
    drop: Annotated[bool, typer.Option("--drop", help="Drop the database at the end.")] = False,
) -> None:
    """A Redis index's full rebuild from PostgreSQL as a server start does it: entries/s,
    and CPU µs per entry in Redis, in this process and in PostgreSQL (which must run on
    this machine)."""
    from rankline_bench.probe import rebuild as probe

    database_url = database_url or probe.DATABASE_URL
    redis_url = redis_url or probe.REDIS_URL
    probe.run(probe.Options(n, runs, database_url, redis_url, reuse, held, profile, drop))


@probe_app.command()
def replay(
    events: Annotated[int, typer.Option(min=1, help="Score events to replay.")] = 1_000_000,
    players: Annotated[int, typer.Option(min=1, help="Players they are spread over.")] = 100_000,
    days: Annotated[int, typer.Option(min=1, help="Days they are spread over.")] = 7,
    windows: Annotated[
        str, typer.Option(help="The board's windows, comma-separated.")
    ] = "all_time,daily,weekly",
    data_dir: Annotated[
        Path | None,
        typer.Option(help="Where to make the store (default: a temporary directory)."),
    ] = None,
) -> None:
    """How long `rankline replay` takes on the embedded SQLite: N score events written as
    the writer records them, then replayed; prints events/s."""
    from rankline_bench.probe import replay as probe

    probe.run(probe.Options(events, players, days, windows, data_dir))


@probe_app.command()
def calendar(
    count: Annotated[int, typer.Option(min=20, help="Calls timed per row.")] = 200_000,
    boards: Annotated[
        int, typer.Option(min=1, help="Boards of each kind built to measure their memory.")
    ] = 1000,
) -> None:
    """What time zones and cron windows cost in process: a submission's fan-out, a read's
    period and the memory of a board, against a board in UTC; prints µs per call."""
    from rankline_bench.probe import calendar as probe

    probe.run(probe.Options(count, boards))


@probe_app.command("close-events")
def close_events(
    players: Annotated[int, typer.Option(min=1, help="Players on the period.")] = 100_000,
    regions: Annotated[int, typer.Option(min=1, help="Region scopes they are spread over.")] = 10,
    tops: Annotated[
        str, typer.Option(help="The webhook's top per variant, comma-separated (1..1000).")
    ] = "100,1000",
    database_url: _DatabaseUrl = None,
) -> None:
    """What period-close events cost: a period archived with and without a board webhook,
    the events' bytes, and sending them to a loopback receiver."""
    from rankline_bench.probe import close_events as probe

    try:
        probe.run(probe.Options(players, regions, tops, database_url))
    except ValueError as exc:
        _usage(exc)
