"""Who is calling: the caller a request's credentials name, as the operations see it.

The edges (HTTP, gRPC) turn an ``Authorization`` header or metadata into one of these, and
the operations take it as it is: a server key writes, a read key reads, a player calls as
themselves. ``rankline.access`` verifies the credentials; nothing here knows how.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Player:
    """A player calling as themselves, with a verified token from the studio's identity
    provider: they read, read as themselves (``me``), and write their own scores only on
    boards that allow client writes."""

    player_id: str
    expires_at: float
    """The token's ``exp``, seconds since the epoch."""
    claims: Mapping[str, Any] = field(default_factory=dict)
    """The verified token's claims (a board's validator receives them)."""
