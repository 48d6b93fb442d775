"""The audit log's answers (encoded at the edge like ``rankline.answers``)."""

from __future__ import annotations

from typing import Any

from rankline.answers import Answer, Time


class AuditItemOut(Answer, kw_only=True):
    id: str
    at: Time
    actor: str
    """The key's name or fingerprint (``key:`` and 12 hex digits of its SHA-256), never the key."""
    action: str
    board: str | None = None
    player_id: str | None = None
    match_id: str | None = None
    reason: str | None = None
    detail: dict[str, Any]


class AuditOut(Answer, kw_only=True):
    items: list[AuditItemOut]
    next: str | None = None
    """The cursor of the next (older) page; absent on the last."""
