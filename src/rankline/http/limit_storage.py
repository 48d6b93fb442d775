"""The rate limits' counters: a ``limits`` asyncio storage of plain dicts, for the fixed
window strategy.

A counter expires at the end of its window. A read finds an expired counter expired (and
drops it); the ones nobody reads again are swept at most once a second, oldest window first,
at most ``SWEEP_MAX`` of them per call, so no call does more than a bounded amount of work and
the storage needs neither a thread nor a task. The library's own in-memory storages have one
or the other: a timer thread started every 10 ms under load (each start stalls the event
loop), or a task that walks every live counter once per turn of the event loop, the main
cost of a check with thousands of clients under a small limit.
"""

from __future__ import annotations

import time

from limits.aio.storage import Storage

SWEEP_MAX = 1024
"""Expired counters dropped by one call at most; a sweep that stops there goes on at the
next call instead of a second later."""


class _Window:
    __slots__ = ("count", "ends", "length")

    def __init__(self, count: int, ends: float, length: int) -> None:
        self.count = count
        self.ends = ends
        self.length = length


class WindowStorage(Storage):
    """Fixed-window counters in process memory, for ``limits.aio.strategies.
    FixedWindowRateLimiter`` (the moving and sliding windows need more than it keeps)."""

    def __init__(self) -> None:
        super().__init__()
        self._windows: dict[str, _Window] = {}
        self._by_length: dict[int, dict[str, _Window]] = {}
        """The same counters by window length, each in the order its window started: the
        front's window ends first, so a sweep stops at the first one still open."""
        self._sweep_at = 0.0

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return ValueError

    async def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = time.time()
        if now >= self._sweep_at:
            self._sweep(now)
        window = self._windows.get(key)
        if window is not None:
            if window.ends > now:
                window.count += amount
                return window.count
            self._drop(key, window)
        window = _Window(amount, now + expiry, expiry)
        self._windows[key] = window
        queue = self._by_length.get(expiry)
        if queue is None:
            queue = self._by_length[expiry] = {}
        queue[key] = window
        return amount

    async def get(self, key: str) -> int:
        window = self._windows.get(key)
        if window is None:
            return 0
        if window.ends <= time.time():
            self._drop(key, window)
            return 0
        return window.count

    async def get_expiry(self, key: str) -> float:
        window = self._windows.get(key)
        return time.time() if window is None else window.ends

    async def check(self) -> bool:
        return True

    async def reset(self) -> int | None:
        count = len(self._windows)
        self._windows.clear()
        self._by_length.clear()
        return count

    async def clear(self, key: str) -> None:
        window = self._windows.get(key)
        if window is not None:
            self._drop(key, window)

    def __len__(self) -> int:
        return len(self._windows)

    def _drop(self, key: str, window: _Window) -> None:
        del self._windows[key]
        del self._by_length[window.length][key]

    def _sweep(self, now: float) -> None:
        budget = SWEEP_MAX
        for queue in self._by_length.values():
            expired: list[str] = []
            for key, window in queue.items():
                if window.ends > now or len(expired) >= budget:
                    break
                expired.append(key)
            budget -= len(expired)
            for key in expired:
                del queue[key]
                del self._windows[key]
        self._sweep_at = now if budget <= 0 else now + 1.0
