"""The store's side of a replay (``rankline.writing.replay``) and of a void's recompute
(``rankline.writing.recompute``): the score events read back in id order as ``LoggedEvent``s,
a board's standings emptied, the standings counted and the periods they fell in recorded."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from sqlalchemy import delete, func, insert, select, tuple_

from rankline.store import schema as t
from rankline.store.errors import mapped_errors
from rankline.store.sql import SqlStore
from rankline.types import BoardId, MatchId, Micros, PlayerId, Score

_e, _s, _p = t.score_events, t.standings, t.periods

PeriodKey = tuple[BoardId, str, str]
"""(board, window, period)."""
PeriodBounds = tuple[Micros | None, Micros | None]
"""(starts_at, ends_at), None where the period has no bound."""


class LoggedEvent(NamedTuple):
    """One score event as it was logged, with what a replay needs of it."""

    id: int
    board_id: BoardId
    player_id: PlayerId
    score: Score
    at: Micros
    received_at: Micros
    applied: bool
    scopes: str
    """The scopes as stored: a JSON object."""
    subscore: Score | None
    match_id: MatchId


_EVENT_COLUMNS = [_e.c[name] for name in LoggedEvent._fields]


def _logged(rows: Any) -> list[LoggedEvent]:
    make = LoggedEvent._make
    return [make(row) for row in rows]


async def event_range(store: SqlStore, boards: Sequence[BoardId] | None) -> tuple[int, int]:
    """The newest event id of the boards (every board: None) and how many events they have."""
    query = select(func.max(_e.c.id), func.count())
    if boards is not None:
        query = query.where(_e.c.board_id.in_(list(boards)))
    async with mapped_errors(), store.engine.connect() as conn:
        last, count = (await conn.execute(query)).one()
    return int(last or 0), int(count)


async def events_after(
    store: SqlStore, boards: Sequence[BoardId] | None, after: int, last: int, limit: int
) -> list[LoggedEvent]:
    """At most ``limit`` events of the boards (every board: None) with ids in
    (``after``, ``last``], in id order."""
    query = select(*_EVENT_COLUMNS).where(_e.c.id > after, _e.c.id <= last)
    if boards is not None:
        query = query.where(_e.c.board_id.in_(list(boards)))
    query = query.order_by(_e.c.id).limit(limit)
    async with mapped_errors(), store.engine.connect() as conn:
        return _logged(await conn.execute(query))


async def player_events(
    store: SqlStore, board: BoardId, players: Sequence[PlayerId]
) -> list[LoggedEvent]:
    """The score events of these players on ``board``, in id order."""
    query = (
        select(*_EVENT_COLUMNS)
        .where(_e.c.board_id == board, _e.c.player_id.in_(list(players)))
        .order_by(_e.c.id)
    )
    async with mapped_errors(), store.engine.connect() as conn:
        return _logged(await conn.execute(query))


async def empty_standings(store: SqlStore, board_id: BoardId, chunk: int) -> int:
    """Delete the board's standings, ``chunk`` rows per transaction, in key order; how many
    went."""
    removed = 0
    by_key = (_s.c.window, _s.c.period, _s.c.scope, _s.c.player_id)
    while True:
        async with mapped_errors(), store.engine.begin() as conn:
            bound = (
                await conn.execute(
                    select(*by_key)
                    .where(_s.c.board_id == board_id)
                    .order_by(*by_key)
                    .offset(chunk - 1)
                    .limit(1)
                )
            ).first()
            doomed = _s.c.board_id == board_id
            if bound is not None:
                doomed = doomed & (tuple_(*by_key) <= tuple(bound))
            result = await conn.execute(delete(_s).where(doomed))
            removed += result.rowcount
        if bound is None:
            return removed


async def count_standings(store: SqlStore, boards: Sequence[BoardId]) -> int:
    """How many standings the boards hold (banned players' included)."""
    query = select(func.count()).select_from(_s).where(_s.c.board_id.in_(list(boards)))
    async with mapped_errors(), store.engine.connect() as conn:
        return int((await conn.execute(query)).scalar_one())


async def add_missing_periods(store: SqlStore, periods: dict[PeriodKey, PeriodBounds]) -> int:
    """Record the periods that ``rl_periods`` lacks (a known period's state, open, closed or
    archived, is left as it is); how many were added."""
    if not periods:
        return 0
    query = select(_p.c.board_id, _p.c.window, _p.c.period).where(
        _p.c.board_id.in_(sorted({key[0] for key in periods}))
    )
    async with mapped_errors(), store.engine.connect() as conn:
        known = {(board, window, period) for board, window, period in await conn.execute(query)}
    missing = sorted(set(periods) - known)
    if missing:
        async with mapped_errors(), store.engine.begin() as conn:
            await conn.execute(
                insert(_p),
                [
                    {"board_id": b, "window": w, "period": n, "starts_at": s, "ends_at": e}
                    for (b, w, n) in missing
                    for s, e in [periods[b, w, n]]
                ],
            )
    return len(missing)
