"""The audit log: who changed what by hand, when, and why.

Every hand-made change writes its entry in the transaction that makes it: moderation
(``rankline.store.moderation``), board definitions (``registry.BoardChanges``),
bans, unbans and erasure (``players.accounts.Players``) and tournaments
(``tournaments.editions``), each given the caller's ``store.audit.Attribution``. ``actor`` is
a key's name or fingerprint (``http.auth.Keys.actor``), never the key.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import msgspec

from rankline.audit.answers import AuditItemOut, AuditOut
from rankline.audit.reasons import MAX_REASON, check_reason
from rankline.audit.requests import AuditRequest
from rankline.errors import InvalidInput
from rankline.runtime.clock import format_time
from rankline.store.audit import Attribution, AuditEntry, AuditStore
from rankline.types import BoardId, Clock, MatchId, PlayerId

_CURSOR_PREFIX = "a1:"
_unjson = msgspec.json.Decoder(dict[str, Any])


class Audit:
    def __init__(self, store: AuditStore, clock: Clock) -> None:
        self.store = store
        self._clock = clock

    def entry(
        self,
        actor: str,
        action: str,
        *,
        board: BoardId | None = None,
        player: PlayerId | None = None,
        match_id: MatchId | None = None,
        reason: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> AuditEntry:
        return Attribution(actor, reason).entry(
            self._clock.now(),
            action,
            board=board,
            player=player,
            match_id=match_id,
            detail=detail,
        )

    async def page(self, ask: AuditRequest) -> AuditOut:
        """The newest entries first, ``limit`` at a time, filtered by board and player."""
        limit, cursor, board, player = ask.limit, ask.cursor, ask.board, ask.player
        before = None if cursor is None else _decode_cursor(cursor)
        found = await self.store.page(limit + 1, before=before, board=board, player=player)
        more = len(found) > limit
        found = found[:limit]
        return AuditOut(
            items=[_item(entry) for entry in found],
            next=_encode_cursor(found[-1].id) if more else None,
        )


def _item(entry: AuditEntry) -> AuditItemOut:
    return AuditItemOut(
        id=str(entry.id),
        at=format_time(entry.at),
        actor=entry.actor,
        action=entry.action,
        board=entry.board,
        player_id=entry.player,
        match_id=entry.match_id,
        reason=entry.reason,
        detail=_unjson.decode(entry.detail),
    )


def _encode_cursor(entry_id: int) -> str:
    return base64.urlsafe_b64encode(f"{_CURSOR_PREFIX}{entry_id}".encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> int:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        if text.startswith(_CURSOR_PREFIX):
            value = int(text.removeprefix(_CURSOR_PREFIX))
            if 0 < value < 1 << 63 and _encode_cursor(value) == cursor:
                return value
    except (binascii.Error, UnicodeDecodeError, ValueError):
        pass
    raise InvalidInput.at(["query", "cursor"], "the cursor is not one this API gave out")


__all__ = ["MAX_REASON", "Audit", "check_reason"]
