"""The ``rankline`` command line: serve, migrate and the operator's tools."""

from __future__ import annotations

import asyncio
import gc
import inspect
import json
import logging
import os
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NoReturn, TypeVar

import typer
import typer.core
from rich.console import Console
from rich.markup import escape

from rankline import __version__
from rankline.errors import IndexUnavailable, RanklineError, Unavailable
from rankline.settings import Settings, documented_settings

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

    from rankline.index.maintenance import Progress, Report
    from rankline.writing.importing import Summary

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
console = Console(stderr=True, soft_wrap=True)


def _unwrapped(text: str | None) -> str | None:
    """``text`` with each paragraph on one line. Typer's help keeps a docstring's line
    breaks, so a description broke where the source line did, mid-sentence; rich wraps
    each paragraph to the terminal itself."""
    if not text:
        return text
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in paragraphs)


def _untyped_flags(params: list[Any]) -> list[Any]:
    """A flag takes no value, but typer's help shows its type (``--quick <bool>``, even
    ``--help <bool>``) as if it took one: an empty metavar shows none."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    return params


class _Command(typer.core.TyperCommand):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = _unwrapped(self.help)

    def get_params(self, ctx: Any) -> list[Any]:
        return _untyped_flags(super().get_params(ctx))


class _Group(typer.core.TyperGroup):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = _unwrapped(self.help)

    def get_params(self, ctx: Any) -> list[Any]:
        return _untyped_flags(super().get_params(ctx))


class _Typer(typer.Typer):
    """Typer, with every command's help rendered as ``_Command`` renders it."""

    def command(self, *args: Any, **kwargs: Any) -> Callable[[F], F]:
        kwargs["cls"] = kwargs.get("cls") or _Command
        decorator: Callable[[F], F] = super().command(*args, **kwargs)
        return decorator


app = _Typer(
    cls=_Group,
    name="rankline",
    help="rankline: real-time leaderboards for games.\n\n"
    "Every setting is an environment variable; run `rankline settings` to list them.",
    no_args_is_help=True,
    add_completion=False,
)


def _setup_logging(level: str, log_format: Literal["text", "json"] = "text") -> None:
    from rankline.observability import configure_logging  # as in the workers a server starts

    configure_logging(level, log_format)


@app.command()
def serve(
    host: Annotated[
        str | None, typer.Option(help="Interface to listen on (env RANKLINE_HOST).")
    ] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on (env RANKLINE_PORT).")] = None,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            help="Worker processes sharing the port. More than 1 needs RANKLINE_REDIS_URL "
            "and a PostgreSQL or MariaDB RANKLINE_DATABASE_URL.",
        ),
    ] = 1,
    server: Annotated[
        str | None,
        typer.Option(help="HTTP server: uvicorn or granian (env RANKLINE_SERVER)."),
    ] = None,
) -> None:
    """Run the HTTP server (embedded default: in-process index + SQLite in ./rankline-data)."""
    from rankline.http import server as serving
    from rankline.http.auth import KEY_FILE, ensure_server_key

    settings = Settings()
    chosen = server or settings.server
    if chosen not in serving.SERVERS:
        _fail(f"--server must be one of {', '.join(serving.SERVERS)}, not {chosen!r}")
    host = host or settings.host
    port = settings.port if port is None else port
    _setup_logging(settings.log_level, settings.log_format)
    if workers > 1 and not settings.redis_url:
        _fail("--workers above 1 needs a shared index: set RANKLINE_REDIS_URL")
    if workers > 1 and settings.is_embedded:
        _fail("--workers above 1 needs PostgreSQL or MariaDB: set RANKLINE_DATABASE_URL")
    with _data_dir_held(settings):
        pass  # only a check: the server takes the lock as it starts (in its worker process)
    _run_on_stores(settings, _check_store(settings, log=True))
    if settings.server_key_list:
        key_note = "server keys: from RANKLINE_SERVER_KEYS"
    else:
        try:
            key, created = ensure_server_key(settings.data_dir)
        except OSError as exc:
            _fail(f"cannot keep the server key in {settings.data_dir}: {exc}", 1)
        path = settings.data_dir / KEY_FILE
        key_note = (
            f"server key: {key}  (generated now; stored in {path})"
            if created
            else f"server key: stored in {path}"
        )
    index = "memory (in-process)"
    if settings.redis_url:
        cluster = settings.redis_url.startswith("redis+cluster://")
        index = "redis cluster" if cluster else "redis"
    # With JSON logs, the banner is log lines too: stderr stays one JSON object per line.
    note = console.print if settings.log_format == "text" else logging.getLogger(__name__).info
    note(f"rankline {__version__} serving on http://{host}:{port}  (docs: /docs)")
    note(key_note)
    note(f"durable store: {_redact(settings.database)}; ranking index: {index}")
    note(f"HTTP server: {chosen}, {workers} worker(s)")
    app_object = None
    if workers > 1:
        from rankline.metrics import prepare_multiprocess

        prepare_multiprocess(settings.data_dir)
    elif chosen == "uvicorn" and settings.log_format == "text":
        # With JSON logs uvicorn makes the app itself (app_from_env), once it has configured
        # its logging, so that its loggers' lines go through the JSON handler too.
        from rankline.http.app import serving_app

        app_object = serving_app(settings)
    serving.run(
        chosen,
        "rankline.http.app:app_from_env",
        host=host,
        port=port,
        workers=workers,
        log_level=settings.log_level,
        factory=True,
        app=app_object,
    )


