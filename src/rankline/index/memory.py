"""The in-process ranking index: one sorted list of byte keys per leaderboard.

A first-class backend for the embedded default, not a test double. ``SortedList`` gives
O(log N) insert, remove, bisect and positional access, so rank, neighbours, top pages and
competition ranks are all logarithmic. The player → key map shares the key objects with
the sorted list, so each entry costs one bytes object.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sortedcontainers import SortedList

from rankline.ordering import PREFIX_BYTES, player_of
from rankline.types import BoardId, IndexChange, LeaderboardId, PlayerId, Position, SortKey


class _Leaderboard:
    __slots__ = ("keys", "players")

    def __init__(self) -> None:
        self.keys: SortedList[SortKey] = SortedList()
        self.players: dict[PlayerId, SortKey] = {}

    def set(self, player: PlayerId, key: SortKey | None) -> None:
        old = self.players.get(player)
        if old is not None:
            if old == key:
                return
            self.keys.remove(old)
            del self.players[player]
        if key is not None:
            self.keys.add(key)
            self.players[player] = key

    def position(self, player: PlayerId) -> Position | None:
        key = self.players.get(player)
        if key is None:
            return None
        better = self.keys.bisect_left(key[:PREFIX_BYTES])
        return Position(self.keys.bisect_left(key), key, len(self.keys), better)


class MemoryIndex:
    """``RankingIndex`` in this process's memory; one process only."""

    shared = False

    def __init__(self) -> None:
        self._boards: dict[BoardId, dict[LeaderboardId, _Leaderboard]] = {}

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        return None

    def _get(self, leaderboard: LeaderboardId) -> _Leaderboard | None:
        boards = self._boards.get(leaderboard.board)
        return None if boards is None else boards.get(leaderboard)

    def _make(self, leaderboard: LeaderboardId) -> _Leaderboard:
        boards = self._boards.setdefault(leaderboard.board, {})
        found = boards.get(leaderboard)
        if found is None:
            found = boards[leaderboard] = _Leaderboard()
        return found

    async def apply(self, changes: Sequence[IndexChange]) -> None:
        for leaderboard, player, key, _ in changes:
            if key is None:
                found = self._get(leaderboard)
                if found is not None:
                    found.set(player, None)
            else:
                self._make(leaderboard).set(player, key)

    async def load(
        self, leaderboard: LeaderboardId, entries: Iterable[tuple[PlayerId, SortKey, int]]
    ) -> None:
        # One process writes this index, so its state is never older than the store's:
        # revisions need no tracking. An absent leaderboard is built in one sort.
        found = self._get(leaderboard)
        if found is None:
            fresh = _Leaderboard()
            fresh.players = {player: key for player, key, _ in entries}
            fresh.keys = SortedList(fresh.players.values())
            self._boards.setdefault(leaderboard.board, {})[leaderboard] = fresh
        else:
            for player, key, _ in entries:
                found.set(player, key)

    async def position(self, leaderboard: LeaderboardId, player: PlayerId) -> Position | None:
        found = self._get(leaderboard)
        return None if found is None else found.position(player)

    async def positions(
        self, leaderboard: LeaderboardId, players: Sequence[PlayerId]
    ) -> list[tuple[int, SortKey]]:
        found = self._get(leaderboard)
        if found is None:
            return []
        keys = sorted({k for p in players if (k := found.players.get(p)) is not None})
        return [(found.keys.bisect_left(k), k) for k in keys]

    async def slice(self, leaderboard: LeaderboardId, start: int, stop: int) -> list[SortKey]:
        found = self._get(leaderboard)
        if found is None or start >= stop:
            return []
        return list(found.keys.islice(start, stop))

    async def page(
        self, leaderboard: LeaderboardId, start: int, stop: int
    ) -> tuple[int, list[SortKey]]:
        found = self._get(leaderboard)
        if found is None:
            return 0, []
        return len(found.keys), list(found.keys.islice(start, stop)) if start < stop else []

    async def around(
        self, leaderboard: LeaderboardId, player: PlayerId, k: int
    ) -> tuple[Position, int, list[SortKey]] | None:
        found = self._get(leaderboard)
        position = None if found is None else found.position(player)
        if found is None or position is None:
            return None
        first = max(0, position.offset - k)
        return position, first, list(found.keys.islice(first, position.offset + k + 1))

    async def total(self, leaderboard: LeaderboardId) -> int:
        found = self._get(leaderboard)
        return 0 if found is None else len(found.keys)

    async def leaderboards(self, board: BoardId) -> list[LeaderboardId]:
        return [lb for lb, found in self._boards.get(board, {}).items() if found.keys]

    async def discard(self, leaderboard: LeaderboardId, keys: Sequence[SortKey]) -> None:
        found = self._get(leaderboard)
        if found is None:
            return
        for key in keys:
            found.keys.discard(key)
            player = player_of(key)
            if found.players.get(player) == key:
                del found.players[player]

    async def expire_in(self, leaderboard: LeaderboardId, micros: int) -> None:
        return None  # the service's retention sweep drops it

    async def drop(self, leaderboards: Sequence[LeaderboardId]) -> None:
        for leaderboard in leaderboards:
            boards = self._boards.get(leaderboard.board)
            if boards is not None:
                boards.pop(leaderboard, None)
                if not boards:
                    del self._boards[leaderboard.board]
