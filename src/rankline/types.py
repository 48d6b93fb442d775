"""The domain's value types, and the store transaction the write path runs in.

Read this file first. A ranking index (``rankline.index.base``) keeps, per leaderboard, the
players ordered by their byte sort key (``rankline.ordering``); it knows nothing about
boards, policies or time. A durable store (``rankline.store``) is the source of truth:
score events and current standings, written in one transaction per group commit
(``StoreTransaction``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, Protocol

BoardId = str
PlayerId = str
MatchId = str
Score = int
"""An exact signed 64-bit integer."""
Micros = int
"""Microseconds since the Unix epoch, UTC."""
SortKey = bytes
"""Bytes whose bytewise order is the ranking order (see ``rankline.ordering``)."""
Order = Literal["asc", "desc"]
Policy = Literal["best", "latest", "sum", "first", "rating"]
Window = Literal["all_time", "daily", "weekly", "monthly", "season"]

WINDOWS: tuple[Window, ...] = ("all_time", "daily", "weekly", "monthly", "season")
GLOBAL_SCOPE = "global"
TOP_WINDOW = 1000
"""How many leading entries of a leaderboard the top cache keeps (see ``top_stamp``)."""


class LeaderboardId(NamedTuple):
    """One ranked list: a board's window, period and scope (``global`` or ``dim:value``)."""

    board: BoardId
    window: str
    period: str
    scope: str


class IndexChange(NamedTuple):
    """Set a player's sort key on a leaderboard, or remove the player when ``key`` is None.

    ``revision`` is the standing's revision in the durable store. An index shared by several
    processes applies a change only when it is newer than what it holds, so updates that
    arrive out of order never bring back an older state. 0 applies unconditionally.
    """

    leaderboard: LeaderboardId
    player: PlayerId
    key: SortKey | None
    revision: int = 0
    restored: bool = False
    """The entry comes back (an unban), not from a change of the player's: what happened to
    it while it was away is not the index's to know (see ``Movement``)."""


class Movement(NamedTuple):
    """A player's movement on one leaderboard, as the index saw it apply their changes:
    ``previous``, their rank just before their last applied change (None: a first entry, or
    not known), and ``best``, the best rank they held just before or after any of their
    applied changes in the period (None: not known, as after a rebuild of the index)."""

    previous: int | None
    best: int | None


class Position(NamedTuple):
    """Where one player stands: 0-based offset, key, leaderboard size, strictly better scores."""

    offset: int
    key: SortKey
    total: int
    better: int


@dataclass(slots=True, frozen=True)
class Standing:
    """A player's current entry on one leaderboard, as the durable store keeps it."""

    leaderboard: LeaderboardId
    player: PlayerId
    score: Score
    achieved_at: Micros
    revision: int = 1
    """Starts at 1 and grows by one with every change of the standing."""
    subscore: Score | None = None


@dataclass(slots=True)
class ScoreEvent:
    """One accepted submission: append-only, unique on (board, player, match_id)."""

    board: BoardId
    player: PlayerId
    match_id: MatchId
    score: Score
    at: Micros
    received_at: Micros
    applied: bool
    scopes: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    subscore: Score | None = None
    """Given on boards with a subscore, None on the others."""


StandingRow = tuple[LeaderboardId, PlayerId, Score, Micros, int, Score | None]
"""A standing as the write path moves it in bulk: (leaderboard, player, score, achieved_at,
revision, subscore or None). Tuples rather than ``Standing``s or named tuples: a batch reads
and writes thousands, and a tuple costs a fraction of either to build. Read them unpacked
(``lb, player, score, at, revision, subscore = row``) or with ``revision_of``."""


def revision_of(row: StandingRow) -> int:
    """The revision of a standing row."""
    _, _, _, _, revision, _ = row
    return revision


class StoreTransaction(Protocol):
    """One durable-store transaction; the group-commit writer runs each batch in one."""

    async def existing_events(
        self, keys: Sequence[tuple[BoardId, PlayerId, MatchId]]
    ) -> dict[tuple[BoardId, PlayerId, MatchId], ScoreEvent]:
        """The stored events of these keys (the others are new)."""

    async def read_standings(
        self, keys: Sequence[tuple[LeaderboardId, PlayerId]]
    ) -> dict[tuple[LeaderboardId, PlayerId], StandingRow]: ...

    async def banned_players(self, players: Sequence[PlayerId]) -> set[PlayerId]:
        """Which of these players are banned: they stay in SQL but out of the index."""

    async def insert_events(self, events: Sequence[ScoreEvent]) -> None: ...

    async def board_definitions(self, board_ids: Sequence[BoardId]) -> dict[BoardId, str]: ...

    async def add_periods(
        self, rows: Sequence[tuple[BoardId, str, str, Micros | None, Micros | None]]
    ) -> None: ...

    async def write_standings(self, rows: Sequence[StandingRow]) -> None:
        """Insert the rows at revision 1 and move each other one to its revision from the
        one before it; ``WriteConflict`` when another writer changed any since it was read."""


class Clock(Protocol):
    """Where "now" comes from; tests inject a manual one."""

    def now(self) -> Micros: ...
