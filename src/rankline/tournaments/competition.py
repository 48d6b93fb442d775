"""Tournament definitions: the schedule of editions, the rules of entry and the reward table.

A tournament ranks on a board of the same id whose only window is ``season`` and whose
seasons are the tournament's editions (``periods.Schedule``): edition 1 runs from
``starts_at`` to ``ends_at``, and a recurring one starts again every day, week or
``every_seconds``. Scores, reads, streams and archives are the board's.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from rankline.boards import (
    BOARD_ID_PATTERN,
    DEFAULT_GRACE_SECONDS,
    BoardSpec,
    ScheduleSpec,
    TierSpec,
)
from rankline.errors import Conflict, InvalidInput
from rankline.periods import Period, Schedule
from rankline.runtime.clock import format_time, parse_time
from rankline.types import Micros, Order, Window

TOURNAMENT_WINDOW: Window = "season"
"""The window of a tournament's board; its periods are the editions (``1``, ``2``, ...)."""
_EVERY = {"daily": 86_400, "weekly": 7 * 86_400}


class RewardSpec(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """A band of the final ranking and its reward: ``ranks`` [first, last] (inclusive) or
    ``top_percent`` (ranks up to ceil(players * top_percent / 100)); the first band listed
    that holds a rank gives its reward."""

    reward: dict[str, Any]
    ranks: Annotated[list[Annotated[int, Meta(ge=1)]], Meta(min_length=2, max_length=2)] | None = (
        None
    )
    top_percent: Annotated[float, Meta(gt=0, le=100)] | None = None


class WebhookSpec(msgspec.Struct, forbid_unknown_fields=True):
    """Where an ended edition's results are posted, signed with ``secret``."""

    url: Annotated[str, Meta(pattern=r"^https?://", max_length=2000)]
    secret: Annotated[str, Meta(min_length=1, max_length=500)]


class TournamentSpec(msgspec.Struct, forbid_unknown_fields=True):
    """A tournament definition, as PUT carries it."""

    starts_at: str
    ends_at: str
    id: Annotated[str, Meta(pattern=BOARD_ID_PATTERN)] | None = None
    title: Annotated[str, Meta(max_length=200)] | None = None
    order: Order = "desc"
    policy: Literal["best", "latest", "sum", "first"] = "best"
    tiers: list[TierSpec] = msgspec.field(default_factory=list)
    subscore: Order | None = None
    grace_seconds: Annotated[int, Meta(ge=0, le=31 * 86_400)] = DEFAULT_GRACE_SECONDS
    recurrence: Literal["daily", "weekly"] | None = None
    every_seconds: Annotated[int, Meta(ge=1, le=366 * 86_400)] | None = None
    """A recurrence of any period (the other choice to ``recurrence``)."""
    max_size: Annotated[int, Meta(ge=1, le=2**31 - 1)] | None = None
    join_required: bool = False
    max_submissions: Annotated[int, Meta(ge=1, le=2**31 - 1)] | None = None
    cohort_size: Annotated[int, Meta(ge=1, le=1_000_000)] | None = None
    rewards: Annotated[list[RewardSpec], Meta(max_length=100)] = msgspec.field(default_factory=list)
    webhook: WebhookSpec | None = None
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)


def _bad(loc: list[str | int], msg: str) -> InvalidInput:
    return InvalidInput.at(["body", *loc], msg)


