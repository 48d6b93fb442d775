"""A player's recent submissions to one board, as the score events record them: what
client writes count against ``max_per_minute`` and how a retry is recognised, the same in
every worker (``rankline.writing.client_rules``)."""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import select

from rankline.store import schema as t
from rankline.store.errors import mapped_errors
from rankline.store.sql import SqlStore
from rankline.types import BoardId, MatchId, Micros, PlayerId

_e = t.score_events


class Recent(NamedTuple):
    stored: bool
    """Whether the submission's (board, player, match id) is stored already: a retry."""
    received: list[Micros]
    """When the player's newest submissions to the board were received, newest first."""


class RecentSubmissions:
    """Reads of the ``rl_score_events`` table of one ``SqlStore``."""

    def __init__(self, store: SqlStore) -> None:
        self._store = store

    async def of(self, board: BoardId, player: PlayerId, match_id: MatchId, newest: int) -> Recent:
        """Whether ``match_id`` is stored for the player on the board, and the receive
        times of their ``newest`` latest submissions there (read on the player's index,
        newest first, so it stops after ``newest``)."""
        stored = (
            select(_e.c.id)
            .where(_e.c.board_id == board, _e.c.match_id == match_id, _e.c.player_id == player)
            .limit(1)
        )
        latest = (
            select(_e.c.received_at)
            .where(_e.c.player_id == player, _e.c.board_id == board)
            .order_by(_e.c.id.desc())
            .limit(newest)
        )
        async with mapped_errors(), self._store.engine.connect() as conn:
            found = (await conn.execute(stored)).first() is not None
            if found:
                return Recent(True, [])
            times = (await conn.execute(latest)).scalars().all()
        return Recent(False, list(times))


__all__ = ["Recent", "RecentSubmissions"]
