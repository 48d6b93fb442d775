"""Data into and out of the durable store: ``rankline migrate`` (its schema), ``rankline
import`` (standings from a file) and ``rankline export`` (a leaderboard to a file)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from rankline.cli.shared import console, data_dir_held, explain, fail, run_on_stores, setup_logging
from rankline.settings import Settings

if TYPE_CHECKING:
    from rankline.writing.importing import Summary


def migrate() -> None:
    """Create or upgrade the durable store's schema to the current revision. On the embedded
    store it refuses while a server runs on the data directory (servers migrate it as they
    start)."""
    from rankline.store.opening import migrated, redacted

    settings = Settings()
    with data_dir_held(settings):
        revision = run_on_stores(settings, migrated(settings))
    console.print(f"{redacted(settings.database)} is at revision {revision}")


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
    from rankline.boards import BOARD_ID_PATTERN
    from rankline.cli.progress import import_progress
    from rankline.runtime.clock import parse_time
    from rankline.writing import importing

    settings = Settings()
    setup_logging("warning")
    if board is None:  # required, but typer's mark for it would misalign the help's rows
        fail("--board is required: the board to import into")
    if not re.match(BOARD_ID_PATTERN, board):
        fail(f"--board {board!r} is not a board id")
    try:
        fmt = importing.format_of(file, file_format)
    except ValueError as exc:
        fail(str(exc))
    try:
        default_at = None if at is None else parse_time(at)
    except ValueError as exc:
        fail(f"--at: {exc}")
    with data_dir_held(settings), import_progress(file) as progress:
        summary = run_on_stores(
            settings,
            importing.import_into_store(
                settings,
                file,
                board,
                fmt=fmt,
                default_at=default_at,
                batch=batch_size,
                progress=progress,
            ),
        )
    _print_import(summary, settings)
    if summary.stopped is not None or summary.rejected:
        raise typer.Exit(1)


def _print_import(summary: Summary, settings: Settings) -> None:
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
            f"{escape(explain(summary.stopped, settings))}; what was imported stays, and "
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


def export_standings(
    board: Annotated[str | None, typer.Option(help="The board to export (required).")] = None,
    window: Annotated[
        str | None, typer.Option(help="The window (default: all_time, or the board's first).")
    ] = None,
    period: Annotated[
        str | None,
        typer.Option(help="The period, live or archived (default: the current one)."),
    ] = None,
    scope: Annotated[
        str | None, typer.Option(help="global (default) or dimension:value, e.g. region:EU.")
    ] = None,
    file_format: Annotated[
        str | None, typer.Option("--format", help="csv or jsonl (required).")
    ] = None,
    metadata: Annotated[
        bool, typer.Option("--metadata", help="jsonl: each row's submission metadata too.")
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", dir_okay=False, help="The file (default: stdout)."),
    ] = None,
) -> None:
    """Export a leaderboard's standings (live or archived) in the format `rankline import`
    reads: each row with the scopes, match id and metadata of the submission that set it,
    so importing the file into an empty store gives the same standings. Banned players are
    left out. A progress bar shows on a terminal while writing to a file."""
    from rankline.boards import BOARD_ID_PATTERN
    from rankline.cli.progress import export_progress
    from rankline.reading import export
    from rankline.runtime.clock import SystemClock

    settings = Settings()
    setup_logging("warning")
    if board is None:
        fail("--board is required: the board to export")
    if not re.match(BOARD_ID_PATTERN, board):
        fail(f"--board {board!r} is not a board id")
    if file_format not in export.FORMATS:
        fail("--format is required: csv or jsonl")
    out = sys.stdout if output is None else output.open("w", encoding="utf-8", newline="")
    try:
        with export_progress(output is not None) as progress:
            rows = run_on_stores(
                settings,
                export.export_from_store(
                    settings,
                    board,
                    window,
                    period,
                    scope,
                    fmt=file_format,
                    metadata=metadata,
                    write=out.write,
                    now=SystemClock().now(),
                    progress=progress,
                ),
            )
    finally:
        if out is not sys.stdout:
            out.close()
    if output is not None:
        console.print(f"exported {rows:,} rows of board {board} to {output}", highlight=False)
