"""Keeping the ranking index true to the durable store: rebuilds, degraded mode, retention.

The index is a projection of the SQL standings. ``IndexKeeper`` builds it at start, notices
when it cannot answer (Redis down, or flushed), serves reads from SQL meanwhile (flagged
``degraded``), and brings it back by itself: a full rebuild when the index was lost, or a
reload of just the leaderboards whose updates it missed. Several workers may share one
Redis; a lock in Redis makes one of them do a full rebuild while the others wait.

A read that finds one leaderboard's index damaged (``IndexDamaged``: a key of it was lost)
is answered from SQL, and the keeper repairs that leaderboard in the background (``repair``:
empty it, fill it from SQL, seal it), while the rest of the index keeps answering.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from array import array
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, Protocol

from rankline.boards import Board
from rankline.errors import IndexDamaged, IndexUnavailable, RanklineError, Unavailable
from rankline.index.base import RankingIndex, SharedIndex
from rankline.metrics import DEGRADED, REBUILD_DONE, REBUILD_TOTAL
from rankline.ordering import Keys
from rankline.runtime import tasks
from rankline.runtime.clock import format_time
from rankline.store import scan
from rankline.store.sql import SqlStore
from rankline.types import (
    Clock,
    IndexChange,
    LeaderboardId,
    Micros,
    PlayerId,
    SortKey,
)

log = logging.getLogger("rankline.index")

_SHARED_CHUNK = 50_000
_EXPIRY_MARGIN = 10 * 60 * 1_000_000
"""The sweep drops expired leaderboards on time; the index's own expiry (Redis TTL) is a
backstop that follows 10 minutes later, for when no worker is running."""
_REPAIR_LEASE_MS = 60_000
_LOCK_RENEW_SECONDS = 5.0
"""How often a rebuilding process renews the shared index's rebuild lock."""
"""How long a repair holds a leaderboard without showing progress before another worker
may start it over (a repair extends it with every chunk it loads)."""


class IndexHealth:
    """Whether reads may use the index now, and why not: what the gateway, the board
    registry and ``/readyz`` look at. The keeper changes it, and tells whoever follows
    ``usable`` (the gRPC health service) the moment it changes."""

    def __init__(self, index_name: str, clock: Clock) -> None:
        self._index_name = index_name
        self._clock = clock
        self.built = False
        self.degraded_reason: str | None = "the ranking index is being built"
        self.rebuilding = False
        self.progress: tuple[int, int] = (0, 0)
        self.stopping = False
        """Set at shutdown: the loops below end even if a driver turned their cancellation
        into a connection error (which they would otherwise retry)."""
        self._followers: list[Callable[[bool], None]] = []

    @property
    def usable(self) -> bool:
        """True when reads may go to the index (built and reachable)."""
        return self.built and self.degraded_reason is None

    def follow(self, follower: Callable[[bool], None]) -> Callable[[], None]:
        """Call ``follower(usable)`` each time ``usable`` changes, as it changes (in the
        changer's call, so before anything else reads it); returns what stops it."""
        self._followers.append(follower)
        return lambda: self._followers.remove(follower)

    def degrade(self, reason: str) -> None:
        DEGRADED.set(1)
        was = self.usable
        if self.degraded_reason is None:
            log.warning("ranking index degraded: %s; reads are served from SQL", reason)
        self.degraded_reason = reason
        self._changed(was)

    def recovered(self) -> None:
        was = self.usable
        self.degraded_reason = None
        DEGRADED.set(0)
        self._changed(was)

    def built_now(self) -> None:
        was = self.usable
        self.built = True
        self.degraded_reason = None
        DEGRADED.set(0)
        self._changed(was)

    def _changed(self, was: bool) -> None:
        now = self.usable
        if now != was:
            for follower in list(self._followers):
                follower(now)

    def set_progress(self, done: int, total: int) -> None:
        self.progress = (done, total)
        REBUILD_DONE.set(done)
        REBUILD_TOTAL.set(total)

    def state(self) -> dict[str, Any]:
        done, total = self.progress
        if self.usable:
            state = "ready"
        elif self.rebuilding or not self.built:
            state = "rebuilding"
        else:
            state = "degraded"
        body: dict[str, Any] = {
            "ready": self.usable,
            "index": self._index_name,
            "state": state,
            "degraded": not self.usable,
            "rebuild": {"done": done, "total": total},
            "as_of": format_time(self._clock.now()),
        }
        if self.degraded_reason is not None:
            body["reason"] = self.degraded_reason
        return body


