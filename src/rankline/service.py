"""The rankline service: boards, the write path and the read handles, over one store and index.

service = Rankline(Settings())
await service.start()
board = service.board("arena-solo")
await board.top(window="daily")
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any

from rankline.boards import Board, BoardSpec
from rankline.clock import SystemClock, format_time
from rankline.errors import Conflict, IndexUnavailable, InvalidInput, NotFound, RanklineError
from rankline.index.memory import MemoryIndex
from rankline.ordering import encode
from rankline.periods import parse_period
from rankline.reads import BoardHandle
from rankline.settings import Settings
from rankline.store import migrate
from rankline.store.sql import SqlStore
from rankline.types import BoardId, Clock, LeaderboardId, Micros, PlayerId, RankingIndex, SortKey
from rankline.writer import GroupCommitWriter, Outcome, Submission

log = logging.getLogger("rankline")


class NotMigrated(RanklineError):
    title, slug = "Database not migrated", "not-migrated"


class Rankline:
    """One rankline instance: a durable store, a ranking index and the group-commit writer."""

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Clock | None = None,
        index: RankingIndex | None = None,
        auto_migrate: bool | None = None,
    ) -> None:
        self.settings = settings
        self.clock: Clock = clock or SystemClock()
        self.store = SqlStore(settings.database, sqlite_synchronous=settings.sqlite_synchronous)
        self.index: RankingIndex = index or MemoryIndex()
        self._auto_migrate = settings.is_embedded if auto_migrate is None else auto_migrate
        self._boards: dict[BoardId, Board] = {}
        self._board_lock = asyncio.Lock()
        self.writer = GroupCommitWriter(
            self.store,
            self.index,
            self.clock,
            self._boards.get,
            max_batch=settings.commit_max_batch,
            linger_seconds=settings.commit_linger_ms / 1000,
        )
        self.ready = False
        self.rebuild_progress: tuple[int, int] = (0, 0)
        self._tasks: list[asyncio.Task[None]] = []
        self._ready_event = asyncio.Event()

    async def start(self, *, wait_ready: bool = False) -> None:
        """Connect, check the schema, load boards and rebuild the index in the background."""
        await self.store.start()
        if not await migrate.is_current(self.store.engine):
            if not self._auto_migrate:
                raise NotMigrated(
                    "the database schema is not at the current revision; run `rankline migrate`"
                )
            await migrate.upgrade(self.store.engine)
        await self.index.start()
        for definition in await self.store.load_boards():
            board = Board(BoardSpec(**definition))
            self._boards[board.id] = board
        rebuild = asyncio.create_task(self._rebuild(), name="rankline-rebuild")
        self._tasks = [rebuild, asyncio.create_task(self._sweep(), name="rankline-retention")]
        if wait_ready:
            await self.wait_ready()

    async def close(self) -> None:
        await self.writer.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.index.close()
        await self.store.close()

    def now(self) -> Micros:
        return self.clock.now()

    # --- boards -------------------------------------------------------------------------

    def boards(self) -> list[Board]:
        return [self._boards[k] for k in sorted(self._boards)]

    def get_board(self, board_id: BoardId) -> Board:
        board = self._boards.get(board_id)
        if board is None:
            raise NotFound(f"no board {board_id!r}")
        return board

    def board(self, board_id: BoardId) -> BoardHandle:
        """A handle for reading one board's leaderboards."""
        if not self.ready:
            raise IndexUnavailable("the ranking index is rebuilding; retry shortly")
        return BoardHandle(self, self.get_board(board_id))

    async def put_board(self, board_id: BoardId, spec: BoardSpec) -> tuple[Board, bool]:
        """Create or update a board; True when it was created."""
        new = Board.define(board_id, spec)
        async with self._board_lock:
            old = self._boards.get(board_id)
            if old is not None and await self.store.board_has_entries(board_id):
                old.check_update(new)
            await self.store.save_board(board_id, new.to_json(), self.now())
            self._boards[board_id] = new
        return new, old is None

    async def delete_board(self, board_id: BoardId) -> None:
        self.get_board(board_id)
        async with self._board_lock, self.writer.commit_lock:
            await self.store.delete_board(board_id)
            self._boards.pop(board_id, None)
            self.writer.forget_board(board_id)
            await self.index.drop(await self.index.leaderboards(board_id))

    # --- writes -------------------------------------------------------------------------

    def prepare(
        self,
        board_id: BoardId,
        *,
        player: PlayerId,
        match_id: str,
        score: int,
        at: Micros | None,
        scopes: dict[str, str] | None,
        metadata: dict[str, Any] | None,
    ) -> Submission:
        """Validate one submission against its board; InvalidInput/NotFound/Conflict if bad."""
        board = self.get_board(board_id)
        if board.frozen:
            raise Conflict(f"board {board_id!r} is frozen; it takes no writes")
        if board.policy == "rating":
            raise Conflict("a rating board takes match results at /matches, not scores")
        now = self.now()
        if at is None:
            at = now
        elif at > now + self.settings.clock_skew_seconds * 1_000_000:
            raise InvalidInput.at(["body", "at"], "`at` is in the future")
        board.check_score(score)
        scopes = scopes or {}
        board.check_scopes(scopes)
        return Submission(board, player, match_id, score, at, now, scopes, metadata or {})

    async def submit(
        self, submissions: Sequence[Submission]
    ) -> list[dict[str, Any] | RanklineError]:
        """Write submissions durably (group commit) and answer each with its standings."""
        if not self.ready:
            raise IndexUnavailable("the ranking index is rebuilding; retry shortly")
        outcomes = await self.writer.submit(submissions)
        return [
            o if isinstance(o, RanklineError) else await self._render_outcome(o) for o in outcomes
        ]

    async def _render_outcome(self, outcome: Outcome) -> dict[str, Any]:
        sub = outcome.submission
        standings = []
        for s in outcome.standings:
            rank = None
            if s.entry is not None:
                position = await self.index.position(s.target.leaderboard, sub.player)
                rank = None if position is None else position.offset + 1
            item: dict[str, Any] = {
                "window": s.target.leaderboard.window,
                "period": s.target.leaderboard.period,
                "scope": s.target.leaderboard.scope,
                "score": None if s.entry is None else s.entry.score,
                "rank": rank,
                "applied": s.applied,
            }
            if s.reason is not None:
                item["reason"] = s.reason
            standings.append(item)
        primary = outcome.primary
        return {
            "player_id": sub.player,
            "match_id": sub.match_id,
            "applied": False if primary is None else primary.applied,
            "duplicate": outcome.duplicate,
            "previous_score": None
            if primary is None or primary.previous is None
            else primary.previous.score,
            "score": None if primary is None or primary.entry is None else primary.entry.score,
            "standings": standings,
        }

    # --- index lifecycle ------------------------------------------------------------------

    def readiness(self) -> dict[str, Any]:
        done, total = self.rebuild_progress
        return {
            "ready": self.ready,
            "index": "ready" if self.ready else "rebuilding",
            "rebuild": {"done": done, "total": total},
            "as_of": format_time(self.now()),
        }

    def _expired(self, board: Board, leaderboard: LeaderboardId, now: Micros) -> bool:
        try:
            period = parse_period(leaderboard.window, leaderboard.period, board.seasons)
        except ValueError:
            return False
        expires = board.expires_at(period)
        return expires is not None and now >= expires

    async def _rebuild(self) -> None:
        """Load every live standing from the durable store into the index."""
        started = time.perf_counter()
        total = await self.store.count_standings()
        self.rebuild_progress = (0, total)
        if total:
            log.info("rebuilding the ranking index from %s standings", f"{total:,}")
        done = 0
        last_log = started
        now = self.now()
        for board in list(self._boards.values()):
            current: LeaderboardId | None = None
            entries: list[tuple[PlayerId, SortKey, int]] = []
            skip = False
            async for row in self.store.stream_standings(board.id):
                if row.leaderboard != current:
                    if current is not None and not skip:
                        await self.index.load(current, entries)
                    current, entries = row.leaderboard, []
                    skip = self._expired(board, current, now)
                if not skip:
                    key = encode(row.score, row.achieved_at, row.player, board.order)
                    entries.append((row.player, key, row.revision))
                done += 1
                if done % 100_000 == 0:
                    self.rebuild_progress = (done, total)
                    if time.perf_counter() - last_log > 2:
                        last_log = time.perf_counter()
                        log.info("rebuild: %s / %s standings", f"{done:,}", f"{total:,}")
            if current is not None and not skip:
                await self.index.load(current, entries)
        self.rebuild_progress = (done, total)
        elapsed = time.perf_counter() - started
        if total:
            log.info("ranking index ready: %s standings in %.1f s", f"{done:,}", elapsed)
        self.writer.start()
        self.ready = True
        self._ready_event.set()

    async def wait_ready(self) -> None:
        """Wait until the ranking index is built (raises if the rebuild failed)."""
        while not self._ready_event.is_set():
            for task in self._tasks[:1]:
                if task.done():
                    task.result()
            try:
                await asyncio.wait_for(self._ready_event.wait(), 0.05)
            except TimeoutError:
                continue

    async def _sweep(self) -> None:
        """Drop the live leaderboards of closed periods whose retention has passed."""
        while True:
            await asyncio.sleep(self.settings.retention_sweep_seconds)
            if self.ready:
                await self.expire_periods()

    async def expire_periods(self) -> list[LeaderboardId]:
        now = self.now()
        dropped: list[LeaderboardId] = []
        for board in list(self._boards.values()):
            for leaderboard in await self.index.leaderboards(board.id):
                if self._expired(board, leaderboard, now):
                    dropped.append(leaderboard)
        if dropped:
            await self.index.drop(dropped)
            log.info("expired %d leaderboards past retention", len(dropped))
        return dropped


__all__ = ["NotMigrated", "Rankline"]
