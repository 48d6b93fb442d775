"""The change feed over Redis pub/sub (channel ``keys.FEED_CHANNEL``): every worker sharing
the Redis index hears which leaderboards a write batch changed (``feed`` explains the feed)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid

import msgspec
from redis import asyncio as aioredis

from rankline.index.redis import keys as k
from rankline.index.redis.cluster import cluster_seeds
from rankline.reading.feed import LocalFeed
from rankline.runtime import tasks
from rankline.types import LeaderboardId

log = logging.getLogger("rankline.reading.feed")
_RETRY_SECONDS = 0.5


class _Message(msgspec.Struct):
    origin: str
    tags: list[str]


class RedisFeed(LocalFeed):
    """Feed over Redis pub/sub (channel ``keys.FEED_CHANNEL``): wakes every worker."""

    def __init__(self, url: str) -> None:
        super().__init__()
        seeds = cluster_seeds(url)
        if seeds is None:
            self._urls = [url]
        else:
            # Pub/sub on a cluster reaches every node's subscribers: any one node will do,
            # and another one when it fails.
            auth = url.split("://", 1)[1].split(",", 1)[0].rpartition("@")
            prefix = f"{auth[0]}@" if auth[1] else ""
            self._urls = [f"redis://{prefix}{host}:{port}" for host, port in seeds]
        self._client = aioredis.Redis.from_url(self._urls[0], decode_responses=False)
        self._origin = uuid.uuid4().hex
        self._listener: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._sending: set[asyncio.Task[None]] = set()

    def publish(self, changed: set[LeaderboardId]) -> None:
        if not changed:
            return
        super().publish(changed)
        message = _Message(self._origin, sorted(k.tag(lb) for lb in changed))
        task = asyncio.create_task(self._send(msgspec.json.encode(message)))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _send(self, payload: bytes) -> None:
        try:
            await self._client.publish(k.FEED_CHANNEL, payload)
        except Exception as exc:  # streams still re-read on their heartbeat
            log.warning("could not publish a change notification (%s)", type(exc).__name__)

    async def start(self) -> None:
        if self._listener is None:
            self._listener = asyncio.create_task(self._listen(), name="rankline-feed")

    async def wait_ready(self) -> None:
        """Wait until the channel is subscribed (tests use it to avoid a race)."""
        await self._ready.wait()

    async def _listen(self) -> None:
        lost = False
        while True:
            pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(k.FEED_CHANNEL)
                self._ready.set()
                if lost:
                    log.info("change feed subscribed to Redis again")
                    lost = False
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is not None and message.get("type") == "message":
                        self._received(message["data"])
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not lost:  # once per outage, not once per retry
                    log.warning("change feed lost its Redis subscription (%s)", type(exc).__name__)
                    lost = True
                if len(self._urls) > 1:  # a cluster: try the next node
                    self._urls.append(self._urls.pop(0))
                    old, self._client = (
                        self._client,
                        aioredis.Redis.from_url(self._urls[0], decode_responses=False),
                    )
                    with contextlib.suppress(Exception):
                        await old.aclose()
                await asyncio.sleep(_RETRY_SECONDS)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    def _received(self, data: bytes) -> None:
        try:
            message = msgspec.json.decode(data, type=_Message)
            if message.origin == self._origin:
                return  # woken already, in publish
            self.wake(k.from_tag(tag) for tag in message.tags)
        except (msgspec.ValidationError, msgspec.DecodeError, ValueError):
            log.warning("ignored a malformed change notification")

    async def close(self) -> None:
        if self._listener is not None:
            await tasks.stop(self._listener)
            self._listener = None
        if self._sending:
            await asyncio.gather(*self._sending, return_exceptions=True)
        with contextlib.suppress(Exception):
            await self._client.aclose()


__all__ = ["RedisFeed"]
