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
    TopOut,
)
from rankline.boards import BoardSpec
from rankline.bodies import MatchIdStr as MatchIdStr
from rankline.bodies import PlayerIdStr as PlayerIdStr
from rankline.bodies import ScopeValues as ScopeValues
from rankline.players.requests import FriendListIn, ProfileIn
from rankline.reading.requests import FriendsIn, RanksIn
from rankline.writing.requests import BatchIn, BatchItemIn, ScoreIn


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
