"""Board webhooks in SQL: the outbox of period-close events (``rl_board_deliveries``).

When a period is archived, the archiving transaction also writes one row per scope of the
period (``enqueue``): the event's exact body, built from the archive just written, and the
URL. Rows are never written twice (the primary key is the leaderboard), so an event exists
once whatever number of workers or restarts; a delivery is claimed by a conditional update
that sets a lease, as tournaments' results are (``rankline.lifecycle.webhooks`` sends them).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import msgspec
from sqlalchemy import and_, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from rankline.runtime.clock import format_time
from rankline.store import schema as t
from rankline.store.errors import mapped_errors
from rankline.store.sql import SqlStore
from rankline.types import BoardId, Micros

_d = t.board_deliveries
_a = t.archive
_json = msgspec.json.Encoder()
_CLAIM_BATCH = 50


@dataclass(frozen=True, slots=True)
class CloseEvent:
    """What a board's webhook asks for a closed period: where, how many entries, and the
    period's bounds for the body."""

    url: str
    top: int
    starts_at: Micros | None
    ends_at: Micros | None
    subscore: bool


@dataclass(frozen=True, slots=True)
class BoardDelivery:
    """A period-close event to send: one leaderboard's final top."""

    board: BoardId
    window: str
    period: str
    scope: str
    body: bytes
    url: str
    attempts: int

    @property
    def label(self) -> str:
        return f"{self.board}/{self.window}/{self.period}/{self.scope}"


@dataclass(frozen=True, slots=True)
class DeliveryRow:
    """A delivery's state, as ``GET /v1/boards/{id}/deliveries`` lists it."""

    id: str
    window: str
    period: str
    scope: str
    created_at: Micros
    delivered_at: Micros | None
    attempts: int
    next_attempt_at: Micros
    last_error: str | None


async def enqueue(
    conn: AsyncConnection,
    board: BoardId,
    window: str,
    period: str,
    event: CloseEvent,
    now: Micros,
) -> int:
    """Write the close events of every scope of an archived period, in the archiving
    transaction ``conn``, from the archive rows it wrote: the first ``event.top`` entries
    and the total of each scope. Scopes that have an event already are left as they are.
    Returns how many were written."""
    mine = and_(_a.c.board_id == board, _a.c.window == window, _a.c.period == period)
    totals = {
        scope: int(count)
        for scope, count in await conn.execute(
            select(_a.c.scope, func.count()).where(mine).group_by(_a.c.scope)
        )
    }
    totals.setdefault("global", 0)
    entries: dict[str, list[dict[str, Any]]] = {scope: [] for scope in totals}
    query = (
        select(_a.c.scope, _a.c.rank, _a.c.player_id, _a.c.score, _a.c.achieved_at, _a.c.subscore)
        .where(mine, _a.c.rank <= event.top)
        .order_by(_a.c.scope, _a.c.rank)
    )
    for scope, rank, player, score, achieved_at, subscore in await conn.execute(query):
        entry: dict[str, Any] = {
            "rank": int(rank),
            "player_id": player,
            "score": int(score),
            "achieved_at": format_time(int(achieved_at)),
        }
        if event.subscore:
            entry["subscore"] = None if subscore is None else int(subscore)
        entries[scope].append(entry)
    existing = {
        scope
        for (scope,) in await conn.execute(
            select(_d.c.scope).where(
                _d.c.board_id == board, _d.c.window == window, _d.c.period == period
            )
        )
    }
    rows = []
    for scope in sorted(totals):
        if scope in existing:
            continue
        event_id = uuid.uuid4().hex
        body = {
            "id": event_id,
            "board": board,
            "window": window,
            "period": period,
            "scope": scope,
            "starts_at": None if event.starts_at is None else format_time(event.starts_at),
            "ends_at": None if event.ends_at is None else format_time(event.ends_at),
            "total": totals[scope],
            "entries": entries[scope],
        }
        rows.append(
            {
                "board_id": board,
                "window": window,
                "period": period,
                "scope": scope,
                "id": event_id,
                "body": _json.encode(body).decode(),
                "created_at": now,
                "webhook_url": event.url,
                "attempts": 0,
                "next_attempt_at": now,
            }
        )
    if rows:
        await conn.execute(insert(_d), rows)
    return len(rows)


