"""The known periods of a board (``GET …/periods``): the periods stored and the current one
of each window, each with its state (open, closed, archived) and its total."""

from __future__ import annotations

from rankline.answers import PeriodOut, PeriodsOut
from rankline.boards import Board
from rankline.errors import InvalidInput
from rankline.index.base import IndexReader
from rankline.periods import Period, current_period, parse_period
from rankline.runtime.clock import format_time
from rankline.store import archive as store_archive
from rankline.store.sql import SqlStore
from rankline.types import GLOBAL_SCOPE, Clock, LeaderboardId

_UNRECORDED = store_archive.PeriodState(store_archive.OPEN, None)


async def known_periods(
    board: Board, window: str | None, index: IndexReader, store: SqlStore, clock: Clock
) -> PeriodsOut:
    """The known periods of a window (or of every window) of ``board``, newest first: those
    stored and the current one, each with its state and total."""
    if window is not None and window not in board.windows:
        raise InvalidInput.at(["query", "window"], f"the board has no {window!r} window")
    now = clock.now()
    known: dict[tuple[str, str], Period] = {}
    for stored in await store.list_periods(board.id, window):
        try:
            known[stored.window, stored.period] = parse_period(
                stored.window, stored.period, board.calendar
            )
        except ValueError:
            continue
    for name in [window] if window else board.windows:
        current = current_period(name, now, board.calendar)
        if current is not None:
            known.setdefault((name, current.name), current)
    live = {(lb.window, lb.period) for lb in await index.leaderboards(board.id)}
    states = await store_archive.period_states(store, board.id, window)
    items = []
    ordered = sorted(known.items(), key=lambda kv: (kv[0][0], -(kv[1].starts_at or 0)))
    for (name, period_name), period in ordered:
        leaderboard = LeaderboardId(board.id, name, period_name, GLOBAL_SCOPE)
        state, archived_total = states.get((name, period_name), _UNRECORDED)
        closed = period.is_closed(now, board.grace_seconds)
        expires = board.expires_at(period)
        if state == "archived" and expires is not None and now >= expires:
            total = archived_total or 0
        elif (name, period_name) in live or not closed:
            total = await index.total(leaderboard)
        else:
            total = await store.count_leaderboard(leaderboard)
        items.append(
            PeriodOut(
                window=name,
                period=period_name,
                starts_at=None if period.starts_at is None else format_time(period.starts_at),
                ends_at=None if period.ends_at is None else format_time(period.ends_at),
                state="archived" if state == "archived" else "closed" if closed else "open",
                total=total,
            )
        )
    return PeriodsOut(board=board.id, as_of=format_time(now), periods=items)