async def _check_store(settings: Settings, *, log: bool = False) -> None:
    """The durable store can be opened, a server database is migrated (the embedded
    SQLite migrates itself when the server starts), and with ``log`` (a server takes
    submissions), a SQLite store's ingestion log can be placed (``embedded_log``)."""
    from rankline.store.sql import SqlStore

    store = SqlStore(settings.database)
    try:
        await store.start()
        if not settings.is_embedded:
            await _require_current_schema(store.engine, settings)
    finally:
        await store.close()
    if log and not settings.log_url:  # where a SQLite store's log lives can stop it too
        from rankline.log.factory import embedded_log

        embedded_log(settings.database, settings.log_name, warn=False)


async def _require_current_schema(engine: AsyncEngine, settings: Settings) -> None:
    from rankline.store import migrate as migrations

    if not await migrations.is_current(engine):
        raise migrations.NotMigrated(
            f"{_redact(settings.database)} is not migrated to revision "
            f"{migrations.head_revision()}: run `rankline migrate` first"
        )


def _fail(message: str, code: int = 2) -> NoReturn:
    from rich.markup import escape

    console.print(f"[bold red]error:[/bold red] {escape(message)}", highlight=False)
    raise typer.Exit(code)


def _run_measure(options: Callable[[], T], main: Callable[[T, Console], int]) -> None:
    """Run a measuring command: its options (a ValueError is a usage error, exit 2), then
    the command itself, whose exit code is the command's (1: a goal missed)."""
    try:
        made = options()
    except ValueError as exc:
        _fail(str(exc))
    code = main(made, console)
    if code:
        raise typer.Exit(code)


def _run_on_stores(settings: Settings, work: Coroutine[Any, Any, T]) -> T:
    """Run ``work``, which opens the stores the settings name. When a store cannot be
    reached (a database that does not exist, a refused connection, a schema not
    migrated), print one line naming the cause and exit 1: the operator needs the
    cause, not the traceback of every layer it went through."""
    store_log = logging.getLogger("rankline.store")
    level = store_log.level
    # The store logs each error it maps, with its traceback; here the error reaches the
    # operator as the one line below.
    store_log.setLevel(logging.CRITICAL)
    try:
        return asyncio.run(work)
    except _store_errors() as exc:
        _fail(_explain(exc, settings), 1)
    finally:
        store_log.setLevel(level)


