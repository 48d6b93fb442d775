"""Periods in a time zone and cron windows, against models: local midnights built with
zoneinfo, and croniter's own firings iterated forward."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import msgspec
import pytest
from croniter import croniter
from hypothesis import given, settings
from hypothesis import strategies as st

from rankline.boards import Board, BoardSpec
from rankline.cron import CronWindow, check_cron
from rankline.errors import InvalidInput
from rankline.periods import Calendar, Period, current_period, parse_period, period_at
from rankline.runtime.clock import from_micros, to_micros
from rankline.types import Micros

HOUR = 3_600_000_000
LA, PARIS = ZoneInfo("America/Los_Angeles"), ZoneInfo("Europe/Paris")
ZONES = [LA, PARIS, ZoneInfo("Australia/Lord_Howe"), ZoneInfo("America/Santiago")]
"""Lord Howe moves by half an hour; Santiago's changes fall at midnight, so one of its days
starts at 01:00."""


def utc(*parts: int) -> Micros:
    return to_micros(datetime(*parts, tzinfo=UTC))


def local_midnight(day: date, zone: ZoneInfo) -> Micros:
    """The model: the first instant whose local date is ``day``."""
    naive = datetime.combine(day, time())
    for minutes in range(0, 24 * 60, 30):  # a gap over midnight moves the day's start later
        candidate = (naive + timedelta(minutes=minutes)).replace(tzinfo=zone)
        back = candidate.astimezone(UTC).astimezone(zone)
        if back.replace(tzinfo=None) == candidate.replace(tzinfo=None):
            return to_micros(candidate)
    raise AssertionError(f"no local time on {day} in {zone}")


def model_day(at: Micros, zone: ZoneInfo) -> Period:
    day = from_micros(at).astimezone(zone).date()
    start, end = local_midnight(day, zone), local_midnight(day + timedelta(days=1), zone)
    return Period("daily", day.isoformat(), start, end)


def model_week(at: Micros, zone: ZoneInfo) -> Period:
    day = from_micros(at).astimezone(zone).date()
    monday = day - timedelta(days=day.weekday())
    year, week, _ = day.isocalendar()
    start = local_midnight(monday, zone)
    end = local_midnight(monday + timedelta(days=7), zone)
    return Period("weekly", f"{year:04d}-W{week:02d}", start, end)


def model_month(at: Micros, zone: ZoneInfo) -> Period:
    day = from_micros(at).astimezone(zone).date()
    first = day.replace(day=1)
    after = (first + timedelta(days=32)).replace(day=1)
    return Period(
        "monthly", f"{day:%Y-%m}", local_midnight(first, zone), local_midnight(after, zone)
    )


def zoned(zone: ZoneInfo) -> Calendar:
    return Calendar((), {"daily": zone, "weekly": zone, "monthly": zone})


# --- days, weeks and months at local midnight ------------------------------------------


def test_a_23_hour_and_a_25_hour_day_in_los_angeles() -> None:
    calendar = zoned(LA)
    spring = period_at("daily", utc(2026, 3, 8, 12), calendar)
    assert spring == Period("daily", "2026-03-08", utc(2026, 3, 8, 8), utc(2026, 3, 9, 7))
    autumn = period_at("daily", utc(2026, 11, 1, 12), calendar)
    assert autumn == Period("daily", "2026-11-01", utc(2026, 11, 1, 7), utc(2026, 11, 2, 8))
    assert spring.ends_at is not None and spring.starts_at is not None
    assert spring.ends_at - spring.starts_at == 23 * HOUR
    assert autumn.ends_at is not None and autumn.starts_at is not None
    assert autumn.ends_at - autumn.starts_at == 25 * HOUR
    # the local date names the period, not the UTC one
    assert period_at("daily", utc(2026, 11, 2, 7, 59, 59), calendar) == autumn
    assert parse_period("daily", "2026-11-01", calendar) == autumn
    assert parse_period("daily", "2026-03-08", calendar) == spring


def test_a_week_and_a_month_over_a_change_in_paris() -> None:
    calendar = zoned(PARIS)
    week = period_at("weekly", utc(2026, 10, 25, 12), calendar)  # clocks go back that Sunday
    assert week == Period("weekly", "2026-W43", utc(2026, 10, 18, 22), utc(2026, 10, 25, 23))
    month = period_at("monthly", utc(2026, 3, 31, 22, 30), calendar)  # April 00:30 in Paris
    assert month == Period("monthly", "2026-04", utc(2026, 3, 31, 22), utc(2026, 4, 30, 22))


def test_a_day_whose_midnight_a_change_skips_starts_at_the_change() -> None:
    santiago = ZoneInfo("America/Santiago")  # 2026-09-06 00:00 -04 becomes 01:00 -03
    day = period_at("daily", utc(2026, 9, 6, 12), zoned(santiago))
    assert day == Period("daily", "2026-09-06", utc(2026, 9, 6, 4), utc(2026, 9, 7, 3))


@settings(max_examples=300, deadline=None)
@given(
    at=st.integers(utc(2025, 12, 20), utc(2027, 1, 10)),
    zone=st.sampled_from(ZONES),
)
def test_periods_match_the_zoneinfo_model(at: Micros, zone: ZoneInfo) -> None:
    calendar = zoned(zone)
    for window, model in (("daily", model_day), ("weekly", model_week), ("monthly", model_month)):
        found = period_at(window, at, calendar)
        assert found == model(at, zone), window
        assert found.starts_at is not None and found.ends_at is not None
        assert found.starts_at <= at < found.ends_at
        assert parse_period(window, found.name, calendar) == found
        assert current_period(window, at, calendar) == found


def test_utc_stays_the_default() -> None:
    assert period_at("daily", utc(2026, 11, 1, 12)) == Period(
        "daily", "2026-11-01", utc(2026, 11, 1), utc(2026, 11, 2)
    )


# --- cron windows against croniter's firings -------------------------------------------

CRONS = [
    ("0 18 * * FRI", PARIS),
    ("30 2 * * *", PARIS),  # skipped in March, repeated in October
    ("0 * * * *", PARIS),
    ("15 0 * * *", LA),
    ("0 1 1 * *", LA),  # monthly: compared in the hypothesis test
    ("*/45 1-3 * * SUN", LA),
    ("0 0 * * MON", ZoneInfo("UTC")),
]


def firings(expression: str, zone: ZoneInfo, start: datetime, until: datetime) -> list[Micros]:
    """croniter's own firings from ``start`` (exclusive) to ``until``, iterated forward
    (400 at most: two weeks and more of an hourly window)."""
    found: list[Micros] = []
    it = croniter(expression, start.astimezone(zone))
    while (at := it.get_next(datetime)) < until and len(found) < 400:
        found.append(to_micros(at))
    return found


@pytest.mark.parametrize(("expression", "zone"), CRONS)
def test_cron_periods_run_from_one_croniter_firing_to_the_next(
    expression: str, zone: ZoneInfo
) -> None:
    spans = [
        (datetime(2026, 3, 20, tzinfo=UTC), datetime(2026, 4, 3, tzinfo=UTC)),
        (datetime(2026, 10, 20, tzinfo=UTC), datetime(2026, 11, 5, tzinfo=UTC)),
    ]
    for start, until in spans:
        fired = firings(expression, zone, start, until + timedelta(days=31))
        assert len(fired) >= 2
        for begins, ends in itertools.pairwise(fired):
            window = CronWindow("event", expression, zone)  # a fresh one: no cached period
            calendar = Calendar((), {}, {"event": window})
            name = from_micros(begins).strftime("%Y-%m-%dT%H:%M:%SZ")
            expected = Period("event", name, begins, ends)
            for at in (begins, begins + (ends - begins) // 2, ends - 1):
                assert period_at("event", at, calendar) == expected
            assert parse_period("event", name, calendar) == expected
            assert period_at("event", ends, calendar) != expected


@settings(max_examples=200, deadline=None)
@given(
    at=st.integers(utc(2026, 1, 1), utc(2027, 1, 1)),
    cron=st.sampled_from(CRONS),
)
def test_any_instant_lies_between_the_croniter_firings_around_it(
    at: Micros, cron: tuple[str, ZoneInfo]
) -> None:
    expression, zone = cron
    calendar = Calendar((), {}, {"event": CronWindow("event", expression, zone)})
    found = period_at("event", at, calendar)
    assert found is not None and found.starts_at is not None and found.ends_at is not None
    assert found.starts_at <= at < found.ends_at
    after = croniter(expression, from_micros(found.starts_at).astimezone(zone))
    assert to_micros(after.get_next(datetime)) == found.ends_at
    assert croniter.match(expression, from_micros(found.starts_at).astimezone(zone))


def test_dst_skipped_firing_comes_at_the_change_and_a_repeated_one_fires_twice() -> None:
    calendar = Calendar((), {}, {"night": CronWindow("night", "30 2 * * *", PARIS)})
    # 2026-03-29: 02:30 does not exist in Paris; the firing comes at 03:00 CEST (01:00Z)
    skipped = period_at("night", utc(2026, 3, 29, 12), calendar)
    assert skipped == Period(
        "night", "2026-03-29T01:00:00Z", utc(2026, 3, 29, 1), utc(2026, 3, 30, 0, 30)
    )
    before = period_at("night", utc(2026, 3, 29, 0, 59), calendar)
    assert before is not None and before.starts_at == utc(2026, 3, 28, 1, 30)
    # 2026-10-25: 02:30 happens twice (CEST, then CET): two firings, an hour apart
    first = period_at("night", utc(2026, 10, 25, 1), calendar)
    assert first == Period(
        "night", "2026-10-25T00:30:00Z", utc(2026, 10, 25, 0, 30), utc(2026, 10, 25, 1, 30)
    )
    second = period_at("night", utc(2026, 10, 25, 2), calendar)
    assert second == Period(
        "night", "2026-10-25T01:30:00Z", utc(2026, 10, 25, 1, 30), utc(2026, 10, 26, 1, 30)
    )


def test_a_name_that_is_not_a_firing_is_refused() -> None:
    calendar = Calendar((), {}, {"event": CronWindow("event", "0 18 * * FRI", PARIS)})
    assert parse_period("event", "2026-11-20T17:00:00Z", calendar).ends_at == utc(2026, 11, 27, 17)
    for name in ("2026-11-20T18:00:00Z", "2026-11-20", "2026-13-20T17:00:00Z", "all"):
        with pytest.raises(ValueError):
            parse_period("event", name, calendar)


# --- definitions ------------------------------------------------------------------------


def define(**spec: object) -> Board:
    return Board.define("b", msgspec.convert(spec, BoardSpec))


def test_a_board_zone_applies_to_calendar_windows_and_a_window_zone_wins() -> None:
    board = define(
        windows=[
            "all_time",
            "daily",
            {"id": "weekly", "timezone": "Europe/Paris"},
            {"id": "friday-event", "cron": "0 18 * * FRI"},
        ],
        timezone="America/Los_Angeles",
    )
    assert board.windows == ("all_time", "daily", "weekly", "friday-event")
    assert board.calendar.zones == {"daily": LA, "weekly": PARIS}
    assert board.calendar.crons["friday-event"].zone == LA
    assert board.retention_days["friday-event"] == 7
    shown = board.to_json()
    assert shown["timezone"] == "America/Los_Angeles"
    assert shown["windows"][2:] == [
        {"id": "weekly", "timezone": "Europe/Paris"},
        {"id": "friday-event", "cron": "0 18 * * FRI"},
    ]
    assert "friday-event" not in shown["retention_days"]
    again = define(**{k: v for k, v in shown.items() if k != "id"})
    assert again.to_json() == shown


@pytest.mark.parametrize(
    ("spec", "loc"),
    [
        ({"timezone": "Mars/Olympus"}, ["body", "timezone"]),
        ({"windows": [{"id": "daily"}]}, ["body", "windows", 0]),
        ({"windows": [{"id": "daily", "cron": "0 0 * * *", "timezone": "UTC"}]}, None),
        ({"windows": [{"id": "all_time", "timezone": "UTC"}]}, ["body", "windows", 0]),
        ({"windows": [{"id": "event"}]}, ["body", "windows", 0]),
        ({"windows": [{"id": "event", "cron": "0 18 * *"}]}, ["body", "windows", 0, "cron"]),
        ({"windows": [{"id": "event", "cron": "0 0 30 2 *"}]}, ["body", "windows", 0, "cron"]),
        ({"windows": [{"id": "event", "cron": "0 61 * * *"}]}, ["body", "windows", 0, "cron"]),
        (
            {"windows": [{"id": "event", "cron": "0 0 * * *", "timezone": "Nowhere"}]},
            ["body", "windows", 0, "timezone"],
        ),
        (
            {"windows": ["daily", {"id": "daily", "timezone": "UTC"}]},
            ["body", "windows"],
        ),
    ],
)
def test_bad_zones_and_crons_are_refused(spec: dict[str, object], loc: list[object]) -> None:
    with pytest.raises(InvalidInput) as caught:
        define(**spec)
    if loc is not None:
        assert caught.value.errors is not None
        assert [e["loc"] for e in caught.value.errors] == [loc]


def test_check_cron_accepts_what_croniter_fires() -> None:
    assert check_cron("0 18 * * FRI") is None
    assert check_cron("*/5 * * * *") is None
    assert check_cron("0 0 * * * 30") is not None  # croniter's seconds field: not taken
