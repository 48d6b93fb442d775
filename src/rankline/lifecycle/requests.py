"""What a board's period-close deliveries take in their path and query, declared once
(``rankline.parameters``)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from rankline.parameters import BoardIdPath


class DeliveriesRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/boards/{board_id}/deliveries``."""

    board_id: BoardIdPath
    window: Annotated[str, Meta(description="Only this window.")] | None = None
    period: Annotated[str, Meta(description="Only this period.")] | None = None
    limit: Annotated[
        int, Meta(ge=1, le=1000, description="At most this many (1..1000, default 100).")
    ] = 100
