"""Reads of top-K snapshots: the top as it was at an instant, and the list of snapshots.

``GET …/top?at=<instant>`` answers the latest snapshot of the leaderboard taken at or before
that instant (``rankline.lifecycle.snapshots`` takes them); the period, when not given, is
the one that contains the instant. ``GET …/snapshots`` lists them, newest first.
"""

from __future__ import annotations

import msgspec

from rankline.answers import Entry, SnapshotOut, SnapshotsOut, TopOut
from rankline.boards import Board
from rankline.errors import InvalidInput, NotFound
from rankline.periods import period_at
from rankline.reading.query import Query
from rankline.reading.requests import SnapshotsRequest, TopRequest, query_of
from rankline.registry import Boards, Resolved
from rankline.runtime.clock import format_time
from rankline.store.snapshots import SnapshotStore
from rankline.types import Micros

_entries = msgspec.json.Decoder(list[Entry])


class SnapshotReads:
    def __init__(self, store: SnapshotStore, boards: Boards) -> None:
        self._store = store
        self._boards = boards

    def _resolve(self, board: Board, query: Query, when: Micros | None) -> Resolved:
        if board.spec.snapshots is None:
            raise NotFound(f"board {board.id!r} keeps no snapshots")
        period = query.period
        if period is None and when is not None:
            window = query.window or board.primary_window
            found = period_at(window, when, board.calendar) if window in board.windows else None
            if found is None:
                raise NotFound(f"the board has no {window} period at that time")
            period = found.name
        return self._boards.resolve(board, query.window, period, query.scope)

    async def top_at(self, ask: TopRequest) -> TopOut:
        """The latest snapshot taken at or before ``ask.at``; NotFound when there is none."""
        if ask.at is None:
            raise InvalidInput.at(["query", "at"], "a snapshot's top needs an instant")
        if ask.tier is not None or ask.cursor is not None:
            raise InvalidInput.at(["query", "at"], "a snapshot has no tiers or cursors")
        query, when, offset, limit = query_of(ask), ask.at, ask.offset, ask.limit

        async def on(board: Board) -> TopOut:
            resolved = self._resolve(board, query, when)
            leaderboard, period = resolved.leaderboard, resolved.period
            found = await self._store.at(leaderboard, when)
            if found is None:
                raise NotFound("no snapshot of this leaderboard was taken at or before that time")
            taken_at = format_time(found.taken_at)
            closes = period.closes_at(board.grace_seconds)
            return TopOut(
                board=board.id,
                window=leaderboard.window,
                period=leaderboard.period,
                scope=leaderboard.scope,
                total=found.total,
                as_of=taken_at,
                period_ends_at=None if period.ends_at is None else format_time(period.ends_at),
                closes_at=None if closes is None else format_time(closes),
                taken_at=taken_at,
                entries=_entries.decode(found.entries)[offset : offset + limit],
            )

        return await self._boards.current(query.board, on)

    async def listing(self, ask: SnapshotsRequest) -> SnapshotsOut:
        """The leaderboard's snapshots, newest first (taken before ``before``, if given)."""
        query, before, limit = query_of(ask), ask.before, ask.limit

        async def on(board: Board) -> SnapshotsOut:
            leaderboard = self._resolve(board, query, before).leaderboard
            rows = await self._store.listing(leaderboard, before, limit)
            return SnapshotsOut(
                board=board.id,
                window=leaderboard.window,
                period=leaderboard.period,
                scope=leaderboard.scope,
                snapshots=[
                    SnapshotOut(taken_at=format_time(at), total=total, entries=size)
                    for at, total, size in rows
                ],
            )

        if limit < 1:
            raise InvalidInput.at(["query", "limit"], "limit must be at least 1")
        return await self._boards.current(query.board, on)


__all__ = ["SnapshotReads"]
