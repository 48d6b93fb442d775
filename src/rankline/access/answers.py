"""The answers about keys made at runtime (encoded at the edge like ``rankline.answers``)."""

from __future__ import annotations

from typing import Literal

from rankline.answers import Answer, Time

KeyState = Literal["live", "expired", "revoked"]


class KeyOut(Answer, kw_only=True):
    id: str
    name: str
    role: Literal["server", "read"]
    boards: list[str] | None
    """The board patterns a server key is limited to; null: every board."""
    expires_at: Time | None
    """When the key stops working; null: never."""
    created_at: Time
    created_by: str
    """Who created it: a key's name or fingerprint (as the audit log names it), or ``cli``."""
    state: KeyState
    revoked_at: Time | None = None
    revoked_by: str | None = None


class NewKeyOut(KeyOut, kw_only=True):
    secret: str
    """The key itself, shown this once: only its SHA-256 is kept."""


class KeysOut(Answer, kw_only=True):
    keys: list[KeyOut]
    """Every key made at runtime, oldest first, revoked and expired ones included."""