def _store_errors() -> tuple[type[BaseException], ...]:
    import asyncpg
    import redis.exceptions
    import sqlalchemy.exc

    errors: tuple[type[BaseException], ...] = (
        RanklineError,
        sqlalchemy.exc.SQLAlchemyError,
        asyncpg.PostgresError,
        asyncpg.InterfaceError,
        redis.exceptions.RedisError,
        OSError,
    )
    try:
        import asyncmy.errors

        errors += (asyncmy.errors.Error,)
    except ImportError:  # pragma: no cover - asyncmy is a dependency
        pass
    return errors


def _explain(exc: BaseException, settings: Settings) -> str:
    """``exc`` as one line: what could not be reached and the innermost cause, in the
    driver's words (``database "x" does not exist``, ``Connect call failed``)."""
    import redis.exceptions

    chain = [exc]
    while (cause := _cause_of(chain[-1])) is not None and len(chain) < 20:
        chain.append(cause)
    if isinstance(exc, RanklineError) and not isinstance(exc, Unavailable):
        return exc.detail  # rankline's own words: not migrated, not found
    if any(isinstance(e, IndexUnavailable | redis.exceptions.RedisError) for e in chain):
        what = f"the ranking index at {_redact_redis(settings.redis_url or '')}"
    else:
        what = f"the durable store at {_redact(settings.database)}"
    innermost = chain[-1]
    lines = str(innermost).strip().splitlines()
    words = lines[0] if lines else type(innermost).__name__
    return f"cannot use {what}: {words}"


def _cause_of(exc: BaseException) -> BaseException | None:
    if exc.__cause__ is not None:
        return exc.__cause__
    return None if exc.__suppress_context__ else exc.__context__


@contextmanager
def _data_dir_held(settings: Settings) -> Iterator[None]:
    """Hold the embedded data directory's lock (see ``rankline.store.lock``), or fail with
    one line naming the process that holds it."""
    from rankline.store.lock import DataDirInUse, embedded_lock

    lock = embedded_lock(settings.data_dir, settings.database, bool(settings.redis_url))
    if lock is None:
        yield
        return
    try:
        lock.acquire()
    except DataDirInUse as exc:
        _fail(exc.detail)
    except OSError as exc:  # the data directory cannot be made or opened
        _fail(_explain(exc, settings), 1)
    try:
        yield
    finally:
        lock.release()


@app.command()
def migrate() -> None:
    """Create or upgrade the durable store's schema to the current revision. On the embedded
    store it refuses while a server runs on the data directory (servers migrate it as they
    start)."""
    from rankline.store import migrate as migrations
    from rankline.store.sql import SqlStore

    settings = Settings()

    async def run() -> str | None:
        store = SqlStore(settings.database)
        try:
            await migrations.upgrade(store.engine)
            return await migrations.current_revision(store.engine)
        finally:
            await store.close()

    with _data_dir_held(settings):
        revision = _run_on_stores(settings, run())
    console.print(f"{_redact(settings.database)} is at revision {revision}")


def _maintain(label: str, task: Callable[[Any, Progress], Awaitable[Report]]) -> Report:
    """Run a maintenance task on a shared index with a progress bar, then close up."""
    from rankline.service import Rankline

    settings = Settings()
    _setup_logging("warning")
    if not settings.redis_url:
        _fail(
            "the in-process index is rebuilt at every start of `rankline serve`; "
            "rebuild and verify work on a shared index: set RANKLINE_REDIS_URL"
        )

    async def run() -> Report:
        from rankline.http.app import GC_THRESHOLDS

        # A rebuild allocates a few objects per entry, 50,000 rows at a time: at Python's
        # default threshold the collector walked each chunk again and again (~1.5 µs per
        # entry at 10M). Servers, which rebuild at start, run with these thresholds too.
        gc.set_threshold(*GC_THRESHOLDS)
        service = Rankline(settings, auto_migrate=False)
        await service.store.start()
        try:
            await _require_current_schema(service.store.engine, settings)
            await service.boards.reload()
            await service.index.start()
            return await _with_progress(label, lambda progress: task(service, progress), service)
        finally:
            await service.index.close()
            await service.store.close()

    return _run_on_stores(settings, run())


