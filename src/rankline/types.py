"""The contract: the domain's value types and the protocols every backend implements.

Read this file first. A ranking index (``rankline.index``) keeps, per leaderboard, the
players ordered by their byte sort key (``rankline.ordering``); it knows nothing about
boards, policies or time. A durable store (``rankline.store``) is the source of truth:
score events and current standings, written in one transaction per group commit.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
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


class RankingIndex(Protocol):
    """A rebuildable projection of the standings, answering every hot read in O(log N)."""

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def apply(self, changes: Sequence[IndexChange]) -> None:
        """Apply changes in order. Each is an upsert (or removal) of one player's key."""

    async def load(
        self, leaderboard: LeaderboardId, entries: Iterable[tuple[PlayerId, SortKey, int]]
    ) -> None:
        """Bulk-load standings (player, key, revision) read from the durable store, as a
        rebuild does. Where the index already holds a newer revision, it keeps it."""

    async def position(self, leaderboard: LeaderboardId, player: PlayerId) -> Position | None:
        """The player's position, total and count of strictly better scores, or None."""

    async def positions(
        self, leaderboard: LeaderboardId, players: Sequence[PlayerId]
    ) -> list[tuple[int, SortKey]]:
        """Positions of the ranked players among ``players``, in rank order."""

    async def slice(self, leaderboard: LeaderboardId, start: int, stop: int) -> list[SortKey]:
        """Keys at positions ``start`` (inclusive) to ``stop`` (exclusive)."""

    async def page(
        self, leaderboard: LeaderboardId, start: int, stop: int
    ) -> tuple[int, list[SortKey]]:
        """The leaderboard's total and the keys from ``start`` to ``stop``, read together."""

    async def around(
        self, leaderboard: LeaderboardId, player: PlayerId, k: int
    ) -> tuple[Position, int, list[SortKey]] | None:
        """The player's position, the first position returned, and up to k keys each side."""

    async def total(self, leaderboard: LeaderboardId) -> int: ...

    async def top_stamp(self, leaderboard: LeaderboardId) -> tuple[int, int]:
        """(stamp, total), read together. The stamp is an opaque number that changes
        whenever the first ``TOP_WINDOW`` entries may have changed: a change whose old or new
        offset is below ``TOP_WINDOW``, a load, discard or drop of the leaderboard, or the
        loss of the index. It never comes back to an earlier value, also across processes
        sharing the index, so a cache of the top keyed by the stamp is never stale: read the
        stamp first, then the page, and cache the page under that stamp."""

    async def change_stamp(self, leaderboard: LeaderboardId) -> int:
        """An opaque number that changes with every change of the leaderboard (apply,
        load, discard, drop, loss of the index), in O(1). Like ``top_stamp`` it never comes
        back to an earlier value, also across processes: answers computed after reading a
        stamp stay valid while the stamp reads the same (``rankline.cache.HotReads``)."""

    async def leaderboards(self, board: BoardId) -> list[LeaderboardId]:
        """Every leaderboard of a board that holds at least one entry."""

    async def discard(self, leaderboard: LeaderboardId, keys: Sequence[SortKey]) -> None:
        """Remove exactly these keys (repairs); a player's entry goes only if it is that key."""

    async def drop(self, leaderboards: Sequence[LeaderboardId]) -> None: ...

    async def expire_in(self, leaderboard: LeaderboardId, micros: Micros) -> None:
        """Let the index drop a period's leaderboard by itself ``micros`` from now, when its
        retention ends (a shared index); one that cannot relies on the service's sweep."""


StandingRow = tuple[LeaderboardId, PlayerId, Score, Micros, int]
"""A standing as the write path moves it in bulk: (leaderboard, player, score, achieved_at,
revision). Tuples rather than ``Standing``s: a batch reads and writes thousands."""


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


class DurableStore(Protocol):
    """The source of truth (SQL). Every method maps driver errors to ``StoreUnavailable``."""

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    def transaction(self) -> AsyncTransactionContext: ...

    async def load_boards(self) -> list[dict[str, Any]]: ...

    async def save_board(self, board_id: BoardId, definition: dict[str, Any]) -> None: ...

    async def delete_board(self, board_id: BoardId) -> None: ...

    async def board_has_entries(self, board_id: BoardId) -> bool: ...

    def stream_standings(
        self, board: BoardId, leaderboards: Sequence[tuple[str, str]] | None = None
    ) -> AsyncIterator[Standing]:
        """Every standing of a board (optionally only some (window, period) pairs), in
        leaderboard order, without holding the whole set in memory."""
        ...

    async def count_standings(self) -> int: ...


class AsyncTransactionContext(Protocol):
    async def __aenter__(self) -> StoreTransaction: ...

    async def __aexit__(self, *exc_info: object) -> bool | None: ...


class Clock(Protocol):
    """Where "now" comes from; tests inject a manual one."""

    def now(self) -> Micros: ...
