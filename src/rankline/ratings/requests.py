"""What the operations of rating boards take: a match's body (``MatchIn``), a batch's item
(``MatchBatchItemIn``, the match and its board), a batch (up to ``MAX_BATCH``), and a player
rating's path and query, declared once (``rankline.parameters``). The HTTP edge decodes its
JSON body into them, the gRPC edge converts its message's fields (``given_match_items`` for
a batch: each item, or the error that concerns it alone)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from rankline.answers import Time
from rankline.boards import BOARD_ID_PATTERN
from rankline.bodies import MatchIdStr, PlayerIdStr, ScopeValues, decoded_as, invalid
from rankline.errors import InvalidInput
from rankline.parameters import BoardIdPath, PlayerIdPath

MAX_BATCH = 1000
"""Matches a batch may hold."""


class MatchResultIn(msgspec.Struct, forbid_unknown_fields=True):
    """One player's result in a match: ``place`` 1 is first; equal places draw."""

    player_id: PlayerIdStr
    place: Annotated[int, Meta(ge=1, le=10_000)]
    team: Annotated[str, Meta(min_length=1, max_length=64)] | None = None
    scopes: ScopeValues | None = None


class MatchIn(msgspec.Struct, forbid_unknown_fields=True):
    """One match result on a rating board."""

    match_id: MatchIdStr
    results: Annotated[list[MatchResultIn], Meta(min_length=2, max_length=100)]
    at: Time | None = None


class MatchBatchItemIn(MatchIn, forbid_unknown_fields=True, kw_only=True):
    board: Annotated[str, Meta(pattern=BOARD_ID_PATTERN)]


class MatchBatchIn(msgspec.Struct, forbid_unknown_fields=True):
    matches: Annotated[list[msgspec.Raw], Meta(max_length=MAX_BATCH)]


class MatchBatchDoc(msgspec.Struct):
    """Up to 1,000 matches, each a match plus its ``board``; each item succeeds or fails on
    its own."""

    matches: Annotated[
        list[Any],
        Meta(max_length=MAX_BATCH, description="Each item: the fields of a match plus `board`."),
    ]


class _GivenBatch(msgspec.Struct, forbid_unknown_fields=True):
    matches: Annotated[list[Any], Meta(max_length=MAX_BATCH)]


def given_match_items(given: Any) -> list[MatchBatchItemIn | InvalidInput]:
    """Each item of a match batch's body given as built-in values (a gRPC message's
    fields), or the error that concerns it alone (as if the item were the body, refused as
    its JSON is: ``decoded_as``); the body's own errors are raised."""
    try:
        whole = msgspec.convert(given, _GivenBatch)
    except msgspec.ValidationError as exc:
        raise invalid(exc) from None
    items: list[MatchBatchItemIn | InvalidInput] = []
    for raw in whole.matches:
        try:
            items.append(decoded_as(raw, MatchBatchItemIn))
        except InvalidInput as exc:
            items.append(exc)
    return items


class RatingRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/boards/{board_id}/players/{player_id}/rating``."""

    board_id: BoardIdPath
    player_id: PlayerIdPath
    window: (
        Annotated[str, Meta(description="The window, default all_time (or the board's first).")]
        | None
    ) = None
    period: Annotated[str, Meta(description="The period, default the current one.")] | None = None
    scope: (
        Annotated[
            str,
            Meta(
                description="The leaderboard whose `rank` to give: `global` (default) or "
                "`dimension:value`; the rating is the same on every scope."
            ),
        ]
        | None
    ) = None
