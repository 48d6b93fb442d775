"""What a player's rating takes in its path and query, declared once
(``rankline.parameters``)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from rankline.parameters import BoardIdPath, PlayerIdPath


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
