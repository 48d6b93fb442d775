"""SQL for top-K snapshots: claims, the stored tops, reads by time, pruning.

A slot (one interval of one leaderboard) is claimed by inserting its row: the primary key
lets exactly one worker in. The winner reads the top and fills the row once (``fill`` only
touches an unfilled row), so a stored snapshot never changes. A claim whose worker died
before filling stays empty: that interval is skipped, never taken again later.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from sqlalchemy import ColumnElement, delete, insert, select, update

from rankline.errors import WriteConflict
from rankline.store import schema as t
from rankline.store.errors import mapped_errors
from rankline.store.sql import SqlStore
from rankline.types import BoardId, LeaderboardId, Micros

_s = t.snapshots


class Snapshot(NamedTuple):
    taken_at: Micros
    total: int
    size: int
    entries: bytes
    """A JSON array of the entries as a top page shows them."""


def _where(leaderboard: LeaderboardId) -> Sequence[ColumnElement[bool]]:
    return (
        _s.c.board_id == leaderboard.board,
        _s.c.window == leaderboard.window,
        _s.c.period == leaderboard.period,
        _s.c.scope == leaderboard.scope,
    )


class SnapshotInfo(NamedTuple):
    taken_at: Micros
    total: int
    size: int
    """Entries kept."""


class SnapshotStore:
    """The ``rl_snapshots`` table of one ``SqlStore``."""

    def __init__(self, store: SqlStore) -> None:
        self._store = store

    async def claim(
        self, leaderboard: LeaderboardId, slot: int, taken_at: Micros, worker: str
    ) -> bool:
        """Whether this worker won the slot (False: another one has it)."""
        row = {
            "board_id": leaderboard.board,
            "window": leaderboard.window,
            "period": leaderboard.period,
            "scope": leaderboard.scope,
            "slot": slot,
            "taken_at": taken_at,
            "taken_by": worker,
        }
        try:
            async with mapped_errors(), self._store.engine.begin() as conn:
                await conn.execute(insert(_s).values(**row))
        except WriteConflict:
            return False
        return True

    async def fill(
        self, leaderboard: LeaderboardId, slot: int, total: int, size: int, entries: bytes
    ) -> None:
        async with mapped_errors(), self._store.engine.begin() as conn:
            await conn.execute(
                update(_s)
                .where(*_where(leaderboard), _s.c.slot == slot, _s.c.entries.is_(None))
                .values(total=total, size=size, entries=entries)
            )

    async def at(self, leaderboard: LeaderboardId, when: Micros) -> Snapshot | None:
        """The latest snapshot taken at or before ``when``."""
        query = (
            select(_s.c.taken_at, _s.c.total, _s.c.size, _s.c.entries)
            .where(*_where(leaderboard), _s.c.taken_at <= when, _s.c.entries.is_not(None))
            .order_by(_s.c.slot.desc())
            .limit(1)
        )
        async with mapped_errors(), self._store.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else Snapshot(row[0], row[1], row[2], bytes(row[3]))

    async def listing(
        self, leaderboard: LeaderboardId, before: Micros | None, limit: int
    ) -> list[SnapshotInfo]:
        """The snapshots, newest first, taken before ``before``."""
        query = select(_s.c.taken_at, _s.c.total, _s.c.size).where(
            *_where(leaderboard),
            _s.c.entries.is_not(None),
        )
        if before is not None:
            query = query.where(_s.c.taken_at < before)
        query = query.order_by(_s.c.slot.desc()).limit(limit)
        async with mapped_errors(), self._store.engine.connect() as conn:
            return [SnapshotInfo._make(r) for r in await conn.execute(query)]

    async def prune(self, board: BoardId, taken_before: Micros) -> int:
        """Delete the board's snapshots (and claims) older than ``taken_before``."""
        async with mapped_errors(), self._store.engine.begin() as conn:
            done = await conn.execute(
                delete(_s).where(_s.c.board_id == board, _s.c.taken_at < taken_before)
            )
        return int(done.rowcount)


__all__ = ["Snapshot", "SnapshotStore"]
