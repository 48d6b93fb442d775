"""What the moderation operations take: in their path and query, declared once
(``rankline.parameters``), and in their bodies (``ResetIn``, ``VoidIn``)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from rankline.audit.reasons import MAX_REASON, Reason
from rankline.boards import BOARD_ID_PATTERN
from rankline.parameters import BoardIdPath, PlayerIdPath


class RemoveRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``DELETE /v1/boards/{board_id}/players/{player_id}``."""

    board_id: BoardIdPath
    player_id: PlayerIdPath
    window: (
        Annotated[str, Meta(description="Only this window's leaderboards (default: every window).")]
        | None
    ) = None
    period: (
        Annotated[str, Meta(description="Only this period of the window (default: every period).")]
        | None
    ) = None
    scope: (
        Annotated[
            str,
            Meta(description="Only this scope, global or dimension:value (default: every one)."),
        ]
        | None
    ) = None
    reason: Reason | None = None


class DeadLettersRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/dead-letters``."""

    board: (
        Annotated[
            str,
            Meta(
                pattern=BOARD_ID_PATTERN,
                description="Only this board's dead letters.",
                extra={"noun": "board id"},
            ),
        ]
        | None
    ) = None
    limit: Annotated[
        int, Meta(ge=1, le=1000, description="At most this many, 1..1000, default 50.")
    ] = 50


BodyReason = Annotated[str, Meta(max_length=MAX_REASON)]
"""A body's ``reason`` (checked by ``audit.reasons.check_reason`` where it is taken)."""


class ResetIn(msgspec.Struct, forbid_unknown_fields=True):
    """What a reset restarts: the current period of ``window`` (default the board's first),
    on every scope or on ``scope`` only."""

    window: str | None = None
    scope: str | None = None
    reason: BodyReason | None = None


class VoidIn(msgspec.Struct, forbid_unknown_fields=True):
    reason: BodyReason | None = None
