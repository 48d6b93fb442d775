"""The rankline service: boards, the write path and reads, over one store and one index.

service = Rankline(Settings())
await service.start()
top = await service.read("arena-solo", lambda board: board.top(window="daily"))
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Any, TypeVar

import msgspec

from rankline.boards import Board, BoardSpec
from rankline.cache import HotReads, TopCache, join_entries
from rankline.clock import SystemClock
from rankline.errors import Conflict, IndexUnavailable, InvalidInput, NotFound, RanklineError
from rankline.feed import make_feed
from rankline.index.memory import MemoryIndex
from rankline.indexing import IndexKeeper
from rankline.lifecycle import Lifecycle
from rankline.names import NAME_TTL_SECONDS
from rankline.players import Players
from rankline.reads import BoardHandle, Resolved, resolve
from rankline.registry import BoardRegistry
from rankline.settings import Settings
from rankline.store import migrate
from rankline.store.archive import ArchivedPeriod
from rankline.store.lock import embedded_lock
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
from rankline.writer import GroupCommitWriter, Outcome, Ranks, Submission, ranks_in

log = logging.getLogger("rankline")
T = TypeVar("T")
Where = dict[str, str | None]
"""A read's ``window``, ``period`` and ``scope`` as the request gave them (None: default)."""
_encoder = msgspec.json.Encoder()
_RESOLVED_MICROS = 1_000_000
_RESOLVED_MAX = 10_000
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


