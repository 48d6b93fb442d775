"""Cron windows: periods that run from one firing of a cron expression to the next.

The firings are croniter's, computed in the window's time zone, so ``0 18 * * FRI`` in
``Europe/Paris`` fires at 18:00 Paris time whatever the season. A period is named by the
instant it starts, in UTC, to the second: ``2026-11-20T17:00:00Z``.

Daylight saving time, as croniter does it: a local time that a change skips (02:30 on the
night clocks go forward) fires at the first instant after the gap (03:00 local, the moment
of the change); a local time that a change repeats (02:30 on the night clocks go back)
fires at both of its instants, so that day has one period more, an hour long.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from rankline.runtime.clock import from_micros, to_micros
from rankline.types import Micros

_NAME = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z", re.ASCII)
_FIELDS = 5
_NAMED_KEPT = 256
"""Periods kept per cron window for reads that name one (a few weeks' worth of an hourly
window, years of a weekly one)."""


def check_cron(expression: str) -> str | None:
    """Why ``expression`` is not a five-field cron expression croniter reads (None: it is)."""
    from croniter import croniter  # imported where used: ~4 MiB a process without cron skips

    if len(expression.split()) != _FIELDS:
        return "a cron expression has five fields: minute hour day-of-month month day-of-week"
    if not croniter.is_valid(expression):
        return f"{expression!r} is not a cron expression croniter can read"
    try:  # a valid expression may still never fire ("0 0 31 2 *")
        croniter(expression, datetime(2000, 1, 1, tzinfo=UTC)).get_next(datetime)
    except Exception as exc:  # croniter raises its own errors, not all of one base
        return f"{expression!r} never fires: {exc}"
    return None


def period_name(start: Micros) -> str:
    """The name of the period starting at ``start``: the instant in UTC, to the second."""
    return from_micros(start).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(slots=True)
class CronWindow:
    """A window whose periods run from one firing of ``expression`` in ``zone`` to the next.

    The last period computed is kept, and the periods named in reads: a board's submissions
    mostly land in the current one, and a croniter computation costs a few hundred
    microseconds (``rankline bench probe calendar``)."""

    id: str
    expression: str
    zone: ZoneInfo
    _last: tuple[Micros, Micros] | None = field(default=None, compare=False, repr=False)
    _named: dict[Micros, Micros] = field(default_factory=dict, compare=False, repr=False)

    def _firings(self, at: Micros, keep: bool = True) -> tuple[Micros, Micros]:
        """The last firing at or before ``at`` and the first after it (kept as the last
        span unless ``keep`` is false: a read of an old period leaves the current one)."""
        last = self._last
        if last is not None and last[0] <= at < last[1]:
            return last
        # croniter's get_prev is strictly before its start, and firings fall on whole seconds:
        # from the next whole second, it is the last firing at or before ``at``.
        from croniter import croniter

        second = at - at % 1_000_000 + 1_000_000
        found = croniter(self.expression, from_micros(second).astimezone(self.zone))
        start = to_micros(found.get_prev(datetime))
        end = to_micros(found.get_next(datetime))
        while end <= at:  # never seen; a guard against a step that lands short
            start, end = end, to_micros(found.get_next(datetime))
        if keep:
            self._last = (start, end)
        return start, end

    def span_at(self, at: Micros) -> tuple[str, Micros, Micros]:
        """The name, start and end of the period containing ``at``."""
        start, end = self._firings(at)
        return period_name(start), start, end

    def span_named(self, name: str) -> tuple[Micros, Micros]:
        """The start and end of the period called ``name``; ValueError when no firing starts
        one at that instant."""
        match = _NAME.fullmatch(name)
        if match is None:
            raise ValueError(
                f"{name!r} is not a period of cron window {self.id!r} "
                "(periods are named by their start in UTC, e.g. '2026-11-20T17:00:00Z')"
            )
        year, month, day, hour, minute, second = (int(g) for g in match.groups())
        start = to_micros(datetime(year, month, day, hour, minute, second, tzinfo=UTC))
        if (known := self._named.get(start)) is not None:
            return start, known
        begins, end = self._firings(start, keep=False)
        if begins != start:
            found = period_name(begins)
            raise ValueError(
                f"{name!r} is not a firing of cron window {self.id!r} "
                f"({self.expression!r} in {self.zone.key}); the period containing it is {found!r}"
            )
        if len(self._named) >= _NAMED_KEPT:
            self._named.pop(next(iter(self._named)))  # the oldest named first
        self._named[start] = end
        return begins, end
