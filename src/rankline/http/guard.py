"""Rate limits per key and per client address, for writes and reads.

Each server process counts in memory (the ``limits`` library's fixed windows), once per
request before its handler runs; a request over a limit answers 429 with ``Retry-After``
and records nothing. With several workers, each applies the limits to what it serves.
"""

from __future__ import annotations

import math
import time
from typing import Any

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter
from starlette.types import Scope

from rankline.errors import TooManyRequests
from rankline.metrics import THROTTLED
from rankline.settings import Settings

_Limits = tuple[RateLimitItem, ...]


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
        self._limiter = FixedWindowRateLimiter(MemoryStorage())
        self._writes = (_parse(key_writes), _parse(address_writes))
        self._reads = (_parse(key_reads), _parse(address_reads))
        self._counted: dict[str, Any] = {r: THROTTLED.labels(r) for r in ("key", "address")}

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
            if not self._limiter.hit(limit, kind, who):
                self._counted[kind].inc()
                reset = self._limiter.get_window_stats(limit, kind, who).reset_time
                raise TooManyRequests(
                    f"the rate limit per {kind} ({limit}) was reached; nothing was recorded",
                    retry_after=math.ceil(reset - time.time()),
                )
