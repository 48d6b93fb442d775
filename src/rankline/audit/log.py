"""The audit log: who changed what by hand, when, and why.

Every hand-made change writes its entry in the transaction that makes it: moderation
(``rankline.store.moderation``), board definitions (``registry.BoardChanges``),
bans, unbans and erasure (``players.accounts.Players``) and tournaments
(``tournaments.editions``), each given the caller's ``store.audit.Attribution``. ``actor`` is
a key's name or fingerprint (``http.auth.Keys.actor``), never the key.
"""

from __future__ import annotations

from typing import Any

import msgspec

from rankline.audit.answers import AuditItemOut, AuditOut
from rankline.audit.reasons import MAX_REASON, check_reason
from rankline.audit.requests import AuditRequest
from rankline.reading.cursors import IdCursors
from rankline.runtime.clock import format_time
from rankline.store.audit import Attribution, AuditEntry, AuditStore
from rankline.types import BoardId, Clock, MatchId, PlayerId

_CURSORS = IdCursors("a1:")
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
        before = None if cursor is None else _CURSORS.decode(cursor)
        found = await self.store.page(limit + 1, before=before, board=board, player=player)
        more = len(found) > limit
        found = found[:limit]
        return AuditOut(
            items=[_item(entry) for entry in found],
            next=_CURSORS.encode(found[-1].id) if more else None,
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


__all__ = ["MAX_REASON", "Audit", "check_reason"]