class Refused(Conflict):
    """A tournament refused a join or a submission: ``reason`` says why (nothing recorded)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


class Tournament:
    """A validated tournament definition."""

    __slots__ = ("id", "schedule", "spec")

    def __init__(self, spec: TournamentSpec) -> None:
        assert spec.id is not None
        self.spec = spec
        self.id: str = spec.id
        every = spec.every_seconds or _EVERY.get(spec.recurrence or "")
        start, end = parse_time(spec.starts_at), parse_time(spec.ends_at)
        self.schedule = Schedule(start, end - start, None if every is None else every * 1_000_000)

    @classmethod
    def define(cls, tournament_id: str, spec: TournamentSpec) -> Tournament:
        """Validate a definition given for ``tournament_id``; InvalidInput when it is wrong."""
        if spec.id is not None and spec.id != tournament_id:
            raise _bad(["id"], f"the body's id {spec.id!r} differs from the path's")
        spec = msgspec.structs.replace(spec, id=tournament_id, title=spec.title or tournament_id)
        for name in ("starts_at", "ends_at"):
            try:
                parse_time(getattr(spec, name))
            except ValueError as exc:
                raise _bad([name], str(exc)) from None
        if parse_time(spec.starts_at) >= parse_time(spec.ends_at):
            raise _bad(["ends_at"], "a tournament must end after it starts")
        if spec.recurrence is not None and spec.every_seconds is not None:
            raise _bad(["every_seconds"], "give recurrence or every_seconds, not both")
        for i, reward in enumerate(spec.rewards):
            if (reward.ranks is None) == (reward.top_percent is None):
                raise _bad(["rewards", i], "a reward has exactly one of ranks and top_percent")
            if reward.ranks is not None and reward.ranks[0] > reward.ranks[1]:
                raise _bad(["rewards", i, "ranks"], "ranks are [first, last] with first <= last")
        tournament = cls(spec)
        every = tournament.schedule.every
        if every is not None and every < tournament.schedule.length:
            raise _bad(["ends_at"], "an edition would last longer than the recurrence period")
        return tournament

    def board_spec(self) -> BoardSpec:
        """The definition of the board the tournament ranks on."""
        spec = self.spec
        every = self.schedule.every
        return BoardSpec(
            id=self.id,
            title=spec.title,
            order=spec.order,
            policy=spec.policy,
            windows=[TOURNAMENT_WINDOW],
            grace_seconds=spec.grace_seconds,
            tiers=spec.tiers,
            subscore=spec.subscore,
            cohort_size=spec.cohort_size,
            schedule=ScheduleSpec(
                spec.starts_at, spec.ends_at, None if every is None else every // 1_000_000
            ),
            metadata={"tournament": True},
        )

    def edition_to_join(self, now: Micros) -> Period:
        """The edition running now, else the next one; Refused when none is left."""
        number = max(1, self.schedule.number_at(now))
        edition = self.schedule.edition(str(number))
        assert edition.ends_at is not None
        if now >= edition.ends_at:
            if self.schedule.every is None:
                raise Refused("ended", f"the tournament ended at {format_time(edition.ends_at)}")
            edition = self.schedule.edition(str(number + 1))
        return edition

    def edition_of(self, at: Micros, now: Micros) -> Period:
        """The edition a submission at ``at`` counts in; Refused outside the schedule (before
        the edition starts, after it ends) and once its grace has passed."""
        edition = self.schedule.edition_at(at)
        if edition is None:
            current = self.schedule.current(at)
            assert current.starts_at is not None and current.ends_at is not None
            if at < current.starts_at:
                raise Refused(
                    "not_started", f"the tournament starts at {format_time(current.starts_at)}"
                )
            raise Refused(
                "ended", f"edition {current.name} ended at {format_time(current.ends_at)}"
            )
        if edition.is_closed(now, self.spec.grace_seconds):
            raise Refused("closed", f"edition {edition.name} is final (its grace has passed)")
        return edition

    def closes_at(self, edition: Period) -> Micros:
        closes = edition.closes_at(self.spec.grace_seconds)
        assert closes is not None
        return closes

    def ended_editions(self, now: Micros) -> list[Period]:
        """The editions whose grace has passed by ``now``, the latest first (at most 3, so a
        long outage does not replay years of daily editions)."""
        last = self.schedule.number_at(now)
        found = []
        for number in range(last, max(0, last - 3), -1):
            edition = self.schedule.edition(str(number))
            if edition.is_closed(now, self.spec.grace_seconds):
                found.append(edition)
        return found

    def to_json(self) -> dict[str, Any]:
        """The definition as GET answers it: the webhook's secret is never shown."""
        data: dict[str, Any] = msgspec.to_builtins(self.spec)
        if self.spec.webhook is not None:
            data["webhook"] = {"url": self.spec.webhook.url}
        return data

    def stored(self) -> dict[str, Any]:
        data: dict[str, Any] = msgspec.to_builtins(self.spec)
        return data


def reward_for(rewards: list[RewardSpec], rank: int, total: int) -> dict[str, Any] | None:
    """The reward of ``rank`` (1-based) among ``total`` ranked players: the first band that
    holds the rank, or None."""
    for band in rewards:
        if band.ranks is not None:
            if band.ranks[0] <= rank <= band.ranks[1]:
                return band.reward
        elif band.top_percent is not None and rank <= math.ceil(
            total * Fraction(repr(band.top_percent)) / 100
        ):
            return band.reward
    return None


__all__ = [
    "TOURNAMENT_WINDOW",
    "Refused",
    "RewardSpec",
    "Tournament",
    "TournamentSpec",
    "WebhookSpec",
    "reward_for",
]
