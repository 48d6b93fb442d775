"""What a score write takes in its body: one submission (``ScoreIn``), a batch's item
(``BatchItemIn``, the submission and its board), a batch (up to ``MAX_BATCH``). The HTTP
edge decodes its JSON body into them, the gRPC edge converts its message's fields
(``given_batch_items`` for a batch: each item, or the error that concerns it alone)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from rankline.answers import Time
from rankline.boards import BOARD_ID_PATTERN, Score64
from rankline.bodies import MatchIdStr, PlayerIdStr, ScopeValues, invalid
from rankline.errors import InvalidInput

MAX_BATCH = 1000
"""Submissions a batch may hold."""


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
    scores: Annotated[list[msgspec.Raw], Meta(max_length=MAX_BATCH)]


class ValidBatch(msgspec.Struct, forbid_unknown_fields=True):
    """A batch whose every item is valid: decoded in one pass."""

    scores: Annotated[list[BatchItemIn], Meta(max_length=MAX_BATCH)]


class _GivenBatch(msgspec.Struct, forbid_unknown_fields=True):
    scores: Annotated[list[Any], Meta(max_length=MAX_BATCH)]


def given_batch_items(given: Any) -> list[BatchItemIn | InvalidInput]:
    """Each item of a batch body given as built-in values (a gRPC message's fields), or the
    error that concerns it alone; the body's own errors are raised."""
    try:
        return list(msgspec.convert(given, ValidBatch).scores)
    except msgspec.ValidationError:
        pass
    try:
        whole = msgspec.convert(given, _GivenBatch)
    except msgspec.ValidationError as exc:
        raise invalid(exc) from None
    items: list[BatchItemIn | InvalidInput] = []
    for raw in whole.scores:
        try:
            items.append(msgspec.convert(raw, BatchItemIn))
        except msgspec.ValidationError as exc:
            items.append(invalid(exc))
    return items
