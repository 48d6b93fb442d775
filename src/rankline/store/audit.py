"""The audit log's entries (``rl_audit``): each is written in the transaction of the change
it records (``add_audit``), so the log has an entry exactly when the change committed;
``AuditStore`` adds one on its own and pages them, newest first (``rankline.audit.log``
keeps the log's rules).

This module sits below ``rankline.store.sql``, whose board changes record their entries with
``add_audit``: it takes the engine, never the ``SqlStore``."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Any

import msgspec
from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from rankline.store import schema as t
from rankline.store.errors import mapped_errors
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


class AuditStore:
    """The audit log of one database: entries added on their own, and pages of them."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def add(self, entry: AuditEntry) -> None:
        """Record ``entry`` in a transaction of its own (no change commits with it)."""
        async with mapped_errors(), self._engine.begin() as conn:
            await add_audit(conn, entry)

    async def page(
        self,
        limit: int,
        *,
        before: int | None = None,
        board: BoardId | None = None,
        player: PlayerId | None = None,
    ) -> list[AuditEntry]:
        """Up to ``limit`` entries, newest first, older than the id ``before`` when given."""
        a = t.audit
        query = select(
            a.c.at,
            a.c.actor,
            a.c.action,
            a.c.board_id,
            a.c.player_id,
            a.c.match_id,
            a.c.reason,
            a.c.detail,
            a.c.id,
        ).order_by(a.c.id.desc())
        if before is not None:
            query = query.where(a.c.id < before)
        if board is not None:
            query = query.where(a.c.board_id == board)
        if player is not None:
            query = query.where(a.c.player_id == player)
        async with mapped_errors(), self._engine.connect() as conn:
            rows = (await conn.execute(query.limit(limit))).all()
        return [
            AuditEntry(
                at=row.at,
                actor=row.actor,
                action=row.action,
                board=row.board_id,
                player=row.player_id,
                match_id=row.match_id,
                reason=row.reason,
                detail=row.detail,
                id=row.id,
            )
            for row in rows
        ]
