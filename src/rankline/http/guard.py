"""Rate limits per key and per client address, for writes and reads.

Each server process counts in memory (the ``limits`` library's fixed windows), once per
request before its handler runs; a request over a limit answers 429 with ``Retry-After``
and records nothing. With several workers, each applies the limits to what it serves.

A call into the library costs about 13 µs (its key strings, locks and expiry timer), as much
as a third of a whole rank read. So the requests of one client are passed to it in chunks of
up to 1% of the limit (at most ``_CHUNK_MAX``; one at a time for small limits), each chunk one
``hit`` with that cost, and a client found over a limit is refused locally until its window
resets. A client can exceed a limit by less than one chunk per window.
"""

from __future__ import annotations

import math
import time
from typing import Any

from cachetools import Cache
from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter
from starlette.types import Scope

from rankline.errors import TooManyRequests
from rankline.metrics import THROTTLED
from rankline.settings import Settings

_Limits = tuple[RateLimitItem, ...]
_CHUNK_MAX = 32
_SWEEP_SECONDS = 1.0
_CLIENTS = 65_536
"""Clients whose uncounted requests (fewer than a chunk each) or refusal are remembered; a
client pushed out loses at most one chunk's count."""


class _LoopStorage(MemoryStorage):
    """The library's in-memory counters without its expiry thread.

    ``MemoryStorage`` starts a ``threading.Timer`` to drop expired counters whenever its last
    one has finished (every 10 ms under load), and each start blocks the event loop until
    the new thread runs: measured as a tenth of a read's time on a busy server. A counter's
    expiry is checked on every read of it anyway, so nothing depends on the thread; the
    expired counters are dropped here, at most once per ``_SWEEP_SECONDS``, instead."""

    def __init__(self) -> None:
        super().__init__()
        self._swept = time.monotonic()

    def _MemoryStorage__schedule_expiry(self) -> None:  # the library's hook, name-mangled
        now = time.monotonic()
        if now - self._swept >= _SWEEP_SECONDS:
            self._swept = now
            self._MemoryStorage__expire_events()  # type: ignore[attr-defined]


def _parse(value: str) -> _Limits:
    return tuple(parse_many(value)) if value else ()


class RateLimits:
    """The limits of one process; ``check`` raises TooManyRequests beyond one of them."""

    def __init__(
        self,
        *,
        key_writes: str = "",
        key_reads: str = "",
        address_writes: str = "",
        address_reads: str = "",
    ) -> None:
        self._limiter = FixedWindowRateLimiter(_LoopStorage())
        self._writes = (_parse(key_writes), _parse(address_writes))
        self._reads = (_parse(key_reads), _parse(address_reads))
        self._counted: dict[str, Any] = {r: THROTTLED.labels(r) for r in ("key", "address")}
        every = (*self._writes[0], *self._writes[1], *self._reads[0], *self._reads[1])
        self._chunk = [max(1, min(_CHUNK_MAX, limit.amount // 100)) for limit in every]
        self._number = {id(limit): n for n, limit in enumerate(every)}
        """A limit's place in ``_chunk``: a RateLimitItem hashes slowly (in Python)."""
        self._clients: Cache[tuple[int, str, str], tuple[int, float]] = Cache(_CLIENTS)
        """(limit's number, kind, who) → (requests not yet passed to the limiter, refused
        until); when full, an arbitrary client is forgotten."""

    @classmethod
    def from_settings(cls, settings: Settings) -> RateLimits | None:
        """The configured limits, or None when they are off or all empty."""
        limits = cls(
            key_writes=settings.rate_limit_key_writes,
            key_reads=settings.rate_limit_key_reads,
            address_writes=settings.rate_limit_address_writes,
            address_reads=settings.rate_limit_address_reads,
        )
        if not settings.rate_limits or not any((*limits._writes, *limits._reads)):
            return None
        return limits

    def check(self, scope: Scope, write: bool) -> None:
        per_key, per_address = self._writes if write else self._reads
        if per_address:
            client = scope.get("client")
            self._hit(per_address, "address", client[0] if client else "")
        if per_key:
            for name, value in scope["headers"]:
                if name == b"authorization":
                    self._hit(per_key, "key", value.decode("latin-1"))
                    break

    def _hit(self, limits: _Limits, kind: str, who: str) -> None:
        for limit in limits:
            number = self._number[id(limit)]
            key = (number, kind, who)
            waiting, refused_until = self._clients.get(key, (0, 0.0))
            now = time.time()
            if refused_until > now:
                self._refuse(limit, kind, refused_until - now)
            waiting += 1
            if waiting < self._chunk[number]:
                self._clients[key] = (waiting, 0.0)
                continue
            if self._limiter.hit(limit, kind, who, cost=waiting):
                self._clients[key] = (0, 0.0)
                continue
            reset = self._limiter.get_window_stats(limit, kind, who).reset_time
            self._clients[key] = (0, reset)
            self._refuse(limit, kind, reset - now)

    def _refuse(self, limit: RateLimitItem, kind: str, seconds: float) -> None:
        self._counted[kind].inc()
        raise TooManyRequests(
            f"the rate limit per {kind} ({limit}) was reached; nothing was recorded",
            retry_after=math.ceil(seconds),
        )
