"""The lifecycle of the Redis index (``SharedIndex``): the built marker and key layout, the
rebuild lock, the boards' registries of leaderboards, and the repair of a damaged
leaderboard (``scripts`` explains the counts and the damage mark they rely on).

Layout versions: ``keys.LAYOUT`` is stored beside the built marker. An index built with
another layout (layout 1: one sorted set ``:z`` and one big hash ``:h`` per leaderboard)
counts as not built, so the service rebuilds it as after a flush; the process that takes
the rebuild lock first deletes the old layout's keys. Workers of two layouts must not share
one Redis (stop the old ones first).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, MutableMapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, Protocol

from redis import asyncio as aioredis
from redis.asyncio.lock import Lock
from redis.commands.core import AsyncScript
from redis.exceptions import LockError, RedisError

from rankline.index.base import BoardShapes, LeaderboardState, SharedIndex
from rankline.index.redis import keys as k
from rankline.index.redis.common import ARG_CHUNK, Names, mapped
from rankline.types import LeaderboardId, SortKey


class Link(Protocol):
    """What the lifecycle uses of its ``RedisLink`` (named here: the link builds the
    lifecycle, so it cannot be imported back)."""

    @property
    def url(self) -> str: ...

    @property
    def client(self) -> aioredis.Redis: ...

    @property
    def layouts(self) -> MutableMapping[str, tuple[int, int]]: ...

    def script(self, name: str) -> AsyncScript: ...

    async def ping(self) -> None: ...


_LOCK_SECONDS = 30


class RedisLifecycle(SharedIndex):
    """``SharedIndex`` of the Redis index on ``link``."""

    def __init__(self, link: Link, shapes: BoardShapes) -> None:
        self.link = link
        self.url = link.url
        self.client = link.client
        self._shapes = shapes
        script = link.script
        self._state = script("state")
        self._unmapped = script("unmapped")
        self._repair_begin = script("repair_begin")
        self._repair_extend = script("repair_extend")
        self._repair_end = script("repair_end")
        self._lock: Lock | None = None

    async def ping(self) -> None:
        await self.link.ping()

    # --- built marker, layout and the rebuild lock ------------------------------------------

    async def is_built(self) -> bool:
        """Built, and with this code's key layout."""
        async with mapped():
            built, layout = await self.client.mget(k.META_BUILT, k.META_LAYOUT)
        return built is not None and layout == k.LAYOUT.encode()

    async def mark_built(self) -> None:
        async with mapped():
            await self._retire_old_layout()
            await self.client.set(k.META_BUILT, str(time.time()))

    async def _retire_old_layout(self) -> None:
        """Delete the keys of an older layout (their names differ from this one's, so this
        is safe at any time) and record the current layout."""
        if await self.client.get(k.META_LAYOUT) == k.LAYOUT.encode():
            return
        for pattern in k.LAYOUT_1_PATTERNS:
            batch: list[bytes] = []
            async for name in self.client.scan_iter(match=pattern, count=1000):
                batch.append(name)
                if len(batch) >= 1000:
                    await self.client.unlink(*batch)
                    batch = []
            if batch:
                await self.client.unlink(*batch)
        await self.client.set(k.META_LAYOUT, k.LAYOUT)

    @asynccontextmanager
    async def rebuild_lock(self) -> AsyncIterator[bool]:
        """Try to become the one process rebuilding; yields whether this one is."""
        lock = self.client.lock(k.META_REBUILD_LOCK, timeout=_LOCK_SECONDS)
        async with mapped():
            mine = bool(await lock.acquire(blocking=False))
            if mine:
                await self._retire_old_layout()
        self._lock = lock if mine else None
        try:
            yield mine
        finally:
            self._lock = None
            if mine:
                with contextlib.suppress(LockError, RedisError, OSError):
                    await lock.release()

    async def extend_rebuild_lock(self) -> None:
        if self._lock is not None:
            async with mapped():
                await self._lock.extend(_LOCK_SECONDS, replace_ttl=True)

    # --- registries ---------------------------------------------------------------------------

    async def register(self, leaderboards: Sequence[LeaderboardId]) -> None:
        """Add the leaderboards to their boards' registries (a no-op for those there)."""
        if not leaderboards:
            return
        async with mapped(), self.client.pipeline(transaction=False) as pipe:
            for leaderboard in leaderboards:
                pipe.sadd(k.registry(leaderboard.board), k.tag(leaderboard))
            await pipe.execute()

    async def registered(self, leaderboard: LeaderboardId) -> bool:
        async with mapped():
            return bool(
                await self.client.sismember(k.registry(leaderboard.board), k.tag(leaderboard))
            )

    # --- integrity and repair -----------------------------------------------------------------

    async def state(self, leaderboard: LeaderboardId) -> LeaderboardState | None:
        async with mapped():
            built, entries, meta, stamp, mark = await self._state(
                keys=Names.of(leaderboard).checked, args=[]
            )
        return LeaderboardState(bool(built), int(entries), int(meta), int(stamp), mark or None)

    async def unmapped(self, leaderboard: LeaderboardId, keys_: Sequence[SortKey]) -> list[SortKey]:
        """Those of ``keys_`` (keys of the sorted set) that the player map does not point at."""
        names, head = Names.of(leaderboard), self._shapes.head_of(leaderboard.board)
        found: list[SortKey] = []
        async with mapped():
            for start in range(0, len(keys_), ARG_CHUNK):
                args: list[Any] = [names.buckets, *keys_[start : start + ARG_CHUNK], head]
                found += [bytes(x) for x in await self._unmapped(keys=names.reads, args=args)]
        return found

    async def repair_begin(self, leaderboard: LeaderboardId, token: str, lease_ms: int) -> bool:
        """Empty the leaderboard to fill it afresh, marked damaged (so that reads go
        elsewhere) until ``repair_end``; False while another repair's lease runs."""
        names = Names.of(leaderboard)
        self.link.layouts.pop(names.meta, None)
        async with mapped():
            args: list[str | int] = [names.buckets, token, lease_ms]
            began = await self._repair_begin(keys=names.every, args=args)
            if began:
                await self.client.sadd(k.registry(leaderboard.board), k.tag(leaderboard))
        return bool(began)

    async def repair_extend(self, leaderboard: LeaderboardId, token: str, lease_ms: int) -> bool:
        async with mapped():
            args: list[str | int] = [token, lease_ms]
            return bool(await self._repair_extend(keys=Names.of(leaderboard).writes, args=args))

    async def repair_end(self, leaderboard: LeaderboardId, token: str) -> bool:
        """Seal a repaired leaderboard: reads use it again. False if the repair was taken
        over by another (whose own end will seal it)."""
        async with mapped():
            return bool(await self._repair_end(keys=Names.of(leaderboard).writes, args=[token]))


__all__ = ["RedisLifecycle"]
