"""A submission and what it does: the group commit's value types, and the rules that decide
what one submission does to each of its leaderboards in a batch (pure functions: the writer
(``rankline.writing.writer``) reads and writes around them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rankline.boards import Board, Target
from rankline.errors import KeyReused
from rankline.policies import StandingScore, combine
from rankline.runtime.clock import format_time
from rankline.types import (
    GLOBAL_SCOPE,
    BoardId,
    LeaderboardId,
    MatchId,
    Micros,
    PlayerId,
    Score,
    ScoreEvent,
    StandingRow,
    revision_of,
)

StandingKey = tuple[LeaderboardId, PlayerId]
EventKey = tuple[BoardId, PlayerId, MatchId]


@dataclass(slots=True)
class Submission:
    board: Board
    player: PlayerId
    match_id: MatchId
    score: Score
    at: Micros
    received_at: Micros
    scopes: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    at_given: bool = True
    """Whether the client gave ``at`` (else it is the receive time, which a retry can't repeat)."""
    subscore: Score | None = None
    """Given exactly on boards with a subscore."""

    @property
    def event_key(self) -> EventKey:
        return (self.board.id, self.player, self.match_id)

    def reuses(
        self, score: Score, at: Micros, scopes: Any, metadata: Any, subscore: Score | None = None
    ) -> bool:
        """Whether this submission's key, already taken by a submission with this payload,
        is reused with another one: not a retry. An ``at`` left out matches any."""
        return (
            self.score != score
            or self.subscore != subscore
            or (self.at_given and self.at != at)
            or self.scopes != scopes
            or self.metadata != metadata
        )


@dataclass(slots=True)
class StandingOutcome:
    target: Target
    applied: bool
    reason: str | None
    entry: StandingScore | None
    previous: StandingScore | None


@dataclass(slots=True)
class Outcome:
    submission: Submission
    duplicate: bool
    standings: list[StandingOutcome]

    @property
    def primary(self) -> StandingOutcome | None:
        window = self.submission.board.primary_window
        for standing in self.standings:
            leaderboard = standing.target.leaderboard
            if leaderboard.window == window and leaderboard.scope == GLOBAL_SCOPE:
                return standing
        return None


def reused(
    sub: Submission, stored: ScoreEvent | None, earlier: Submission | None
) -> KeyReused | None:
    """The conflict when ``sub`` takes the key of a stored submission, or of an earlier one
    in its batch (the first wins), with a different payload."""
    first = stored or earlier
    if first is None or not sub.reuses(
        first.score, first.at, first.scopes, first.metadata, first.subscore
    ):
        return None
    board = first.board if isinstance(first, ScoreEvent) else first.board.id
    return KeyReused(
        f"match_id {sub.match_id!r} of player {sub.player!r} was already submitted with a "
        "different payload; a retry must repeat it exactly, and a new match needs a new "
        "match_id",
        {
            "board": board,
            "player_id": sub.player,
            "match_id": sub.match_id,
            "score": first.score,
            **({} if first.subscore is None else {"subscore": first.subscore}),
            "at": format_time(first.at),
            "scopes": first.scopes,
            "metadata": first.metadata,
        },
    )


def evaluate(
    sub: Submission,
    targets: list[Target],
    state: dict[StandingKey, StandingScore],
    duplicate: bool,
) -> list[StandingOutcome]:
    """What one submission does to each of its leaderboards, without committing it.

    An applied standing's ``entry`` is the new entry; the caller stores it in ``state``
    once every target was evaluated (one submission never lands twice on a leaderboard)."""
    standings: list[StandingOutcome] = []
    board = sub.board
    for target in targets:
        current = state.get((target.leaderboard, sub.player))
        if duplicate:
            standings.append(StandingOutcome(target, False, "duplicate", current, current))
        elif target.closed:
            standings.append(StandingOutcome(target, False, "closed", current, current))
        else:
            new = combine(
                board.policy, board.order, current, sub.score, sub.at, sub.subscore, board.sub_order
            )
            if new is None:
                standings.append(StandingOutcome(target, False, "policy", current, current))
            else:
                standings.append(StandingOutcome(target, True, None, new, current))
    return standings


def standing_rows(
    changed: set[StandingKey],
    state: dict[StandingKey, StandingScore],
    stored: dict[StandingKey, StandingRow],
) -> list[StandingRow]:
    """The standings to write: each changed one at the revision after the stored one, in key
    order (concurrent writers then lock rows in the same order)."""
    rows = []
    for key in sorted(changed):
        (leaderboard, player), (score, at, subscore), before = key, state[key], stored.get(key)
        revision = 1 if before is None else revision_of(before) + 1
        rows.append((leaderboard, player, score, at, revision, subscore))
    return rows


def applied_of(primary: StandingOutcome | None, standings: list[StandingOutcome]) -> bool:
    return any(s.applied for s in standings) if primary is None else primary.applied