async def _with_progress(
    label: str, work: Callable[[Progress], Awaitable[Report]], service: Any
) -> Report:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(label, total=None)

        async def follow() -> None:
            # A rebuild reports its SQL load through the keeper; the merge through `work`.
            while True:
                done, total = service.health.progress
                bar.update(task, completed=done, total=total or None)
                await asyncio.sleep(0.2)

        follower = asyncio.create_task(follow())
        try:
            return await work(lambda done, total: bar.update(task, completed=done, total=total))
        finally:
            follower.cancel()


@app.command()
def rebuild() -> None:
    """Rebuild from the durable store every leaderboard of the shared (Redis) index that
    `rankline verify` finds different, then check each again; exit 1 if any difference
    remains. Safe while servers run: newer states written meanwhile win."""
    from rankline.index import maintenance

    report = _maintain(
        "rebuilding",
        lambda service, progress: maintenance.rebuild(
            service.keeper, service.store, service.boards.boards(), progress=progress
        ),
    )
    _print_differences(report)
    console.print(
        f"checked {report.leaderboards} leaderboards, {report.entries:,} entries; "
        f"found {report.count} differences, fixed {report.fixed} differences"
        + (f"; {report.remaining} remain" if report.remaining else "")
    )
    if report.remaining:
        raise typer.Exit(1)


@app.command()
def verify(
    limit: Annotated[int, typer.Option(help="Most differences to print.")] = 50,
) -> None:
    """Compare every index entry with the durable store; exit 1 if any differ."""
    from rankline.index import maintenance

    report = _maintain(
        "verifying",
        lambda service, progress: maintenance.verify(
            service.keeper, service.store, service.boards.boards(), limit=limit, progress=progress
        ),
    )
    _print_differences(report)
    console.print(
        f"checked {report.leaderboards} leaderboards, {report.entries:,} entries: "
        f"{report.count} differences"
    )
    if report.count:
        raise typer.Exit(1)


def _print_differences(report: Any) -> None:
    from rankline.clock import format_time

    for d in report.differences:
        lb = d.leaderboard
        where = f"{lb.board} {lb.window} {lb.period} {lb.scope}" if lb.board else "index"
        what = d.detail or f"{d.player} score={d.score} at={format_time(d.achieved_at)}"
        console.print(f"{d.kind:8} {where}: {what}")


@app.command("dead-letters")
def dead_letters(
    limit: Annotated[
        int, typer.Option(min=1, help="Most dead letters to print, newest first.")
    ] = 50,
    board: Annotated[str | None, typer.Option(help="Only the dead letters of this board.")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per line instead of a table.")
    ] = False,
) -> None:
    """List the submissions taken asynchronously (Prefer: respond-async) that could not be
    applied, newest first, each with its reason: its board was deleted or frozen meanwhile,
    its match_id was used with another payload, or its score left the board's range. They
    are kept, never retried by themselves: submit them again once the cause is mended."""
    from rankline.clock import format_time
    from rankline.store.dead_letters import listed

    settings = Settings()
    _setup_logging("warning")
    total, letters = _run_on_stores(settings, listed(settings, limit, board))
    out = Console(soft_wrap=True)  # the listing goes to stdout, for pipes
    for d in letters:
        if as_json:
            row = {
                "id": d.id,
                "failed_at": format_time(d.failed_at),
                "reason": d.reason,
                "submission": json.loads(d.submission),
            }
            print(json.dumps(row))
        else:
            out.print(
                f"{format_time(d.failed_at)}  {d.board} {d.player} {d.match_id}: "
                f"{escape(d.reason)}",
                highlight=False,
            )
    if not as_json:
        out.print(f"{total} dead letter(s) in all", highlight=False)


