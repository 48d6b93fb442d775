"""The dead-letter table of one ``SqlStore``: submissions taken asynchronously that could not
be applied, each with its reason (``rankline.writing.ingest`` writes them, ``rankline dead-letters``
lists them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, insert, select

from rankline.settings import Settings
from rankline.store import schema as t
from rankline.store.errors import mapped_errors
from rankline.store.opening import open_store
from rankline.store.sql import SqlStore
from rankline.types import BoardId, MatchId, Micros, PlayerId


@dataclass(frozen=True, slots=True)
class DeadLetter:
    board: BoardId
    player: PlayerId
    match_id: MatchId
    partition: int
    position: int
    reason: str
    submission: str
    """The submission as JSON, as it was taken."""
    failed_at: Micros
    id: int = 0


class DeadLetters:
    def __init__(self, store: SqlStore) -> None:
        self._store = store

    async def add(self, letters: Sequence[DeadLetter]) -> None:
        if not letters:
            return
        rows = [
            {
                "board_id": d.board,
                "player_id": d.player,
                "match_id": d.match_id,
                "log_partition": d.partition,
                "log_position": d.position,
                "reason": d.reason,
                "submission": d.submission,
                "failed_at": d.failed_at,
            }
            for d in letters
        ]
        async with mapped_errors(), self._store.engine.begin() as conn:
            await conn.execute(insert(t.dead_letters), rows)

    async def newest(self, limit: int, board: BoardId | None = None) -> list[DeadLetter]:
        d = t.dead_letters
        query = select(
            d.c.board_id,
            d.c.player_id,
            d.c.match_id,
            d.c.log_partition,
            d.c.log_position,
            d.c.reason,
            d.c.submission,
            d.c.failed_at,
            d.c.id,
        ).order_by(d.c.id.desc())
        if board is not None:
            query = query.where(d.c.board_id == board)
        async with mapped_errors(), self._store.engine.connect() as conn:
            rows = (await conn.execute(query.limit(limit))).all()
        return [DeadLetter(*row) for row in rows]

    async def count(self) -> int:
        async with mapped_errors(), self._store.engine.connect() as conn:
            return int(
                (await conn.execute(select(func.count()).select_from(t.dead_letters))).scalar_one()
            )


async def listed(
    settings: Settings, limit: int, board: BoardId | None = None
) -> tuple[int, list[DeadLetter]]:
    """``rankline dead-letters``: how many there are in all, and the newest ``limit`` (of
    ``board``), from the durable store the settings name."""
    async with open_store(settings) as store:
        letters = DeadLetters(store)
        return await letters.count(), await letters.newest(limit, board)


__all__ = ["DeadLetter", "DeadLetters", "listed"]
