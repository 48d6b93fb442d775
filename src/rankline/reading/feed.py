"""The change feed: which leaderboards a committed write batch changed, for live streams.

After the writer applies a batch to the ranking index it publishes the set of changed
leaderboards. ``LocalFeed`` wakes this process's subscribers (the in-process index serves
one process only). ``redis_feed.RedisFeed`` also publishes the set on a Redis pub/sub channel and
listens on it, so the streams of every worker sharing the Redis index wake up.

A notification only says "look again": a stream re-reads through ``Rankline.read`` and
diffs, so a lost or duplicated notification costs at most a late or a wasted read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from rankline.types import LeaderboardId


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
            async with asyncio.timeout(seconds):
                await self._event.wait()
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


__all__ = ["LocalFeed", "Subscription"]
