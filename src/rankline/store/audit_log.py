"""The audit log of one ``SqlStore``: every change made by hand, newest first
(``rankline.audit.log`` pages it)."""

from __future__ import annotations

from sqlalchemy import select

from rankline.store import schema as t
from rankline.store.audit import AuditEntry, add_audit
from rankline.store.sql import SqlStore, mapped_errors
from rankline.types import BoardId, PlayerId


class AuditStore:
    def __init__(self, store: SqlStore) -> None:
        self._store = store

    async def add(self, entry: AuditEntry) -> None:
        async with mapped_errors(), self._store.engine.begin() as conn:
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
        async with mapped_errors(), self._store.engine.connect() as conn:
            rows = (await conn.execute(query.limit(limit))).all()
        return [AuditEntry(*row) for row in rows]
