"""What the Redis index (``rankline.index.redis.index``) and its fast fill
(``rankline.index.redis.fill``) share: one leaderboard's key names, the
script argument chunk, and the mapping of redis-py errors to ``IndexUnavailable``.
"""

from __future__ import annotations

import functools
from types import TracebackType
from typing import NamedTuple

from redis.exceptions import RedisError

from rankline.errors import IndexUnavailable
from rankline.index.redis import keys as k
from rankline.index.sharding import is_shard
from rankline.metrics import BACKEND_ERRORS
from rankline.types import LeaderboardId

ARG_CHUNK = 1000
"""Changes, players or keys per script call on the write and read paths."""


class Names(NamedTuple):
    entries: str
    meta: str
    stamp: str
    buckets: str
    distinct: str
    moves: str
    shard: bool

    @staticmethod
    def of(leaderboard: LeaderboardId) -> Names:
        """The leaderboard's key names (made once and cached: every read needs them)."""
        return _names(leaderboard)

    @property
    def writes(self) -> list[str]:
        return [self.entries, self.meta, self.stamp]

    def changes(self, dense: bool) -> list[str]:
        """The keys of a script that changes entries: with the movement unless the
        leaderboard is a shard, and the distinct scores on a board with dense ranks (never
        sharded)."""
        if self.shard:
            return self.writes
        if dense:
            return [self.entries, self.meta, self.stamp, self.moves, self.distinct]
        return [self.entries, self.meta, self.stamp, self.moves]

    @property
    def every(self) -> list[str]:
        """The keys a drop, an expiry or a repair treats alike."""
        return [self.entries, self.meta, self.stamp, self.moves, self.distinct]

    @property
    def reads(self) -> list[str]:
        return [self.entries, self.meta]

    @property
    def checked(self) -> list[str]:
        """The keys of a read that checks the leaderboard's state (``lua/checked.lua``)."""
        return [self.entries, self.meta, self.stamp, k.META_BUILT]


@functools.lru_cache(maxsize=16_384)
def _names(leaderboard: LeaderboardId) -> Names:
    return Names(
        k.entries(leaderboard),
        k.meta(leaderboard),
        k.stamp(leaderboard),
        k.bucket_prefix(leaderboard),
        k.distinct(leaderboard),
        k.moves(leaderboard),
        is_shard(leaderboard),
    )


class _Mapped:
    """Turns a redis-py (or socket) error into ``IndexUnavailable``. A class, not a
    generator-based context manager: every Redis read passes through it, and a class costs
    a small fraction of what ``@asynccontextmanager`` does."""

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if isinstance(exc, RedisError | OSError):
            BACKEND_ERRORS.labels("redis").inc()
            detail = f"the Redis index is unavailable ({type(exc).__name__})"
            raise IndexUnavailable(detail) from exc


_MAPPED = _Mapped()


def mapped() -> _Mapped:
    """``async with mapped():`` turns a redis-py (or socket) error into ``IndexUnavailable``."""
    return _MAPPED
