"""Ranking answered from the archive: reads of a period whose live leaderboard has expired.

``ArchiveIndex`` is an ``IndexReader`` over ``rl_archive``, where every entry of
an archived period is stored with its final rank (1..N per scope, without gaps). Because the
rank is part of the primary key, every read is an index lookup: a player's position is their
row, a page is a rank range, the total is the highest rank, and the count of strictly better
scores is the rank of the nearest entry above with a different score.

``ArchiveRouter`` is what a read uses: it sends each leaderboard to the live index, unless that
period's retention has ended; then to the archive once the period is archived, or to the SQL
standings until it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, and_, func, or_, select

from rankline.index.base import IndexReader
from rankline.index.sql import ReadOnlySql, before_bound
from rankline.store import archive as store_archive
from rankline.store import schema as t
from rankline.store.sql import mapped_errors
from rankline.types import (
    BoardId,
    LeaderboardId,
    Movement,
    PlayerId,
    Position,
    SortKey,
)

_a = t.archive
_CHUNK = 500


def _where(leaderboard: LeaderboardId) -> ColumnElement[bool]:
    return and_(
        _a.c.board_id == leaderboard.board,
        _a.c.window == leaderboard.window,
        _a.c.period == leaderboard.period,
        _a.c.scope == leaderboard.scope,
    )


class ArchiveIndex(ReadOnlySql):
    """An ``IndexReader`` over ``rl_archive`` (final standings)."""

    async def holds(self, leaderboard: LeaderboardId) -> bool:
        """Whether the leaderboard's period is archived (its final standings are here)."""
        key = store_archive.PeriodKey(leaderboard.board, leaderboard.window, leaderboard.period)
        return await store_archive.is_archived(self._store, key)

    def _rows(self, leaderboard: LeaderboardId) -> tuple[Any, ColumnElement[bool]]:
        return _a.c, _where(leaderboard)

    async def position(self, leaderboard: LeaderboardId, player: PlayerId) -> Position | None:
        where = _where(leaderboard)
        async with mapped_errors(), self._store.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(
                        _a.c.rank, _a.c.score, _a.c.subscore, _a.c.achieved_at, _a.c.player_id
                    ).where(where, _a.c.player_id == player)
                )
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
            total = await self._count(conn, leaderboard)
        return Position(int(row.rank) - 1, self._key(leaderboard, row), total, int(above or 0))

    async def _count(self, conn: Any, leaderboard: LeaderboardId) -> int:
        query = select(func.max(_a.c.rank)).where(_where(leaderboard))
        return int((await conn.execute(query)).scalar_one() or 0)

    async def positions(
        self, leaderboard: LeaderboardId, players: Sequence[PlayerId]
    ) -> list[tuple[int, SortKey]]:
        unique = list(dict.fromkeys(players))
        found: list[tuple[int, SortKey]] = []
        where = _where(leaderboard)
        async with mapped_errors(), self._store.engine.connect() as conn:
            for start in range(0, len(unique), _CHUNK):
                rows = await conn.execute(
                    select(
                        _a.c.rank, _a.c.score, _a.c.subscore, _a.c.achieved_at, _a.c.player_id
                    ).where(where, _a.c.player_id.in_(unique[start : start + _CHUNK]))
                )
                found += [(int(r.rank) - 1, self._key(leaderboard, r)) for r in rows]
        found.sort()
        return found

    async def page(
        self, leaderboard: LeaderboardId, start: int, stop: int
    ) -> tuple[int, list[SortKey]]:
        where = _where(leaderboard)
        async with mapped_errors(), self._store.engine.connect() as conn:
            total = await self._count(conn, leaderboard)
            if stop <= start or start >= total:
                return total, []
            rows = await conn.execute(
                select(_a.c.score, _a.c.subscore, _a.c.achieved_at, _a.c.player_id)
                .where(where, _a.c.rank > start, _a.c.rank <= stop)
                .order_by(_a.c.rank)
            )
            return total, [self._key(leaderboard, r) for r in rows]

    async def total(self, leaderboard: LeaderboardId) -> int:
        async with mapped_errors(), self._store.engine.connect() as conn:
            return await self._count(conn, leaderboard)

    async def counts_before(
        self, leaderboard: LeaderboardId, bounds: Sequence[bytes]
    ) -> tuple[int, list[int]]:
        """Each count is the highest rank among the entries before the bound (ranks are
        1..N without gaps, in key order)."""
        keys = self._keys_of(leaderboard.board)
        where = _where(leaderboard)
        async with mapped_errors(), self._store.engine.connect() as conn:
            total = await self._count(conn, leaderboard)
            counts = []
            for bound in bounds:
                query = select(func.max(_a.c.rank)).where(where, before_bound(_a.c, keys, bound))
                counts.append(int((await conn.execute(query)).scalar_one() or 0))
        return total, counts

    async def leaderboards(self, board: BoardId) -> list[LeaderboardId]:
        async with mapped_errors(), self._store.engine.connect() as conn:
            rows = await conn.execute(
                select(_a.c.window, _a.c.period, _a.c.scope)
                .where(_a.c.board_id == board)
                .distinct()
            )
            return sorted(LeaderboardId(board, w, p, s) for w, p, s in rows)