@app.command()
def archive() -> None:
    """Close every period whose grace has passed and archive its final standings to the
    durable store now (servers do it every RANKLINE_ARCHIVE_INTERVAL_SECONDS). Safe while
    servers run: each period is archived once."""
    from rankline.lifecycle.closing import archive_now

    settings = Settings()
    _setup_logging("warning")
    done = _run_on_stores(settings, archive_now(settings))
    for item in done:
        board, window, period = item.key
        console.print(
            f"archived {board} {window} {period}: {item.total:,} entries "
            f"({item.entries:,} across {item.scopes} scoped and global leaderboards)"
        )
    console.print(f"archived {len(done)} periods" if done else "nothing to archive")


@app.command("import")
def import_standings(
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE",
            exists=True,
            dir_okay=False,
            readable=True,
            help="A CSV file (a header row; columns player_id and score, optionally "
            "achieved_at, match_id and one per scope of the board, such as region) or a "
            "JSON-lines file (one object per line with those fields, and metadata).",
        ),
    ],
    board: Annotated[
        str | None, typer.Option(help="The board to import into (required; it must exist).")
    ] = None,
    file_format: Annotated[
        str | None,
        typer.Option("--format", help="csv or jsonl (default: from the file's extension)."),
    ] = None,
    at: Annotated[
        str | None,
        typer.Option(
            help="achieved_at (RFC 3339) of the rows that give none (default: the time of the "
            "import)."
        ),
    ] = None,
    batch_size: Annotated[
        int, typer.Option(min=1, max=10_000, help="Rows written per transaction.")
    ] = 2000,
) -> None:
    """Import a leaderboard's standings from a CSV or JSON-lines file into a board, as if
    each row had been submitted; importing the same file again counts nothing twice.

    The board's policy decides each standing, and rows are checked as the API checks scores.
    A row without match_id gets one made of the file's name and the row's line. Prints what
    was imported, skipped as a duplicate and rejected (with the line); exit 1 if any row was
    rejected.

    The ranking index is not written: with a shared index (RANKLINE_REDIS_URL) run
    `rankline rebuild` afterwards, as a server start keeps a shared index already built;
    the in-process index loads the standings when `rankline serve` starts. On the embedded
    store it refuses while a server runs on the data directory."""
    import re

    from rankline.boards import BOARD_ID_PATTERN
    from rankline.clock import SystemClock, parse_time
    from rankline.store import migrate as migrations
    from rankline.store.sql import SqlStore
    from rankline.writing import importing

    settings = Settings()
    _setup_logging("warning")
    if board is None:  # required, but typer's mark for it would misalign the help's rows
        _fail("--board is required: the board to import into")
    if not re.match(BOARD_ID_PATTERN, board):
        _fail(f"--board {board!r} is not a board id")
    try:
        fmt = importing.format_of(file, file_format)
    except ValueError as exc:
        _fail(str(exc))
    try:
        default_at = None if at is None else parse_time(at)
    except ValueError as exc:
        _fail(f"--at: {exc}")

    async def run() -> importing.Summary:
        store = SqlStore(
            settings.database,
            sqlite_synchronous=settings.sqlite_synchronous,
            sqlite_cache_mb=settings.sqlite_cache_mb,
        )
        try:
            await store.start()
            await migrations.ensure_current(store.engine, upgrade_if_behind=settings.is_embedded)
            with _import_progress(file) as progress:
                return await importing.import_file(
                    store,
                    file,
                    board,
                    clock=SystemClock(),
                    fmt=fmt,
                    default_at=default_at,
                    skew_seconds=settings.clock_skew_seconds,
                    max_metadata_bytes=settings.max_metadata_bytes,
                    batch=batch_size,
                    progress=progress,
                )
        finally:
            await store.close()

    with _data_dir_held(settings):
        summary = _run_on_stores(settings, run())
    _print_import(summary, settings)
    if summary.stopped is not None or summary.rejected:
        raise typer.Exit(1)


