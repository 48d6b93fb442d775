"""FanOut: remembered fan-out answers exactly as ``Board.targets`` computes it."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import msgspec

from rankline.boards import Board, BoardSpec
from rankline.fanout import FanOut
from rankline.runtime.clock import to_micros
from rankline.types import Micros

HOUR = 3_600_000_000
SEASONS = [  # with a gap in May, where the season window has no period
    {"id": "spring", "start": "2026-03-01T00:00:00Z", "end": "2026-05-01T00:00:00Z"},
    {"id": "summer", "start": "2026-06-01T00:00:00Z", "end": "2026-09-01T00:00:00Z"},
]


def utc(*parts: int) -> Micros:
    return to_micros(datetime(*parts, tzinfo=UTC))


def board(**fields: Any) -> Board:
    return Board.define("arena", msgspec.convert(fields, BoardSpec))


def test_remembered_targets_equal_computed_ones_across_periods_and_graces() -> None:
    boards = [
        board(),
        board(windows=["all_time", "daily", "weekly", "monthly"], scopes=["region"]),
        board(windows=["daily"], seasons=SEASONS, grace_seconds=0),
        board(windows=["weekly"], grace_seconds=7200),
    ]
    fanout, rng = FanOut(), random.Random(7)
    now = utc(2026, 2, 20)
    for _ in range(20_000):
        now += rng.randrange(0, 3 * HOUR)  # time goes on, over midnights and graces
        at = now - rng.choice([0, 0, rng.randrange(0, 60 * HOUR)])  # some late events
        subject = rng.choice(boards)
        scopes = {"region": rng.choice(["eu", "us"])} if subject.spec.scopes else {}
        assert fanout.targets(subject, at, scopes, now) == subject.targets(at, scopes, now)


def test_late_event_after_the_grace_lands_on_a_closed_period() -> None:
    daily = board(windows=["all_time", "daily"], grace_seconds=3600)
    fanout = FanOut()
    midnight = utc(2026, 3, 2)
    late = midnight - 1  # the last microsecond of March 1
    open_ = fanout.targets(daily, late, {}, midnight + 3599_999_999)
    closed = fanout.targets(daily, late, {}, midnight + 3600_000_000)
    assert [t.closed for t in open_] == [False, False]
    assert [t.closed for t in closed] == [False, True]
    assert closed == daily.targets(late, {}, midnight + 3600_000_000)


def test_no_season_window_between_seasons() -> None:
    seasonal = board(seasons=SEASONS)
    fanout = FanOut()
    for at in (utc(2026, 4, 30, 23), utc(2026, 5, 15), utc(2026, 6, 1), utc(2026, 5, 31)):
        found = fanout.targets(seasonal, at, {}, at)
        assert found == seasonal.targets(at, {}, at)
    assert {t.leaderboard.window for t in fanout.targets(seasonal, utc(2026, 5, 15), {}, 0)} == {
        "all_time"
    }
