"""Ranking answered by the durable store itself: the degraded read path.

Used while the ranking index cannot answer (Redis unreachable, or rebuilding). The store
counts every rank (``rankline.store.ranking``), so answers are exact and slower: O(rank)
instead of O(log N). Banned players are left out, as the index leaves them out. It writes
nothing; the group-commit writer has already put every standing in SQL.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from rankline.ordering import Keys
from rankline.store.ranking import StandingRanks
from rankline.store.sql import SqlStore
from rankline.types import (
    BoardId,
    LeaderboardId,
    Movement,
    PlayerId,
    Position,
    SortKey,
)

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

    async def top_stamp(self, leaderboard: LeaderboardId) -> tuple[int, int]:
        # Nothing tells SQL reads that the top changed: every answer is fresh.
        return uncached_stamp(), await self.total(leaderboard)

    async def change_stamp(self, leaderboard: LeaderboardId) -> int:
        return uncached_stamp()


class SqlIndex(ReadOnlySql):
    """An ``IndexReader`` over the current standings (the degraded read path)."""

    def __init__(self, store: SqlStore, keys_of: Callable[[BoardId], Keys]) -> None:
        super().__init__(store, keys_of)
        self._ranks = StandingRanks(store)

    async def position(self, leaderboard: LeaderboardId, player: PlayerId) -> Position | None:
        return await self._ranks.position(self._keys_of(leaderboard.board), leaderboard, player)

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
        return await self._ranks.page(self._keys_of(leaderboard.board), leaderboard, start, stop)

    async def total(self, leaderboard: LeaderboardId) -> int:
        return await self._ranks.total(leaderboard)

    async def counts_before(
        self, leaderboard: LeaderboardId, bounds: Sequence[bytes]
    ) -> tuple[int, list[int]]:
        keys = self._keys_of(leaderboard.board)
        return await self._ranks.counts_before(keys, leaderboard, bounds)

    async def distinct_before(
        self, leaderboard: LeaderboardId, prefixes: Sequence[bytes]
    ) -> list[int]:
        """Counted by the database: slower than the index's, exact, and without anything
        kept beside the rows."""
        keys = self._keys_of(leaderboard.board)
        return await self._ranks.distinct_before(keys, leaderboard, prefixes)

    async def leaderboards(self, board: BoardId) -> list[LeaderboardId]:
        return await self._ranks.leaderboards(board)