@contextmanager
def _import_progress(file: Path) -> Iterator[Callable[[int, Summary], None]]:
    """A progress bar over the file's bytes, with rows read and written and their rate (on
    a terminal only)."""
    import time

    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

    started = time.perf_counter()
    columns = (
        "{task.description}",
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[rows]}"),
    )
    size = file.stat().st_size
    with Progress(*columns, console=console, disable=not console.is_terminal) as bar:
        task = bar.add_task("importing", total=size or None, rows="")

        def update(done: int, summary: Summary) -> None:
            elapsed = max(time.perf_counter() - started, 1e-6)
            rows = (
                f"{summary.read:,} rows read, {summary.written:,} written "
                f"({summary.written / elapsed:,.0f}/s)"
            )
            bar.update(task, completed=done, rows=rows)

        yield update


def _print_import(summary: Summary, settings: Settings) -> None:
    from rich.markup import escape

    console.print(
        f"board {summary.board}: imported {summary.imported:,} of {summary.read:,} rows "
        f"({summary.changed:,} changed a standing); {summary.duplicates:,} duplicates skipped "
        f"(already imported); {summary.rejected:,} rejected" + (":" if summary.rejected else ""),
        highlight=False,
    )
    for rejected in summary.first_rejected:
        console.print(f"  line {rejected.line}: {escape(rejected.reason)}", highlight=False)
    if summary.rejected > len(summary.first_rejected):
        more = summary.rejected - len(summary.first_rejected)
        console.print(f"  ... and {more:,} more", highlight=False)
    if summary.stopped is not None:
        console.print(
            f"[bold red]error:[/bold red] stopped before the end of the file: "
            f"{escape(_explain(summary.stopped, settings))}; what was imported stays, and "
            "importing the same file again finishes the rest",
            highlight=False,
        )
    if not summary.imported:
        return
    if settings.redis_url:
        console.print(
            "the shared index does not have these standings yet: run `rankline rebuild` "
            "(a server start keeps a shared index already built)",
            highlight=False,
        )
    else:
        console.print(
            "servers show these standings once they start: `rankline serve` loads them into "
            "its in-process index (restart a server that is running on this store)",
            highlight=False,
        )