def top_etag(digest: str, offset: int, limit: int, total: int, flags: dict[str, bool]) -> str:
    """A weak validator of a top page: the entries it was cut from, the cut, the total and
    the flags; not ``as_of``."""
    marks = "".join(sorted(name[0] for name in flags))
    return f'W/"{digest}.{offset}.{limit}.{total}{marks}"'


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
        freeze_gc: bool = False,
    ) -> None:
        self.settings = settings
        self._freeze_gc = freeze_gc
        """Freeze the objects alive after the index build (a serving process's choice)."""
        self.clock: Clock = clock or SystemClock()
        self.store = SqlStore(
            settings.database,
            sqlite_synchronous=settings.sqlite_synchronous,
            sqlite_cache_mb=settings.sqlite_cache_mb,
        )
        self.index: RankingIndex = index or make_index(settings)
        self._data_dir_lock = embedded_lock(
            settings.data_dir, settings.database, getattr(self.index, "shared", False)
        )
        """Held while started: one server per data directory on the embedded store."""
        self._auto_migrate = settings.is_embedded if auto_migrate is None else auto_migrate
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
            max_batch=settings.commit_max_batch,
            linger_seconds=settings.commit_linger_ms / 1000,
            on_index_error=self.keeper.missed,
            on_applied=self._changed,
            max_queued=settings.write_queue_max,
        )
        shared = getattr(self.index, "shared", False)
        self.feed = make_feed(getattr(self.index, "url", None) if shared else None)
        """Which leaderboards changed, for live streams (in-process or Redis pub/sub)."""
        self.lifecycle = Lifecycle(self.store, self.clock, self.boards)
        self.players = Players(self)
        self._resolved: dict[tuple[Any, ...], tuple[Resolved, Micros, Micros]] = {}
        self.tops = TopCache(NAME_TTL_SECONDS)
        """The first entries of each leaderboard as JSON bytes (see ``rankline.cache``)."""
        self.hot: HotReads[dict[str, Any]] = HotReads(settings.hot_read_ttl_ms / 1000)
        """Single-flight for one player's reads, shared for a short TTL."""
        self._tasks: list[asyncio.Task[None]] = []
        versions = getattr(self.index, "board_versions", None)
        self.registry = BoardRegistry(
            self.store,
            versions() if versions is not None else None,
            usable=lambda: self.keeper.usable,
            on_change=self._forget_answers,
        )
        """Board definitions, current for every request (see ``rankline.registry``)."""

    async def start(self, *, wait_ready: bool = False) -> None:
        """Connect, check the schema, load boards and build the index in the background.

        ``DataDirInUse`` when another process serves the same embedded data directory."""
        if self._data_dir_lock is not None:
            self._data_dir_lock.acquire()
        try:
            await self._open_store()
        except BaseException:
            if self._data_dir_lock is not None:
                self._data_dir_lock.release()  # a failed start holds nothing
            raise
        await self.players.start()
        await self.feed.start()
        try:
            await self.index.start()
        except IndexUnavailable as exc:
            self.keeper.degrade(exc.detail)
        await self.registry.start()
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

    async def _open_store(self) -> None:
        await self.store.start()
        if not await migrate.is_current(self.store.engine):
            if not self._auto_migrate:
                raise NotMigrated(
                    "the database schema is not at the current revision; run `rankline migrate`"
                )
            await migrate.upgrade(self.store.engine)

    async def _build(self) -> None:
        while not self.keeper.stopping:
            try:
                await self.keeper.build()
                # Periods whose retention ended while the service was down go now, not at
                # the first sweep.
                await self.expire_periods()
                if self._freeze_gc:
                    # The index is millions of long-lived objects: keep them out of every
                    # garbage collection from now on (they are freed by reference counting).
                    gc.freeze()
                break
            except IndexUnavailable as exc:
                self.keeper.degrade(exc.detail)
                await asyncio.sleep(self.settings.index_check_seconds)
        self.writer.start()

    async def wait_ready(self) -> None:
        """Wait until the ranking index is built, the periods whose retention ended while
        the service was down are dropped from it, and the writer runs (raises if the build
        failed)."""
        build = self._tasks[0]
        await asyncio.wait({build})
        build.result()

    async def close(self) -> None:
        """Finish queued writes, stop background work and close connections; each step
        is bounded, so a stuck connection cannot hold up a shutdown forever."""
        await _bounded("writer", self.writer.close())
        await _bounded("player tasks", self.players.close())
        self.keeper.stopping = True
        tasks = [*self._tasks, *self.keeper.repairs]
        for task in tasks:
            task.cancel()
        await _bounded("background tasks", asyncio.gather(*tasks, return_exceptions=True))
        await _bounded("change feed", self.feed.close())
        await _bounded("index", self.index.close())
        await _bounded("store", self.store.close())
        if self._data_dir_lock is not None:
            self._data_dir_lock.release()

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
        await self.registry.reload()

    def _forget_answers(self) -> None:
        """Board definitions changed: no cached answer may outlive the old ones."""
        self._resolved.clear()
        self.tops.clear()
        self.hot.clear()

    async def _refresh_boards(self) -> None:
        """Keep the background work (archiving, retention) on current definitions while no
        request comes; requests check for changes themselves (``_on_board``)."""
        while not self.keeper.stopping:
            await asyncio.sleep(_BOARD_REFRESH_SECONDS)
            try:
                await self.registry.refresh()
            except RanklineError as exc:
                log.warning("could not refresh boards: %s", exc.detail)

    def _changed(self, changes: Sequence[IndexChange]) -> None:
        """The writer applied a batch: tell the streams which leaderboards moved."""
        self.feed.publish({change.leaderboard for change in changes})

    def boards(self) -> list[Board]:
        """Every board as last loaded (``list_boards`` checks for changes elsewhere)."""
        return self.registry.boards()

    async def list_boards(self) -> list[Board]:
        """Every board, including changes any worker acknowledged before the call."""
        await self.registry.refresh()
        return self.registry.boards()

    def get_board(self, board_id: BoardId) -> Board:
        return self.registry.get(board_id)

    async def find_board(self, board_id: BoardId) -> Board:
        """The board, including changes any worker acknowledged before the call."""
        return await self.registry.find(board_id)

    async def _on_board(self, board_id: BoardId, run: Callable[[Board], Awaitable[T]]) -> T:
        """``run`` on the board as of now. The registry's check goes out beside the index
        reads ``run`` makes (one round trip); when it finds the registry out of date, the
        answer is dropped and ``run`` goes again on the board as reloaded (or NotFound)."""
        board = self.registry.cached(board_id)
        if board is None or not self.registry.shared:
            return await run(await self.find_board(board_id))
        # The check's task starts on the loop's next turn, so its read joins the group that
        # ``run``'s first index read (asked during this turn) goes in.
        check = asyncio.ensure_future(self.registry.refresh())
        try:
            answer = await run(board)
            failure: Exception | None = None
        except Exception as exc:
            failure = exc
        except BaseException:
            check.cancel()
            raise
        if await check:
            fresh = self.registry.get(board_id)
            if fresh is not board:
                return await run(fresh)
        if failure is not None:
            raise failure
        return answer

    async def put_board(self, board_id: BoardId, spec: BoardSpec) -> tuple[Board, bool]:
        """Create or update a board; True when it was created. Checked against the stored
        definition, whichever worker stored it."""
        new = Board.define(board_id, spec)

        def check(stored: dict[str, Any] | None, has_entries: bool) -> None:
            if stored is not None and has_entries:
                Board(msgspec.convert(stored, BoardSpec)).check_update(new)

        # The commit lock: a batch of this process that read the old definition commits
        # first (other processes' batches hold the board's row; see ``board_definitions``).
        async with self._board_lock, self.writer.commit_lock, self.registry.changing():
            created = await self.store.save_board(board_id, new.to_json(), self.now(), check)
            self.registry.put(new)
        return new, created

    async def delete_board(self, board_id: BoardId) -> None:
        async with self._board_lock, self.writer.commit_lock, self.registry.changing():
            if not await self.store.delete_board(board_id):
                self.registry.drop(board_id)
                raise NotFound(f"no board {board_id!r}")
            self.registry.drop(board_id)
            self.writer.forget_board(board_id)
            await self.index.drop(await self.index.leaderboards(board_id))

    # --- reads --------------------------------------------------------------------------

    async def read(
        self,
        board_id: BoardId,
        op: Callable[[BoardHandle], Awaitable[dict[str, Any]]],
        where: Where | None = None,
        *,
        hot: Hashable | None = None,
    ) -> dict[str, Any]:
        """Run a read on the index; from SQL, flagged ``degraded``, when it cannot answer.

        ``where`` (the read's window, period and scope) lets a read of a live leaderboard go
        straight to the index; with ``hot`` too (a key naming the read), concurrent and
        repeated identical reads share one answer while the leaderboard is unchanged
        (``rankline.cache.HotReads``).
        """
        op = self.players.named(op)  # display names joined into every answer
        return await self._on_board(board_id, lambda board: self._read(board, op, where, hot))

    async def _read(
        self,
        board: Board,
        op: Callable[[BoardHandle], Awaitable[dict[str, Any]]],
        where: Where | None,
        hot: Hashable | None,
    ) -> dict[str, Any]:
        if self.keeper.usable:
            try:
                if where is not None:
                    asked = (where["window"], where["period"], where["scope"])
                    resolved = self.resolve(board, *asked)
                    if not resolved.expired:
                        return await self._read_live(board, (asked, resolved), op, hot)
                return await self._read_routed(board, self.index, op)
            except IndexUnavailable as exc:
                self.keeper.failed(exc)
        body = await self._read_routed(board, self.keeper.fallback, op)
        body["degraded"] = True
        return body

    async def _read_live(
        self,
        board: Board,
        resolved: tuple[tuple[str | None, ...], Resolved],
        op: Callable[[BoardHandle], Awaitable[dict[str, Any]]],
        hot: Hashable | None,
    ) -> dict[str, Any]:
        handle = BoardHandle(self, board, self.index, resolved)
        if hot is None:
            return await op(handle)
        index, leaderboard = self.index, resolved[1].leaderboard
        body = await self.hot.get(
            (leaderboard, hot, board), lambda: index.change_stamp(leaderboard), lambda: op(handle)
        )
        return dict(body)  # the shared answer stays as it was

    def resolve(
        self, board: Board, window: str | None, period: str | None, scope: str | None
    ) -> Resolved:
        """A read's leaderboard (``reads.resolve``), and whether its retention has ended;
        kept for a second of the clock, or until the period or its retention ends."""
        now = self.clock.now()
        key = (board, window, period, scope)
        held = self._resolved.get(key)
        if held is not None and held[1] <= now < held[2]:
            return held[0]
        leaderboard, found = resolve(board, window, period, scope, now)
        expires = board.expires_at(found)
        expired = expires is not None and now >= expires
        until = now + _RESOLVED_MICROS
        if period is None and found.ends_at is not None:
            until = min(until, found.ends_at)
        if expires is not None and not expired:
            until = min(until, expires)
        if len(self._resolved) >= _RESOLVED_MAX:
            self._resolved.clear()
        resolved = Resolved(leaderboard, found, expired)
        self._resolved[key] = (resolved, now, until)
        return resolved

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

    async def read_top(
        self, board_id: BoardId, where: Where, offset: int, limit: int
    ) -> tuple[bytes, str]:
        """A top page as ready JSON bytes and its weak ETag, from the top cache when the
        index can vouch for it (see ``rankline.cache``); flagged like ``read`` otherwise."""
        return await self._on_board(
            board_id, lambda board: self._read_top(board, where, offset, limit)
        )

    async def _read_top(
        self, board: Board, where: Where, offset: int, limit: int
    ) -> tuple[bytes, str]:
        if self.keeper.usable:
            try:
                return await self._top_routed(board, self.index, where, offset, limit, {})
            except IndexUnavailable as exc:
                self.keeper.failed(exc)
        flags = {"degraded": True}
        return await self._top_routed(board, self.keeper.fallback, where, offset, limit, flags)

    async def _top_routed(
        self,
        board: Board,
        index: RankingIndex,
        where: Where,
        offset: int,
        limit: int,
        flags: dict[str, bool],
    ) -> tuple[bytes, str]:
        resolved = self.resolve(board, **where)
        leaderboard = resolved.leaderboard
        reader: RankingIndex = index
        router = None
        if resolved.expired or index is not self.index:
            reader = router = self.lifecycle.reader(board, index, self.keeper.fallback)
        handle = BoardHandle(self, board, reader)
        total, entries, digest = await self.tops.page(
            reader, leaderboard, offset, limit, handle.render_entries
        )
        if router is not None and router.archived:
            flags = flags | {"archived": True}
        head = _encoder.encode(handle.head(leaderboard, total) | flags)
        return join_entries(head, entries), top_etag(digest, offset, limit, total, flags)

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
        """Validate one submission against its board; InvalidInput/NotFound/Conflict if bad.

        Checked against the board as last loaded (the writer checks the stored definition
        again in its transaction); a submission refused that way is checked again once the
        registry is current, as the board may have changed in another worker."""
        board = self.registry.cached(board_id)
        if board is not None:
            try:
                return self._check(board, player, match_id, score, at, scopes, metadata)
            except RanklineError:
                if not self.registry.shared or not await self.registry.refresh():
                    raise
            board = self.registry.get(board_id)
        else:
            board = await self.find_board(board_id)
        return self._check(board, player, match_id, score, at, scopes, metadata)

    def _check(
        self,
        board: Board,
        player: PlayerId,
        match_id: str,
        score: int,
        at: Micros | None,
        scopes: dict[str, str] | None,
        metadata: dict[str, Any] | None,
    ) -> Submission:
        if board.frozen:
            raise Conflict(f"board {board.id!r} is frozen; it takes no writes")
        if board.policy == "rating":
            raise Conflict("a rating board takes match results at /matches, not scores")
        now = self.now()
        at_given = at is not None
        if at is None:
            at = now
        elif at > now + self.settings.clock_skew_seconds * 1_000_000:
            raise InvalidInput.at(["body", "at"], "`at` is in the future")
        board.check_score(score)
        scopes = scopes or {}
        board.check_scopes(scopes)
        return Submission(
            board, player, match_id, score, at, now, scopes, metadata or {}, at_given=at_given
        )

    async def submit(
        self, submissions: Sequence[Submission]
    ) -> list[dict[str, Any] | RanklineError]:
        """Write submissions durably (group commit) and answer each with its standings."""
        if not self.writer.running:
            raise IndexUnavailable("the ranking index is being built; retry shortly")
        outcomes = await self.writer.submit(submissions)
        ranks = await self._ranks([o for o in outcomes if isinstance(o, Outcome)])
        return [o if isinstance(o, RanklineError) else o.render(ranks) for o in outcomes]

    async def _ranks(self, outcomes: list[Outcome]) -> Ranks:
        if self.keeper.usable:
            try:
                return await ranks_in(self.index, outcomes)
            except IndexUnavailable as exc:
                self.keeper.failed(exc)
        return await ranks_in(self.keeper.fallback, outcomes)

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