class BoardList(Protocol):
    def boards(self) -> list[Board]: ...


class IndexKeeper:
    """Builds the index, brings it back after a loss, repairs damaged leaderboards and
    drops expired ones; ``health`` says what it found."""

    def __init__(
        self,
        index: RankingIndex,
        health: IndexHealth,
        store: SqlStore,
        clock: Clock,
        boards: BoardList,
        *,
        shared: SharedIndex | None = None,
        check_seconds: float = 0.5,
    ) -> None:
        self.index = index
        self.shared = shared
        """The lifecycle of a shared index; None for one this process owns."""
        self.health = health
        self._store = store
        self.clock = clock
        self._boards = boards
        self._check_seconds = check_seconds
        self._missed: set[LeaderboardId] = set()
        self._missed_removals: set[tuple[LeaderboardId, PlayerId]] = set()
        """Players to take off leaderboards (bans, erasures) once the index is back: a
        reload from SQL only adds."""
        self._misses = 0
        """How many times updates were missed (the keeper's reloads compare it)."""
        self._repairs: dict[LeaderboardId, asyncio.Task[None]] = {}
        """Repairs of damaged leaderboards running in this process."""

    @property
    def repairs(self) -> list[asyncio.Task[None]]:
        """The repairs running in this process (to cancel at shutdown)."""
        return list(self._repairs.values())

    def failed(self, error: IndexUnavailable) -> None:
        """A read could not use the index: one damaged leaderboard is repaired in the
        background; anything else degrades the whole index."""
        if isinstance(error, IndexDamaged):
            self.damaged(error.leaderboard)
        else:
            self.health.degrade(error.detail)

    def damaged(self, leaderboard: LeaderboardId) -> None:
        """Repair ``leaderboard`` in the background (once at a time per process)."""
        if leaderboard in self._repairs or self.health.stopping:
            return
        task = asyncio.create_task(self._repair_soon(leaderboard))
        self._repairs[leaderboard] = task
        task.add_done_callback(lambda _: self._repairs.pop(leaderboard, None))

    async def _repair_soon(self, leaderboard: LeaderboardId) -> None:
        try:
            if not await self.repair(leaderboard):
                # another worker repairs it: look again a little later
                await asyncio.sleep(self._check_seconds)
        except Unavailable as exc:
            log.warning("repair of %s failed: %s", "/".join(leaderboard), exc.detail)
            await asyncio.sleep(self._check_seconds)
        except Exception:
            log.exception("repair of %s failed", "/".join(leaderboard))
            await asyncio.sleep(self._check_seconds)

    async def repair(self, leaderboard: LeaderboardId) -> bool:
        """Rebuild one leaderboard from SQL: empty it (on a shared index marked damaged, so
        that every worker reads it from SQL meanwhile), fill it, seal it. Writes meanwhile
        are kept by revision. False when another worker is repairing it."""
        shared = self.shared
        token = secrets.token_hex(8)
        if shared is None:
            await self.index.drop([leaderboard])
        elif not await shared.repair_begin(leaderboard, token, _REPAIR_LEASE_MS):
            return False
        log.warning("the index of %s is damaged; rebuilding it from SQL", "/".join(leaderboard))
        board = next((b for b in self._boards.boards() if b.id == leaderboard.board), None)
        if board is not None:
            async for _ in self._load_board(board, self.clock.now(), {leaderboard}):
                if shared is not None:
                    await shared.repair_extend(leaderboard, token, _REPAIR_LEASE_MS)
        if shared is not None:
            await shared.repair_end(leaderboard, token)
        log.info("repaired the index of %s", "/".join(leaderboard))
        return True

    def missed(self, changes: Sequence[IndexChange], error: RanklineError) -> None:
        """The writer committed these to SQL but could not apply them to the index."""
        self._misses += 1
        self._missed.update(c.leaderboard for c in changes)
        self._missed_removals.update((c.leaderboard, c.player) for c in changes if c.key is None)
        self.health.degrade(f"index updates failed: {error.detail}")

    # --- building ------------------------------------------------------------------------

    async def build(self) -> None:
        """Make the index answerable at start: reuse a shared index that is already built,
        otherwise load every live standing (one worker does it; the others wait)."""
        if self.shared is not None:
            await self._rebuild_shared(self.shared)
        else:
            await self.load_all()
        self.health.built_now()

    async def _rebuild_shared(self, index: SharedIndex) -> None:
        while not self.health.stopping:
            if await index.is_built():
                return
            async with index.rebuild_lock() as mine:
                if mine and not await index.is_built():
                    # The lock is renewed on a clock of its own: on a big store, SQL can take
                    # longer than the lock's lifetime before the first rows arrive.
                    lease = _Renewal(index.extend_rebuild_lock, _LOCK_RENEW_SECONDS)
                    async with lease.running():
                        await self.load_all(keepalive=lease.check)
                    await lease.check()
                    await index.mark_built()
                    return
            await asyncio.sleep(self._check_seconds)

    async def load_all(self, keepalive: Callable[[], Awaitable[None]] | None = None) -> int:
        """Load every live standing from SQL into the index, streaming (guarded by revision,
        so concurrent writers' newer states win)."""
        self.health.rebuilding = True
        started = time.perf_counter()
        try:
            total = await self._store.count_standings()
            self.health.set_progress(0, total)
            if total:
                log.info("building the ranking index from %s standings", f"{total:,}")
            done = 0
            last = started
            now = self.clock.now()
            for board in self._boards.boards():
                async for count in self._load_board(board, now, None):
                    done += count
                    self.health.set_progress(done, total)
                    if time.perf_counter() - last > 2:
                        last = time.perf_counter()
                        log.info("rebuild: %s / %s standings", f"{done:,}", f"{total:,}")
                        if keepalive is not None:
                            await keepalive()
            elapsed = time.perf_counter() - started
            if total:
                rate = done / elapsed if elapsed else 0
                log.info("ranking index built: %s in %.1f s (%.0f/s)", f"{done:,}", elapsed, rate)
            return done
        finally:
            self.health.rebuilding = False

    async def _load_board(
        self, board: Board, now: Micros, only: set[LeaderboardId] | None
    ) -> AsyncIterator[int]:
        """Load the board's live leaderboards (only those in ``only``, when given), one at
        a time; yields the count of standings read, chunk by chunk, for progress."""
        for leaderboard in await scan.leaderboard_ids(self._store, board.id):
            if board.expired(leaderboard, now) or (only is not None and leaderboard not in only):
                continue
            if self.index.loads_whole:
                loading = self._load_keys(board, leaderboard)
            else:
                loading = self._load_entries(board, leaderboard)
            async for count in loading:
                yield count
            expires = board.retention_ends(leaderboard)
            if expires is not None:
                await self.index.expire_in(leaderboard, expires - now + _EXPIRY_MARGIN)

    async def _load_keys(self, board: Board, leaderboard: LeaderboardId) -> AsyncIterator[int]:
        # The memory index builds a leaderboard in one sort, so it takes it whole. It needs
        # only the keys (each ends with its player's id) and their players' hashes, kept in
        # an array: no other object outlives its chunk, so the build leaves no holes behind.
        keys: list[SortKey] = []
        hashes = array("q")
        async for chunk, players in scan.scan_keys(self._store, leaderboard, board.keys):
            keys += chunk
            hashes.extend(map(hash, players))
            yield len(chunk)
        await self.index.load_keys(leaderboard, keys, hashes)

    async def _load_entries(self, board: Board, leaderboard: LeaderboardId) -> AsyncIterator[int]:
        # A shared index takes big leaderboards in chunks: ``fill`` (Redis) fast when the
        # leaderboard is empty, else guarded by revision. SQL reads the next chunk while
        # the index takes this one.
        rows = scan.scan_rows(self._store, leaderboard, board.order, _SHARED_CHUNK)
        chunks = _entries(_read_ahead(rows), board.keys)
        size = await scan.count_rows(self._store, leaderboard)
        async for count in self.index.fill(leaderboard, size, chunks):
            yield count

    # --- recovery ------------------------------------------------------------------------

    async def watch(self) -> None:
        """Notice a lost or unreachable shared index and bring it back (runs forever)."""
        index = self.shared
        if index is None:
            return
        while not self.health.stopping:
            await asyncio.sleep(self._check_seconds)
            if not self.health.built:
                continue
            try:
                if self.health.degraded_reason is None:
                    if not await index.is_built():
                        self.health.degrade("the index was lost (Redis restarted or flushed)")
                    continue
                await index.ping()
                # An update missed while this runs may come after the reload read SQL:
                # then everything missed stays for the next round (still degraded).
                misses = self._misses
                if not await index.is_built():
                    await self._rebuild_shared(index)
                elif self._missed:
                    await self._reload_missed(set(self._missed), set(self._missed_removals))
                if self._misses != misses:
                    continue
                self._missed.clear()
                self._missed_removals.clear()
                self.health.recovered()
                log.info("ranking index recovered; reads use it again")
            except Unavailable as exc:
                self.health.degrade(exc.detail)
            except Exception:
                log.exception("index recovery failed; retrying")

    async def _reload_missed(
        self, missed: set[LeaderboardId], removals: set[tuple[LeaderboardId, PlayerId]]
    ) -> None:
        now = self.clock.now()
        if removals:
            await self.index.apply([IndexChange(lb, p, None) for lb, p in sorted(removals)])
        for board in self._boards.boards():
            wanted = {lb for lb in missed if lb.board == board.id}
            if wanted:
                async for _ in self._load_board(board, now, wanted):
                    pass

    async def sweep(self) -> list[LeaderboardId]:
        """Hand closed periods' retention to the index and drop the expired ones; first
        put back in a shared index's registry any live leaderboard missing there (a lost
        registry would hide leaderboards from this sweep and from deleting their board)."""
        now = self.clock.now()
        dropped: list[LeaderboardId] = []
        for board in self._boards.boards():
            if self.shared is not None:
                live = await scan.leaderboard_ids(self._store, board.id)
                await self.shared.register([lb for lb in live if not board.expired(lb, now)])
            for leaderboard in await self.index.leaderboards(board.id):
                expires = board.retention_ends(leaderboard)
                if expires is None:
                    continue
                if now >= expires:
                    dropped.append(leaderboard)
                else:
                    await self.index.expire_in(leaderboard, expires - now + _EXPIRY_MARGIN)
        if dropped:
            await self.index.drop(dropped)
            log.info("expired %d leaderboards past retention", len(dropped))
        return dropped


