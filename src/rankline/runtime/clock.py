"""Clocks: the system one, and a manual one for tests and simulations."""

from __future__ import annotations

import functools
import time
from datetime import UTC, datetime

from rankline.types import Micros


class SystemClock:
    def now(self) -> Micros:
        return time.time_ns() // 1000


class ManualClock:
    """A clock that moves only when told to."""

    def __init__(self, start: Micros | datetime) -> None:
        self._now = to_micros(start) if isinstance(start, datetime) else start

    def now(self) -> Micros:
        return self._now

    def set(self, when: Micros | datetime) -> None:
        self._now = to_micros(when) if isinstance(when, datetime) else when

    def advance(self, seconds: float) -> None:
        self._now += int(seconds * 1_000_000)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_micros(when: datetime) -> Micros:
    if when.tzinfo is None:
        raise ValueError("naive datetimes are ambiguous; give a UTC offset")
    delta = when - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(micros: Micros) -> datetime:
    from datetime import timedelta

    return _EPOCH + timedelta(microseconds=micros)


def format_time(micros: Micros) -> str:
    """RFC 3339, UTC, millisecond precision: ``2026-11-21T22:30:00.000Z``. Every answer
    formats times, so the date part is cached per day and the rest is integer arithmetic."""
    day, rest = divmod(micros, _DAY_MICROS)
    try:
        date = _date_part(day)
    except OverflowError:
        return f"@{micros}us"  # outside datetime's years 1-9999; only corrupt data gets here
    second, millis = divmod(rest // 1000, 1000)
    clock = _CLOCK[second]
    if clock is None:
        minutes, seconds = divmod(second, 60)
        clock = _CLOCK[second] = f"{minutes // 60:02d}:{minutes % 60:02d}:{seconds:02d}."
    return date + clock + _MILLIS[millis]


_DAY_MICROS = 86_400_000_000
_CLOCK: list[str | None] = [None] * 86_400
"""``hh:mm:ss.`` of each second of the day, made when first needed."""
_MILLIS = [f"{millis:03d}Z" for millis in range(1000)]


def format_instant(micros: Micros) -> str:
    """``format_time``, remembered per millisecond: for the instants that many answers in a
    row show (``as_of``, the ends of the current periods), a dict lookup instead of the
    arithmetic."""
    millis = micros // 1000
    text = _INSTANTS.get(millis)
    if text is None:
        text = format_time(micros)
        if text[0] == "@":
            return text  # names the microsecond: not shared within its millisecond
        if len(_INSTANTS) >= _INSTANTS_MAX:
            _INSTANTS.clear()
        _INSTANTS[millis] = text
    return text


_INSTANTS: dict[int, str] = {}
_INSTANTS_MAX = 4096


@functools.lru_cache(maxsize=4096)
def _date_part(day: int) -> str:
    when = from_micros(day * _DAY_MICROS)
    return f"{when.year:04d}-{when.month:02d}-{when.day:02d}T"


def parse_time(text: str) -> Micros:
    """Parse an RFC 3339 timestamp with an explicit offset (``Z`` or ``+hh:mm``)."""
    if len(text) < 20 or text[10] not in "Tt ":
        raise ValueError("expected an RFC 3339 time such as 2026-11-21T22:30:00.000Z")
    normalized = text[:-1] + "+00:00" if text[-1] in "Zz" else text
    when = datetime.fromisoformat(normalized)
    if when.tzinfo is None:
        raise ValueError("the time needs a UTC offset, for example a trailing Z")
    return to_micros(when)
