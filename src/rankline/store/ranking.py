"""Ranks counted by the database over the current standings: what the degraded read path
(``rankline.index.sql``) asks the store.

Every rank is a count over the standings' rank index (board, window, period, scope, score,
achieved_at, player_id), so answers are exact and slower than the index's: O(rank) instead
of O(log N). Banned players are left out, as the index leaves them out. Keys come back
encoded by the board's ``Keys``, as every index returns them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, and_, func, or_, select

from rankline.ordering import Keys
from rankline.store import schema as t
from rankline.store.errors import mapped_errors
from rankline.store.sql import SqlStore, unbanned
from rankline.types import BoardId, LeaderboardId, Order, PlayerId, Position, Score, SortKey

_s = t.standings


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


def encoded(keys: Keys, row: Any) -> SortKey:
    """The key of a row with score, subscore, achieved_at and player_id."""
    return keys.encode(row.score, row.subscore, row.achieved_at, row.player_id)


async def distinct_before(
    store: SqlStore,
    columns: Any,
    where: ColumnElement[bool],
    keys: Keys,
    prefixes: Sequence[bytes],
) -> list[int]:
    """For each value prefix, how many distinct values the rows ``where`` selects have
    before it. Counted by the database (COUNT(DISTINCT score) of the better rows; on a board
    with a subscore, the count of the DISTINCT (score, subscore) pairs, as a count over a
    subquery, which SQLite, PostgreSQL and MariaDB all take)."""
    if not prefixes:
        return []
    counts = [
        _distinct_count(columns, keys, where, before_bound(columns, keys, prefix[: keys.prefix]))
        for prefix in prefixes
    ]
    async with mapped_errors(), store.engine.connect() as conn:
        row = (await conn.execute(select(*counts))).one()
    return [int(x) for x in row]


def _where(leaderboard: LeaderboardId) -> ColumnElement[bool]:
    return and_(
        _s.c.board_id == leaderboard.board,
        _s.c.window == leaderboard.window,
        _s.c.period == leaderboard.period,
        _s.c.scope == leaderboard.scope,
        unbanned(_s.c.player_id),
    )


def _sorted(keys: Keys) -> list[Any]:
    score = _s.c.score.desc() if keys.order == "desc" else _s.c.score
    if keys.sub_order is None:
        return [score, _s.c.achieved_at, _s.c.player_id]
    subscore = _s.c.subscore.desc() if keys.sub_order == "desc" else _s.c.subscore
    return [score, subscore, _s.c.achieved_at, _s.c.player_id]


class StandingRanks:
    """Ranks of the current standings, counted by the database."""

    def __init__(self, store: SqlStore) -> None:
        self._store = store

    async def position(
        self, keys: Keys, leaderboard: LeaderboardId, player: PlayerId
    ) -> Position | None:
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
            key = encoded(keys, row)
            before = before_bound(_s.c, keys, key)
            better = before_bound(_s.c, keys, key[: keys.prefix])
            offset, total, above = (
                await conn.execute(
                    select(
                        select(func.count()).where(where, before).scalar_subquery(),
                        select(func.count()).where(where).scalar_subquery(),
                        select(func.count()).where(where, better).scalar_subquery(),
                    )
                )
            ).one()
        return Position(int(offset), key, int(total), int(above))

    async def page(
        self, keys: Keys, leaderboard: LeaderboardId, start: int, stop: int
    ) -> tuple[int, list[SortKey]]:
        where = _where(leaderboard)
        async with mapped_errors(), self._store.engine.connect() as conn:
            total = int((await conn.execute(select(func.count()).where(where))).scalar_one())
            if stop <= start:
                return total, []
            rows = await conn.execute(
                select(_s.c.score, _s.c.subscore, _s.c.achieved_at, _s.c.player_id)
                .where(where)
                .order_by(*_sorted(keys))
                .offset(start)
                .limit(stop - start)
            )
            return total, [encoded(keys, r) for r in rows]

    async def total(self, leaderboard: LeaderboardId) -> int:
        async with mapped_errors(), self._store.engine.connect() as conn:
            query = select(func.count()).where(_where(leaderboard))
            return int((await conn.execute(query)).scalar_one())

    async def counts_before(
        self, keys: Keys, leaderboard: LeaderboardId, bounds: Sequence[bytes]
    ) -> tuple[int, list[int]]:
        where = _where(leaderboard)
        counts = [
            select(func.count()).where(where, before_bound(_s.c, keys, bound)).scalar_subquery()
            for bound in bounds
        ]
        async with mapped_errors(), self._store.engine.connect() as conn:
            total, *before = (
                await conn.execute(
                    select(select(func.count()).where(where).scalar_subquery(), *counts)
                )
            ).one()
        return int(total), [int(x) for x in before]

    async def distinct_before(
        self, keys: Keys, leaderboard: LeaderboardId, prefixes: Sequence[bytes]
    ) -> list[int]:
        return await distinct_before(self._store, _s.c, _where(leaderboard), keys, prefixes)

    async def leaderboards(self, board: BoardId) -> list[LeaderboardId]:
        async with mapped_errors(), self._store.engine.connect() as conn:
            rows = await conn.execute(
                select(_s.c.window, _s.c.period, _s.c.scope)
                .where(_s.c.board_id == board, unbanned(_s.c.player_id))
                .distinct()
            )
            return [LeaderboardId(board, w, p, s) for w, p, s in rows]
