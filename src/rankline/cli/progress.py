"""The progress bars of the long commands: rebuild, verify, replay and import."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)

from rankline.cli.shared import console

if TYPE_CHECKING:
    from rankline.index.keeper import IndexHealth
    from rankline.index.maintenance import Progress as Step
    from rankline.index.maintenance import Report
    from rankline.writing.importing import Summary


async def with_progress(
    label: str, work: Callable[[Step], Awaitable[Report]], health: IndexHealth
) -> Report:
    """``work`` under a progress bar fed by its own steps and by the keeper's SQL load."""
    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(label, total=None)

        async def follow() -> None:
            # A rebuild reports its SQL load through the keeper; the merge through `work`.
            while True:
                done, total = health.progress
                bar.update(task, completed=done, total=total or None)
                await asyncio.sleep(0.2)

        follower = asyncio.create_task(follow())
        try:
            return await work(lambda done, total: bar.update(task, completed=done, total=total))
        finally:
            follower.cancel()


@contextmanager
def replay_progress() -> Iterator[Callable[[int, int], None]]:
    """A progress bar over the events (on a terminal only)."""
    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, disable=not console.is_terminal) as bar:
        task = bar.add_task("replaying events", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total or None)


@contextmanager
def export_progress(shown: bool) -> Iterator[Callable[[int, int], None]]:
    """A progress bar over the rows exported (on a terminal, when not writing to stdout)."""
    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, disable=not (shown and console.is_terminal)) as bar:
        task = bar.add_task("exporting", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total or None)


@contextmanager
def import_progress(file: Path) -> Iterator[Callable[[int, Summary], None]]:
    """A progress bar over the file's bytes, with rows read and written and their rate (on
    a terminal only)."""
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
