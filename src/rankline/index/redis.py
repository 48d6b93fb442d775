"""The Redis ranking index: one byte-ordered sorted set and one head hash per leaderboard.

Every member sits at score 0, so Redis orders members by their bytes, which are the
ordering key (``rankline.ordering``): 64-bit scores stay exact, ties resolve by time then
player id. The hash maps a player to the 16-byte head of their key plus the standing's
revision, so an update finds the member to replace, and refuses an older revision, in the
same script. redis-py errors never leave this module: they become ``IndexUnavailable``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from itertools import islice
from typing import Any

from redis import asyncio as aioredis
from redis.asyncio.lock import Lock
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import LockError, RedisError

from rankline.errors import IndexUnavailable
from rankline.index import keys as k
from rankline.index import scripts
from rankline.metrics import BACKEND_ERRORS
from rankline.ordering import HEAD_BYTES
from rankline.types import BoardId, IndexChange, LeaderboardId, PlayerId, Position, SortKey

_LOAD_CHUNK = 1000
_LOCK_SECONDS = 30
_ARG_CHUNK = 1000


@asynccontextmanager
async def _mapped() -> AsyncIterator[None]:
    try:
        yield
    except (RedisError, OSError) as exc:
        BACKEND_ERRORS.labels("redis").inc()
        raise IndexUnavailable(f"the Redis index is unavailable ({type(exc).__name__})") from exc


def _triples(changes: Iterable[tuple[PlayerId, SortKey | None, int]]) -> list[bytes | int | str]:
    args: list[bytes | int | str] = []
    for player, key, revision in changes:
        args += [player, b"" if key is None else key[:HEAD_BYTES], revision]
    return args


class RedisIndex:
    """``RankingIndex`` in Redis; shared by every worker process."""

    shared = True

    def __init__(self, url: str, *, client: aioredis.Redis | None = None) -> None:
        self.url = url
        self.client: aioredis.Redis = client or aioredis.Redis.from_url(
            url,
            decode_responses=False,
            health_check_interval=10,
            socket_timeout=5,
            # After Redis restarts, every pooled connection fails its next command once
            # ("Connection closed by server"); reconnect and retry that once instead of
            # reporting the index unavailable (which made a recovered index flap back to
            # degraded). Every command here is idempotent (updates are revision-guarded).
            retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
        )
        self._apply = self.client.register_script(scripts.APPLY)
        self._around = self.client.register_script(scripts.AROUND)
        self._positions = self.client.register_script(scripts.POSITIONS)
        self._page = self.client.register_script(scripts.PAGE)
        self._discard = self.client.register_script(scripts.DISCARD)
        self._lock: Lock | None = None

    async def start(self) -> None:
        async with _mapped():
            await self.client.ping()

    async def close(self) -> None:
        await self.client.aclose()

    async def ping(self) -> None:
        async with _mapped():
            await self.client.ping()

    async def is_built(self) -> bool:
        async with _mapped():
            return bool(await self.client.exists(k.META_BUILT))

    async def mark_built(self) -> None:
        async with _mapped():
            await self.client.set(k.META_BUILT, str(time.time()))

    @asynccontextmanager
    async def rebuild_lock(self) -> AsyncIterator[bool]:
        """Try to become the one process rebuilding; yields whether this one is."""
        lock = self.client.lock(k.META_REBUILD_LOCK, timeout=_LOCK_SECONDS)
        async with _mapped():
            mine = bool(await lock.acquire(blocking=False))
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
            async with _mapped():
                await self._lock.extend(_LOCK_SECONDS, replace_ttl=True)

    async def apply(self, changes: Sequence[IndexChange]) -> None:
        grouped: dict[LeaderboardId, list[tuple[PlayerId, SortKey | None, int]]] = {}
        for leaderboard, player, key, revision in changes:
            grouped.setdefault(leaderboard, []).append((player, key, revision))
        async with _mapped():
            pipe = self.client.pipeline(transaction=False)
            for leaderboard, items in grouped.items():
                await self._queue_apply(pipe, leaderboard, items)
            await pipe.execute()

    async def _queue_apply(
        self,
        pipe: Any,
        leaderboard: LeaderboardId,
        items: Sequence[tuple[PlayerId, SortKey | None, int]],
    ) -> None:
        lb_keys = [k.entries(leaderboard), k.heads(leaderboard)]
        for start in range(0, len(items), _LOAD_CHUNK):
            chunk = items[start : start + _LOAD_CHUNK]
            await self._apply(keys=lb_keys, args=_triples(chunk), client=pipe)
        pipe.sadd(k.registry(leaderboard.board), k.tag(leaderboard))

    async def load(
        self, leaderboard: LeaderboardId, entries: Iterable[tuple[PlayerId, SortKey, int]]
    ) -> None:
        iterator = iter(entries)
        async with _mapped():
            while batch := list(islice(iterator, _LOAD_CHUNK * 10)):
                pipe = self.client.pipeline(transaction=False)
                await self._queue_apply(pipe, leaderboard, batch)
                await pipe.execute()

    async def position(self, leaderboard: LeaderboardId, player: PlayerId) -> Position | None:
        found = await self._around_call(leaderboard, player, -1)
        return None if found is None else found[0]

    async def _around_call(
        self, leaderboard: LeaderboardId, player: PlayerId, k_: int
    ) -> tuple[Position, int, list[SortKey]] | None:
        lb_keys = [k.entries(leaderboard), k.heads(leaderboard)]
        async with _mapped():
            reply = await self._around(keys=lb_keys, args=[player, k_])
        if not reply:
            return None
        position = Position(int(reply[0]), bytes(reply[1]), int(reply[2]), int(reply[3]))
        if k_ < 0:
            return position, position.offset, []
        return position, int(reply[4]), [bytes(x) for x in reply[5:]]

    async def positions(
        self, leaderboard: LeaderboardId, players: Sequence[PlayerId]
    ) -> list[tuple[int, SortKey]]:
        unique = list(dict.fromkeys(players))
        if not unique:
            return []
        lb_keys = [k.entries(leaderboard), k.heads(leaderboard)]
        found: list[tuple[int, SortKey]] = []
        async with _mapped():
            pipe = self.client.pipeline(transaction=False)
            for start in range(0, len(unique), _ARG_CHUNK):
                chunk = unique[start : start + _ARG_CHUNK]
                await self._positions(keys=lb_keys, args=chunk, client=pipe)
            for reply in await pipe.execute():
                found += [(int(reply[i]), bytes(reply[i + 1])) for i in range(0, len(reply), 2)]
        found.sort()
        return found

    async def page(
        self, leaderboard: LeaderboardId, start: int, stop: int
    ) -> tuple[int, list[SortKey]]:
        async with _mapped():
            reply = await self._page(keys=[k.entries(leaderboard)], args=[start, stop])
        return int(reply[0]), [bytes(x) for x in reply[1:]]

    async def slice(self, leaderboard: LeaderboardId, start: int, stop: int) -> list[SortKey]:
        return (await self.page(leaderboard, start, stop))[1]

    async def around(
        self, leaderboard: LeaderboardId, player: PlayerId, k: int
    ) -> tuple[Position, int, list[SortKey]] | None:
        return await self._around_call(leaderboard, player, k)

    async def total(self, leaderboard: LeaderboardId) -> int:
        async with _mapped():
            return int(await self.client.zcard(k.entries(leaderboard)))

    async def leaderboards(self, board: BoardId) -> list[LeaderboardId]:
        async with _mapped():
            tags = sorted(await self.client.smembers(k.registry(board)))
            found = [k.from_tag(t.decode() if isinstance(t, bytes) else t) for t in tags]
            pipe = self.client.pipeline(transaction=False)
            for leaderboard in found:
                pipe.exists(k.entries(leaderboard))
            alive = await pipe.execute()
        return [lb for lb, exists in zip(found, alive, strict=True) if exists]

    async def discard(self, leaderboard: LeaderboardId, keys_: Sequence[SortKey]) -> None:
        async with _mapped():
            lb_keys = [k.entries(leaderboard), k.heads(leaderboard)]
            for start in range(0, len(keys_), _ARG_CHUNK):
                await self._discard(keys=lb_keys, args=list(keys_[start : start + _ARG_CHUNK]))

    async def drop(self, leaderboards: Sequence[LeaderboardId]) -> None:
        if not leaderboards:
            return
        async with _mapped():
            pipe = self.client.pipeline(transaction=False)
            for leaderboard in leaderboards:
                pipe.delete(k.entries(leaderboard), k.heads(leaderboard))
                pipe.srem(k.registry(leaderboard.board), k.tag(leaderboard))
            await pipe.execute()

    async def expire_in(self, leaderboard: LeaderboardId, micros: int) -> None:
        """Let Redis drop a period's keys when its retention ends (relative, so that the
        service's clock, not Redis's, decides)."""
        async with _mapped():
            pipe = self.client.pipeline(transaction=False)
            for key in (k.entries(leaderboard), k.heads(leaderboard)):
                pipe.pexpire(key, max(1, micros // 1000))
            await pipe.execute()
