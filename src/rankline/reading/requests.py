"""What each read takes in its path and query, declared once (``rankline.parameters``): the
edges build these (``parameters.build``) and the reads take them.

The fields are in the order they are checked; the query parameters among them are in the
order the API document lists them."""

from __future__ import annotations

from typing import Annotated, Protocol

import msgspec
from msgspec import Meta

from rankline.bodies import PlayerIdStr
from rankline.ordering import SCORE_MAX, SCORE_MIN
from rankline.parameters import EXACT, INSTANT, BoardIdPath, Limit, PlayerIdPath
from rankline.reading.query import Query
from rankline.types import Micros

Window = Annotated[
    str,
    Meta(description="all_time (default), daily, weekly, monthly, season, or a cron window's id."),
]
Period = Annotated[
    str,
    Meta(
        description="The period name, e.g. 2026-11-21, 2026-W47 or (a cron window's) "
        "2026-11-20T17:00:00Z; default current."
    ),
]
Scope = Annotated[str, Meta(description="global (default) or dimension:value, e.g. region:EU.")]
After = Annotated[
    str,
    Meta(
        description="The token of a 202 answer (Prefer: respond-async): answer once the "
        "submissions it names are applied, waiting up to 2 s (then 503 with Retry-After)."
    ),
]
WithMetadata = Annotated[
    bool,
    Meta(
        description="true: each entry carries the metadata of the submission that set it "
        "(as on a board with entry_metadata)."
    ),
]
Offset = Annotated[int, Meta(ge=0, le=2**62, description="Entries to skip, default 0.")]
K = Annotated[int, Meta(ge=0, le=100, description="0..100, default 5.")]
Score = Annotated[
    int,
    Meta(
        ge=SCORE_MIN,
        le=SCORE_MAX,
        description="The score: a signed 64-bit integer.",
        extra=EXACT | {"range": "the signed 64-bit range"},
    ),
]
Subscore = Annotated[
    int,
    Meta(
        ge=SCORE_MIN,
        le=SCORE_MAX,
        description="The subscore: a signed 64-bit integer; required on a board with a "
        "subscore, refused on any other.",
        extra=EXACT | {"range": "the signed 64-bit range"},
    ),
]


class _Where(Protocol):
    @property
    def board_id(self) -> str: ...
    @property
    def window(self) -> str | None: ...
    @property
    def period(self) -> str | None: ...
    @property
    def scope(self) -> str | None: ...


def query_of(ask: _Where, metadata: bool = False) -> Query:
    """The leaderboard a read names (``Query``)."""
    return Query(ask.board_id, ask.window, ask.period, ask.scope, metadata)


class TopRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/boards/{board_id}/top``."""

    board_id: BoardIdPath
    window: Window | None = None
    period: Period | None = None
    scope: Scope | None = None
    after: After | None = None
    metadata: WithMetadata = False
    limit: Limit = 100
    offset: Offset = 0
    cursor: (
        Annotated[
            str,
            Meta(
                description="The `next` of an earlier page: the entries after that page's last "
                "one (instead of an offset; stable while the board changes)."
            ),
        ]
        | None
    ) = None
    tier: (
        Annotated[str, Meta(description="Only the entries of this tier of the board's `tiers`.")]
        | None
    ) = None
    at: (
        Annotated[
            Micros,
            Meta(
                description="An instant (RFC 3339): the top as the latest snapshot taken at or "
                "before it kept it, with `taken_at` (boards with `snapshots`; 404 when none); "
                "the period defaults to the one containing the instant.",
                extra=INSTANT,
            ),
        ]
        | None
    ) = None


class PlayerRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/boards/{board_id}/players/{player_id}`` and ``…/me``."""

    player_id: PlayerIdPath
    board_id: BoardIdPath
    window: Window | None = None
    period: Period | None = None
    scope: Scope | None = None
    after: After | None = None
    metadata: WithMetadata = False


class AroundRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/boards/{board_id}/players/{player_id}/around`` and ``…/me/around``."""

    player_id: PlayerIdPath
    board_id: BoardIdPath
    window: Window | None = None
    period: Period | None = None
    scope: Scope | None = None
    after: After | None = None
    metadata: WithMetadata = False
    k: K = 5


class RankOfRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/boards/{board_id}/rank-of``."""

    board_id: BoardIdPath
    window: Window | None = None
    period: Period | None = None
    scope: Scope | None = None
    after: After | None = None
    score: Score
    subscore: Subscore | None = None


class FriendsRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``POST /v1/boards/{board_id}/players/{player_id}/friends``: the friends are its body's."""

    board_id: BoardIdPath
    window: Window | None = None
    period: Period | None = None
    scope: Scope | None = None
    after: After | None = None
    metadata: WithMetadata = False
    player_id: PlayerIdPath


class RanksRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``POST /v1/boards/{board_id}/ranks``: the players are its body's."""

    board_id: BoardIdPath
    window: Window | None = None
    period: Period | None = None
    scope: Scope | None = None
    after: After | None = None
    metadata: WithMetadata = False


class SnapshotsRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/boards/{board_id}/snapshots``."""

    board_id: BoardIdPath
    window: Window | None = None
    period: Period | None = None
    scope: Scope | None = None
    limit: Limit = 100
    before: (
        Annotated[
            Micros,
            Meta(
                description="Only snapshots taken before this instant (RFC 3339).",
                extra=INSTANT,
            ),
        ]
        | None
    ) = None


class PeriodsRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/boards/{board_id}/periods``."""

    window: Annotated[str, Meta(description="Only this window.")] | None = None
    board_id: BoardIdPath


class StreamRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/boards/{board_id}/stream``."""

    board_id: BoardIdPath
    window: Window | None = None
    period: Period | None = None
    scope: Scope | None = None
    after: After | None = None
    metadata: WithMetadata = False
    limit: Annotated[
        int, Meta(ge=1, le=100, description="Entries in each `top` event, 1..100, default 10.")
    ] = 10
    players: (
        Annotated[str, Meta(description="Up to 50 comma-separated player ids to watch.")] | None
    ) = None
    access_token: (
        Annotated[
            str,
            Meta(
                description="The key or player token, for a browser's EventSource, which cannot "
                "send an Authorization header (this endpoint only; never written to a log)."
            ),
        ]
        | None
    ) = None


class ExportRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/boards/{board_id}/export`` (the export refuses a format but csv and jsonl)."""

    board_id: BoardIdPath
    window: Window | None = None
    period: Period | None = None
    scope: Scope | None = None
    format: Annotated[
        str,
        Meta(
            description="csv (a header row, then one row per standing) or jsonl (one JSON "
            "object per standing).",
            extra_json_schema={"enum": ["csv", "jsonl"]},
            extra={"required": True},
        ),
    ] = ""
    metadata: Annotated[
        bool,
        Meta(
            description="true (jsonl): each row carries the metadata of the submission that set it."
        ),
    ] = False


class FriendsIn(msgspec.Struct, forbid_unknown_fields=True):
    friends: Annotated[list[PlayerIdStr], Meta(max_length=5000)]
    k: Annotated[int, Meta(ge=0, le=5000)] | None = None


class RanksIn(msgspec.Struct, forbid_unknown_fields=True):
    player_ids: Annotated[list[PlayerIdStr], Meta(max_length=1000)]
