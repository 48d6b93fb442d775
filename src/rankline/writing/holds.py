"""Connections told to come back later: a write refused because the write path is full
(``errors.Overloaded``: 429 with ``Retry-After``) marks its connection until the time it was
told; a write that comes on the same connection before then waits, unread, until that time,
and is then taken as any other that has waited as long: its deadline counted from when it
came, so that with a 1 s deadline and a 1 s ``Retry-After`` what is left of it is the moment
between the refusal and the resend, and under overload it is refused then, its body unread
until that answer. A write that waited does not mark the connection again: the next one is
taken at once.

Refusing costs the server something whatever it refuses (the request received, its body
received and dropped, the answer sent), and a client that sends again the moment it is
refused sends as many requests as the server can refuse: they take the share of the worker
the writer would have had (docs/performance.md, *Overload*). Held, such a client sends two
writes where one that heeds ``Retry-After`` sends one (the refused and the held), and a held
request costs nothing while it waits.

    holds = Holds(longest=1.0)
    await asyncio.sleep(holds.wait(connection))   # 0 unless it was told to come back later
    ...
    holds.refused(connection, retry_after=2, waited=...)  # after an Overloaded refusal

A connection is whatever the edge names one by (an HTTP/1.1 connection: its peer's address
and port); the edge gives None where it cannot tell one (a proxy's ``X-Forwarded-For``), and
nothing is held then."""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable

_MOST = 100_000
"""Connections marked at most; beyond, the oldest marks are forgotten (a mark passes within
``longest`` seconds anyway). Marks that passed are forgotten, oldest first, as new ones come."""


class Holds:
    """The connections told to come back later, and until when (on the monotonic clock)."""

    def __init__(
        self,
        longest: float,
        *,
        most: int = _MOST,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.longest = longest
        """The longest a write is held (the write deadline: a longer ``Retry-After`` does
        not hold a write past it)."""
        self._most = most
        self._now = monotonic
        self._until: dict[Hashable, float] = {}

    def wait(self, connection: Hashable | None) -> float:
        """Seconds a write on ``connection`` waits before it is taken (0: none); its mark is
        spent."""
        if connection is None or not self._until:
            return 0.0
        until = self._until.pop(connection, None)
        return 0.0 if until is None else max(0.0, until - self._now())

    def refused(self, connection: Hashable | None, retry_after: float, waited: float = 0.0) -> None:
        """A write on ``connection`` was refused for overload and told to come back after
        ``retry_after`` seconds, having been held ``waited`` seconds first (``wait``): a
        write that was held marks nothing, so that the next one is taken at once."""
        if connection is None or waited > 0:
            return
        marks, now = self._until, self._now()
        while marks and (len(marks) >= self._most or next(iter(marks.values())) <= now):
            del marks[next(iter(marks))]  # the oldest: beyond ``most``, or passed
        marks[connection] = now + min(retry_after, self.longest)

    def __len__(self) -> int:
        return len(self._until)


__all__ = ["Holds"]
