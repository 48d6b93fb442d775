"""An in-memory durable store for unit tests of the write and read paths.

``FakeStore.transaction()`` yields a ``FakeTransaction`` that implements
``rankline.types.StoreTransaction`` over plain dicts, with the rules the SQL store enforces:
events are unique on (board, player, match_id) and standings move one revision at a time
(both a ``WriteConflict`` otherwise), and a transaction that raises leaves nothing behind.
A test can make the next transaction fail (``fail_next``).
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import msgspec

from rankline.boards import Board
from rankline.errors import RanklineError, WriteConflict
from rankline.types import (
    BoardId,
    LeaderboardId,
    MatchId,
    Micros,
    PlayerId,
    ScoreEvent,
    StandingRow,
)

EventKey = tuple[BoardId, PlayerId, MatchId]
StandingKey = tuple[LeaderboardId, PlayerId]


@dataclass
class Tables:
    events: dict[EventKey, ScoreEvent] = field(default_factory=dict)
    standings: dict[StandingKey, StandingRow] = field(default_factory=dict)
    boards: dict[BoardId, str] = field(default_factory=dict)
    banned: set[PlayerId] = field(default_factory=set)
    periods: dict[tuple[BoardId, str, str], tuple[Micros | None, Micros | None]] = field(
        default_factory=dict
    )


class FakeTransaction:
    def __init__(self, tables: Tables) -> None:
        self.t = tables

    async def existing_events(self, keys: Sequence[EventKey]) -> dict[EventKey, ScoreEvent]:
        return {k: self.t.events[k] for k in keys if k in self.t.events}

    async def read_standings(self, keys: Sequence[StandingKey]) -> dict[StandingKey, StandingRow]:
        return {k: self.t.standings[k] for k in keys if k in self.t.standings}

    async def banned_players(self, players: Sequence[PlayerId]) -> set[PlayerId]:
        return {p for p in players if p in self.t.banned}

    async def insert_events(self, events: Sequence[ScoreEvent]) -> None:
        for event in events:
            key = (event.board, event.player, event.match_id)
            if key in self.t.events:
                raise WriteConflict(f"event {key} exists")
            self.t.events[key] = event

    async def board_definitions(self, board_ids: Sequence[BoardId]) -> dict[BoardId, str]:
        return {b: self.t.boards[b] for b in board_ids if b in self.t.boards}

    async def add_periods(
        self, rows: Sequence[tuple[BoardId, str, str, Micros | None, Micros | None]]
    ) -> None:
        for board, window, period, starts, ends in rows:
            self.t.periods.setdefault((board, window, period), (starts, ends))

    async def write_standings(self, rows: Sequence[StandingRow]) -> None:
        for row in rows:
            leaderboard, player, _, _, revision, _ = row
            before = self.t.standings.get((leaderboard, player))
            expected = 1 if before is None else before[4] + 1
            if revision != expected:
                raise WriteConflict(f"standing {leaderboard} {player} moved")
            self.t.standings[leaderboard, player] = row


class FakeStore:
    """What the group commit needs of ``SqlStore``: ``transaction()``."""

    def __init__(self) -> None:
        self.tables = Tables()
        self.transactions = 0
        """Transactions committed."""
        self._failures: list[RanklineError] = []

    def define(self, board: Board) -> None:
        """Store a board's definition as the SQL store keeps it (JSON text)."""
        self.tables.boards[board.id] = msgspec.json.encode(board.to_json()).decode()

    def fail_next(self, error: RanklineError) -> None:
        self._failures.append(error)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[FakeTransaction]:
        if self._failures:
            raise self._failures.pop(0)
        staged = copy.deepcopy(self.tables)
        yield FakeTransaction(staged)
        self.tables = staged  # reached only when the block did not raise
        self.transactions += 1
