"""Ranks read from the archive (``rl_archive``): what the reads of a period whose live
leaderboard has expired (``rankline.index.archive``) ask the store.

Every entry of an archived period is stored with its final rank (1..N per scope, without
gaps). Because the rank is part of the primary key, every read is an index lookup: a
player's position is their row, a page is a rank range, the total is the highest rank, and
the count of strictly better scores is the rank of the nearest entry above with a different
score.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from rankline.ordering import Keys
from rankline.store import schema as t
from rankline.store.errors import mapped_errors
from rankline.store.ranking import before_bound, distinct_before, encoded
from rankline.store.sql import SqlStore, chunks
from rankline.types import BoardId, LeaderboardId, PlayerId, Position, SortKey

_a = t.archive


def _where(leaderboard: LeaderboardId) -> ColumnElement[bool]:
    return and_(
        _a.c.board_id == leaderboard.board,
        _a.c.window == leaderboard.window,
        _a.c.period == leaderboard.period,
        _a.c.scope == leaderboard.scope,
    )


async def _count(conn: AsyncConnection, leaderboard: LeaderboardId) -> int:
    query = select(func.max(_a.c.rank)).where(_where(leaderboard))
    return int((await conn.execute(query)).scalar_one() or 0)


_RANKED: tuple[Any, ...] = (_a.c.rank, _a.c.score, _a.c.subscore, _a.c.achieved_at, _a.c.player_id)


class ArchiveRanks:
    """Ranks of archived final standings."""

    def __init__(self, store: SqlStore) -> None:
        self._store = store

    async def position(
        self, keys: Keys, leaderboard: LeaderboardId, player: PlayerId
    ) -> Position | None:
        where = _where(leaderboard)
        async with mapped_errors(), self._store.engine.connect() as conn:
            row = (
                await conn.execute(select(*_RANKED).where(where, _a.c.player_id == player))
            ).first()
            if row is None:
                return None
            # Entries with the player's value are contiguous just above them: the nearest
            # entry above with another value has, as its rank, the count of better values.
            other = _a.c.score != row.score
            if row.subscore is not None:
                other = or_(other, _a.c.subscore != row.subscore)
            above = (
                await conn.execute(
                    select(_a.c.rank)
                    .where(where, _a.c.rank < row.rank, other)
                    .order_by(_a.c.rank.desc())
                    .limit(1)
                )
            ).scalar_one_or_none()
            total = await _count(conn, leaderboard)
        return Position(int(row.rank) - 1, encoded(keys, row), total, int(above or 0))

    async def positions(
        self, keys: Keys, leaderboard: LeaderboardId, players: Sequence[PlayerId]
    ) -> list[tuple[int, SortKey]]:
        found: list[tuple[int, SortKey]] = []
        where = _where(leaderboard)
        async with mapped_errors(), self._store.engine.connect() as conn:
            for chunk in chunks(list(dict.fromkeys(players))):
                rows = await conn.execute(select(*_RANKED).where(where, _a.c.player_id.in_(chunk)))
                found += [(int(r.rank) - 1, encoded(keys, r)) for r in rows]
        found.sort()
        return found

    async def page(
        self, keys: Keys, leaderboard: LeaderboardId, start: int, stop: int
    ) -> tuple[int, list[SortKey]]:
        where = _where(leaderboard)
        async with mapped_errors(), self._store.engine.connect() as conn:
            total = await _count(conn, leaderboard)
            if stop <= start or start >= total:
                return total, []
            rows = await conn.execute(
                select(_a.c.score, _a.c.subscore, _a.c.achieved_at, _a.c.player_id)
                .where(where, _a.c.rank > start, _a.c.rank <= stop)
                .order_by(_a.c.rank)
            )
            return total, [encoded(keys, r) for r in rows]

    async def total(self, leaderboard: LeaderboardId) -> int:
        async with mapped_errors(), self._store.engine.connect() as conn:
            return await _count(conn, leaderboard)

    async def counts_before(
        self, keys: Keys, leaderboard: LeaderboardId, bounds: Sequence[bytes]
    ) -> tuple[int, list[int]]:
        """Each count is the highest rank among the entries before the bound (ranks are
        1..N without gaps, in key order)."""
        where = _where(leaderboard)
        async with mapped_errors(), self._store.engine.connect() as conn:
            total = await _count(conn, leaderboard)
            counts = []
            for bound in bounds:
                query = select(func.max(_a.c.rank)).where(where, before_bound(_a.c, keys, bound))
                counts.append(int((await conn.execute(query)).scalar_one() or 0))
        return total, counts

    async def distinct_before(
        self, keys: Keys, leaderboard: LeaderboardId, prefixes: Sequence[bytes]
    ) -> list[int]:
        return await distinct_before(self._store, _a.c, _where(leaderboard), keys, prefixes)

    async def leaderboards(self, board: BoardId) -> list[LeaderboardId]:
        async with mapped_errors(), self._store.engine.connect() as conn:
            rows = await conn.execute(
                select(_a.c.window, _a.c.period, _a.c.scope)
                .where(_a.c.board_id == board)
                .distinct()
            )
            return sorted(LeaderboardId(board, w, p, s) for w, p, s in rows)
