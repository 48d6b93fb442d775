"""Request and response types of the v1 API. Requests are decoded and validated with these
types; the OpenAPI document is generated from the same types."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from rankline.boards import (
    BOARD_ID_PATTERN,
    MATCH_ID_PATTERN,
    PLAYER_ID_PATTERN,
    SCOPE_VALUE_PATTERN,
    BoardSpec,
    Score64,
)

PlayerIdStr = Annotated[str, Meta(pattern=PLAYER_ID_PATTERN, description="A player id.")]
MatchIdStr = Annotated[str, Meta(pattern=MATCH_ID_PATTERN)]
Time = Annotated[str, Meta(description="RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z")]
ScopeValues = dict[str, Annotated[str, Meta(pattern=SCOPE_VALUE_PATTERN)]]


class ScoreIn(msgspec.Struct, forbid_unknown_fields=True):
    """One score submission."""

    player_id: PlayerIdStr
    score: Score64
    match_id: MatchIdStr
    at: Time | None = None
    scopes: ScopeValues | None = None
    metadata: dict[str, Any] | None = None


class BatchItemIn(ScoreIn, forbid_unknown_fields=True, kw_only=True):
    board: Annotated[str, Meta(pattern=BOARD_ID_PATTERN)]


class BatchIn(msgspec.Struct, forbid_unknown_fields=True):
    scores: Annotated[list[msgspec.Raw], Meta(max_length=1000)]


class BatchDoc(msgspec.Struct):
    """A batch: up to 1,000 submissions, each a score submission plus its ``board``.

    Items are validated one by one: an invalid item gets its own error in ``results``
    and the others are still recorded, so the request schema does not constrain items."""

    scores: Annotated[
        list[Any],
        Meta(
            max_length=1000,
            description="Each item: the fields of a score submission plus `board`; "
            "any item that is not one gets its own error in `results`.",
        ),
    ]


class FriendsIn(msgspec.Struct, forbid_unknown_fields=True):
    friends: Annotated[list[PlayerIdStr], Meta(max_length=5000)]
    k: Annotated[int, Meta(ge=0, le=5000)] | None = None


class RanksIn(msgspec.Struct, forbid_unknown_fields=True):
    player_ids: Annotated[list[PlayerIdStr], Meta(max_length=1000)]


# --- responses (documentation; handlers build the same shapes) -------------------------


class Entry(msgspec.Struct):
    rank: int
    player_id: str
    score: int
    achieved_at: Time
    display_name: str | None = None


class FriendEntry(Entry):
    friends_rank: int = 0


class PlayerStanding(msgspec.Struct):
    player_id: str
    score: int
    rank: int
    competition_rank: int
    percentile: float
    achieved_at: Time
    display_name: str | None = None


class FriendPlayer(PlayerStanding):
    friends_rank: int = 0


class _Head(msgspec.Struct, kw_only=True):
    board: str
    window: str
    period: str
    scope: str
    total: int
    as_of: Time
    degraded: bool | None = None
    """True when the ranking index could not answer and SQL did (exact, slower)."""
    archived: bool | None = None
    """True when the period's live leaderboard expired and its archive answered."""


class TopOut(_Head):
    entries: list[Entry]


class PlayerOut(_Head):
    player_id: str
    score: int
    rank: int
    competition_rank: int
    percentile: float
    achieved_at: Time
    display_name: str | None = None


class AroundOut(_Head):
    player: PlayerStanding
    entries: list[Entry]


class FriendsOut(_Head):
    player: FriendPlayer | None
    friends_total: int
    entries: list[FriendEntry]


class RanksOut(_Head):
    entries: list[Entry]


class PeriodOut(msgspec.Struct):
    window: str
    period: str
    starts_at: Time | None
    ends_at: Time | None
    state: str
    total: int


class PeriodsOut(msgspec.Struct):
    board: str
    as_of: Time
    periods: list[PeriodOut]


class StandingOut(msgspec.Struct):
    window: str
    period: str
    scope: str
    score: int | None
    rank: int | None
    applied: bool
    reason: str | None = None


class SubmitOut(msgspec.Struct):
    player_id: str
    match_id: str
    applied: bool
    duplicate: bool
    previous_score: int | None
    score: int | None
    standings: list[StandingOut]


class ProblemError(msgspec.Struct):
    loc: list[str | int]
    msg: str


class StoredSubmissionOut(msgspec.Struct):
    """The submission stored under a reused (player_id, match_id)."""

    board: str
    player_id: str
    match_id: str
    score: int
    at: str
    scopes: dict[str, str]
    metadata: dict[str, Any]


class Problem(msgspec.Struct):
    type: str
    title: str
    status: int
    detail: str
    errors: list[ProblemError] | None = None
    existing: StoredSubmissionOut | None = None


class BatchResultOut(msgspec.Struct):
    index: int
    player_id: str | None = None
    match_id: str | None = None
    applied: bool | None = None
    duplicate: bool | None = None
    previous_score: int | None = None
    score: int | None = None
    standings: list[StandingOut] | None = None
    error: Problem | None = None


class BatchOut(msgspec.Struct):
    results: list[BatchResultOut]


class BoardsOut(msgspec.Struct):
    boards: list[BoardSpec]


# --- players ---------------------------------------------------------------------------


class ProfileIn(msgspec.Struct, forbid_unknown_fields=True):
    """A player's profile. PUT replaces it whole: an omitted field becomes null (or {})."""

    display_name: Annotated[str, Meta(max_length=100)] | None = None
    avatar_url: Annotated[str, Meta(max_length=500)] | None = None
    country: Annotated[str, Meta(max_length=8)] | None = None
    metadata: dict[str, Any] | None = None


class ProfileOut(msgspec.Struct):
    player_id: str
    display_name: str | None
    avatar_url: str | None
    country: str | None
    metadata: dict[str, Any]


class ProfileStandingOut(msgspec.Struct):
    board: str
    window: str
    period: str
    scope: str
    score: int
    rank: int | None


class PlayerProfileOut(ProfileOut):
    """The profile and the player's standings in every board's current periods (``rank``
    is null while the player is banned)."""

    standings: list[ProfileStandingOut]
    banned: bool = False


class HistoryItemOut(msgspec.Struct):
    board: str
    match_id: str
    score: int
    at: Time
    received_at: Time
    applied: bool


class HistoryOut(msgspec.Struct):
    player_id: str
    items: list[HistoryItemOut]
    next_cursor: str | None


class FriendListIn(msgspec.Struct, forbid_unknown_fields=True):
    friends: Annotated[list[PlayerIdStr], Meta(max_length=5000)]


class FriendListOut(msgspec.Struct):
    player_id: str
    friends: list[str]


class BanOut(msgspec.Struct):
    player_id: str
    banned: bool
    banned_at: Time | None


__all__ = [
    "AroundOut",
    "BanOut",
    "BatchDoc",
    "BatchIn",
    "BatchItemIn",
    "BatchOut",
    "BoardsOut",
    "FriendListIn",
    "FriendListOut",
    "FriendsIn",
    "FriendsOut",
    "HistoryItemOut",
    "HistoryOut",
    "PeriodsOut",
    "PlayerOut",
    "PlayerProfileOut",
    "Problem",
    "ProfileIn",
    "ProfileOut",
    "ProfileStandingOut",
    "RanksIn",
    "RanksOut",
    "ScoreIn",
    "SubmitOut",
    "TopOut",
]
