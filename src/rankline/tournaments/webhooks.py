"""Delivering each ended edition's results to its tournament's webhook, once.

The results row is the outbox (``store.tournaments``): a worker claims the rows due with a
lease (a conditional update, so one worker sends a row at a time), POSTs the stored body
signed with ``X-Rankline-Signature: sha256=<hex HMAC-SHA256 of the body>``, and on a 2xx
records the delivery (then no worker sends it again); on anything else it records the
failure and the next attempt, after an exponential backoff (1 s, 2 s, 4 s, ... up to
5 minutes). A worker that dies mid-send loses its lease, and another sends again.

So a receiver gets every edition's results at least once, and more than once only in one
window: a worker crashed (or its lease ran out) after the receiver answered 2xx and before
the acknowledgement was recorded. The repeat carries the same bytes, signature and ``id``,
by which the receiver deduplicates.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable

import httpx

from rankline.store.tournaments import Delivery, TournamentStore
from rankline.types import Clock

log = logging.getLogger("rankline.tournaments.webhooks")

SIGNATURE_HEADER = "X-Rankline-Signature"
LEASE_SECONDS = 60.0
"""How long a claim lasts: longer than a send may take (``TIMEOUT_SECONDS``)."""
TIMEOUT_SECONDS = 10.0
BACKOFF_SECONDS = 1.0
MAX_BACKOFF_SECONDS = 300.0


def signature(secret: str, body: bytes) -> str:
    """The signature header's value: ``sha256=`` and the hex HMAC-SHA256 of the body."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def backoff_seconds(attempts: int) -> float:
    """The wait after the ``attempts``-th failed attempt (1-based)."""
    return min(MAX_BACKOFF_SECONDS, BACKOFF_SECONDS * float(2 ** (attempts - 1)))


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
        self._store = store
        self._secret_of = secret_of
        self._clock = clock
        self._lease = int(lease_seconds * 1_000_000)
        self.owner = f"{socket.gethostname()[:40]}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        """This worker's name on the leases it holds."""

    async def deliver(self) -> list[tuple[str, str, bool]]:
        """Send every delivery due now: (tournament, edition, delivered) of each attempt."""
        claimed = await self._store.claim_due(self.owner, self._clock.now(), self._lease)
        if not claimed:
            return []
        done = []
        async with httpx.AsyncClient(timeout=TIMEOUT_SECONDS) as client:
            for delivery in claimed:
                done.append(
                    (delivery.tournament, delivery.edition, await self._send(client, delivery))
                )
        return done

    async def _send(self, client: httpx.AsyncClient, delivery: Delivery) -> bool:
        secret = await self._secret_of(delivery.tournament) or ""
        headers = {
            "content-type": "application/json",
            SIGNATURE_HEADER: signature(secret, delivery.body),
            "X-Rankline-Delivery": f"{delivery.tournament}/{delivery.edition}",
        }
        error = None
        try:
            answer = await client.post(delivery.url, content=delivery.body, headers=headers)
            if 200 <= answer.status_code < 300:
                await self._store.delivered(delivery, self.owner, self._clock.now())
                return True
            error = f"HTTP {answer.status_code}"
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}"
        attempts = delivery.attempts + 1
        retry_at = self._clock.now() + int(backoff_seconds(attempts) * 1_000_000)
        log.warning(
            "webhook of %s edition %s failed (%s); attempt %d, retrying later",
            delivery.tournament,
            delivery.edition,
            error,
            attempts,
        )
        await self._store.failed(delivery, self.owner, retry_at, error)
        return False


__all__ = ["SIGNATURE_HEADER", "Webhooks", "backoff_seconds", "signature"]
