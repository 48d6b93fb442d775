"""Periods: which leaderboard a moment belongs to, at UTC day, week, month and season edges."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankline.periods import (
    ALL_TIME,
    Period,
    Season,
    current_period,
    parse_period,
    period_at,
)
from rankline.runtime.clock import ManualClock, from_micros, to_micros
from rankline.types import Micros

SECOND = 1_000_000
LAST_MICRO = (23, 59, 59, 999_999)


def utc(*parts: int) -> Micros:
    return to_micros(datetime(*parts, tzinfo=UTC))


def named(window: str, at: Micros, seasons: tuple[Season, ...] = ()) -> str:
    period = period_at(window, at, seasons)
    assert period is not None
    return period.name


S1 = Season("s1", utc(2026, 1, 1), utc(2026, 4, 1))
S2 = Season("s2", utc(2026, 5, 1), utc(2026, 8, 1))
SEASONS = (S2, S1)  # deliberately not in time order


@pytest.mark.parametrize(
    "at",
    [utc(2026, 12, 28), utc(2026, 12, 31, 12), utc(2027, 1, 1), utc(2027, 1, 3, *LAST_MICRO)],
)
def test_year_end_days_fall_in_2026_w53(at: Micros) -> None:
    period = period_at("weekly", at)
    assert period == Period("weekly", "2026-W53", utc(2026, 12, 28), utc(2027, 1, 4))


def test_2027_w01_starts_monday_2027_01_04_midnight_utc() -> None:
    period = period_at("weekly", utc(2027, 1, 4))
    assert period == Period("weekly", "2027-W01", utc(2027, 1, 4), utc(2027, 1, 11))
    assert period.starts_at is not None
    assert from_micros(period.starts_at).weekday() == 0


def test_day_edge_last_microsecond_and_midnight() -> None:
    assert named("daily", utc(2026, 11, 21, *LAST_MICRO)) == "2026-11-21"
    assert named("daily", utc(2026, 11, 22)) == "2026-11-22"
    assert period_at("daily", utc(2026, 11, 21, 13)) == Period(
        "daily", "2026-11-21", utc(2026, 11, 21), utc(2026, 11, 22)
    )


def test_december_to_january_month_edge() -> None:
    december = period_at("monthly", utc(2026, 12, 31, *LAST_MICRO))
    assert december == Period("monthly", "2026-12", utc(2026, 12, 1), utc(2027, 1, 1))
    assert named("monthly", utc(2027, 1, 1)) == "2027-01"
    assert named("daily", utc(2026, 12, 31, *LAST_MICRO)) == "2026-12-31"
    assert named("daily", utc(2027, 1, 1)) == "2027-01-01"


def test_leap_day_2028() -> None:
    assert named("daily", utc(2028, 2, 29, 12)) == "2028-02-29"
    assert parse_period("daily", "2028-02-29").ends_at == utc(2028, 3, 1)
    assert parse_period("monthly", "2028-02") == Period(
        "monthly", "2028-02", utc(2028, 2, 1), utc(2028, 3, 1)
    )
    assert named("monthly", utc(2028, 2, 29, *LAST_MICRO)) == "2028-02"
    assert named("monthly", utc(2028, 3, 1)) == "2028-03"


@given(
    window=st.sampled_from(["daily", "weekly", "monthly"]),
    at=st.integers(utc(1900, 1, 8), utc(2200, 12, 1)),
)
def test_period_contains_at_with_inclusive_start_and_exclusive_end(window: str, at: Micros) -> None:
    period = period_at(window, at)
    assert period is not None and period.starts_at is not None and period.ends_at is not None
    assert period.starts_at <= at < period.ends_at
    assert period_at(window, period.starts_at) == period
    assert period_at(window, period.ends_at - 1) == period
    following = period_at(window, period.ends_at)
    assert following is not None and following.starts_at == period.ends_at
    assert following.name > period.name
    preceding = period_at(window, period.starts_at - 1)
    assert preceding is not None and preceding.ends_at == period.starts_at
    assert parse_period(window, period.name) == period


@pytest.mark.parametrize(
    ("window", "name"),
    [
        ("weekly", "2026-W53"),
        ("weekly", "2020-W53"),
        ("weekly", "2026-W01"),
        ("daily", "2028-02-29"),
    ],
)
def test_parse_period_accepts_valid_names(window: str, name: str) -> None:
    assert parse_period(window, name).name == name


@pytest.mark.parametrize(
    ("window", "name"),
    [
        ("weekly", "2026-W54"),
        ("weekly", "2027-W53"),  # 2027 has 52 ISO weeks
        ("weekly", "2026-W00"),
        ("weekly", "2026-W1"),
        ("weekly", "2026-47"),
        ("monthly", "2026-13"),
        ("monthly", "2026-00"),
        ("monthly", "2026-1"),
        ("monthly", "2026-11-21"),
        ("daily", "2026-02-30"),
        ("daily", "2027-02-29"),
        ("daily", "2026-13-01"),
        ("daily", "2026-11-21T00"),
        ("daily", "2026/11/21"),
        ("daily", "all"),
        ("daily", "2026-11"),
        ("daily", ""),
        ("all_time", "2026"),
        ("all_time", "ALL"),
        ("season", "s3"),
    ],
)
def test_parse_period_rejects_malformed_names(window: str, name: str) -> None:
    with pytest.raises(ValueError, match="period"):
        parse_period(window, name, SEASONS)


def test_all_time_has_no_bounds_and_never_closes() -> None:
    assert period_at("all_time", utc(1950, 1, 1)) is ALL_TIME
    assert parse_period("all_time", "all") is ALL_TIME
    assert ALL_TIME.starts_at is None and ALL_TIME.ends_at is None
    assert ALL_TIME.closes_at(300) is None
    assert not ALL_TIME.is_closed(utc(2999, 1, 1), 0)


def test_unknown_window_raises_value_error() -> None:
    with pytest.raises(ValueError, match="hourly"):
        period_at("hourly", utc(2026, 1, 1))


def test_season_contains_start_but_not_end() -> None:
    assert named("season", S1.starts_at, SEASONS) == "s1"
    assert named("season", S1.ends_at - 1, SEASONS) == "s1"
    assert period_at("season", S1.ends_at, SEASONS) is None
    assert period_at("season", S1.starts_at - 1, SEASONS) is None
    assert period_at("season", S2.starts_at, SEASONS) == Period(
        "season", "s2", S2.starts_at, S2.ends_at
    )


def test_season_window_without_seasons_has_no_period() -> None:
    assert period_at("season", utc(2026, 2, 1)) is None
    assert current_period("season", utc(2026, 2, 1)) is None


def test_parse_period_finds_season_by_id() -> None:
    assert parse_period("season", "s2", SEASONS) == Period("season", "s2", S2.starts_at, S2.ends_at)


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (utc(2025, 6, 1), "s1"),  # before the first season: the first one
        (utc(2026, 2, 1), "s1"),  # inside s1
        (S1.ends_at, "s1"),  # between seasons: the one that ended last
        (S2.starts_at - 1, "s1"),
        (S2.starts_at, "s2"),
        (utc(2027, 1, 1), "s2"),  # after every season: the one that ended last
    ],
)
def test_current_season(now: Micros, expected: str) -> None:
    period = current_period("season", now, SEASONS)
    assert period is not None and period.name == expected


def test_current_period_of_calendar_windows_contains_now() -> None:
    clock = ManualClock(datetime(2027, 1, 3, 23, 59, 59, tzinfo=UTC))
    assert current_period("weekly", clock.now()) == period_at("weekly", clock.now())
    assert named("weekly", clock.now()) == "2026-W53"
    clock.advance(1)
    current = current_period("weekly", clock.now())
    assert current is not None and current.name == "2027-W01"


def test_is_closed_only_after_end_plus_grace() -> None:
    day = parse_period("daily", "2026-11-21")
    assert day.ends_at is not None
    assert day.closes_at(300) == day.ends_at + 300 * SECOND
    clock = ManualClock(day.ends_at - 1)
    assert not day.is_closed(clock.now(), 300)
    clock.set(day.ends_at)
    assert not day.is_closed(clock.now(), 300)
    clock.advance(300)
    assert day.is_closed(clock.now(), 300)
    clock.set(day.ends_at + 300 * SECOND - 1)
    assert not day.is_closed(clock.now(), 300)


def test_is_closed_with_zero_grace_at_end() -> None:
    day = parse_period("daily", "2026-11-21")
    assert day.ends_at is not None
    assert not day.is_closed(day.ends_at - 1, 0)
    assert day.is_closed(day.ends_at, 0)
