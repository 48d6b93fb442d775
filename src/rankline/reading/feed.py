"""The change feed: which leaderboards a committed write batch changed, for live streams.

After the writer applies a batch to the ranking index it publishes the set of changed
leaderboards. ``LocalFeed`` wakes this process's subscribers (the in-process index serves
one process only). ``RedisFeed`` also publishes the set on a Redis pub/sub channel and
listens on it, so the streams of every worker sharing the Redis index wake up.

A notification only says "look again": a stream re-reads through ``Rankline.read`` and
diffs, so a lost or duplicated notification costs at most a late or a wasted read.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Iterable

import msgspec

from rankline.index.redis import keys as k
from rankline.types import LeaderboardId

log = logging.getLogger("rankline.reading.feed")
_RETRY_SECONDS = 0.5


class Subscription:
    """One listener (a stream) on one leaderboard; ``wait`` returns when it changed."""

    def __init__(self, feed: LocalFeed) -> None:
        self._feed = feed
        self._event = asyncio.Event()
        self.leaderboard: LeaderboardId | None = None

    def watch(self, leaderboard: LeaderboardId) -> None:
        """Listen to ``leaderboard`` (a stream's current period may roll over)."""
        if leaderboard != self.leaderboard:
            self._feed._move(self, self.leaderboard, leaderboard)
            self.leaderboard = leaderboard

    def notify(self) -> None:
        self._event.set()

    def clear(self) -> None:
        self._event.clear()

    async def wait(self, seconds: float) -> bool:
        """True when a change arrived, False after ``seconds`` without one."""
        try:
            await asyncio.wait_for(self._event.wait(), seconds)
        except TimeoutError:
            return False
        return True

    def close(self) -> None:
        self._feed._move(self, self.leaderboard, None)
        self.leaderboard = None


class LocalFeed:
    """In-process feed: publishing wakes the subscribers of the changed leaderboards."""

    def __init__(self) -> None:
        self._subs: dict[LeaderboardId, set[Subscription]] = {}
        self.published = 0

    @property
    def subscribers(self) -> int:
        return sum(len(subs) for subs in self._subs.values())

    def subscribe(self) -> Subscription:
        return Subscription(self)

    def _move(
        self, sub: Subscription, old: LeaderboardId | None, new: LeaderboardId | None
    ) -> None:
        if old is not None:
            subs = self._subs.get(old)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._subs[old]
        if new is not None:
            self._subs.setdefault(new, set()).add(sub)

    def wake(self, changed: Iterable[LeaderboardId]) -> None:
        """Wake this process's subscribers of ``changed``."""
        for leaderboard in changed:
            for sub in self._subs.get(leaderboard, ()):
                sub.notify()

    def publish(self, changed: set[LeaderboardId]) -> None:
        """A batch changed these leaderboards (called by the writer; never blocks)."""
        if changed:
            self.published += 1
            self.wake(changed)

    async def start(self) -> None:
        return None

    async def wait_ready(self) -> None:
        return None

    async def close(self) -> None:
        return None


class _Message(msgspec.Struct):
    origin: str
    tags: list[str]


class RedisFeed(LocalFeed):
    """Feed over Redis pub/sub (channel ``keys.FEED_CHANNEL``): wakes every worker."""

    def __init__(self, url: str) -> None:
        super().__init__()
        from redis import asyncio as aioredis

        from rankline.index.redis.cluster import cluster_seeds

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
                    from redis import asyncio as aioredis

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
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
            self._listener = None
        if self._sending:
            await asyncio.gather(*self._sending, return_exceptions=True)
        with contextlib.suppress(Exception):
            await self._client.aclose()


def make_feed(redis_url: str | None) -> LocalFeed:
    """Redis pub/sub when the index is shared in Redis, else in-process."""
    return RedisFeed(redis_url) if redis_url else LocalFeed()


__all__ = ["LocalFeed", "RedisFeed", "Subscription", "make_feed"]
