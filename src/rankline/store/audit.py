"""The audit log's entries (``rl_audit``): each is written in the transaction of the change
it records (``add_audit``), so the log has an entry exactly when the change committed.
``rankline.store.audit_log`` pages them."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Any

import msgspec
from sqlalchemy import insert, update
from sqlalchemy.ext.asyncio import AsyncConnection

from rankline.store import schema as t
from rankline.types import BoardId, MatchId, Micros, PlayerId

_json = msgspec.json.Encoder()


@dataclass(frozen=True, slots=True)
class AuditEntry:
    at: Micros
    actor: str
    action: str
    board: BoardId | None = None
    player: PlayerId | None = None
    match_id: MatchId | None = None
    reason: str | None = None
    detail: str = "{}"
    """What was done, as a JSON object."""
    id: int = 0


@dataclass(frozen=True, slots=True)
class Attribution:
    """Who makes a change by hand and why: what its audit entry says besides the change."""

    actor: str
    """A key's name or fingerprint (``http.auth.Keys.actor``), never the key."""
    reason: str | None = None

    def entry(
        self,
        at: Micros,
        action: str,
        *,
        board: BoardId | None = None,
        player: PlayerId | None = None,
        match_id: MatchId | None = None,
        detail: dict[str, Any] | None = None,
    ) -> AuditEntry:
        """The audit entry of ``action``, made at ``at`` (``detail`` as a JSON object)."""
        return AuditEntry(
            at=at,
            actor=self.actor,
            action=action,
            board=board,
            player=player,
            match_id=match_id,
            reason=self.reason,
            detail=_json.encode(detail or {}).decode(),
        )


def erased_alias(player: PlayerId) -> str:
    """What the audit log calls an erased player: ``erased:`` and 12 hex digits of the
    SHA-256 of their id (whoever knows the id can still find their entries)."""
    return "erased:" + hashlib.sha256(player.encode()).hexdigest()[:12]


def audit_row(entry: AuditEntry) -> dict[str, object]:
    return {
        "at": entry.at,
        "actor": entry.actor,
        "action": entry.action,
        "board_id": entry.board,
        "player_id": entry.player,
        "match_id": entry.match_id,
        "reason": entry.reason,
        "detail": entry.detail,
    }


async def add_audit(conn: AsyncConnection, entry: AuditEntry) -> None:
    """Record ``entry`` in the caller's transaction (a change and its record commit as one)."""
    await conn.execute(insert(t.audit), [audit_row(entry)])


async def add_erasure_audit(conn: AsyncConnection, entry: AuditEntry) -> None:
    """Record the erasure ``entry`` in the caller's transaction: its player, here and in
    every earlier entry, becomes their ``erased_alias`` (the log keeps what was done without
    the id)."""
    a = t.audit
    if entry.player is not None:
        alias = erased_alias(entry.player)
        await conn.execute(update(a).where(a.c.player_id == entry.player).values(player_id=alias))
        entry = replace(entry, player=alias)
    await add_audit(conn, entry)
