"""The lifecycle of a shared index whose leaderboards are split into shards
(``index.sharded``): each call on a sharded leaderboard goes to every shard of it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager

from rankline.index.base import LeaderboardState, RankingIndex, SharedIndex
from rankline.index.sharding import shards_of, split_keys
from rankline.types import BoardId, LeaderboardId, SortKey


class ShardedShared(SharedIndex):
    """``SharedIndex`` of ``inner``'s, for the leaderboards a ``ShardedIndex`` over
    ``index`` splits into ``shards_of(board)`` shards."""

    def __init__(
        self, inner: SharedIndex, index: RankingIndex, shards_of: Callable[[BoardId], int]
    ) -> None:
        self.inner = inner
        self.url = inner.url
        self._index = index
        self._shards_of = shards_of

    def shards(self, leaderboard: LeaderboardId) -> list[LeaderboardId]:
        return shards_of(leaderboard, self._shards_of(leaderboard.board))

    async def ping(self) -> None:
        await self.inner.ping()

    async def is_built(self) -> bool:
        return await self.inner.is_built()

    async def mark_built(self) -> None:
        await self.inner.mark_built()

    def rebuild_lock(self) -> AbstractAsyncContextManager[bool]:
        return self.inner.rebuild_lock()

    async def extend_rebuild_lock(self) -> None:
        await self.inner.extend_rebuild_lock()

    async def register(self, leaderboards: Sequence[LeaderboardId]) -> None:
        await self.inner.register([name for lb in leaderboards for name in self.shards(lb)])

    async def registered(self, leaderboard: LeaderboardId) -> bool:
        """Every shard that holds entries is listed."""
        for name in self.shards(leaderboard):
            if not await self.inner.registered(name) and await self._index.slice(name, 0, 1):
                return False
        return True

    async def repair_begin(self, leaderboard: LeaderboardId, token: str, lease_ms: int) -> bool:
        """Claim every shard, in shard order (a worker that finds one claimed stops there,
        so no two hold parts of one repair), and empty each."""
        for name in self.shards(leaderboard):
            if not await self.inner.repair_begin(name, token, lease_ms):
                return False
        return True

    async def repair_extend(self, leaderboard: LeaderboardId, token: str, lease_ms: int) -> bool:
        names = self.shards(leaderboard)
        held = await asyncio.gather(*(self.inner.repair_extend(n, token, lease_ms) for n in names))
        return all(held)

    async def repair_end(self, leaderboard: LeaderboardId, token: str) -> bool:
        names = self.shards(leaderboard)
        ended = await asyncio.gather(*(self.inner.repair_end(n, token) for n in names))
        return all(ended)

    async def state(self, leaderboard: LeaderboardId) -> LeaderboardState | None:
        names = self.shards(leaderboard)
        if len(names) == 1:
            return await self.inner.state(leaderboard)
        states = await asyncio.gather(*(self.inner.state(n) for n in names))
        if any(s is None for s in states):
            return None
        held = [s for s in states if s is not None]
        built = all(s.built for s in held)
        broken = next((s for s in held if not s.intact), None)
        if broken is not None:  # that shard's counts and mark show what is wrong
            return broken._replace(built=built)
        entries = sum(s.entries for s in held)
        return LeaderboardState(built, entries, entries, entries, None)

    async def unmapped(self, leaderboard: LeaderboardId, keys: Sequence[SortKey]) -> list[SortKey]:
        names = self.shards(leaderboard)
        if len(names) == 1:
            return await self.inner.unmapped(leaderboard, keys)
        head = self._index.shapes.head_of(leaderboard.board)
        parts = split_keys(keys, len(names), head)
        found = await asyncio.gather(
            *(self.inner.unmapped(n, p) for n, p in zip(names, parts, strict=True) if p)
        )
        return sorted(key for part in found for key in part)


__all__ = ["ShardedShared"]
