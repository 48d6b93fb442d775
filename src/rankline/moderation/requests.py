"""What the moderation operations take in their path and query, declared once
(``rankline.parameters``)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from rankline.audit.reasons import Reason
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
