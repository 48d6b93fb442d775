"""Score policies: how a new submission combines with a player's current entry."""

from __future__ import annotations

from typing import NamedTuple

from rankline.errors import InvalidInput
from rankline.ordering import SCORE_MAX, SCORE_MIN
from rankline.types import Micros, Order, Policy, Score


class StandingScore(NamedTuple):
    """What a policy combines a submission with and answers: a standing's score, the time
    it was reached and its subscore (the rest of a ``types.Standing`` is where it stands)."""

    score: Score
    achieved_at: Micros
    subscore: Score | None = None
    """None on a board without a subscore."""


def better(
    order: Order, sub_order: Order | None, score: Score, subscore: Score | None, than: StandingScore
) -> bool:
    """Whether (score, subscore) is strictly better than ``than``'s: the subscore (in its
    own order) decides between equal scores."""
    if score != than.score:
        return score > than.score if order == "desc" else score < than.score
    if sub_order is None or subscore is None or than.subscore is None or subscore == than.subscore:
        return False
    return subscore > than.subscore if sub_order == "desc" else subscore < than.subscore


def _add(a: Score, b: Score, field: str) -> Score:
    total = a + b
    if not SCORE_MIN <= total <= SCORE_MAX:
        raise InvalidInput.at(["body", field], "the sum would leave the signed 64-bit range")
    return total


def combine(
    policy: Policy,
    order: Order,
    current: StandingScore | None,
    score: Score,
    at: Micros,
    subscore: Score | None = None,
    sub_order: Order | None = None,
) -> StandingScore | None:
    """The entry after the submission, or None when the policy keeps the current one.

    On a board with a subscore (``sub_order``), (score, subscore) is one value: ``best``
    compares the pair, ``latest``, ``first`` and ``rating`` keep or replace both together,
    and ``sum`` adds the scores and the subscores (each must stay in 64 bits).

    - ``best``: only a strictly better score replaces (an equal one keeps the earlier time);
    - ``latest``: a submission replaces when its ``at`` is later (late, older events lose);
    - ``sum``: scores add up; ``achieved_at`` becomes the submission's ``at``;
    - ``first``: the first submission received stays forever;
    - ``rating``: the caller computed the new rating; it always replaces.
    """
    new = StandingScore(score, at, subscore)
    if current is None:
        return new
    if policy == "best":
        return new if better(order, sub_order, score, subscore, current) else None
    if policy == "latest":
        return new if at > current.achieved_at else None
    if policy == "sum":
        total = _add(current.score, score, "score")
        if subscore is None or current.subscore is None:
            return StandingScore(total, at)
        return StandingScore(total, at, _add(current.subscore, subscore, "subscore"))
    if policy == "first":
        return None
    if policy == "rating":
        return new
    raise ValueError(f"unknown policy {policy!r}")
