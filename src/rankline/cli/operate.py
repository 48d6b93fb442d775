"""The operator's commands on a store that servers use: ``rebuild`` and ``verify`` (the
shared index), ``archive``, ``replay``, ``dead-letters`` and ``ratings verify``."""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from rankline.cli.shared import (
    Group,
    Typer,
    console,
    data_dir_held,
    fail,
    run_on_stores,
    setup_logging,
)
from rankline.settings import Settings

if TYPE_CHECKING:
    from rankline.index.maintenance import Progress, Report
    from rankline.service import Rankline


def _maintain(label: str, task: Callable[[Rankline, Progress], Awaitable[Report]]) -> Report:
    """Run a maintenance task on a shared index with a progress bar, then close up."""
    from rankline.cli.progress import with_progress
    from rankline.http.app import GC_THRESHOLDS
    from rankline.service import Rankline

    settings = Settings()
    setup_logging("warning")
    if not settings.redis_url:
        fail(
            "the in-process index is rebuilt at every start of `rankline serve`; "
            "rebuild and verify work on a shared index: set RANKLINE_REDIS_URL"
        )

    async def run() -> Report:
        # A rebuild allocates a few objects per entry, 50,000 rows at a time: at Python's
        # default threshold the collector walked each chunk again and again (its cost per
        # entry is in docs/performance.md). Servers, which rebuild at start, run with these
        # thresholds too.
        gc.set_threshold(*GC_THRESHOLDS)
        service = Rankline(settings, auto_migrate=False)
        async with service.maintaining():
            return await with_progress(
                label, lambda progress: task(service, progress), service.health
            )

    return run_on_stores(settings, run())


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
    from rankline.runtime.clock import format_time

    for d in report.differences:
        lb = d.leaderboard
        where = f"{lb.board} {lb.window} {lb.period} {lb.scope}" if lb.board else "index"
        what = d.detail or f"{d.player} score={d.score} at={format_time(d.achieved_at)}"
        console.print(f"{d.kind:8} {where}: {what}")


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
    from rankline.runtime.clock import format_time
    from rankline.store.dead_letters import listed

    settings = Settings()
    setup_logging("warning")
    total, letters = run_on_stores(settings, listed(settings, limit, board))
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


def archive() -> None:
    """Close every period whose grace has passed and archive its final standings to the
    durable store now (servers do it every RANKLINE_ARCHIVE_INTERVAL_SECONDS). Safe while
    servers run: each period is archived once."""
    from rankline.lifecycle.closing import archive_now

    settings = Settings()
    setup_logging("warning")
    done = run_on_stores(settings, archive_now(settings))
    for item in done:
        board, window, period = item.key
        console.print(
            f"archived {board} {window} {period}: {item.total:,} entries "
            f"({item.entries:,} across {item.scopes} scoped and global leaderboards)"
        )
    console.print(f"archived {len(done)} periods" if done else "nothing to archive")


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
    from rankline.boards import BOARD_ID_PATTERN
    from rankline.cli.progress import replay_progress
    from rankline.index import maintenance
    from rankline.store.opening import check_store, redacted
    from rankline.writing.replay import replay_store

    settings = Settings()
    setup_logging("warning")
    for board_id in board or []:
        if not re.match(BOARD_ID_PATTERN, board_id):
            fail(f"--board {board_id!r} is not a board id")
    which = "every board" if not board else "board(s) " + ", ".join(board)
    question = (
        f"replace the standings of {which} in {redacted(settings.database)} with a replay of "
        "their score events?"
    )
    with data_dir_held(settings):
        run_on_stores(settings, check_store(settings))
        if not yes:
            try:
                confirmed = typer.confirm(question, err=True)
            except typer.Abort:
                confirmed = False
            if not confirmed:
                fail("nothing was changed", 1)
        with replay_progress() as progress:
            done = run_on_stores(settings, replay_store(settings, board or None, progress=progress))
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


ratings_app = Typer(
    cls=Group,
    help="Rating boards (Elo, Glicko-2, OpenSkill).",
    no_args_is_help=True,
    add_completion=False,
)


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
    from rankline.ratings.rerate import verify_store

    settings = Settings()
    setup_logging("warning")
    reports = run_on_stores(settings, verify_store(settings, board))
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
