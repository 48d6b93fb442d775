"""Cohort membership in SQL: each player's cohort in a period, assigned once, race-free.

A player's cohort is the count of players assigned before them in the period divided by the
cohort size, plus one: the increment of the period's counter row and the insert of the
player's row are one transaction, so the counter's row lock orders concurrent first
submissions on every worker, and the primary key refuses a second cohort for one player
(that transaction rolls back, the counter with it, and the first assignment is read)."""

from __future__ import annotations

from sqlalchemy import insert, select, update

from rankline.errors import StoreUnavailable, WriteConflict
from rankline.store import schema as t
from rankline.store.errors import mapped_errors
from rankline.store.sql import SqlStore
from rankline.types import BoardId, PlayerId

_c, _m = t.cohort_counters, t.cohort_members


class CohortStore:
    def __init__(self, store: SqlStore) -> None:
        self._store = store

    async def cohort_of(
        self, board: BoardId, window: str, period: str, player: PlayerId
    ) -> int | None:
        async with mapped_errors(), self._store.engine.connect() as conn:
            found = await conn.scalar(
                select(_m.c.cohort).where(
                    _m.c.board_id == board,
                    _m.c.window == window,
                    _m.c.period == period,
                    _m.c.player_id == player,
                )
            )
        return None if found is None else int(found)

    async def assign(
        self, board: BoardId, window: str, period: str, player: PlayerId, size: int
    ) -> int:
        """The player's cohort in the period, assigned now if they have none."""
        for _ in range(3):
            found = await self.cohort_of(board, window, period, player)
            if found is not None:
                return found
            await self._ensure_counter(board, window, period)
            try:
                async with mapped_errors(), self._store.engine.begin() as conn:
                    key = (
                        (_c.c.board_id == board) & (_c.c.window == window) & (_c.c.period == period)
                    )
                    await conn.execute(update(_c).where(key).values(assigned=_c.c.assigned + 1))
                    assigned = int(await conn.scalar(select(_c.c.assigned).where(key)) or 0)
                    cohort = (assigned - 1) // size + 1
                    await conn.execute(
                        insert(_m).values(
                            board_id=board,
                            window=window,
                            period=period,
                            player_id=player,
                            cohort=cohort,
                        )
                    )
                return cohort
            except WriteConflict:
                continue  # assigned meanwhile by another request: read it
        raise StoreUnavailable("a cohort could not be assigned; retry")

    async def _ensure_counter(self, board: BoardId, window: str, period: str) -> None:
        try:
            async with mapped_errors(), self._store.engine.begin() as conn:
                exists = await conn.scalar(
                    select(_c.c.assigned).where(
                        _c.c.board_id == board, _c.c.window == window, _c.c.period == period
                    )
                )
                if exists is None:
                    await conn.execute(
                        insert(_c).values(board_id=board, window=window, period=period, assigned=0)
                    )
        except WriteConflict:
            pass  # another request made it


__all__ = ["CohortStore"]
