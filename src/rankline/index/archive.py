"""Ranking answered from the archive: reads of a period whose live leaderboard has expired.

``ArchiveIndex`` is an ``IndexReader`` over ``rl_archive``, where every entry of an archived
period is stored with its final rank, so every read is an index lookup
(``rankline.store.archive_ranking``).

``ArchiveRouter`` is what a read uses: it sends each leaderboard to the live index, unless that
period's retention has ended; then to the archive once the period is archived, or to the SQL
standings until it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rankline.index.base import IndexReader
from rankline.index.sql import ReadOnlySql
from rankline.ordering import Keys
from rankline.store import archive as store_archive
from rankline.store.archive_ranking import ArchiveRanks
from rankline.store.sql import SqlStore
from rankline.types import (
    BoardId,
    LeaderboardId,
    Movement,
    PlayerId,
    Position,
    SortKey,
)


class ArchiveIndex(ReadOnlySql):
    """An ``IndexReader`` over ``rl_archive`` (final standings)."""

    def __init__(self, store: SqlStore, keys_of: Callable[[BoardId], Keys]) -> None:
        super().__init__(store, keys_of)
        self._ranks = ArchiveRanks(store)

    async def holds(self, leaderboard: LeaderboardId) -> bool:
        """Whether the leaderboard's period is archived (its final standings are here)."""
        key = store_archive.PeriodKey(leaderboard.board, leaderboard.window, leaderboard.period)
        return await store_archive.is_archived(self._store, key)

    async def position(self, leaderboard: LeaderboardId, player: PlayerId) -> Position | None:
        return await self._ranks.position(self._keys_of(leaderboard.board), leaderboard, player)

    async def positions(
        self, leaderboard: LeaderboardId, players: Sequence[PlayerId]
    ) -> list[tuple[int, SortKey]]:
        keys = self._keys_of(leaderboard.board)
        return await self._ranks.positions(keys, leaderboard, players)

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
        keys = self._keys_of(leaderboard.board)
        return await self._ranks.distinct_before(keys, leaderboard, prefixes)

    async def leaderboards(self, board: BoardId) -> list[LeaderboardId]:
        return await self._ranks.leaderboards(board)


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
