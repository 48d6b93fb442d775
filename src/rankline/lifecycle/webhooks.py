"""Signed webhooks from an outbox, delivered once per row: what tournaments' results and
boards' period-close events share.

An outbox row is claimed with a lease (a conditional update, so one worker sends a row at a
time); the sender POSTs the stored body signed with ``X-Rankline-Signature: sha256=<hex
HMAC-SHA256 of the body>``, and on a 2xx records the delivery (then no worker sends it
again); on anything else it records the failure and the next attempt, after an exponential
backoff (1 s, 2 s, 4 s, ... up to 5 minutes). A worker that dies mid-send loses its lease,
and another sends again.

So a receiver gets every row at least once, and more than once only in one window: a worker
crashed (or its lease ran out) after the receiver answered 2xx and before the
acknowledgement was recorded. The repeat carries the same bytes, signature and ``id``, by
which the receiver deduplicates.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from rankline.types import Clock, Micros

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("rankline.lifecycle.webhooks")

SIGNATURE_HEADER = "X-Rankline-Signature"
DELIVERY_HEADER = "X-Rankline-Delivery"
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


class Outgoing(Protocol):
    """One claimed outbox row."""

    @property
    def body(self) -> bytes: ...
    @property
    def url(self) -> str: ...
    @property
    def attempts(self) -> int: ...
    @property
    def label(self) -> str:
        """What the ``X-Rankline-Delivery`` header and the logs call it."""
        ...


D = TypeVar("D", bound=Outgoing)


class Outbox(Protocol[D]):
    """Where the rows to send are kept, claimed and acknowledged."""

    async def claim_due(self, owner: str, now: Micros, lease: Micros) -> Sequence[D]: ...
    async def delivered(self, delivery: D, owner: str, now: Micros) -> None: ...
    async def failed(self, delivery: D, owner: str, retry_at: Micros, error: str) -> None: ...


class Sender(Generic[D]):
    """Sends the rows due from one outbox, from one worker (any number may run at once)."""

    def __init__(
        self,
        outbox: Outbox[D],
        secret_of: Callable[[D], Awaitable[str | None]],
        clock: Clock,
        *,
        lease_seconds: float = LEASE_SECONDS,
    ) -> None:
        self._outbox = outbox
        self._secret_of = secret_of
        self._clock = clock
        self._lease = int(lease_seconds * 1_000_000)
        self.owner = f"{socket.gethostname()[:40]}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        """This worker's name on the leases it holds."""

    async def send_due(self) -> list[tuple[D, bool]]:
        """Send every row due now: each claimed row and whether it was delivered."""
        claimed = await self._outbox.claim_due(self.owner, self._clock.now(), self._lease)
        if not claimed:
            return []
        import httpx  # here, not at the top: a process that sends no webhook starts without it

        async with httpx.AsyncClient(timeout=TIMEOUT_SECONDS) as client:
            return [(delivery, await self._send(client, delivery)) for delivery in claimed]

    async def _send(self, client: httpx.AsyncClient, delivery: D) -> bool:
        import httpx

        secret = await self._secret_of(delivery) or ""
        headers = {
            "content-type": "application/json",
            SIGNATURE_HEADER: signature(secret, delivery.body),
            DELIVERY_HEADER: delivery.label,
        }
        error = None
        try:
            answer = await client.post(delivery.url, content=delivery.body, headers=headers)
            if 200 <= answer.status_code < 300:
                await self._outbox.delivered(delivery, self.owner, self._clock.now())
                return True
            error = f"HTTP {answer.status_code}"
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}"
        attempts = delivery.attempts + 1
        retry_at = self._clock.now() + int(backoff_seconds(attempts) * 1_000_000)
        log.warning(
            "webhook %s failed (%s); attempt %d, retrying later", delivery.label, error, attempts
        )
        await self._outbox.failed(delivery, self.owner, retry_at, error)
        return False


__all__ = [
    "DELIVERY_HEADER",
    "SIGNATURE_HEADER",
    "Outbox",
    "Outgoing",
    "Sender",
    "backoff_seconds",
    "signature",
]