ratings_app = _Typer(
    cls=_Group,
    help="Rating boards (Elo, Glicko-2, OpenSkill).",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(ratings_app, name="ratings")


@ratings_app.command("verify")
def ratings_verify(
    board: Annotated[
        list[str] | None,
        typer.Option(
            "--board", help="A rating board to check; repeat for several (default: every one)."
        ),
    ] = None,
    limit: Annotated[int, typer.Option(help="Most differing states to print per board.")] = 20,
) -> None:
    """Recompute the ratings of every rating board from its stored matches, in the order
    they were rated, and compare them with the stored ratings to the last digit; exit 1 if
    any differ. Reads only: safe while servers run (a match rated meanwhile can show as a
    difference; run it again)."""
    from rankline.ratings import rerate
    from rankline.store import migrate as migrations
    from rankline.store.sql import SqlStore

    settings = Settings()
    _setup_logging("warning")

    async def run() -> list[rerate.VerifyReport]:
        store = SqlStore(settings.database)
        try:
            await store.start()
            await migrations.ensure_current(store.engine, upgrade_if_behind=False)
            return await rerate.verify_boards(store, board)
        finally:
            await store.close()

    reports = _run_on_stores(settings, run())
    if not reports:
        console.print("no rating boards")
    for report in reports:
        verdict = "identical" if report.identical else f"{len(report.differing)} differ"
        console.print(
            f"{report.board}: {report.matches:,} matches, {report.states:,} rating states: "
            f"{verdict}"
        )
        for window, period, player in report.differing[:limit]:
            console.print(f"  differs: {window} {period} {player}")
    if any(not r.identical for r in reports):
        raise typer.Exit(1)


@app.command()
def replay(
    board: Annotated[
        list[str] | None,
        typer.Option(
            "--board", help="A board to replay; repeat for several (default: every board)."
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Replay without asking first.")] = False,
) -> None:
    """Rebuild the standings from the score events (disaster recovery): empty the standings
    of every board (or of the boards given), replay their events in arrival order as the
    writes did, then rebuild the ranking index from the new standings.

    Stop every server on the store first: nothing may write while the standings are rebuilt.
    On the embedded store it refuses while a server runs on the data directory. A shared
    (Redis) index has every leaderboard of the replayed boards rebuilt and verified; the
    in-process index loads the new standings at the next start of `rankline serve`."""
    import re

    from rankline.boards import BOARD_ID_PATTERN
    from rankline.index import maintenance
    from rankline.store import migrate as migrations
    from rankline.store.sql import SqlStore
    from rankline.writing import replay as replaying

    settings = Settings()
    _setup_logging("warning")
    for board_id in board or []:
        if not re.match(BOARD_ID_PATTERN, board_id):
            _fail(f"--board {board_id!r} is not a board id")
    which = "every board" if not board else "board(s) " + ", ".join(board)
    question = (
        f"replace the standings of {which} in {_redact(settings.database)} with a replay of "
        "their score events?"
    )

    async def run() -> replaying.ReplayReport:
        store = SqlStore(
            settings.database,
            sqlite_synchronous=settings.sqlite_synchronous,
            sqlite_cache_mb=settings.sqlite_cache_mb,
        )
        try:
            await store.start()
            await migrations.ensure_current(store.engine, upgrade_if_behind=settings.is_embedded)
            with _replay_progress() as progress:
                return await replaying.replay(store, board or None, progress=progress)
        finally:
            await store.close()

    with _data_dir_held(settings):
        _run_on_stores(settings, _check_store(settings))
        if not yes:
            try:
                confirmed = typer.confirm(question, err=True)
            except typer.Abort:
                confirmed = False
            if not confirmed:
                _fail("nothing was changed", 1)
        done = _run_on_stores(settings, run())
    boards = ", ".join(done.boards) or "none"
    console.print(
        f"replayed {done.events:,} score events of {len(done.boards)} boards ({boards}): "
        f"wrote {done.standings:,} standings on {done.leaderboards:,} leaderboards "
        f"(removed {done.removed:,} before)",
        highlight=False,
    )
    if done.skipped_boards:
        console.print(
            f"not replayed (rating boards take no score events): {', '.join(done.skipped_boards)}",
            highlight=False,
        )
    if done.late_closes:
        console.print(
            f"{done.late_closes:,} events committed after their period closed: replayed as then",
            highlight=False,
        )
    if done.unexplained:
        console.print(
            f"[bold yellow]warning:[/bold yellow] {done.unexplained:,} events did not change "
            "what their write recorded (a board's grace or seasons changed since?)",
            highlight=False,
        )
    if not done.boards:
        return
    if not settings.redis_url:
        console.print(
            "the in-process index is rebuilt from these standings at the next start of "
            "`rankline serve`",
            highlight=False,
        )
        return
    replayed = set(done.boards)
    report = _maintain(
        "rebuilding the index",
        lambda service, progress: maintenance.reload(
            service.keeper,
            service.store,
            [b for b in service.boards.boards() if b.id in replayed],
            progress=progress,
        ),
    )
    _print_differences(report)
    console.print(
        f"rebuilt the shared index: {report.leaderboards} leaderboards, "
        f"{report.entries:,} entries; {report.count} differences",
        highlight=False,
    )
    if report.count:
        raise typer.Exit(1)


@contextmanager
def _replay_progress() -> Iterator[Callable[[int, int], None]]:
    """A progress bar over the events (on a terminal only)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, disable=not console.is_terminal) as bar:
        task = bar.add_task("replaying events", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total or None)


@app.command()
def demo(
    host: Annotated[str, typer.Option(help="Interface the demo server listens on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port the demo server listens on.")] = 8000,
    data_dir: Annotated[
        Path | None, typer.Option(help="Data directory (default: a temporary one).")
    ] = None,
    players: Annotated[int, typer.Option(min=1, help="Simulated players.")] = 500,
    rate: Annotated[float, typer.Option(min=0.1, help="Matches per second.")] = 50.0,
    duration: Annotated[
        float | None, typer.Option(min=0, help="Seconds to run (default or 0: until Ctrl-C).")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Random seed, for a repeatable game.")] = None,
) -> None:
    """Start a server and a simulated game (players, matches, an arena, an XP board, chess
    players rated on chess-blitz and chess-rapid, and a tournament every 2 minutes with
    cohorts, whose results a local webhook receiver prints) so the page at / moves; stops the
    server on exit or Ctrl-C."""
    from rankline.demo.game import run_demo

    try:
        run_demo(
            host=host,
            port=port,
            data_dir=data_dir,
            players=players,
            rate=rate,
            duration=duration,
            seed=seed,
        )
    except RuntimeError as exc:
        _fail(str(exc))


@app.command()
def bench(
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
        str, typer.Option(help="HTTP server of rankline and of the ceiling: uvicorn or granian.")
    ] = "uvicorn",
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
            "friends, top, top_deep, submit, batch, batch_async, mixed, matches (rated "
            "matches). The ceilings and baselines run as always.",
        ),
    ] = "",
) -> None:
    """Benchmark rankline with wrk against a raw ASGI ceiling on this machine (needs wrk;
    the redis backend needs the local PostgreSQL and Redis). See docs/performance.md."""
    import shlex
    import sys

    from rankline.bench import run

    _run_measure(
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
        ),
        run.main,
    )


_ScratchDatabase = Annotated[
    str, typer.Option(help="PostgreSQL database of the redis backend (dropped and recreated).")
]
_ScratchRedis = Annotated[str, typer.Option(help="Redis database of the redis backend (flushed).")]


@app.command()
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
    database_url: _ScratchDatabase = "postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_soak",
    redis_url: _ScratchRedis = "redis://127.0.0.1:6379/6",
) -> None:
    """Mixed reads and writes against a real server for minutes, with a restart midway:
    requests, p50/p99, 5xx and memory per minute, and a verdict per goal (RSS growth at most
    5%, stable p99, no 5xx). Exit 1 when a goal is missed."""
    from rankline.bench import soak as soaking
    from rankline.bench import stack

    _run_measure(
        lambda: soaking.Options(
            minutes=minutes,
            backends=stack.parse_backends(backends),
            rate=rate,
            clients=clients,
            players=players,
            json_path=json_path,
            database_url=database_url,
            redis_url=redis_url,
        ),
        soaking.main,
    )


@app.command("check-history")
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
    database_url: _ScratchDatabase = "postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_soak",
    redis_url: _ScratchRedis = "redis://127.0.0.1:6379/6",
) -> None:
    """Record concurrent writes (a best board and a sum board) and reads across workers and
    a crash, then check that every read is explained by a serial order of the acknowledged
    writes. Prints the violations per rule; exit 1 if any."""
    from rankline.bench import history_run, stack

    _run_measure(
        lambda: history_run.Options(
            seconds=seconds,
            backends=stack.parse_backends(backends),
            writers=writers,
            readers=readers,
            players=players,
            json_path=json_path,
            database_url=database_url,
            redis_url=redis_url,
        ),
        history_run.main,
    )


@app.command("settings")
def show_settings() -> None:
    """List every setting (environment variable), its current value and what it does."""
    current = Settings()
    for env, help_text in documented_settings().items():
        name = env.removeprefix("RANKLINE_").lower()
        value = getattr(current, name)
        if "keys" in name and value:
            value = "(set)"
        elif name.endswith("_url") and value:
            value = _redact(value)
        shown = os.environ.get(env) is not None or os.environ.get(f"{env}_FILE") is not None
        console.print(f"[bold]{env}[/bold] = {value!s}{'' if shown else '  (default)'}")
        console.print(f"    {help_text}")


@app.command()
def version() -> None:
    """Print the version."""
    print(__version__)


def _redact(url: str) -> str:
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(an invalid URL)"


def _redact_redis(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    return parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@")).geturl()


def main() -> None:
    app()
