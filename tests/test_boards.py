"""Board definitions: validation, which changes a board with entries allows, and fan-out."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest

from rankline.boards import Board, BoardSpec, SeasonSpec, parse_scope
from rankline.errors import Conflict, InvalidInput
from rankline.runtime.clock import to_micros
from rankline.types import LeaderboardId, Micros

SECOND = 1_000_000
Q1 = SeasonSpec("s2026-q1", "2026-01-01T00:00:00Z", "2026-04-01T00:00:00Z")
Q2 = SeasonSpec("s2026-q2", "2026-04-01T00:00:00.000Z", "2026-07-01T00:00:00.000Z")
Q3 = SeasonSpec("s2026-q3", "2026-07-01T00:00:00Z", "2026-10-01T00:00:00Z")


def utc(*parts: int) -> Micros:
    return to_micros(datetime(*parts, tzinfo=UTC))


def define(**fields: Any) -> Board:
    """A board defined from JSON-like fields, decoded as the HTTP edge decodes a body."""
    return Board.define("arena", msgspec.convert(fields, BoardSpec))


def error_loc(**fields: Any) -> list[str | int]:
    with pytest.raises(InvalidInput) as caught:
        define(**fields)
    assert caught.value.status == 422
    assert caught.value.errors is not None and caught.value.errors[0]["msg"]
    loc: list[str | int] = caught.value.errors[0]["loc"]
    return loc


def full_board(**fields: Any) -> Board:
    return define(
        windows=["all_time", "daily", "weekly", "monthly"],
        scopes=["region", "country"],
        seasons=[Q1],
        **fields,
    )


# --- define ---------------------------------------------------------------------------------


def test_define_fills_id_title_and_defaults() -> None:
    board = define()
    assert (board.id, board.spec.id, board.spec.title) == ("arena", "arena", "arena")
    assert board.windows == ("all_time",)
    assert (board.order, board.policy, board.grace_seconds) == ("desc", "best", 300)
    assert board.retention_days == {"daily": 7, "weekly": 30, "monthly": 90, "season": 365}


def test_define_accepts_a_matching_id_and_keeps_the_title() -> None:
    board = define(id="arena", title="Arena Solo", retention_days={"daily": 2})
    assert board.spec.title == "Arena Solo"
    assert board.retention_days["daily"] == 2 and board.retention_days["weekly"] == 30


def test_id_mismatch_is_invalid() -> None:
    assert error_loc(id="other") == ["body", "id"]


def test_no_windows_is_invalid() -> None:
    assert error_loc(windows=[]) == ["body", "windows"]


def test_duplicate_windows_are_invalid() -> None:
    assert error_loc(windows=["daily", "all_time", "daily"]) == ["body", "windows"]


def test_season_window_without_seasons_is_invalid() -> None:
    assert error_loc(windows=["all_time", "season"]) == ["body", "seasons"]


def test_seasons_add_the_season_window() -> None:
    assert define(seasons=[Q1]).windows == ("all_time", "season")
    assert define(windows=[], seasons=[Q1]).windows == ("season",)
    assert define(windows=["season", "daily"], seasons=[Q1]).windows == ("season", "daily")


def test_duplicate_scopes_are_invalid() -> None:
    assert error_loc(scopes=["region", "region"]) == ["body", "scopes"]


def test_duplicate_season_ids_are_invalid() -> None:
    assert error_loc(seasons=[Q1, SeasonSpec(Q1.id, Q3.start, Q3.end)]) == ["body", "seasons"]


def test_overlapping_seasons_are_invalid() -> None:
    overlap = SeasonSpec("late-q1", "2026-03-31T23:59:59.999Z", "2026-05-01T00:00:00Z")
    assert error_loc(seasons=[Q3, overlap, Q1]) == ["body", "seasons"]
    inside = SeasonSpec("inside", "2026-02-01T00:00:00Z", "2026-02-02T00:00:00Z")
    assert error_loc(seasons=[Q1, inside]) == ["body", "seasons"]


def test_back_to_back_seasons_are_fine() -> None:
    board = define(seasons=[Q3, Q1, Q2])
    assert [s.id for s in board.seasons] == [Q3.id, Q1.id, Q2.id]
    assert board.seasons[1].ends_at == board.seasons[2].starts_at == utc(2026, 4, 1)


@pytest.mark.parametrize(
    ("start", "end"),
    [
        ("2026-04-01T00:00:00Z", "2026-04-01T00:00:00Z"),
        ("2026-05-01T00:00:00Z", "2026-04-01T00:00:00Z"),
    ],
)
def test_season_ending_at_or_before_its_start_is_invalid(start: str, end: str) -> None:
    assert error_loc(seasons=[Q1, SeasonSpec("bad", start, end)]) == ["body", "seasons", 1]


@pytest.mark.parametrize(
    "text",
    [
        "yesterday",
        "2026-01-01",
        "2026-01-01T00:00:00",  # no offset
        "2026-01-01T00:00:00.000",  # no offset, long enough to parse
        "2026-13-01T00:00:00Z",
        "2026-01-01X00:00:00.000Z",
    ],
)
def test_bad_season_times_are_invalid(text: str) -> None:
    assert error_loc(seasons=[SeasonSpec("s1", text, "2027-01-01T00:00:00Z")]) == [
        "body",
        "seasons",
        0,
    ]
    assert error_loc(seasons=[Q1, SeasonSpec("s1", "2026-06-01T00:00:00Z", text)]) == [
        "body",
        "seasons",
        1,
    ]


def test_season_times_with_an_offset_are_converted_to_utc() -> None:
    board = define(seasons=[SeasonSpec("s", "2026-01-01T02:00:00+02:00", "2026-02-01T00:00:00Z")])
    assert board.seasons[0].starts_at == utc(2026, 1, 1)


def test_min_score_above_max_score_is_invalid() -> None:
    assert error_loc(min_score=10, max_score=9) == ["body", "min_score"]
    assert define(min_score=10, max_score=10).spec.max_score == 10


@pytest.mark.parametrize("rating", [None, {}, {"system": "trueskill"}, {"k": 32}])
def test_rating_policy_needs_a_known_system(rating: dict[str, Any] | None) -> None:
    assert error_loc(policy="rating", rating=rating) == ["body", "rating", "system"]


@pytest.mark.parametrize("system", ["elo", "glicko2", "openskill"])
def test_rating_policy_with_a_known_system_is_fine(system: str) -> None:
    assert define(policy="rating", rating={"system": system}).policy == "rating"


def test_rating_config_on_a_non_rating_board_is_invalid() -> None:
    assert error_loc(policy="best", rating={"system": "elo"}) == ["body", "rating"]


# --- check_update ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("order", "asc"),
        ("policy", "latest"),
        ("windows", ["all_time", "daily", "weekly"]),
        ("windows", ["daily", "weekly", "monthly"]),
        ("scopes", ["region"]),
        ("scopes", ["region", "country", "platform"]),
    ],
)
def test_changing_an_immutable_field_conflicts(field: str, value: Any) -> None:
    old = full_board()
    fields: dict[str, Any] = {
        "windows": ["all_time", "daily", "weekly", "monthly"],
        "scopes": ["region", "country"],
        "seasons": [Q1],
        field: value,
    }
    with pytest.raises(Conflict, match=field):
        old.check_update(define(**fields))


def test_changing_a_season_conflicts() -> None:
    old = define(seasons=[Q1, Q2])
    moved = SeasonSpec(Q2.id, Q2.start, "2026-07-02T00:00:00Z")
    with pytest.raises(Conflict, match=Q2.id):
        old.check_update(define(seasons=[Q1, moved]))


def test_removing_a_season_conflicts() -> None:
    old = define(seasons=[Q1, Q2])
    with pytest.raises(Conflict, match=Q1.id):
        old.check_update(define(seasons=[Q2]))


def test_adding_a_season_is_fine() -> None:
    define(seasons=[Q1]).check_update(define(seasons=[Q2, Q1]))
    define().check_update(define(seasons=[Q1]))


def test_allowed_changes_are_fine() -> None:
    old = full_board()
    new = full_board(
        title="Renamed",
        status="frozen",
        min_score=0,
        max_score=1_000,
        metadata={"mode": "solo"},
        grace_seconds=60,
        retention_days={"daily": 1},
    )
    old.check_update(new)
    assert new.frozen and not old.frozen


def test_redefining_from_its_own_json_is_not_a_change() -> None:
    # GET a board, PUT it back: the implicit season window and normalized times must not count.
    old = full_board()
    again = Board.define("arena", msgspec.convert(old.to_json(), BoardSpec))
    old.check_update(again)
    assert again.windows == old.windows and again.seasons == old.seasons
    again.check_update(old)


# --- targets --------------------------------------------------------------------------------


def test_targets_fan_out_to_every_window_and_scope() -> None:
    board = define(windows=["all_time", "daily", "weekly", "monthly"], scopes=["region", "country"])
    at = utc(2026, 11, 21, 12)
    targets = board.targets(at, {"region": "EU", "country": "FR"}, at)
    periods = {"all_time": "all", "daily": "2026-11-21", "weekly": "2026-W47", "monthly": "2026-11"}
    expected = {
        LeaderboardId("arena", window, period, scope)
        for window, period in periods.items()
        for scope in ("global", "region:EU", "country:FR")
    }
    assert len(targets) == 12
    assert {t.leaderboard for t in targets} == expected
    assert not any(t.closed for t in targets)
    assert all(t.period.name == t.leaderboard.period for t in targets)


def test_targets_without_scopes_are_global_only() -> None:
    board = define(windows=["all_time", "daily"], scopes=["region"])
    targets = board.targets(utc(2026, 11, 21), {}, utc(2026, 11, 21))
    assert [t.leaderboard.scope for t in targets] == ["global", "global"]


def test_targets_close_only_after_end_plus_grace() -> None:
    board = define(windows=["all_time", "daily", "weekly"])
    at = utc(2026, 11, 20, 23, 59, 59)

    def closed(now: Micros) -> dict[str, bool]:
        return {t.leaderboard.window: t.closed for t in board.targets(at, {}, now)}

    assert closed(utc(2026, 11, 21) + 300 * SECOND - 1) == {
        "all_time": False,
        "daily": False,
        "weekly": False,
    }
    assert closed(utc(2026, 11, 21) + 300 * SECOND) == {
        "all_time": False,
        "daily": True,
        "weekly": False,
    }


def test_targets_use_the_board_grace() -> None:
    board = define(windows=["daily"], grace_seconds=0)
    (target,) = board.targets(utc(2026, 11, 20, 12), {}, utc(2026, 11, 21))
    assert target.closed and target.leaderboard.period == "2026-11-20"


def test_season_target_only_when_a_season_contains_at() -> None:
    board = define(windows=["all_time"], seasons=[Q1, Q3], scopes=["region"])
    inside = board.targets(utc(2026, 2, 1), {"region": "EU"}, utc(2026, 2, 1))
    seasonal = [t.leaderboard for t in inside if t.leaderboard.window == "season"]
    assert seasonal == [
        LeaderboardId("arena", "season", Q1.id, "global"),
        LeaderboardId("arena", "season", Q1.id, "region:EU"),
    ]
    between = board.targets(utc(2026, 5, 1), {"region": "EU"}, utc(2026, 5, 1))
    assert {t.leaderboard.window for t in between} == {"all_time"}
    at_end = board.targets(utc(2026, 4, 1), {}, utc(2026, 4, 1))
    assert [t.leaderboard.window for t in at_end] == ["all_time"]


def test_season_target_closes_after_its_end_plus_grace() -> None:
    board = define(windows=[], seasons=[Q1])
    late = board.targets(utc(2026, 3, 31, 23), {}, utc(2026, 4, 1) + 300 * SECOND)
    assert [(t.leaderboard.period, t.closed) for t in late] == [(Q1.id, True)]


# --- parse_scope ----------------------------------------------------------------------------


def test_parse_scope_accepts_global_and_declared_dimensions() -> None:
    board = define(scopes=["region"])
    assert parse_scope(board, "global") == "global"
    assert parse_scope(board, "region:EU") == "region:EU"


@pytest.mark.parametrize("scope", ["region", "region:", ":EU", "country:FR", "", "Global"])
def test_parse_scope_rejects_malformed_or_undeclared(scope: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_scope(define(scopes=["region"]), scope)
    assert caught.value.errors is not None
    assert caught.value.errors[0]["loc"] == ["query", "scope"]
