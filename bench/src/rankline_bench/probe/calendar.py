"""What time zones and cron windows cost: the fan-out of a submission, a read's period, and
memory, against a board in UTC.

    rankline bench probe calendar [--count 200000] [--boards 1000]

In process, no server: the same ``Board`` objects the write and read paths use.

- ``targets``: ``Board.targets`` (where one submission lands), per call, for boards with the
  windows daily, weekly and monthly in UTC, the same in ``America/Los_Angeles``, and a cron
  window (``0 18 * * FRI`` in ``Europe/Paris``): submissions inside the current period (the
  cron window's last span is kept, the common case), and submissions each in another period
  (every ``at`` a week apart: a croniter computation each time);
- ``current period`` and ``named period``: what resolving a read costs (``current_period``
  for a read without ``period``; ``parse_period`` of a named one, a croniter computation for
  a cron period);
- memory: the bytes one more board of each kind holds (tracemalloc over ``--boards``), and
  what importing croniter adds to a process (tracemalloc, in a fresh interpreter).
"""

from __future__ import annotations

import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import msgspec

from rankline.boards import Board, BoardSpec
from rankline.periods import current_period, parse_period
from rankline.runtime.clock import to_micros

WEEK = 7 * 86_400_000_000
NOW = to_micros(datetime(2026, 11, 21, 12, tzinfo=UTC))
CALENDAR = ["daily", "weekly", "monthly"]
EVENT = {"id": "event", "cron": "0 18 * * FRI", "timezone": "Europe/Paris"}
KINDS: dict[str, dict[str, object]] = {
    "UTC (daily, weekly, monthly)": {"windows": CALENDAR},
    "America/Los_Angeles (the same)": {"windows": CALENDAR, "timezone": "America/Los_Angeles"},
    "a cron window": {"windows": [EVENT]},
}


@dataclass(frozen=True)
class Options:
    count: int = 200_000
    boards: int = 1000


def _board(spec: dict[str, object]) -> Board:
    return Board.define("b", msgspec.convert(spec, BoardSpec))


def _per_call(count: int, call: Callable[[int], object]) -> float:
    """µs per call of ``call(i)`` for i in 0..count-1 (CPU time of this process)."""
    started = time.process_time()
    for i in range(count):
        call(i)
    return (time.process_time() - started) / count * 1e6


def _bytes_per_board(spec: dict[str, object], boards: int) -> float:
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [_board(spec) for _ in range(boards)]
    for board in kept:  # each cron window computes and keeps its current span
        board.targets(NOW, {}, NOW)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return (after - before) / len(kept)


def _croniter_import_bytes() -> int:
    code = (
        "import tracemalloc; tracemalloc.start(); import croniter; "
        "print(tracemalloc.get_traced_memory()[0])"
    )
    answer = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return int(answer.stdout.strip())


def _row(name: str, spec: dict[str, object], count: int, boards: int) -> None:
    board = _board(spec)
    window = board.windows[0]
    rare = max(1, count // 20)
    same = _per_call(count, lambda i: board.targets(NOW + i, {}, NOW))
    fresh = _per_call(rare, lambda i: board.targets(NOW - i * WEEK, {}, NOW - i * WEEK))
    memory = _bytes_per_board(spec, boards)
    print(f"{name:34} {same:9.2f} {fresh:20.2f} {memory:11,.0f} B")
    now_read = _per_call(count, lambda i: current_period(window, NOW + i, board.calendar))
    names = [
        p.name
        for i in range(200)
        if (p := current_period(window, NOW - i * WEEK, board.calendar)) is not None
    ]
    parse = _per_call(rare, lambda i: parse_period(window, names[i % len(names)], board.calendar))
    print(f"{'':34} current period {now_read:.2f}, named period {parse:.2f} ({window})")


def run(options: Options) -> None:
    count = options.count
    print(f"calendar probe: {count:,} calls per row, µs per call (CPU)")
    print(f"{'board':34} {'targets':>9} {'targets, new period':>20} {'memory':>14}")
    for name, spec in KINDS.items():
        _row(name, spec, count, options.boards)
    print(f"importing croniter: {_croniter_import_bytes() / 1024:,.0f} KiB")
