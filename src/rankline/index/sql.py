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

from rankline.ordering import PREFIX_BYTES, decode_bound, encode
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


def _better(order: Order, score: Score) -> ColumnElement[bool]:
    return _s.c.score > score if order == "desc" else _s.c.score < score


def _before(order: Order, score: Score, at: int, player: PlayerId) -> ColumnElement[bool]:
    """Rows ranked strictly before (score, at, player)."""
    return or_(
        _better(order, score),
        and_(
            _s.c.score == score,
            or_(_s.c.achieved_at < at, and_(_s.c.achieved_at == at, _s.c.player_id < player)),
        ),
    )


def before_bound(columns: Any, order: Order, bound: bytes) -> ColumnElement[bool]:
    """Rows of a table with ``score``, ``achieved_at`` and ``player_id`` columns whose key
    sorts strictly before ``bound``: a key, or its 8-byte score prefix, or its 16-byte head
    (``ordering.decode_bound``)."""
    score, at, player = decode_bound(bound, order)
    better: ColumnElement[bool] = (
        columns.score > score if order == "desc" else columns.score < score
    )
    if at is None:
        return better
    if player is None:
        return or_(better, and_(columns.score == score, columns.achieved_at < at))
    return or_(
        better,
        and_(
            columns.score == score,
            or_(
                columns.achieved_at < at,
                and_(columns.achieved_at == at, columns.player_id < player),
            ),
        ),
    )


_UNCACHED = itertools.count(1)


def uncached_stamp() -> int:
    """A top stamp no cache has seen: what indexes answer whose reads must not be cached."""
    return -next(_UNCACHED)


class ReadOnlySql:
    """What the SQL read paths share (each an ``IndexReader``): built on the store and a
    board-order lookup, as the keys they return encode the order as every index's do."""

    def __init__(self, store: SqlStore, order_of: Callable[[BoardId], Order]) -> None:
        self._store = store
        self._order_of = order_of

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
        """Counted by the database (COUNT(DISTINCT score) of the better rows): slower than
        the index's, exact, and without anything kept beside the rows."""
        if not prefixes:
            return []
        order = self._order_of(leaderboard.board)
        columns, where = self._rows(leaderboard)
        counts = [
            select(func.count(columns.score.distinct()))
            .where(where, before_bound(columns, order, prefix[:PREFIX_BYTES]))
            .scalar_subquery()
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
        score = _s.c.score.desc() if self._order_of(leaderboard.board) == "desc" else _s.c.score
        return [score, _s.c.achieved_at, _s.c.player_id]

    def _key(self, leaderboard: LeaderboardId, row: Any) -> SortKey:
        order = self._order_of(leaderboard.board)
        return encode(row.score, row.achieved_at, row.player_id, order)

    async def _scalar(self, query: Any) -> int:
        async with mapped_errors(), self._store.engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def position(self, leaderboard: LeaderboardId, player: PlayerId) -> Position | None:
        order = self._order_of(leaderboard.board)
        where = _where(leaderboard)
        async with mapped_errors(), self._store.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(_s.c.score, _s.c.achieved_at, _s.c.player_id).where(
                        where, _s.c.player_id == player
                    )
                )
            ).first()
            if row is None:
                return None
            before = _before(order, row.score, row.achieved_at, player)
            counts = (
                await conn.execute(
                    select(
                        select(func.count()).where(where, before).scalar_subquery(),
                        select(func.count()).where(where).scalar_subquery(),
                        select(func.count())
                        .where(where, _better(order, row.score))
                        .scalar_subquery(),
                    )
                )
            ).one()
        return Position(int(counts[0]), self._key(leaderboard, row), int(counts[1]), int(counts[2]))

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
                select(_s.c.score, _s.c.achieved_at, _s.c.player_id)
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
        order = self._order_of(leaderboard.board)
        where = _where(leaderboard)
        counts = [
            select(func.count()).where(where, before_bound(_s.c, order, bound)).scalar_subquery()
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
