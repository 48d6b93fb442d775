"""What a page of the audit log takes in its query, declared once (``rankline.parameters``)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from rankline.boards import BOARD_ID_PATTERN, PLAYER_ID_PATTERN


class AuditRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/audit``."""

    board: (
        Annotated[
            str,
            Meta(
                pattern=BOARD_ID_PATTERN,
                description="Only this board's entries.",
                extra={"noun": "board id"},
            ),
        ]
        | None
    ) = None
    player: (
        Annotated[
            str,
            Meta(
                pattern=PLAYER_ID_PATTERN,
                description="Only this player's entries.",
                extra={"noun": "player id"},
            ),
        ]
        | None
    ) = None
    limit: Annotated[
        int, Meta(ge=1, le=1000, description="Entries per page, 1..1000, default 100.")
    ] = 100
    cursor: Annotated[str, Meta(description="The `next` of the previous page.")] | None = None