async def _read_ahead(chunks: AsyncIterator[list[scan.Row]]) -> AsyncIterator[list[scan.Row]]:
    """The chunks of ``chunks``, the next one read while the consumer handles this one."""
    ahead = asyncio.ensure_future(anext(chunks, None))
    try:
        while (chunk := await ahead) is not None:
            ahead = asyncio.ensure_future(anext(chunks, None))
            yield chunk
    finally:
        ahead.cancel()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await ahead
        if isinstance(chunks, AsyncGenerator):
            await chunks.aclose()


async def _entries(
    chunks: AsyncIterator[list[scan.Row]], layout: Keys
) -> AsyncIterator[list[tuple[PlayerId, SortKey, int]]]:
    async for rows in chunks:
        keys = layout.encode_rows([(p.encode(), s, sub, at) for p, s, at, _, sub in rows])
        yield [
            (player, key, revision)
            for (player, _, _, revision, _), key in zip(rows, keys, strict=True)
        ]


__all__ = ["IndexKeeper", "IndexUnavailable"]


class _Renewal:
    """Renews a lock every ``every`` seconds while its block runs; ``check`` raises what
    made a renewal fail (the lock is lost: the work it guards must stop)."""

    def __init__(self, renew: Callable[[], Awaitable[None]], every: float) -> None:
        self._renew = renew
        self._every = every
        self._failed: BaseException | None = None

    async def check(self) -> None:
        if self._failed is not None:
            raise self._failed

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self._every)
            try:
                await self._renew()
            except Exception as exc:
                log.warning("the rebuild lock could not be renewed: %s", exc)
                self._failed = exc
                return

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        task = asyncio.create_task(self._run(), name="rankline-rebuild-lock")
        try:
            yield
        finally:
            await tasks.stop(task)
