"""Admission by expected wait: a write is taken only when it would be answered within its
deadline.

A count of queued submissions bounds memory, not latency: the same count is a short wait on a
fast machine and a long one on a slow machine. So the write path (the group commit, and the
log's intake for asynchronous submissions) admits a request by the wait it would meet: the
work queued ahead of it and its own, over the rate at which that work was done lately.

    expected wait = (ahead + own) / recent rate        admitted when <= the time left

The time left is the smaller of the server's deadline (``RANKLINE_WRITE_DEADLINE_MS``) and the
client's own (``Request-Timeout`` over HTTP, the call's deadline over gRPC), counted from
when the request reached the application, less the wait it may have had before that (the
worker's event loop running late: ``rankline.http.loop_lag``): that wait, and the time it
spent being read and decoded, are already spent. A request refused is told when to come back
(``Retry-After``: how much longer the queue ahead needs than the time it had), and nothing of
it is recorded. One whose deadline passed before it was admitted is refused at once, whatever
the queue.

A request with nothing ahead of it is always admitted (refusing it shortens no queue), and so
is every request while no rate was measured yet: the count limit guards memory meanwhile.

    admission = Admission(deadline_seconds=1.0)
    deadline = admission.deadline(started=request_started, client_seconds=None)
    admission.admit(ahead=queued, own=len(submissions), deadline=deadline)  # or 429
    ...
    admission.measured(work=2000, seconds=0.25)   # each full batch: the rate it ran at
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from rankline.errors import Overloaded
from rankline.metrics import THROTTLED

_WINDOW_SECONDS = 5.0
"""How far back the rate looks: the samples measured in the last few seconds..."""
_KEEP = 4
"""...and, when the writer was idle longer, the last few measured before (the machine did not
get faster while nothing was written)."""
_MAX_SAMPLES = 64


@dataclass(frozen=True, slots=True)
class Deadline:
    """When a request must be answered, on the monotonic clock (``time.monotonic``)."""

    at: float
    client: bool = False
    """Whether the client's deadline was the smaller one."""

    def left(self, now: float) -> float:
        return self.at - now


class Admission:
    """Admits work by the wait it would meet; collaborators report the rate work is done at
    (``measured``) and how much is ahead (``admit``'s ``ahead``)."""

    def __init__(
        self,
        deadline_seconds: float,
        *,
        what: str = "the write queue",
        unit: str = "submissions",
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.deadline_seconds = deadline_seconds
        self._what = what
        self._unit = unit
        self._now = monotonic
        self._samples: deque[tuple[float, float, float]] = deque(maxlen=_MAX_SAMPLES)
        """(when, work, seconds) of each measurement."""

    def now(self) -> float:
        return self._now()

    def deadline(self, started: float, client_seconds: float | None = None) -> Deadline:
        """The deadline of a request that reached the application at ``started``: the
        server's, or the client's when that is sooner."""
        server = started + self.deadline_seconds
        if client_seconds is not None and started + client_seconds < server:
            return Deadline(started + client_seconds, client=True)
        return Deadline(server)

    def measured(self, work: float, seconds: float) -> None:
        """``work`` was done in ``seconds`` (a batch committed, appends completed)."""
        if work > 0 and seconds > 0:
            self._samples.append((self._now(), work, seconds))

    @property
    def rate(self) -> float | None:
        """Work done per second lately; None before anything was measured."""
        if not self._samples:
            return None
        recent = self._now() - _WINDOW_SECONDS
        work = seconds = 0.0
        for index, (when, done, took) in enumerate(reversed(self._samples)):
            if index >= _KEEP and when < recent:
                break
            work += done
            seconds += took
        return work / seconds

    def expected_wait(self, ahead: float, own: float) -> float | None:
        """Seconds until work of size ``own`` queued behind ``ahead`` is done; None when no
        rate was measured yet."""
        rate = self.rate
        return None if rate is None else (ahead + own) / rate

    def admit(self, ahead: float, own: float, deadline: Deadline | None) -> None:
        """Return when the work fits its deadline; else ``Overloaded`` (429) with a
        Retry-After from the same estimate. No deadline: always admitted (internal work, such
        as the log's applier)."""
        if deadline is None:
            return
        left = deadline.left(self._now())
        if left <= 0:
            THROTTLED.labels("deadline").inc()
            whose = "the request's" if deadline.client else "the server's"
            raise Overloaded(
                f"{whose} deadline passed before the write was admitted; "
                "nothing was recorded, retry shortly",
                retry_after=self._retry_after(ahead, own, 0.0),
            )
        if ahead <= 0:
            return
        wait = self.expected_wait(ahead, own)
        if wait is None or wait <= left:
            return
        THROTTLED.labels("wait").inc()
        raise Overloaded(
            f"{self._what} is {wait * 1000:.0f} ms long for this request ({ahead:.0f} "
            f"{self._unit} ahead of it), more than its deadline leaves ({left * 1000:.0f} ms); "
            "nothing was recorded, retry shortly",
            retry_after=self._retry_after(ahead, own, left),
        )

    def _retry_after(self, ahead: float, own: float, left: float) -> int:
        """Whole seconds until the queue ahead has shrunk enough for the request to fit."""
        wait = self.expected_wait(ahead, own)
        if wait is None:
            return 1
        return max(1, math.ceil(wait - max(0.0, left)))


class Concurrent:
    """The rate of work done concurrently (appends to the log): the work finished over the
    time any was in flight, told to ``admission`` every ``_SAMPLE_SECONDS`` of such time.
    ``running`` is the work ahead of a new request."""

    def __init__(self, admission: Admission) -> None:
        self.admission = admission
        self.running = 0
        self._since = 0.0
        self._busy = 0.0
        self._done = 0.0

    def begin(self) -> None:
        if self.running == 0:
            self._since = self.admission.now()
        self.running += 1

    def end(self, work: float = 1.0) -> None:
        now = self.admission.now()
        elapsed = now - self._since
        if elapsed > 0 and self._busy >= _SAMPLE_SECONDS:
            self._sample()  # (what ends together with this one counts with it)
        self._busy += elapsed
        self._since = now
        self.running -= 1
        self._done += work
        if self.running == 0 and self._busy >= _SAMPLE_SECONDS:
            self._sample()

    def _sample(self) -> None:
        self.admission.measured(self._done, self._busy)
        self._busy = self._done = 0.0


_SAMPLE_SECONDS = 0.1


__all__ = ["Admission", "Concurrent", "Deadline"]
