"""Score policies: how a submission combines with a player's current entry (API.md, Boards)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankline.errors import InvalidInput
from rankline.ordering import SCORE_MAX, SCORE_MIN
from rankline.policies import StandingScore, combine
from rankline.types import Order, Policy

ORDERS: tuple[Order, ...] = ("desc", "asc")
POLICIES: tuple[Policy, ...] = ("best", "latest", "sum", "first", "rating")
CURRENT = StandingScore(100, 1_000)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("policy", POLICIES)
def test_first_submission_always_counts(policy: Policy, order: Order) -> None:
    assert combine(policy, order, None, -5, 42) == StandingScore(-5, 42)


@pytest.mark.parametrize(
    ("order", "better", "worse"), [("desc", 101, 99), ("asc", 99, 101)], ids=ORDERS
)
def test_best_strictly_better_replaces(order: Order, better: int, worse: int) -> None:
    assert combine("best", order, CURRENT, better, 2_000) == StandingScore(better, 2_000)
    assert combine("best", order, CURRENT, better, 500) == StandingScore(better, 500)
    assert combine("best", order, CURRENT, worse, 2_000) is None


@pytest.mark.parametrize("order", ORDERS)
def test_best_equal_score_keeps_the_earlier_time(order: Order) -> None:
    assert combine("best", order, CURRENT, 100, 2_000) is None


@pytest.mark.parametrize(
    ("order", "top", "runner_up", "bottom"),
    [("desc", SCORE_MAX, SCORE_MAX - 1, SCORE_MIN), ("asc", SCORE_MIN, SCORE_MIN + 1, SCORE_MAX)],
    ids=ORDERS,
)
def test_best_at_64_bit_extremes(order: Order, top: int, runner_up: int, bottom: int) -> None:
    assert combine("best", order, StandingScore(runner_up, 1), top, 2) == StandingScore(top, 2)
    assert combine("best", order, StandingScore(top, 1), bottom, 2) is None
    assert combine("best", order, StandingScore(top, 1), top, 2) is None


@given(
    order=st.sampled_from(ORDERS),
    current=st.integers(-3, 3),
    score=st.integers(-3, 3),
    at=st.integers(0, 3),
)
def test_best_matches_naive_rule(order: Order, current: int, score: int, at: int) -> None:
    better = score > current if order == "desc" else score < current
    expected = StandingScore(score, at) if better else None
    assert combine("best", order, StandingScore(current, 1), score, at) == expected


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("score", [1, 100, 1_000])
def test_latest_later_submission_wins_whatever_its_score(order: Order, score: int) -> None:
    assert combine("latest", order, CURRENT, score, 1_001) == StandingScore(score, 1_001)


@pytest.mark.parametrize("order", ORDERS)
def test_latest_equal_time_changes_nothing(order: Order) -> None:
    assert combine("latest", order, CURRENT, 500, 1_000) is None


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("score", [1, 1_000_000, -1_000_000])
def test_latest_late_older_event_never_overwrites(order: Order, score: int) -> None:
    assert combine("latest", order, CURRENT, score, 999) is None


@pytest.mark.parametrize("order", ORDERS)
def test_sum_adds_and_takes_the_submission_time(order: Order) -> None:
    assert combine("sum", order, CURRENT, 23, 2_000) == StandingScore(123, 2_000)
    assert combine("sum", order, CURRENT, -150, 500) == StandingScore(-50, 500)
    assert combine("sum", order, CURRENT, 0, 3_000) == StandingScore(100, 3_000)


@pytest.mark.parametrize("order", ORDERS)
def test_sum_may_reach_the_64_bit_limits(order: Order) -> None:
    assert combine("sum", order, StandingScore(SCORE_MAX - 1, 0), 1, 5) == StandingScore(
        SCORE_MAX, 5
    )
    assert combine("sum", order, StandingScore(SCORE_MIN + 1, 0), -1, 5) == StandingScore(
        SCORE_MIN, 5
    )


@pytest.mark.parametrize(
    ("current", "score"),
    [(SCORE_MAX, 1), (SCORE_MAX - 5, 6), (SCORE_MIN, -1), (SCORE_MIN + 5, -6), (-1, SCORE_MIN)],
)
def test_sum_overflow_is_invalid_input(current: int, score: int) -> None:
    with pytest.raises(InvalidInput) as caught:
        combine("sum", "desc", StandingScore(current, 0), score, 1)
    assert caught.value.status == 422
    assert caught.value.errors is not None
    assert caught.value.errors[0]["loc"] == ["body", "score"]


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize(("score", "at"), [(1_000_000, 2_000), (-1_000_000, 2_000), (100, 1)])
def test_first_never_changes(order: Order, score: int, at: int) -> None:
    assert combine("first", order, CURRENT, score, at) is None


@pytest.mark.parametrize("order", ORDERS)
def test_rating_always_replaces(order: Order) -> None:
    assert combine("rating", order, CURRENT, 90, 500) == StandingScore(90, 500)


def test_unknown_policy_raises_value_error() -> None:
    with pytest.raises(ValueError, match="bogus"):
        combine("bogus", "desc", CURRENT, 1, 1)  # type: ignore[arg-type]
