"""Period-close events: a board's ``webhook`` receives each closed leaderboard once.

The archiving transaction writes one event per scope of the period to the outbox
(``rankline.store.deliveries``), with the final top as archived; ``BoardEvents.deliver``
sends the ones due, signed, retried and leased as tournaments' results are
(``rankline.lifecycle.webhooks``), and ``deliveries`` lists their state.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from rankline.answers import Answer, Time
from rankline.boards import Board
from rankline.errors import NotFound
from rankline.lifecycle.requests import DeliveriesRequest
from rankline.lifecycle.webhooks import Sender
from rankline.registry import Boards
from rankline.runtime.clock import format_time
from rankline.store.deliveries import BoardDeliveries, BoardDelivery, DeliveryRow
from rankline.types import Clock

DeliveryState = Literal["pending", "failing", "delivered"]


class DeliveryOut(Answer, kw_only=True):
    id: Annotated[str, Meta(description="The event's id, as its body carries it")]
    window: str
    period: str
    scope: str
    state: Annotated[
        DeliveryState,
        Meta(description="pending (not tried yet), failing (tried, retrying) or delivered"),
    ]
    attempts: int
    created_at: Time
    delivered_at: Time | None
    next_attempt_at: Time | None
    last_error: str | None


class DeliveriesOut(Answer, kw_only=True):
    board: str
    deliveries: list[DeliveryOut]


def _out(row: DeliveryRow) -> DeliveryOut:
    delivered = row.delivered_at is not None
    state: DeliveryState = "delivered" if delivered else "failing" if row.attempts else "pending"
    return DeliveryOut(
        id=row.id,
        window=row.window,
        period=row.period,
        scope=row.scope,
        state=state,
        attempts=row.attempts,
        created_at=format_time(row.created_at),
        delivered_at=None if row.delivered_at is None else format_time(row.delivered_at),
        next_attempt_at=None if delivered else format_time(row.next_attempt_at),
        last_error=row.last_error,
    )


class BoardEvents:
    """Sends boards' period-close events and lists them."""

    def __init__(self, outbox: BoardDeliveries, boards: Boards, clock: Clock) -> None:
        self._outbox = outbox
        self._boards = boards
        self._sender = Sender(outbox, self._secret_of, clock)

    async def _secret_of(self, delivery: BoardDelivery) -> str | None:
        try:
            board: Board = self._boards.get(delivery.board)
        except NotFound:
            return None
        hook = board.spec.webhook
        return None if hook is None else hook.secret

    async def deliver(self) -> list[tuple[str, bool]]:
        """Send every event due now: (its label, delivered) of each attempt."""
        return [(d.label, sent) for d, sent in await self._sender.send_due()]

    async def deliveries(self, ask: DeliveriesRequest) -> DeliveriesOut:
        """A board's latest events and their delivery state, newest first."""
        board = await self._boards.find(ask.board_id)
        rows = await self._outbox.list(board.id, ask.window, ask.period, ask.limit)
        return DeliveriesOut(board=board.id, deliveries=[_out(r) for r in rows])


__all__ = ["BoardEvents", "DeliveriesOut", "DeliveryOut"]
