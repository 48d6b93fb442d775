"""Admission by expected wait (``rankline.writing.admission``), on an injected clock and
injected commit rates: no timing here; and the event loop's lateness counted before a request
reaches the app (``rankline.http.loop_lag``), on an injected clock too, and once for real
with the loop held on purpose."""

from __future__ import annotations

import asyncio
import time

import pytest

from rankline.errors import TooManyRequests
from rankline.http.loop_lag import LoopLag
from rankline.writing.admission import Admission, Concurrent, Deadline


class Ticks:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _admission(ticks: Ticks, seconds: float = 1.0) -> Admission:
    return Admission(seconds, monotonic=ticks)


def test_nothing_measured_yet_admits_and_nothing_ahead_admits() -> None:
    ticks = Ticks()
    admission = _admission(ticks)
    deadline = admission.deadline(ticks.now)
    assert admission.rate is None
    admission.admit(ahead=1_000_000, own=1000, deadline=deadline)  # no rate: admitted
    admission.measured(100, 1.0)  # 100 a second: a slow writer
    admission.admit(ahead=0, own=1000, deadline=deadline)  # alone: waits for itself only
    with pytest.raises(TooManyRequests):
        admission.admit(ahead=1, own=1000, deadline=deadline)


def test_admits_while_the_expected_wait_fits_the_deadline() -> None:
    ticks = Ticks()
    admission = _admission(ticks)
    admission.measured(2000, 0.25)  # 8,000 a second
    deadline = admission.deadline(ticks.now)
    assert admission.expected_wait(ahead=6000, own=1000) == pytest.approx(7000 / 8000)
    admission.admit(ahead=6000, own=1000, deadline=deadline)  # 0.875 s <= 1 s
    with pytest.raises(TooManyRequests) as refused:
        admission.admit(ahead=8000, own=1000, deadline=deadline)  # 1.125 s > 1 s
    assert refused.value.status == 429
    assert "ahead" in refused.value.detail


def test_a_slowed_writer_makes_it_refuse_sooner() -> None:
    """The same queue is admitted behind a fast writer and refused behind a slow one: the
    rule is a time, not a count."""
    fast, slow = Ticks(), Ticks()
    quick, slowed = _admission(fast), _admission(slow)
    for _ in range(5):
        quick.measured(2000, 0.2)  # 10,000 a second
        slowed.measured(2000, 1.0)  # 2,000 a second
    ahead, own = 5000, 1000
    quick.admit(ahead, own, quick.deadline(fast.now))
    with pytest.raises(TooManyRequests):
        slowed.admit(ahead, own, slowed.deadline(slow.now))
    # the largest queue each still admits a 1,000-item batch behind
    largest = {}
    for name, admission, ticks in (("fast", quick, fast), ("slow", slowed, slow)):
        ahead = 0
        while True:
            try:
                admission.admit(ahead + 100, own, admission.deadline(ticks.now))
            except TooManyRequests:
                break
            ahead += 100
        largest[name] = ahead
    assert largest == {"fast": 9000, "slow": 1000}


def test_the_rate_follows_recent_batches_and_keeps_the_last_ones_when_idle() -> None:
    ticks = Ticks()
    admission = _admission(ticks)
    for _ in range(10):
        admission.measured(2000, 0.2)
    assert admission.rate == pytest.approx(10_000)
    ticks.now += 60  # a minute without a full batch: the last measurements still hold
    assert admission.rate == pytest.approx(10_000)
    for _ in range(4):
        admission.measured(2000, 1.0)  # the writer slowed down
    assert admission.rate == pytest.approx(2000)
    admission.measured(0, 1.0)  # nothing done, or no time: not a measurement
    admission.measured(10, 0.0)
    assert admission.rate == pytest.approx(2000)


def test_retry_after_comes_from_the_same_estimate() -> None:
    ticks = Ticks()
    admission = _admission(ticks)
    admission.measured(1000, 1.0)  # 1,000 a second
    deadline = admission.deadline(ticks.now)
    with pytest.raises(TooManyRequests) as short:
        admission.admit(ahead=1500, own=100, deadline=deadline)  # 1.6 s for 1 s left
    assert short.value.retry_after == 1
    with pytest.raises(TooManyRequests) as long:
        admission.admit(ahead=9000, own=1000, deadline=deadline)  # 10 s for 1 s left
    assert long.value.retry_after == 9


def test_the_smaller_of_the_server_and_client_deadline_applies() -> None:
    ticks = Ticks()
    admission = _admission(ticks, seconds=1.0)
    assert admission.deadline(50.0) == Deadline(51.0)
    assert admission.deadline(50.0, client_seconds=0.2) == Deadline(50.2, client=True)
    assert admission.deadline(50.0, client_seconds=5.0) == Deadline(51.0)
    admission.measured(1000, 1.0)
    # 0.5 s of work ahead: fits the server's deadline, not a client's 0.2 s
    admission.admit(ahead=400, own=100, deadline=admission.deadline(ticks.now))
    with pytest.raises(TooManyRequests) as refused:
        admission.admit(ahead=400, own=100, deadline=admission.deadline(ticks.now, 0.2))
    assert "0.5" not in refused.value.detail
    assert "500 ms" in refused.value.detail and "200 ms" in refused.value.detail


