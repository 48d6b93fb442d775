"""The answers of moderation (encoded at the edge like ``rankline.answers``)."""

from __future__ import annotations

from typing import Any

from rankline.answers import Answer, Time


class RemovedOut(Answer, kw_only=True):
    board: str
    player_id: str | None = None
    """The player whose entries went (absent on a reset)."""
    window: str | None = None
    period: str | None = None
    scope: str | None = None
    removed: int
    """Entries taken off (one per leaderboard and player)."""


class VoidedOut(Answer, kw_only=True):
    board: str
    match_id: str
    players: list[str]
    """The players whose submissions under the match were undone."""


class DeadLetterOut(Answer, kw_only=True):
    id: str
    failed_at: Time
    board: str
    player_id: str
    match_id: str
    reason: str
    submission: dict[str, Any]
    """The submission as it was taken."""


class DeadLettersOut(Answer, kw_only=True):
    total: int
    """Dead letters in all (of every board)."""
    items: list[DeadLetterOut]