class ArchiveRouter:
    """The index one read uses: ``live`` for a leaderboard still live, the archive for one
    whose retention has ended (``expired``) once its period is archived, ``standings`` (the
    SQL standings) before that. ``archived`` tells whether the archive answered."""

    def __init__(
        self,
        live: IndexReader,
        archive: ArchiveIndex,
        standings: IndexReader,
        expired: Callable[[LeaderboardId], bool],
    ) -> None:
        self._live = live
        self._archive = archive
        self._standings = standings
        self._expired = expired
        self._picked: dict[LeaderboardId, IndexReader] = {}
        self.archived = False

    async def _pick(self, leaderboard: LeaderboardId) -> IndexReader:
        found = self._picked.get(leaderboard)
        if found is None:
            if not self._expired(leaderboard):
                found = self._live
            elif await self._archive.holds(leaderboard):
                found = self._archive
            else:
                found = self._standings
            self._picked[leaderboard] = found
        if found is self._archive:
            self.archived = True
        return found

    async def position(self, leaderboard: LeaderboardId, player: PlayerId) -> Position | None:
        return await (await self._pick(leaderboard)).position(leaderboard, player)

    async def positions(
        self, leaderboard: LeaderboardId, players: Sequence[PlayerId]
    ) -> list[tuple[int, SortKey]]:
        return await (await self._pick(leaderboard)).positions(leaderboard, players)

    async def page(
        self, leaderboard: LeaderboardId, start: int, stop: int
    ) -> tuple[int, list[SortKey]]:
        return await (await self._pick(leaderboard)).page(leaderboard, start, stop)

    async def around(
        self, leaderboard: LeaderboardId, player: PlayerId, k: int
    ) -> tuple[Position, int, list[SortKey]] | None:
        return await (await self._pick(leaderboard)).around(leaderboard, player, k)

    async def total(self, leaderboard: LeaderboardId) -> int:
        return await (await self._pick(leaderboard)).total(leaderboard)

    async def after(
        self, leaderboard: LeaderboardId, key: SortKey, limit: int
    ) -> tuple[int, int, list[SortKey]]:
        return await (await self._pick(leaderboard)).after(leaderboard, key, limit)

    async def counts_before(
        self, leaderboard: LeaderboardId, bounds: Sequence[bytes]
    ) -> tuple[int, list[int]]:
        return await (await self._pick(leaderboard)).counts_before(leaderboard, bounds)

    async def distinct_before(
        self, leaderboard: LeaderboardId, prefixes: Sequence[bytes]
    ) -> list[int]:
        return await (await self._pick(leaderboard)).distinct_before(leaderboard, prefixes)

    async def movement(self, leaderboard: LeaderboardId, player: PlayerId) -> Movement:
        return await (await self._pick(leaderboard)).movement(leaderboard, player)

    async def top_stamp(self, leaderboard: LeaderboardId) -> tuple[int, int]:
        return await (await self._pick(leaderboard)).top_stamp(leaderboard)

    async def change_stamp(self, leaderboard: LeaderboardId) -> int:
        return await (await self._pick(leaderboard)).change_stamp(leaderboard)

    async def leaderboards(self, board: BoardId) -> list[LeaderboardId]:
        return await self._live.leaderboards(board)
