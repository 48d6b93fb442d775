"""Entries taken off by hand, in SQL: the standings deleted and the removal recorded
(``rl_removals``) with its audit entry, in one transaction (``rankline.moderation.entries``
does the rest: the index, the archive; ``rankline.writing.replay`` takes the recorded
removals off again at the same point of the log)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, delete, func, insert, select, true

from rankline.store import schema as t
from rankline.store.audit import AuditEntry, add_audit
from rankline.store.sql import SqlStore, mapped_errors
from rankline.types import BoardId, LeaderboardId, Micros, PlayerId

_s, _r = t.standings, t.removals


@dataclass(frozen=True, slots=True)
class Removal:
    """What a removal takes off: on ``board``, the entries of ``player`` (every player when
    None: a reset), on the leaderboards the window, period and scope name (None: any)."""

    board: BoardId
    player: PlayerId | None = None
    window: str | None = None
    period: str | None = None
    scope: str | None = None
    after_event: int = 0
    """The newest score event of the board when the removal was made."""
    at: Micros = 0

    def matches(self, leaderboard: LeaderboardId, player: PlayerId) -> bool:
        return (
            leaderboard.board == self.board
            and (self.player is None or player == self.player)
            and (self.window is None or leaderboard.window == self.window)
            and (self.period is None or leaderboard.period == self.period)
            and (self.scope is None or leaderboard.scope == self.scope)
        )


def _where(removal: Removal) -> ColumnElement[bool]:
    conditions: list[ColumnElement[bool]] = [_s.c.board_id == removal.board]
    for column, value in (
        (_s.c.player_id, removal.player),
        (_s.c.window, removal.window),
        (_s.c.period, removal.period),
        (_s.c.scope, removal.scope),
    ):
        if value is not None:
            conditions.append(column == value)
    return and_(true(), *conditions)


async def remove_entries(
    store: SqlStore, removal: Removal, audit: Callable[[int], AuditEntry]
) -> list[tuple[LeaderboardId, PlayerId]]:
    """Delete the standings ``removal`` names, record it and ``audit(count removed)``, all
    in one transaction; the (leaderboard, player) pairs removed."""
    async with mapped_errors(), store.engine.begin() as conn:
        newest = await conn.execute(
            select(func.max(t.score_events.c.id)).where(t.score_events.c.board_id == removal.board)
        )
        after = int(newest.scalar_one() or 0)
        found = await conn.execute(
            select(_s.c.window, _s.c.period, _s.c.scope, _s.c.player_id).where(_where(removal))
        )
        removed = [
            (LeaderboardId(removal.board, w, p, s), player) for w, p, s, player in found.all()
        ]
        await conn.execute(delete(_s).where(_where(removal)))
        await conn.execute(
            insert(_r),
            [
                {
                    "board_id": removal.board,
                    "player_id": removal.player,
                    "window": removal.window,
                    "period": removal.period,
                    "scope": removal.scope,
                    "after_event": after,
                    "at": removal.at,
                }
            ],
        )
        await add_audit(conn, audit(len(removed)))
    return sorted(removed)


async def recorded_removals(store: SqlStore, boards: Sequence[BoardId]) -> list[Removal]:
    """The removals recorded on these boards, in the order they were made."""
    if not boards:
        return []
    query = (
        select(
            _r.c.board_id,
            _r.c.player_id,
            _r.c.window,
            _r.c.period,
            _r.c.scope,
            _r.c.after_event,
            _r.c.at,
        )
        .where(_r.c.board_id.in_(list(boards)))
        .order_by(_r.c.after_event, _r.c.id)
    )
    async with mapped_errors(), store.engine.connect() as conn:
        return [Removal(*row) for row in await conn.execute(query)]


async def delete_removed(store: SqlStore, removal: Removal) -> int:
    """Delete the standings ``removal`` names (a replay's, after a flush)."""
    async with mapped_errors(), store.engine.begin() as conn:
        result = await conn.execute(delete(_s).where(_where(removal)))
        return int(result.rowcount)
