"""The audit log of one ``SqlStore``: every change made by hand, newest first
(``rankline.moderation.audit`` records and pages it)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from rankline.store import schema as t
from rankline.store.sql import SqlStore, mapped_errors
from rankline.types import BoardId, MatchId, Micros, PlayerId


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


class AuditStore:
    def __init__(self, store: SqlStore) -> None:
        self._store = store

    async def add(self, entry: AuditEntry) -> None:
        async with mapped_errors(), self._store.engine.begin() as conn:
            await add_audit(conn, entry)

    async def rename_player(self, player: PlayerId, alias: str) -> None:
        """Name ``player`` ``alias`` in every entry (an erased player's id goes)."""
        a = t.audit
        async with mapped_errors(), self._store.engine.begin() as conn:
            await conn.execute(update(a).where(a.c.player_id == player).values(player_id=alias))

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
        async with mapped_errors(), self._store.engine.connect() as conn:
            rows = (await conn.execute(query.limit(limit))).all()
        return [AuditEntry(*row) for row in rows]
