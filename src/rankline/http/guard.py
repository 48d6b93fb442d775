"""Rate limits per key, per client address and per player (a request with a player token,
counted by the player's id), for writes and reads.

Each server process counts in memory, once per request before its handler runs; a request
over a limit answers 429 with ``Retry-After`` and records nothing. With several workers, each
applies the limits to what it serves.

The counting is the ``limits`` library's fixed windows, through its public API, on a storage
of our own (``limit_storage``): plain dicts on the library's storage base, with no thread and
no task. A call into the library still costs a microsecond or more (its key strings and error
wrapping), as much as a tenth of a whole rank read; so the requests of one client are passed
to it in chunks of up to 1% of the limit (at most ``_CHUNK_MAX``; one at a time for small
limits), each chunk one ``hit`` of that cost, and a client found over a limit is refused here
until its window resets. A client can exceed a limit by less than one chunk per window.
"""

from __future__ import annotations

import math
import time
from typing import Any

from limits import RateLimitItem, parse_many
from limits.aio.strategies import FixedWindowRateLimiter

from rankline.errors import TooManyRequests
from rankline.http.limit_storage import WindowStorage
from rankline.metrics import THROTTLED
from rankline.settings import Settings

_CHUNK_MAX = 32
_CLIENTS = 65_536
"""Clients whose uncounted requests (fewer than a chunk each) or refusal are remembered, per
kind of limit; when full, one is forgotten, and loses at most one chunk's count."""


class _Counter:
    """One limit, and the requests of each client not yet passed to the library."""

    __slots__ = ("chunk", "item", "waiting")

    def __init__(self, item: RateLimitItem) -> None:
        self.item = item
        self.chunk = max(1, min(_CHUNK_MAX, item.amount // 100))
        self.waiting: dict[str, int] = {}


class _Kind:
    """The limits of one kind (per key or per address) for reads or for writes, and the
    clients refused until their window resets."""

    __slots__ = ("counted", "counters", "kind", "name", "refused")

    def __init__(self, kind: str, direction: str, items: list[RateLimitItem]) -> None:
        self.kind = kind
        self.name = f"{kind}-{direction}"
        """The library's identifier of these counters: reads and writes count apart even
        when their limits are written alike."""
        self.counters = tuple(_Counter(item) for item in items)
        self.refused: dict[str, tuple[float, RateLimitItem]] = {}
        """Who → until when it is refused, and by which limit."""
        self.counted: Any = THROTTLED.labels(kind)


def _kind(kind: str, direction: str, value: str) -> _Kind | None:
    items = parse_many(value) if value else []
    return _Kind(kind, direction, items) if items else None


class RateLimits:
    """The limits of one process; ``check`` raises TooManyRequests beyond one of them."""

    def __init__(
        self,
        *,
        key_writes: str = "",
        key_reads: str = "",
        address_writes: str = "",
        address_reads: str = "",
        player_writes: str = "",
        player_reads: str = "",
    ) -> None:
        self.storage = WindowStorage()
        self._limiter = FixedWindowRateLimiter(self.storage)
        self._writes = (
            _kind("key", "writes", key_writes),
            _kind("address", "writes", address_writes),
        )
        self._reads = (_kind("key", "reads", key_reads), _kind("address", "reads", address_reads))
        self._players = (
            _kind("player", "writes", player_writes),
            _kind("player", "reads", player_reads),
        )

    @property
    def empty(self) -> bool:
        return not any((*self._writes, *self._reads, *self._players))

    @classmethod
    def from_settings(cls, settings: Settings) -> RateLimits | None:
        """The configured limits, or None when they are off or all empty."""
        if not settings.rate_limits:
            return None
        limits = cls(
            key_writes=settings.rate_limit_key_writes,
            key_reads=settings.rate_limit_key_reads,
            address_writes=settings.rate_limit_address_writes,
            address_reads=settings.rate_limit_address_reads,
            player_writes=settings.rate_limit_player_writes,
            player_reads=settings.rate_limit_player_reads,
        )
        return None if limits.empty else limits

    async def check(
        self, address: str, credential: str | None, write: bool, *, keyed: bool = True
    ) -> None:
        """Count the request per client ``address`` and, when ``keyed`` (its credential is
        not a player token: ``check_player`` counts those), per ``credential`` (the
        Authorization header's value; None: none, not counted per key)."""
        per_key, per_address = self._writes if write else self._reads
        if per_address is not None:
            due = self._tally(per_address, address)
            if due is not None:
                await self._pass(per_address, address, due)
        if per_key is not None and keyed and credential is not None:
            due = self._tally(per_key, credential)
            if due is not None:
                await self._pass(per_key, credential, due)

    async def check_player(self, player_id: str, write: bool) -> None:
        """Count a request with a verified player token, per player."""
        per_player = self._players[0 if write else 1]
        if per_player is not None:
            due = self._tally(per_player, player_id)
            if due is not None:
                await self._pass(per_player, player_id, due)

    def _tally(self, kind: _Kind, who: str) -> list[tuple[_Counter, int]] | None:
        """Count one request of ``who`` here; the chunks (limit, requests) now due to the
        library, None when none is."""
        if kind.refused:
            refused = kind.refused.get(who)
            if refused is not None:
                until, item = refused
                now = time.time()
                if until > now:
                    self._refuse(kind, item, until - now)
                del kind.refused[who]
        due = None
        for counter in kind.counters:
            waiting = counter.waiting
            count = waiting.get(who)
            if count is None:
                if len(waiting) >= _CLIENTS:
                    waiting.popitem()
                count = 0
            count += 1
            if count < counter.chunk:
                waiting[who] = count
                continue
            waiting[who] = 0
            if due is None:
                due = []
            due.append((counter, count))
        return due

    async def _pass(self, kind: _Kind, who: str, due: list[tuple[_Counter, int]]) -> None:
        for counter, count in due:
            item = counter.item
            if await self._limiter.hit(item, kind.name, who, cost=count):
                continue
            reset = (await self._limiter.get_window_stats(item, kind.name, who)).reset_time
            if len(kind.refused) >= _CLIENTS:
                kind.refused.popitem()
            kind.refused[who] = (reset, item)
            self._refuse(kind, item, reset - time.time())

    @staticmethod
    def _refuse(kind: _Kind, item: RateLimitItem, seconds: float) -> None:
        kind.counted.inc()
        raise TooManyRequests(
            f"the rate limit per {kind.kind} ({item}) was reached; nothing was recorded",
            retry_after=max(1, math.ceil(seconds)),
        )