class BoardDeliveries:
    """The outbox of board webhooks: claimed, acknowledged and listed."""

    def __init__(self, store: SqlStore) -> None:
        self._store = store

    async def claim_due(self, owner: str, now: Micros, lease: Micros) -> list[BoardDelivery]:
        """Claim the deliveries due now (not delivered, no live lease, backoff passed): each
        is claimed by one conditional update, so one worker sends it at a time."""
        due = (
            _d.c.delivered_at.is_(None),
            _d.c.next_attempt_at <= now,
            or_(_d.c.lease_until.is_(None), _d.c.lease_until <= now),
        )
        columns = (_d.c.board_id, _d.c.window, _d.c.period, _d.c.scope)
        async with mapped_errors(), self._store.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(*columns, _d.c.body, _d.c.webhook_url, _d.c.attempts)
                    .where(*due)
                    .order_by(_d.c.next_attempt_at)
                    .limit(_CLAIM_BATCH)
                )
            ).all()
        claimed = []
        for board, window, period, scope, body, url, attempts in rows:
            async with mapped_errors(), self._store.engine.begin() as conn:
                won = await conn.execute(
                    update(_d)
                    .where(_key(board, window, period, scope), *due)
                    .values(lease_owner=owner, lease_until=now + lease)
                )
            if won.rowcount:
                claimed.append(
                    BoardDelivery(board, window, period, scope, body.encode(), url, int(attempts))
                )
        return claimed

    async def delivered(self, delivery: BoardDelivery, owner: str, now: Micros) -> None:
        await self._finish(
            delivery, owner, {"delivered_at": now, "attempts": delivery.attempts + 1}
        )

    async def failed(
        self, delivery: BoardDelivery, owner: str, retry_at: Micros, error: str
    ) -> None:
        values = {
            "attempts": delivery.attempts + 1,
            "next_attempt_at": retry_at,
            "last_error": error[:500],
        }
        await self._finish(delivery, owner, values)

    async def _finish(self, delivery: BoardDelivery, owner: str, values: dict[str, Any]) -> None:
        where = _key(delivery.board, delivery.window, delivery.period, delivery.scope)
        async with mapped_errors(), self._store.engine.begin() as conn:
            await conn.execute(
                update(_d)
                .where(where, _d.c.lease_owner == owner)
                .values(lease_owner=None, lease_until=None, **values)
            )

    async def list(
        self,
        board: BoardId,
        window: str | None = None,
        period: str | None = None,
        limit: int = 100,
    ) -> list[DeliveryRow]:
        """A board's latest deliveries, newest first."""
        query = select(
            _d.c.id,
            _d.c.window,
            _d.c.period,
            _d.c.scope,
            _d.c.created_at,
            _d.c.delivered_at,
            _d.c.attempts,
            _d.c.next_attempt_at,
            _d.c.last_error,
        ).where(_d.c.board_id == board)
        if window is not None:
            query = query.where(_d.c.window == window)
        if period is not None:
            query = query.where(_d.c.period == period)
        query = query.order_by(_d.c.created_at.desc(), _d.c.window, _d.c.period, _d.c.scope).limit(
            limit
        )
        async with mapped_errors(), self._store.engine.connect() as conn:
            return [
                DeliveryRow(r[0], r[1], r[2], r[3], int(r[4]), r[5], int(r[6]), int(r[7]), r[8])
                for r in await conn.execute(query)
            ]


def _key(board: str, window: str, period: str, scope: str) -> Any:
    return and_(
        _d.c.board_id == board, _d.c.window == window, _d.c.period == period, _d.c.scope == scope
    )


__all__ = ["BoardDeliveries", "BoardDelivery", "CloseEvent", "DeliveryRow", "enqueue"]
