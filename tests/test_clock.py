"""Times in answers: RFC 3339, UTC, millisecond precision, for every representable time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from rankline.runtime.clock import format_instant, format_time, parse_time

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_FIRST = int((datetime(1, 1, 1, tzinfo=UTC) - _EPOCH) // timedelta(microseconds=1))
_LAST = int(
    (datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC) - _EPOCH) // timedelta(microseconds=1)
)


@given(st.integers(min_value=_FIRST, max_value=_LAST))
def test_format_time_agrees_with_datetime(micros: int) -> None:
    when = _EPOCH + timedelta(microseconds=micros)
    expected = when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"
    if when.year < 1000:
        expected = f"{when.year:04d}" + expected[expected.index("-") :]
    assert format_time(micros) == expected
    assert parse_time(format_time(micros)) == micros - micros % 1000


def test_the_edges_of_a_day_and_times_outside_datetime() -> None:
    day = 86_400_000_000
    assert format_time(0) == "1970-01-01T00:00:00.000Z"
    assert format_time(day - 1) == "1970-01-01T23:59:59.999Z"
    assert format_time(day) == "1970-01-02T00:00:00.000Z"
    assert format_time(-1) == "1969-12-31T23:59:59.999Z"
    assert format_time(_LAST + 1).startswith("@")


@given(st.integers(min_value=_FIRST - 10**9, max_value=_LAST + 10**9), st.integers(0, 999))
def test_format_instant_is_format_time_remembered(micros: int, within: int) -> None:
    """Remembered per millisecond, even for another microsecond of it; the out-of-range
    form, which names the microsecond, is never shared."""
    assert format_instant(micros) == format_time(micros)
    other = micros - micros % 1000 + within
    assert format_instant(other) == format_time(other)
