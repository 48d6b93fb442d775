"""Display names for reads: a replica of every name in memory, or a short-lived cache.

Every read joins display names into its entries, so asking SQL per read would make the
durable store the bottleneck of the hottest path. While the store holds at most
``RANKLINE_NAMES_IN_MEMORY`` display names, ``NameDirectory`` keeps all of them in memory: it
loads them at start and then reads the profiles changed since its watermark every
``SYNC_SECONDS``, so a read never waits on SQL and a player without a name costs a dict miss.
A profile changed on another worker shows within ``NAME_TTL_SECONDS``; this worker's own
changes show at once. Beyond the limit it falls back to caching each lookup for
``NAME_TTL_SECONDS`` (one batched query per read for the names it lacks).

A profile deleted through another worker (erasure) leaves its name here until the next full
reload (every ``RELOAD_SECONDS``); an erased player has no entries left, so no read shows it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Iterable

from rankline.errors import Unavailable
from rankline.runtime.lru import LRUCache
from rankline.store.players import PlayerStore
from rankline.types import Micros, PlayerId

log = logging.getLogger("rankline.players.accounts")

NAME_TTL_SECONDS = 5.0
"""How long a display name (or its absence) may lag a change made on another worker."""
SYNC_SECONDS = 2.0
RELOAD_SECONDS = 300.0
_OVERLAP_MICROS = 30_000_000
"""Re-read profiles this much older than the watermark: transactions that committed late."""
_CACHE_MAX = 100_000
"""Names looked up per read that are kept, the least recently used going first. Each keeps
its own expiry rather than a cache-wide TTL: an expired name still answers while the
durable store is down (``_stale``)."""
_BACKOFF_SECONDS = 1.0
"""After a failed lookup, reads use the last names known for this long instead of waiting on
a durable store that is down (the leaderboard itself is served from the index)."""


class NameDirectory:
    """Display names by player: all of them (``complete``), or a cache of recent lookups."""

    def __init__(self, store: PlayerStore, limit: int) -> None:
        self._store = store
        self._limit = limit
        self.complete = False
        self._all: dict[PlayerId, str] = {}
        self._watermark: Micros = 0
        self._loaded_at = 0.0
        self._cached: LRUCache[PlayerId, tuple[str | None, float]] = LRUCache(_CACHE_MAX)
        self._down_until = 0.0

    # --- keeping the replica --------------------------------------------------------------

    async def run(self, stopping: asyncio.Event) -> None:
        """Load the names, then follow the changes until ``stopping`` is set."""
        while not stopping.is_set():
            try:
                await self.sync()
            except Unavailable as exc:
                log.warning("display names not synced (%s); retrying", exc.detail)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(SYNC_SECONDS):
                    await stopping.wait()

    async def sync(self) -> None:
        """A full load when due (or while incomplete and small enough), else the changes."""
        if not self.complete or time.monotonic() - self._loaded_at > RELOAD_SECONDS:
            await self._load()
            return
        changed = await self._store.names_since(self._watermark - _OVERLAP_MICROS)
        for change in changed:
            self._set(change.player_id, change.display_name)
            self._watermark = max(self._watermark, change.updated_at)
        if len(self._all) > self._limit:
            self._give_up()

    async def _load(self) -> None:
        if await self._store.count_names() > self._limit:
            self._give_up()
            return
        fresh: dict[PlayerId, str] = {}
        watermark = 0
        for player, name, updated_at in await self._store.names_since(None):
            if name is not None:
                fresh[player] = name
            watermark = max(watermark, updated_at)
        self._all, self._watermark = fresh, watermark
        self._loaded_at = time.monotonic()
        self.complete = True

    def _give_up(self) -> None:
        if self.complete:
            log.info("more than %d display names: looking them up per read", self._limit)
        self.complete = False
        self._all = {}

    def _set(self, player: PlayerId, name: str | None) -> None:
        if name is None:
            self._all.pop(player, None)
        else:
            self._all[player] = name

    # --- changes made here ---------------------------------------------------------------

    def put(self, player: PlayerId, name: str | None) -> None:
        if self.complete:
            self._set(player, name)
        self._cached[player] = (name, time.monotonic() + NAME_TTL_SECONDS)

    def forget(self, player: PlayerId) -> None:
        self._all.pop(player, None)
        self._cached.pop(player, None)

    # --- lookups -------------------------------------------------------------------------

    async def name(self, player: PlayerId) -> str | None:
        """One player's display name (None without one)."""
        if self.complete:
            return self._all.get(player)
        return (await self._looked_up((player,))).get(player)

    async def get(self, players: Iterable[PlayerId]) -> dict[PlayerId, str | None]:
        if self.complete:
            names = self._all
            return {player: names.get(player) for player in players}
        return await self._looked_up(players)

    async def _looked_up(self, players: Iterable[PlayerId]) -> dict[PlayerId, str | None]:
        now = time.monotonic()
        found: dict[PlayerId, str | None] = {}
        missing: list[PlayerId] = []
        for player in dict.fromkeys(players):
            cached = self._cached.get(player)
            if cached is not None and cached[1] > now:
                found[player] = cached[0]
            else:
                missing.append(player)
        if not missing:
            return found
        try:
            if now < self._down_until:
                return found | self._stale(missing)
            fresh = await self._store.display_names(missing)
        except Unavailable as exc:
            self._down_until = now + _BACKOFF_SECONDS
            log.warning("display names unavailable (%s); answering with cached ones", exc.detail)
            return found | self._stale(missing)
        expires = time.monotonic() + NAME_TTL_SECONDS
        for player, name in fresh.items():
            self._cached[player] = (name, expires)
        return found | fresh

    def _stale(self, players: Iterable[PlayerId]) -> dict[PlayerId, str | None]:
        """Expired names, better than none while the durable store is down."""
        return {p: cached[0] for p in players if (cached := self._cached.get(p)) is not None}
