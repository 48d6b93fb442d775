"""Delivering each ended edition's results to its tournament's webhook, once.

The results row is the outbox (``store.tournaments``); the sending, signing, leases and
retries are the ones every webhook shares (``rankline.lifecycle.webhooks``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from rankline.lifecycle.webhooks import (
    LEASE_SECONDS,
    SIGNATURE_HEADER,
    Sender,
    backoff_seconds,
    signature,
)
from rankline.store.tournaments import Delivery, TournamentStore
from rankline.types import Clock


class Webhooks:
    """Sends the results due, from one worker (any number may run at once)."""

    def __init__(
        self,
        store: TournamentStore,
        secret_of: Callable[[str], Awaitable[str | None]],
        clock: Clock,
        *,
        lease_seconds: float = LEASE_SECONDS,
    ) -> None:
        async def secret(delivery: Delivery) -> str | None:
            return await secret_of(delivery.tournament)

        self._sender = Sender(store, secret, clock, lease_seconds=lease_seconds)
        self.owner = self._sender.owner
        """This worker's name on the leases it holds."""

    async def deliver(self) -> list[tuple[str, str, bool]]:
        """Send every delivery due now: (tournament, edition, delivered) of each attempt."""
        return [(d.tournament, d.edition, sent) for d, sent in await self._sender.send_due()]


__all__ = ["SIGNATURE_HEADER", "Webhooks", "backoff_seconds", "signature"]