def test_a_passed_deadline_is_refused_whatever_the_queue() -> None:
    ticks = Ticks()
    admission = _admission(ticks)
    deadline = admission.deadline(ticks.now, client_seconds=0.3)
    ticks.now += 0.3  # spent reading and decoding the body
    with pytest.raises(TooManyRequests) as refused:
        admission.admit(ahead=0, own=1, deadline=deadline)  # even with nothing ahead
    assert "the request's deadline passed" in refused.value.detail
    server = admission.deadline(ticks.now)
    ticks.now += 1.5
    with pytest.raises(TooManyRequests) as late:
        admission.admit(ahead=0, own=1, deadline=server)
    assert "the server's deadline passed" in late.value.detail
    admission.admit(ahead=10**9, own=1, deadline=None)  # internal work has no deadline


def test_concurrent_work_is_measured_over_the_time_any_was_in_flight() -> None:
    """Appends overlap: the rate is what completed over the time some were in flight, not
    one append's own duration."""
    ticks = Ticks()
    appends = Concurrent(_admission(ticks))
    for _ in range(10):
        appends.begin()
    assert appends.running == 10
    ticks.now += 0.2
    for _ in range(10):
        appends.end()
    assert appends.running == 0
    assert appends.admission.rate == pytest.approx(50)  # 10 in 0.2 s
    ticks.now += 30  # idle time is not counted
    appends.begin()
    ticks.now += 0.15
    appends.end()
    assert appends.admission.rate == pytest.approx(11 / 0.35)


def test_the_wait_before_the_app_is_the_stall_under_way_or_one_just_noted() -> None:
    ticks = Ticks()
    lag = LoopLag(interval=0.01, window=0.05, monotonic=ticks)
    assert lag.waited() == 0.0  # not started: nothing known
    lag.observe(0.0002)  # ordinary jitter: not kept
    assert lag.waited() == 0.0
    lag.observe(0.3)  # a tick ran 0.3 s late: who starts with it waited up to that
    ticks.now += 0.02
    lag.observe(0.02)
    assert lag.waited() == pytest.approx(0.3)  # the largest still in the window
    ticks.now += 0.04  # the 0.3 s left the window; the 0.02 s has not
    assert lag.waited() == pytest.approx(0.02)
    ticks.now += 1.0  # a stall that ended long ago delayed nobody who starts now
    assert lag.waited() == 0.0


async def test_a_stall_under_way_counts_before_the_late_tick_runs() -> None:
    """Requests that arrived during a stall run before the tick that was due in it: the
    time since the ticker last ran, beyond its interval, is their wait."""
    ticks = Ticks()
    lag = LoopLag(interval=0.01, monotonic=ticks)
    lag.start()
    try:
        ticks.now += 0.005
        assert lag.waited() == 0.0  # within the interval: the loop keeps time
        ticks.now += 0.805
        assert lag.waited() == pytest.approx(0.8)  # the ticker is 0.8 s overdue
    finally:
        await lag.close()
    assert lag.waited() == 0.0  # stopped: no stall is known, none is counted


async def test_a_ticker_that_ended_counts_no_stall() -> None:
    """Should the ticker end (cancelled from outside), the time since its last tick is no
    stall: counting it would refuse every write from then on."""
    ticks = Ticks()
    lag = LoopLag(interval=0.01, monotonic=ticks)
    lag.start()
    try:
        task = lag._task
        assert task is not None
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        ticks.now += 30.0
        assert lag.waited() == 0.0
    finally:
        await lag.close()


def test_a_deadline_counts_the_wait_before_the_app_as_spent() -> None:
    """A request seen by the app at ``now`` after waiting 0.8 s for the loop has 0.2 s of its
    1 s left: the work it would wait behind is judged against that."""
    ticks = Ticks()
    admission = _admission(ticks)
    admission.measured(1000, 1.0)
    lag = LoopLag(monotonic=ticks)
    admission.admit(ahead=400, own=100, deadline=admission.deadline(ticks.now - lag.waited()))
    lag.observe(0.8)
    with pytest.raises(TooManyRequests) as refused:
        admission.admit(ahead=400, own=100, deadline=admission.deadline(ticks.now - lag.waited()))
    assert "200 ms" in refused.value.detail


async def test_the_ticker_sees_the_loop_held() -> None:
    """The loop held on purpose for 0.2 s: the ticker, due meanwhile, woke at least most of
    that late (a lower bound only: a loaded machine makes it later, never earlier)."""
    lag = LoopLag(interval=0.01, window=60.0)
    lag.start()
    try:
        await asyncio.sleep(0.05)  # the ticker runs
        time.sleep(0.2)  # noqa: ASYNC251 - holding the loop is the point
        await asyncio.sleep(0.05)  # the late tick is taken
        assert lag.waited() >= 0.15
    finally:
        await lag.close()
