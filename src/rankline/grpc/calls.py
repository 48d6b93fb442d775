"""What an RPC's call says beside its request message, as the admission and the write path
take it: the credential (``authorization`` metadata, as HTTP's header), the client's address
(the peer's), and a write's deadline (the call's, as HTTP's ``Request-Timeout``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import grpc

from rankline.writing.admission import Admission, Deadline

MAX_TIMEOUT_MS = 600_000
"""The longest deadline a client may give (HTTP's ``Request-Timeout`` bound)."""


def client_address(peer: str) -> str:
    """The address of a gRPC peer (``ipv4:127.0.0.1:5000``, ``ipv6:[::1]:5000``)."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    return rest


def credential(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The call's ``authorization`` metadata (the first), as an Authorization header."""
    for key, value in metadata or ():
        if key == "authorization":
            return value if isinstance(value, str) else value.decode("latin-1")
    return None


def client_millis(time_remaining: float | None) -> int | None:
    """The call's deadline as whole milliseconds within HTTP's ``Request-Timeout`` bounds
    (None: the call has none)."""
    if time_remaining is None:
        return None
    return min(MAX_TIMEOUT_MS, max(1, int(time_remaining * 1000)))


def write_deadline(
    admission: Admission, context: grpc.aio.ServicerContext[Any, Any], started: float
) -> Deadline:
    """A write's deadline: the server's, or the call's when that is sooner, counted from
    ``started`` (``time.monotonic``, when the call reached the servicer)."""
    millis = client_millis(context.time_remaining())
    return admission.deadline(started, None if millis is None else millis / 1000)
