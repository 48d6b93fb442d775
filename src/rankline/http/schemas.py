"""Request and response types of the v1 API. Requests are decoded and validated with these
types; responses are the service's answers (``rankline.answers``) and the few shapes only
the edge makes (problems, batch results). The OpenAPI document is generated from them."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from rankline.answers import (
    AroundOut,
    BanOut,
    FriendListOut,
    FriendsOut,
    HistoryItemOut,
    HistoryOut,
    PeriodsOut,
    PlayerOut,
    PlayerProfileOut,
    ProfileOut,
    ProfileStandingOut,
    RankOfOut,
    RanksOut,
    StandingOut,
    SubmitOut,
    Time,
    TopOut,
)
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
ScopeValues = dict[str, Annotated[str, Meta(pattern=SCOPE_VALUE_PATTERN)]]


class ScoreIn(msgspec.Struct, forbid_unknown_fields=True):
    """One score submission."""

    player_id: PlayerIdStr
    score: Score64
    match_id: MatchIdStr
    at: Time | None = None
    scopes: ScopeValues | None = None
    metadata: dict[str, Any] | None = None
    subscore: Score64 | None = None
    """Required on a board with a subscore, refused on any other."""


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


# --- responses: the service's answers (rankline.answers), plus what only the edge sends --


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
    reason: str | None = None
    """Why a player's own score was rejected (``max_gain``, or the board's validator)."""


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


class AcceptedItemOut(msgspec.Struct, omit_defaults=True):
    index: int
    accepted: bool
    error: Problem | None = None


class AcceptedOut(msgspec.Struct, omit_defaults=True):
    """The 202 answer to ``Prefer: respond-async``: the submissions are durable in the
    ingestion log and will be applied; reads given ``after=<token>`` include them."""

    accepted: int
    token: str
    results: list[AcceptedItemOut] | None = None
    """A batch only: each item, accepted or refused (a refused item is never taken)."""


class BoardsOut(msgspec.Struct):
    boards: list[BoardSpec]


# --- players ---------------------------------------------------------------------------


class ProfileIn(msgspec.Struct, forbid_unknown_fields=True):
    """A player's profile. PUT replaces it whole: an omitted field becomes null (or {})."""

    display_name: Annotated[str, Meta(max_length=100)] | None = None
    avatar_url: Annotated[str, Meta(max_length=500)] | None = None
    country: Annotated[str, Meta(max_length=8)] | None = None
    metadata: dict[str, Any] | None = None


class FriendListIn(msgspec.Struct, forbid_unknown_fields=True):
    friends: Annotated[list[PlayerIdStr], Meta(max_length=5000)]


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
    "RankOfOut",
    "RanksIn",
    "RanksOut",
    "ScoreIn",
    "SubmitOut",
    "TopOut",
]
