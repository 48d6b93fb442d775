"""Windows and their periods: which leaderboard a moment in time belongs to.

Periods are named ``all`` (all_time), ``2026-11-21`` (daily), ``2026-W47`` (ISO 8601 week,
starting Monday 00:00), ``2026-11`` (monthly), a season's id, or, in a cron window, the instant
it starts (``rankline.cron``). Days, weeks and months turn over at midnight UTC, or at local
midnight in the board's (or the window's) time zone, and keep the local date as their name.
``starts_at`` is inclusive and ``ends_at`` exclusive.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, tzinfo

from rankline.cron import CronWindow
from rankline.runtime.clock import from_micros, to_micros
from rankline.types import Micros

ALL_TIME_PERIOD = "all"
_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)
_WEEK = re.compile(r"(\d{4})-W(\d{2})", re.ASCII)
_MONTH = re.compile(r"(\d{4})-(\d{2})", re.ASCII)


@dataclass(frozen=True, slots=True)
class Season:
    id: str
    starts_at: Micros
    ends_at: Micros


@dataclass(frozen=True, slots=True)
class Period:
    window: str
    name: str
    starts_at: Micros | None
    ends_at: Micros | None

    def closes_at(self, grace_seconds: int) -> Micros | None:
        """When the period stops taking submissions (its end plus the grace)."""
        return None if self.ends_at is None else self.ends_at + grace_seconds * 1_000_000

    def is_closed(self, now: Micros, grace_seconds: int) -> bool:
        closes = self.closes_at(grace_seconds)
        return closes is not None and now >= closes


def _midnight(day: date, zone: tzinfo = UTC) -> Micros:
    """The first instant of ``day`` in ``zone``: local midnight, or, where a change of
    offset skips midnight, the instant of the change (zoneinfo's fold=0 reading)."""
    return to_micros(datetime(day.year, day.month, day.day, tzinfo=zone))


def _day(day: date, zone: tzinfo = UTC) -> Period:
    return Period(
        "daily", day.isoformat(), _midnight(day, zone), _midnight(day + timedelta(days=1), zone)
    )


def _week(year: int, week: int, zone: tzinfo = UTC) -> Period:
    monday = date.fromisocalendar(year, week, 1)
    return Period(
        "weekly",
        f"{year:04d}-W{week:02d}",
        _midnight(monday, zone),
        _midnight(monday + timedelta(7), zone),
    )


def _month(year: int, month: int, zone: tzinfo = UTC) -> Period:
    start = date(year, month, 1)
    end = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return Period(
        "monthly", f"{year:04d}-{month:02d}", _midnight(start, zone), _midnight(end, zone)
    )


def _season(season: Season) -> Period:
    return Period("season", season.id, season.starts_at, season.ends_at)


ALL_TIME = Period("all_time", ALL_TIME_PERIOD, None, None)


@dataclass(frozen=True, slots=True)
class Schedule:
    """Numbered editions standing in for a board's seasons: edition ``n`` (1, 2, ...) runs
    from ``first_start + (n - 1) * every`` for ``length`` microseconds; without ``every``
    there is only edition 1. A tournament's board ranks each edition as a season."""

    first_start: Micros
    length: Micros
    every: Micros | None = None

    def _edition(self, number: int) -> Period:
        start = self.first_start + (number - 1) * (self.every or 0)
        return Period("season", str(number), start, start + self.length)

    def number_at(self, at: Micros) -> int:
        """The number of the last edition started at ``at`` (0 before the first)."""
        if at < self.first_start:
            return 0
        if self.every is None:
            return 1
        return (at - self.first_start) // self.every + 1

    def edition_at(self, at: Micros) -> Period | None:
        """The edition running at ``at`` (None before the first, between two, after the
        last)."""
        number = self.number_at(at)
        if number == 0:
            return None
        edition = self._edition(number)
        assert edition.ends_at is not None
        return edition if at < edition.ends_at else None

    def current(self, now: Micros) -> Period:
        """The edition running at ``now``, else the one that ended last, else the first."""
        return self._edition(max(1, self.number_at(now)))

    def edition(self, name: str) -> Period:
        """The edition called ``name`` (its number); ValueError when there is none."""
        if not name.isdigit() or name != str(int(name)) or int(name) < 1:
            raise ValueError(f"no edition {name!r} (editions are numbered 1, 2, ...)")
        if self.every is None and name != "1":
            raise ValueError(f"no edition {name!r} (editions are numbered 1, 2, ...)")
        return self._edition(int(name))


Seasons = Sequence[Season] | Schedule
"""A board's seasons: a list of named ones, or a tournament's schedule of editions."""


@dataclass(frozen=True, slots=True)
class Calendar:
    """Everything that places a board's periods in time: its seasons, the time zone of each
    calendar window (``daily``, ``weekly``, ``monthly``; UTC where none is named) and its
    cron windows by id."""

    seasons: Seasons = ()
    zones: Mapping[str, tzinfo] = field(default_factory=dict)
    crons: Mapping[str, CronWindow] = field(default_factory=dict)
    recent: dict[str, Period] = field(default_factory=dict, compare=False, repr=False)
    """The last period found per window (days, weeks, months, cron windows): most
    submissions land in the current one, and a zone's offsets or a croniter step cost
    microseconds to work out (``rankline bench probe calendar``)."""


_PLAIN = Calendar()
"""No seasons, UTC: what a call without a calendar means."""


def _calendar(given: Calendar | Seasons) -> Calendar:
    if isinstance(given, Calendar):
        return given
    return _PLAIN if isinstance(given, Sequence) and not given else Calendar(given)


def _cron_period(cron: CronWindow, at: Micros) -> Period:
    name, start, end = cron.span_at(at)
    return Period(cron.id, name, start, end)


def period_at(window: str, at: Micros, calendar: Calendar | Seasons = ()) -> Period | None:
    """The period of ``window`` that contains ``at``; None when no season contains it."""
    calendar = _calendar(calendar)
    seasons = calendar.seasons
    if window == "all_time":
        return ALL_TIME
    if window == "season":
        if isinstance(seasons, Schedule):
            return seasons.edition_at(at)
        for season in seasons:
            if season.starts_at <= at < season.ends_at:
                return _season(season)
        return None
    recent = calendar.recent.get(window)
    if (
        recent is not None
        and recent.starts_at is not None
        and recent.ends_at is not None
        and recent.starts_at <= at < recent.ends_at
    ):
        return recent
    if (cron := calendar.crons.get(window)) is not None:
        found = _cron_period(cron, at)
        calendar.recent[window] = found
        return found
    zone = calendar.zones.get(window, UTC)
    day = from_micros(at).astimezone(zone).date()
    if window == "daily":
        found = _day(day, zone)
    elif window == "weekly":
        year, week, _ = day.isocalendar()
        found = _week(year, week, zone)
    elif window == "monthly":
        found = _month(day.year, day.month, zone)
    else:
        raise ValueError(f"unknown window {window!r}")
    calendar.recent[window] = found
    return found


def current_period(window: str, now: Micros, calendar: Calendar | Seasons = ()) -> Period | None:
    """The period a read without ``period`` means: the one containing now.

    For seasons between two seasons, the one that ended last (its standings are what
    players look at until the next starts); before the first season, the first one.
    """
    found = period_at(window, now, calendar)
    if found is not None or window != "season":
        return found
    seasons = _calendar(calendar).seasons
    if isinstance(seasons, Schedule):
        return seasons.current(now)
    if not seasons:
        return None
    ended = [s for s in seasons if s.ends_at <= now]
    if ended:
        return _season(max(ended, key=lambda s: s.ends_at))
    return _season(min(seasons, key=lambda s: s.starts_at))


def parse_period(window: str, name: str, calendar: Calendar | Seasons = ()) -> Period:
    """The period called ``name`` in ``window``; ValueError when there is no such period."""
    calendar = _calendar(calendar)
    seasons, zone = calendar.seasons, calendar.zones.get(window, UTC)
    if (cron := calendar.crons.get(window)) is not None:
        start, end = cron.span_named(name)
        return Period(window, name, start, end)
    try:
        if window == "all_time":
            if name == ALL_TIME_PERIOD:
                return ALL_TIME
        elif window == "season":
            if isinstance(seasons, Schedule):
                return seasons.edition(name)
            for season in seasons:
                if season.id == name:
                    return _season(season)
            raise ValueError(f"no season {name!r} on this board")
        elif window == "daily" and (m := _DAY.fullmatch(name)):
            return _day(date(int(m[1]), int(m[2]), int(m[3])), zone)
        elif window == "weekly" and (m := _WEEK.fullmatch(name)):
            return _week(int(m[1]), int(m[2]), zone)
        elif window == "monthly" and (m := _MONTH.fullmatch(name)):
            return _month(int(m[1]), int(m[2]), zone)
    except (ValueError, OverflowError) as exc:  # OverflowError: the day after 9999-12-31
        raise ValueError(f"{name!r} is not a {window} period: {exc}") from None
    examples = {
        "all_time": "all",
        "daily": "2026-11-21",
        "weekly": "2026-W47",
        "monthly": "2026-11",
    }
    expected = examples.get(window, "a period name")
    raise ValueError(f"{name!r} is not a {window} period (expected e.g. {expected!r})")
