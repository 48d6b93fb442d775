"""Ranking answered by the durable store itself: the degraded read path.

Used while the ranking index cannot answer (Redis unreachable, or rebuilding). Every rank is
a count over the standings' rank index (board, window, period, scope, score, achieved_at,
player_id), so answers are exact and slower: O(rank) instead of O(log N). Banned players
are left out, as the index leaves them out. It writes nothing;
the group-commit writer has already put every standing in SQL.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, and_, func, or_, select

from rankline.ordering import Keys
from rankline.store import schema as t
from rankline.store.sql import SqlStore, mapped_errors, unbanned
from rankline.types import (
    BoardId,
    LeaderboardId,
    Movement,
    Order,
    PlayerId,
    Position,
    Score,
    SortKey,
)

_s = t.standings


def _where(leaderboard: LeaderboardId) -> ColumnElement[bool]:
    return and_(
        _s.c.board_id == leaderboard.board,
        _s.c.window == leaderboard.window,
        _s.c.period == leaderboard.period,
        _s.c.scope == leaderboard.scope,
        unbanned(_s.c.player_id),
    )


def _beyond(column: Any, order: Order, value: Score) -> ColumnElement[bool]:
    """Rows whose ``column`` ranks strictly before ``value`` in ``order``."""
    found: ColumnElement[bool] = column > value if order == "desc" else column < value
    return found


def before_bound(columns: Any, keys: Keys, bound: bytes) -> ColumnElement[bool]:
    """Rows of a table with ``score``, ``achieved_at`` and ``player_id`` columns (and
    ``subscore``, on a board with one) whose key sorts strictly before ``bound``: a key,
    or its value prefix, or its head (``Keys.decode_bound``)."""
    score, subscore, at, player = keys.decode_bound(bound)
    better = _beyond(columns.score, keys.order, score)
    same: ColumnElement[bool] = columns.score == score
    if keys.sub_order is not None:
        if subscore is None:
            return better
        better = or_(better, and_(same, _beyond(columns.subscore, keys.sub_order, subscore)))
        same = and_(same, columns.subscore == subscore)
    if at is None:
        return better
    if player is None:
        return or_(better, and_(same, columns.achieved_at < at))
    return or_(
        better,
        and_(
            same,
            or_(
                columns.achieved_at < at,
                and_(columns.achieved_at == at, columns.player_id < player),
            ),
        ),
    )


def _distinct_count(columns: Any, keys: Keys, *where: ColumnElement[bool]) -> Any:
    """How many distinct values (score, and subscore on a board with one) the rows have,
    as a scalar subquery."""
    if keys.sub_order is None:
        return select(func.count(columns.score.distinct())).where(*where).scalar_subquery()
    values = select(columns.score, columns.subscore).where(*where).distinct().subquery()
    return select(func.count()).select_from(values).scalar_subquery()


_UNCACHED = itertools.count(1)


def uncached_stamp() -> int:
    """A top stamp no cache has seen: what indexes answer whose reads must not be cached."""
    return -next(_UNCACHED)


class ReadOnlySql:
    """What the SQL read paths share (each an ``IndexReader``): built on the store and a
    lookup of each board's keys, as the keys they return are every index's keys."""

    def __init__(self, store: SqlStore, keys_of: Callable[[BoardId], Keys]) -> None:
        self._store = store
        self._keys_of = keys_of

    def _key(self, leaderboard: LeaderboardId, row: Any) -> SortKey:
        """The key of a row with score, subscore, achieved_at and player_id."""
        keys = self._keys_of(leaderboard.board)
        return keys.encode(row.score, row.subscore, row.achieved_at, row.player_id)

    async def position(self, leaderboard: LeaderboardId, player: PlayerId) -> Position | None:
        raise NotImplementedError

    async def page(
        self, leaderboard: LeaderboardId, start: int, stop: int
    ) -> tuple[int, list[SortKey]]:
        raise NotImplementedError

    async def around(
        self, leaderboard: LeaderboardId, player: PlayerId, k: int
    ) -> tuple[Position, int, list[SortKey]] | None:
        position = await self.position(leaderboard, player)
        if position is None:
            return None
        first = max(0, position.offset - k)
        _, keys = await self.page(leaderboard, first, position.offset + k + 1)
        return position, first, keys

    async def total(self, leaderboard: LeaderboardId) -> int:
        raise NotImplementedError

    async def after(
        self, leaderboard: LeaderboardId, key: SortKey, limit: int
    ) -> tuple[int, int, list[SortKey]]:
        """The entries after ``key``: those from its position on, less ``key`` itself."""
        _, (first,) = await self.counts_before(leaderboard, [key])
        total, keys = await self.page(leaderboard, first, first + limit + 1)
        if keys and keys[0] == key:
            return total, first + 1, keys[1:]
        return total, first, keys[:limit]

    async def counts_before(
        self, leaderboard: LeaderboardId, bounds: Sequence[bytes]
    ) -> tuple[int, list[int]]:
        raise NotImplementedError

    async def movement(self, leaderboard: LeaderboardId, player: PlayerId) -> Movement:
        """Not known: movement is kept beside the live index only."""
        return Movement(None, None)

    def _rows(self, leaderboard: LeaderboardId) -> tuple[Any, ColumnElement[bool]]:
        """The table's columns and the condition that selects the leaderboard's rows."""
        raise NotImplementedError

    async def distinct_before(
        self, leaderboard: LeaderboardId, prefixes: Sequence[bytes]
    ) -> list[int]:
        """Counted by the database (COUNT(DISTINCT score) of the better rows; on a board
        with a subscore, the count of the DISTINCT (score, subscore) pairs, as a count over
        a subquery, which SQLite, PostgreSQL and MariaDB all take): slower than the index's,
        exact, and without anything kept beside the rows."""
        if not prefixes:
            return []
        keys = self._keys_of(leaderboard.board)
        columns, where = self._rows(leaderboard)
        counts = [
            _distinct_count(
                columns, keys, where, before_bound(columns, keys, prefix[: keys.prefix])
            )
            for prefix in prefixes
        ]
        async with mapped_errors(), self._store.engine.connect() as conn:
            row = (await conn.execute(select(*counts))).one()
        return [int(x) for x in row]

    async def top_stamp(self, leaderboard: LeaderboardId) -> tuple[int, int]:
        # Nothing tells SQL reads that the top changed: every answer is fresh.
        return uncached_stamp(), await self.total(leaderboard)

    async def change_stamp(self, leaderboard: LeaderboardId) -> int:
        return uncached_stamp()


class SqlIndex(ReadOnlySql):
    """An ``IndexReader`` over the current standings (the degraded read path)."""

    def _rows(self, leaderboard: LeaderboardId) -> tuple[Any, ColumnElement[bool]]:
        return _s.c, _where(leaderboard)

    def _sorted(self, leaderboard: LeaderboardId) -> list[Any]:
        keys = self._keys_of(leaderboard.board)
        score = _s.c.score.desc() if keys.order == "desc" else _s.c.score
        if keys.sub_order is None:
            return [score, _s.c.achieved_at, _s.c.player_id]
        subscore = _s.c.subscore.desc() if keys.sub_order == "desc" else _s.c.subscore
        return [score, subscore, _s.c.achieved_at, _s.c.player_id]

    async def _scalar(self, query: Any) -> int:
        async with mapped_errors(), self._store.engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def position(self, leaderboard: LeaderboardId, player: PlayerId) -> Position | None:
        keys = self._keys_of(leaderboard.board)
        where = _where(leaderboard)
        async with mapped_errors(), self._store.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(_s.c.score, _s.c.subscore, _s.c.achieved_at, _s.c.player_id).where(
                        where, _s.c.player_id == player
                    )
                )
            ).first()
            if row is None:
                return None
            key = self._key(leaderboard, row)
            before = before_bound(_s.c, keys, key)
            better = before_bound(_s.c, keys, key[: keys.prefix])
            counts = (
                await conn.execute(
                    select(
                        select(func.count()).where(where, before).scalar_subquery(),
                        select(func.count()).where(where).scalar_subquery(),
                        select(func.count()).where(where, better).scalar_subquery(),
                    )
                )
            ).one()
        return Position(int(counts[0]), key, int(counts[1]), int(counts[2]))

    async def positions(
        self, leaderboard: LeaderboardId, players: Sequence[PlayerId]
    ) -> list[tuple[int, SortKey]]:
        found = []
        for player in dict.fromkeys(players):
            position = await self.position(leaderboard, player)
            if position is not None:
                found.append((position.offset, position.key))
        found.sort()
        return found

    async def page(
        self, leaderboard: LeaderboardId, start: int, stop: int
    ) -> tuple[int, list[SortKey]]:
        where = _where(leaderboard)
        async with mapped_errors(), self._store.engine.connect() as conn:
            total = int((await conn.execute(select(func.count()).where(where))).scalar_one())
            if stop <= start:
                return total, []
            rows = await conn.execute(
                select(_s.c.score, _s.c.subscore, _s.c.achieved_at, _s.c.player_id)
                .where(where)
                .order_by(*self._sorted(leaderboard))
                .offset(start)
                .limit(stop - start)
            )
            return total, [self._key(leaderboard, r) for r in rows]

    async def total(self, leaderboard: LeaderboardId) -> int:
        return await self._scalar(select(func.count()).where(_where(leaderboard)))

    async def counts_before(
        self, leaderboard: LeaderboardId, bounds: Sequence[bytes]
    ) -> tuple[int, list[int]]:
        keys = self._keys_of(leaderboard.board)
        where = _where(leaderboard)
        counts = [
            select(func.count()).where(where, before_bound(_s.c, keys, bound)).scalar_subquery()
            for bound in bounds
        ]
        async with mapped_errors(), self._store.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(select(func.count()).where(where).scalar_subquery(), *counts)
                )
            ).one()
        return int(row[0]), [int(x) for x in row[1:]]

    async def leaderboards(self, board: BoardId) -> list[LeaderboardId]:
        async with mapped_errors(), self._store.engine.connect() as conn:
            rows = await conn.execute(
                select(_s.c.window, _s.c.period, _s.c.scope)
                .where(_s.c.board_id == board, unbanned(_s.c.player_id))
                .distinct()
            )
            return [LeaderboardId(board, w, p, s) for w, p, s in rows]
