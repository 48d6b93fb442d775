"""The rankline service: boards, the write path and reads, over one store and one index.

service = Rankline(Settings())
await service.start()
top = await service.read("arena-solo", lambda board: board.top(window="daily"))
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import msgspec

from rankline.boards import Board, BoardSpec
from rankline.clock import SystemClock
from rankline.errors import Conflict, IndexUnavailable, InvalidInput, NotFound, RanklineError
from rankline.feed import make_feed
from rankline.index.memory import MemoryIndex
from rankline.indexing import IndexKeeper
from rankline.lifecycle import Lifecycle
from rankline.players import Players
from rankline.reads import BoardHandle
from rankline.settings import Settings
from rankline.store import migrate
from rankline.store.archive import ArchivedPeriod
from rankline.store.sql import SqlStore
from rankline.types import (
    BoardId,
    Clock,
    IndexChange,
    LeaderboardId,
    Micros,
    PlayerId,
    RankingIndex,
)
from rankline.writer import GroupCommitWriter, Outcome, Submission

log = logging.getLogger("rankline")
_BOARD_REFRESH_SECONDS = 2.0
_CLOSE_SECONDS = 10.0


async def _bounded(step: str, work: Awaitable[Any], seconds: float = _CLOSE_SECONDS) -> None:
    started = time.perf_counter()
    try:
        await asyncio.wait_for(work, seconds)
    except TimeoutError:
        log.error("closing the %s took over %.0f s; giving up on it", step, seconds)
        for task in asyncio.all_tasks():
            log.error("still running: %r", task, stack_info=False)
            for frame in task.get_stack():
                log.error(
                    "    %s:%d %s", frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name
                )
        return
    elapsed = time.perf_counter() - started
    if elapsed > 1:
        log.warning("closing the %s took %.1f s", step, elapsed)


class NotMigrated(RanklineError):
    title, slug = "Database not migrated", "not-migrated"


def make_index(settings: Settings) -> RankingIndex:
    """The index backend the settings ask for: Redis when RANKLINE_REDIS_URL is set."""
    if settings.redis_url:
        from rankline.index.redis import RedisIndex

        return RedisIndex(settings.redis_url)
    return MemoryIndex()


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
        self.index: RankingIndex = index or make_index(settings)
        self._auto_migrate = settings.is_embedded if auto_migrate is None else auto_migrate
        self._boards: dict[BoardId, Board] = {}
        self._board_lock = asyncio.Lock()
        self.keeper = IndexKeeper(
            self.index,
            self.store,
            self.clock,
            self.boards,
            check_seconds=settings.index_check_seconds,
        )
        self.writer = GroupCommitWriter(
            self.store,
            self.index,
            self.clock,
            on_board=self._learn_board,
            max_batch=settings.commit_max_batch,
            linger_seconds=settings.commit_linger_ms / 1000,
            on_index_error=self.keeper.missed,
            on_applied=self._changed,
        )
        shared = getattr(self.index, "shared", False)
        self.feed = make_feed(getattr(self.index, "url", None) if shared else None)
        """Which leaderboards changed, for live streams (in-process or Redis pub/sub)."""
        self.lifecycle = Lifecycle(self.store, self.clock, self.boards)
        self.players = Players(self)
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self, *, wait_ready: bool = False) -> None:
        """Connect, check the schema, load boards and build the index in the background."""
        await self.store.start()
        if not await migrate.is_current(self.store.engine):
            if not self._auto_migrate:
                raise NotMigrated(
                    "the database schema is not at the current revision; run `rankline migrate`"
                )
            await migrate.upgrade(self.store.engine)
        await self.reload_boards()
        await self.feed.start()
        try:
            await self.index.start()
        except IndexUnavailable as exc:
            self.keeper.degrade(exc.detail)
        if self.keeper.shared:
            # Writes go to SQL and a shared index guards by revision, so they need not
            # wait for the build; reads are served from SQL until it is done.
            self.writer.start()
        self._tasks = [
            asyncio.create_task(self._build(), name="rankline-build"),
            asyncio.create_task(self._sweep(), name="rankline-retention"),
            asyncio.create_task(
                self.lifecycle.run(
                    self.settings.archive_interval_seconds, lambda: self.keeper.stopping
                ),
                name="rankline-archive",
            ),
        ]
        if self.keeper.shared:
            self._tasks.append(asyncio.create_task(self.keeper.watch(), name="rankline-watch"))
            self._tasks.append(asyncio.create_task(self._refresh_boards(), name="rankline-boards"))
        if wait_ready:
            await self.wait_ready()

    async def _build(self) -> None:
        while not self.keeper.stopping:
            try:
                await self.keeper.build()
                # Periods whose retention ended while the service was down go now, not at
                # the first sweep.
                await self.expire_periods()
                break
            except IndexUnavailable as exc:
                self.keeper.degrade(exc.detail)
                await asyncio.sleep(self.settings.index_check_seconds)
        self.writer.start()

    async def wait_ready(self) -> None:
        """Wait until the ranking index is built (raises if the build failed)."""
        build = self._tasks[0]
        waiter = asyncio.ensure_future(self.keeper.wait_built())
        try:
            await asyncio.wait({build, waiter}, return_when=asyncio.FIRST_COMPLETED)
            if build.done() and not waiter.done():
                build.result()
        finally:
            waiter.cancel()

    async def close(self) -> None:
        """Finish queued writes, stop background work and close connections; each step
        is bounded, so a stuck connection cannot hold up a shutdown forever."""
        await _bounded("writer", self.writer.close())
        await _bounded("player tasks", self.players.close())
        self.keeper.stopping = True
        for task in self._tasks:
            task.cancel()
        await _bounded("background tasks", asyncio.gather(*self._tasks, return_exceptions=True))
        await _bounded("change feed", self.feed.close())
        await _bounded("index", self.index.close())
        await _bounded("store", self.store.close())

    def now(self) -> Micros:
        return self.clock.now()

    @property
    def ready(self) -> bool:
        return self.keeper.usable

    def readiness(self) -> dict[str, Any]:
        return self.keeper.state()

    # --- boards -------------------------------------------------------------------------

    async def reload_boards(self) -> None:
        """Read board definitions from the durable store (the truth for every worker)."""
        fresh = {}
        for definition in await self.store.load_boards():
            board = Board(msgspec.convert(definition, BoardSpec))
            fresh[board.id] = board
        self._boards.clear()
        self._boards.update(fresh)

    def _changed(self, changes: Sequence[IndexChange]) -> None:
        """The writer applied a batch: tell the streams which leaderboards moved."""
        self.feed.publish({change.leaderboard for change in changes})

    def _learn_board(self, board: Board) -> None:
        """The writer read a board definition from SQL; keep the registry as fresh."""
        self._boards[board.id] = board

    def boards(self) -> list[Board]:
        return [self._boards[k] for k in sorted(self._boards)]

    def get_board(self, board_id: BoardId) -> Board:
        board = self._boards.get(board_id)
        if board is None:
            raise NotFound(f"no board {board_id!r}")
        return board

    async def find_board(self, board_id: BoardId) -> Board:
        """The board, looking in the durable store when another worker may have made it."""
        if board_id not in self._boards and self.keeper.shared:
            await self.reload_boards()
        return self.get_board(board_id)

    async def _refresh_boards(self) -> None:
        """Other workers change boards too: re-read the definitions now and then."""
        while not self.keeper.stopping:
            await asyncio.sleep(_BOARD_REFRESH_SECONDS)
            try:
                await self.reload_boards()
            except RanklineError as exc:
                log.warning("could not refresh boards: %s", exc.detail)

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

    # --- reads --------------------------------------------------------------------------

    async def read(
        self, board_id: BoardId, op: Callable[[BoardHandle], Awaitable[dict[str, Any]]]
    ) -> dict[str, Any]:
        """Run a read on the index; from SQL, flagged ``degraded``, when it cannot answer."""
        board = await self.find_board(board_id)
        op = self.players.named(op)  # display names joined into every answer
        if self.keeper.usable:
            try:
                return await self._read_routed(board, self.index, op)
            except IndexUnavailable as exc:
                self.keeper.degrade(exc.detail)
        body = await self._read_routed(board, self.keeper.fallback, op)
        body["degraded"] = True
        return body

    async def _read_routed(
        self,
        board: Board,
        index: RankingIndex,
        op: Callable[[BoardHandle], Awaitable[dict[str, Any]]],
    ) -> dict[str, Any]:
        """Run a read on ``index``, or on the archive for periods whose retention ended."""
        router = self.lifecycle.reader(board, index, self.keeper.fallback)
        body = await op(BoardHandle(self, board, router))
        if router.archived:
            body["archived"] = True
        return body

    def board(self, board_id: BoardId) -> BoardHandle:
        """A handle on one board's leaderboards, reading from whatever can answer now."""
        return BoardHandle(self, self.get_board(board_id), self.keeper.reader())

    # --- writes -------------------------------------------------------------------------

    async def prepare(
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
        board = await self.find_board(board_id)
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
        if not self.writer.running:
            raise IndexUnavailable("the ranking index is being built; retry shortly")
        outcomes = await self.writer.submit(submissions)
        return [
            o if isinstance(o, RanklineError) else await self._render_outcome(o) for o in outcomes
        ]

    async def _rank(self, leaderboard: LeaderboardId, player: PlayerId) -> int | None:
        if self.keeper.usable:
            try:
                position = await self.index.position(leaderboard, player)
                return None if position is None else position.offset + 1
            except IndexUnavailable as exc:
                self.keeper.degrade(exc.detail)
        position = await self.keeper.fallback.position(leaderboard, player)
        return None if position is None else position.offset + 1

    async def _render_outcome(self, outcome: Outcome) -> dict[str, Any]:
        sub = outcome.submission
        standings = []
        for s in outcome.standings:
            rank = None
            if s.entry is not None:
                rank = await self._rank(s.target.leaderboard, sub.player)
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
        previous = None if primary is None or primary.previous is None else primary.previous
        return {
            "player_id": sub.player,
            "match_id": sub.match_id,
            "applied": False if primary is None else primary.applied,
            "duplicate": outcome.duplicate,
            "previous_score": None if previous is None else previous.score,
            "score": None if primary is None or primary.entry is None else primary.entry.score,
            "standings": standings,
        }

    # --- retention ----------------------------------------------------------------------

    async def _sweep(self) -> None:
        while not self.keeper.stopping:
            await asyncio.sleep(self.settings.retention_sweep_seconds)
            if self.keeper.usable:
                try:
                    await self.expire_periods()
                except IndexUnavailable as exc:
                    self.keeper.degrade(exc.detail)

    async def expire_periods(self) -> list[LeaderboardId]:
        """Drop the live leaderboards of closed periods whose retention has passed."""
        return await self.keeper.sweep()

    async def archive_periods(self) -> list[ArchivedPeriod]:
        """Archive the closed periods now (what the scheduler does every interval)."""
        return await self.lifecycle.step()


__all__ = ["NotMigrated", "Rankline", "make_index"]
