"""What the Redis index (``rankline.index.redis``) and its fast fill
(``rankline.index.redis_fill``) share: one leaderboard's key names, the entry type, the
script argument chunk, and the mapping of redis-py errors to ``IndexUnavailable``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import NamedTuple

from redis.exceptions import RedisError

from rankline.errors import IndexUnavailable
from rankline.index import keys as k
from rankline.metrics import BACKEND_ERRORS
from rankline.types import LeaderboardId, PlayerId, SortKey

ARG_CHUNK = 1000
"""Changes, players or keys per script call on the write and read paths."""

Entry = tuple[PlayerId, SortKey, int]


class Names(NamedTuple):
    entries: str
    meta: str
    stamp: str
    buckets: str

    @classmethod
    def of(cls, leaderboard: LeaderboardId) -> Names:
        return cls(
            k.entries(leaderboard),
            k.meta(leaderboard),
            k.stamp(leaderboard),
            k.bucket_prefix(leaderboard),
        )

    @property
    def writes(self) -> list[str]:
        return [self.entries, self.meta, self.stamp]

    @property
    def reads(self) -> list[str]:
        return [self.entries, self.meta]


@asynccontextmanager
async def mapped() -> AsyncIterator[None]:
    """Turn a redis-py (or socket) error into ``IndexUnavailable``."""
    try:
        yield
    except (RedisError, OSError) as exc:
        BACKEND_ERRORS.labels("redis").inc()
        raise IndexUnavailable(f"the Redis index is unavailable ({type(exc).__name__})") from exc
