"""Score policies: how a new submission combines with a player's current entry."""

from __future__ import annotations

from typing import NamedTuple

from rankline.errors import InvalidInput
from rankline.ordering import SCORE_MAX, SCORE_MIN
from rankline.types import Micros, Order, Policy, Score


class Entry(NamedTuple):
    score: Score
    achieved_at: Micros


def combine(
    policy: Policy, order: Order, current: Entry | None, score: Score, at: Micros
) -> Entry | None:
    """The entry after the submission, or None when the policy keeps the current one.

    - ``best``: only a strictly better score replaces (an equal one keeps the earlier time);
    - ``latest``: a submission replaces when its ``at`` is later (late, older events lose);
    - ``sum``: scores add up; ``achieved_at`` becomes the submission's ``at``;
    - ``first``: the first submission received stays forever;
    - ``rating``: the caller computed the new rating; it always replaces.
    """
    if current is None:
        return Entry(score, at)
    if policy == "best":
        better = score > current.score if order == "desc" else score < current.score
        return Entry(score, at) if better else None
    if policy == "latest":
        return Entry(score, at) if at > current.achieved_at else None
    if policy == "sum":
        total = current.score + score
        if not SCORE_MIN <= total <= SCORE_MAX:
            raise InvalidInput.at(["body", "score"], "the sum would leave the signed 64-bit range")
        return Entry(total, at)
    if policy == "first":
        return None
    if policy == "rating":
        return Entry(score, at)
    raise ValueError(f"unknown policy {policy!r}")
