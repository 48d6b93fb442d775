"""One Redis that holds a shared index, as the index's parts use it: the redis-py client, the
grouped reads (``pipelining``) and the bucket layouts the reads last saw. The index
(``index.RedisIndex``), its lifecycle (``lifecycle.RedisLifecycle``) and the board versions
(``board_versions``) are each handed the link, so their reads share its round trips."""

from __future__ import annotations

from redis import asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError as RedisConnectionError

from rankline.index.base import BoardShapes
from rankline.index.redis import lua
from rankline.index.redis.board_versions import RedisBoardVersions
from rankline.index.redis.common import mapped
from rankline.index.redis.lifecycle import RedisLifecycle
from rankline.index.redis.pipelining import GroupedReads
from rankline.index.redis.seam import Channel
from rankline.runtime.lru import LRUCache

_LAYOUTS_HELD = 16_384
"""Leaderboards whose bucket layout the reads remember (the least recently read goes to
make room)."""


def _client(url: str) -> aioredis.Redis:
    return aioredis.Redis.from_url(
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


class RedisLink:
    """A single Redis at ``url`` (``cluster.ClusterLink``: a Redis Cluster)."""

    name = "redis"
    """The index as ``/readyz`` names it."""

    def __init__(
        self, url: str, *, client: aioredis.Redis | None = None, channel: Channel | None = None
    ) -> None:
        self.url = url
        self.client: aioredis.Redis = client or _client(url)
        self.grouped = GroupedReads(
            self.client, Channel.for_client(self.client) if client is None else channel
        )
        self.layouts: LRUCache[str, tuple[int, int]] = LRUCache(_LAYOUTS_HELD)
        """The bucket layout last seen per leaderboard (by meta key), for the reads' guesses."""

    async def start(self) -> None:
        async with mapped():
            await self.client.ping()

    async def ping(self) -> None:
        """Raise ``IndexUnavailable`` when Redis cannot be reached."""
        async with mapped():
            await self.client.ping()

    async def close(self) -> None:
        self.grouped.close()
        await self.client.aclose()

    def board_versions(self) -> RedisBoardVersions:
        """The board definitions' version, read in the same groups as the index's reads."""
        return RedisBoardVersions(self.script, self.grouped)

    def script(self, name: str) -> AsyncScript:
        """The index's script ``name`` (``lua/<name>.lua``), registered on the client."""
        return self.client.register_script(lua.load(name).text)

    def shared_index(self, shapes: BoardShapes) -> RedisLifecycle:
        """The lifecycle of the index this Redis holds (``lifecycle``)."""
        return RedisLifecycle(self, shapes)


__all__ = ["RedisLink"]
