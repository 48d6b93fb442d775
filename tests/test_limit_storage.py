"""The rate limits' storage under the ``limits`` library's own fixed-window strategy: an
upgrade of the library that changes what a storage must do fails here."""

from __future__ import annotations

import time

import pytest
from limits import parse
from limits.aio.strategies import FixedWindowRateLimiter

import rankline.http.limit_storage as limit_storage
from rankline.http.limit_storage import WindowStorage


class _Now:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.value = time.time()
        monkeypatch.setattr(limit_storage.time, "time", lambda: self.value)


@pytest.fixture
def now(monkeypatch: pytest.MonkeyPatch) -> _Now:
    return _Now(monkeypatch)


async def test_hit_test_and_window_stats_follow_the_limit(now: _Now) -> None:
    storage = WindowStorage()
    limiter = FixedWindowRateLimiter(storage)
    item = parse("3/minute")
    assert await storage.check()
    assert await limiter.test(item, "reads", "a")
    stats = await limiter.get_window_stats(item, "reads", "a")
    assert stats.remaining == 3
    assert await limiter.hit(item, "reads", "a")
    assert await limiter.hit(item, "reads", "a", cost=2)
    assert not await limiter.test(item, "reads", "a")
    assert not await limiter.hit(item, "reads", "a")
    stats = await limiter.get_window_stats(item, "reads", "a")
    assert stats.remaining == 0
    assert stats.reset_time == pytest.approx(now.value + 60)
    # other identifiers count apart
    assert await limiter.test(item, "reads", "b")
    assert await limiter.test(item, "writes", "a")


async def test_a_window_ends_at_its_expiry(now: _Now) -> None:
    storage = WindowStorage()
    limiter = FixedWindowRateLimiter(storage)
    item = parse("2/second")
    start = now.value
    assert await limiter.hit(item, "a", cost=2)
    assert not await limiter.hit(item, "a")
    now.value = start + 0.999
    assert not await limiter.test(item, "a")
    now.value = start + 1.0
    assert await limiter.test(item, "a")
    assert (await limiter.get_window_stats(item, "a")).remaining == 2
    assert await limiter.hit(item, "a")
    # the new window starts at its first hit
    assert (await limiter.get_window_stats(item, "a")).reset_time == pytest.approx(start + 2.0)


async def test_clear_and_reset_forget_counts(now: _Now) -> None:
    storage = WindowStorage()
    limiter = FixedWindowRateLimiter(storage)
    item = parse("1/hour")
    assert await limiter.hit(item, "a")
    assert await limiter.hit(item, "b")
    assert not await limiter.hit(item, "a")
    await limiter.clear(item, "a")
    assert await limiter.hit(item, "a")
    assert not await limiter.hit(item, "b")
    await limiter.clear(item, "nobody")
    assert await storage.reset() == 2
    assert await limiter.hit(item, "b")


async def test_expired_counters_are_swept_a_bounded_slice_at_a_time(now: _Now) -> None:
    """Counters nobody reads again go, oldest window first, at most SWEEP_MAX per call;
    counters of a longer window are kept until theirs ends."""
    storage = WindowStorage()
    limiter = FixedWindowRateLimiter(storage)
    second, hour = parse("5/second"), parse("5/hour")
    clients = limit_storage.SWEEP_MAX + 10
    for n in range(clients):
        await limiter.hit(second, str(n))
    await limiter.hit(hour, "long")
    assert len(storage) == clients + 1
    now.value += 2
    await limiter.hit(second, "new")
    assert len(storage) == clients + 1 - limit_storage.SWEEP_MAX + 1
    await limiter.hit(second, "new")  # the sweep that stopped at its bound goes on
    assert len(storage) == 2
    await limiter.hit(second, "new")  # and then waits a second
    now.value += 0.5
    await limiter.hit(second, "other")
    assert len(storage) == 3
    assert (await limiter.get_window_stats(hour, "long")).remaining == 4
