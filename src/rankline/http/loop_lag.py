"""How late a worker's event loop runs what is due: the wait a request meets before the
application sees it, counted in a write's deadline.

A request reaches the app as a callback on the worker's event loop. While a synchronous
stretch holds the loop (another request's body decoded, a batch planned or applied to the
index, answers encoded), or while the process waits for a core, a request that has arrived
waits unseen: nothing the app times itself counts it. A ticker sleeps ``interval`` at a time
and notes when it ran and how much later than asked. ``waited`` is the wait a request that
the app sees now may have had: the stall under way (the time since the ticker last ran,
beyond its interval: the requests that arrived during a stall run before the late tick) or
one the ticker noted in the last ``window`` seconds. ``Api.answer`` counts it as spent: a
write's deadline is counted from that much before the app saw the request
(``rankline.http.endpoint.write_deadline``). A stall that ended earlier than that delayed
nobody who starts now, so it is not counted.

    lag = LoopLag()
    lag.start()                       # in the worker's event loop (the app's lifespan)
    started = time.monotonic() - lag.waited()
    ...
    await lag.close()

Every lateness is also observed in ``rankline_event_loop_lag_seconds``. The ticker's own cost
is one wake-up per ``interval`` (10 ms by default).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable

from rankline.metrics import LOOP_LAG
from rankline.runtime import tasks

INTERVAL_SECONDS = 0.01
WINDOW_SECONDS = 0.05
_NOTED_SECONDS = 0.001
"""Lateness below this is the loop's ordinary jitter: not kept."""


class LoopLag:
    """The event loop's lateness now; ``start`` in the loop it measures."""

    def __init__(
        self,
        interval: float = INTERVAL_SECONDS,
        window: float = WINDOW_SECONDS,
        *,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._interval = interval
        self._window = window
        self._now = monotonic
        self._late: deque[tuple[float, float]] = deque()
        """(when it was noted, how late) of each lateness noted in the window, the largest
        first (a smaller one noted before a larger one no longer decides anything)."""
        self._ticked: float | None = None
        """When the ticker last ran; None while it does not run."""
        self._task: asyncio.Task[None] | None = None

    def waited(self) -> float:
        """Seconds a request the app sees now may have waited for the loop (0.0: none)."""
        now = self._now()
        late = self._late
        since = now - self._window
        while late and late[0][0] < since:
            late.popleft()
        noted = late[0][1] if late else 0.0
        ticked, task = self._ticked, self._task
        if ticked is None or task is None or task.done():
            return max(noted, 0.0)  # no ticker (never started, or it ended): no stall known
        return max(noted, now - ticked - self._interval, 0.0)

    def observe(self, seconds: float) -> None:
        """The loop ran something ``seconds`` later than it was due."""
        LOOP_LAG.observe(seconds)
        if seconds >= _NOTED_SECONDS:
            late = self._late
            while late and late[-1][1] <= seconds:
                late.pop()
            late.append((self._now(), seconds))

    def start(self) -> None:
        if self._task is None:
            self._ticked = self._now()
            self._task = asyncio.create_task(self._tick(), name="rankline-loop-lag")

    async def close(self) -> None:
        if self._task is not None:
            await tasks.stop(self._task)
            self._task = None
            self._ticked = None

    async def _tick(self) -> None:
        interval = self._interval
        while True:
            due = self._now() + interval
            await asyncio.sleep(interval)
            now = self._ticked = self._now()
            self.observe(max(0.0, now - due))


__all__ = ["LoopLag"]
