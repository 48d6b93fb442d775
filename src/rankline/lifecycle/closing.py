"""The life of a period after it ends: close, archive, and reads once it has expired.

A period closes when its end plus the board's ``grace_seconds`` has passed (the writer then
answers ``"reason": "closed"``). The scheduler (``Lifecycle.run``, a task in every server
process) then archives it: ``step`` finds every period past its close that is not archived,
however old (so it catches up after downtime), claims each with a conditional update of its
``rl_periods`` row (``open`` → archiving, with a lease in ``claimed_until``), and copies its
final standings, every scope with its final rank, to ``rl_archive`` in one transaction that
ends with the state ``archived``. Several workers may run it at once: the claim makes one of
them do each period; a crashed worker's claim expires and another takes the period over,
and archiving again first deletes what an earlier attempt left, so it is idempotent. On a
board with a ``webhook``, the same transaction writes each scope's period-close event to the
outbox (``rankline.lifecycle.events``).

The live leaderboard stays in the index until its retention ends (``IndexKeeper.sweep``);
after that, reads of the period are answered from the archive (the gateway routes them,
``index.archive.ArchiveRouter``) and say ``"archived": true``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from rankline.boards import Board
from rankline.errors import RanklineError
from rankline.index.keeper import BoardList
from rankline.periods import Period
from rankline.registry import Boards
from rankline.runtime.clock import SystemClock
from rankline.settings import Settings
from rankline.store import archive as store_archive
from rankline.store.archive import ArchivedPeriod, PeriodKey
from rankline.store.deliveries import CloseEvent
from rankline.store.opening import open_store
from rankline.store.sql import SqlStore
from rankline.types import Clock, Micros, PlayerId

log = logging.getLogger("rankline.lifecycle.closing")

LEASE_SECONDS = 15 * 60
"""How long a claim on a period lasts; a worker that dies holding one delays that period's
archive by at most this long. Archiving a period must finish within it (tens of millions of
entries do), or another worker takes over and the first one's transaction rolls back."""
SETTLE_SECONDS = 10
"""Archiving waits this long after a period closes, so that a group commit whose clock read
came just before the close (or a worker whose clock runs a little behind) has committed."""
_ATTEMPTS = 3


def close_event(board: Board, period: Period) -> CloseEvent | None:
    """The close event the board's webhook asks for a period (None: no webhook)."""
    hook = board.spec.webhook
    if hook is None:
        return None
    return CloseEvent(
        hook.url, hook.top, period.starts_at, period.ends_at, board.sub_order is not None
    )


class Lifecycle:
    """Closes and archives periods (``step``, ``run``)."""

    def __init__(
        self,
        store: SqlStore,
        clock: Clock,
        boards: BoardList,
        *,
        lease_seconds: float = LEASE_SECONDS,
        settle_seconds: float = SETTLE_SECONDS,
    ) -> None:
        self._store = store
        self._clock = clock
        self._boards = boards
        self._lease = int(lease_seconds * 1_000_000)
        self._settle = int(settle_seconds * 1_000_000)

    def archivable_at(self, board: Board, period: Period) -> Micros | None:
        """When the scheduler archives the period: its close plus the settling time."""
        closes = period.closes_at(board.grace_seconds)
        return None if closes is None else closes + self._settle

    async def step(self) -> list[ArchivedPeriod]:
        """Archive every period past its close that no other worker is archiving; returns
        what this worker archived."""
        boards = {board.id: board for board in self._boards.boards()}
        done: list[ArchivedPeriod] = []
        for row in await store_archive.due_periods(self._store, self._clock.now()):
            board = boards.get(row.key.board)
            if board is None:
                continue  # deleted, or made by another worker a moment ago: next step
            now = self._clock.now()
            period = Period(row.key.window, row.key.period, row.starts_at, row.ends_at)
            due = self.archivable_at(board, period)
            if due is None or now < due:
                continue
            if row.claimed_until is not None and row.claimed_until >= now:
                continue  # another worker holds it
            archived = await self._archive(board, row.key, now, close_event(board, period))
            if archived is not None:
                done.append(archived)
        return done

    async def _archive(
        self, board: Board, key: PeriodKey, now: Micros, event: CloseEvent | None = None
    ) -> ArchivedPeriod | None:
        until = now + self._lease
        if not await store_archive.claim(self._store, key, now, until):
            return None
        for attempt in range(_ATTEMPTS):
            try:
                archived = await store_archive.archive_period(
                    self._store, key, board.keys, now, until, event
                )
                break
            except RanklineError as exc:
                if attempt < _ATTEMPTS - 1:  # a deadlock with another worker, say
                    await asyncio.sleep(0.05 * (attempt + 1))
                    continue
                log.warning("archiving %s %s %s failed: %s", *key, exc.detail)
                with contextlib.suppress(RanklineError):
                    await store_archive.release(self._store, key, until)
                return None
        if archived is None:
            log.warning("lost the claim on %s %s %s to another worker", *key)
        else:
            log.info(
                "archived %s %s %s: %d entries in %d leaderboards",
                *key,
                archived.entries,
                archived.scopes,
            )
        return archived

    async def rearchive_player(self, player: PlayerId) -> list[ArchivedPeriod]:
        """Archive again every archived period the player is in (or has a standing in):
        call it after the player is banned, unbanned or erased, so the archive leaves them
        out, brings them back or forgets them, with the ranks closed up."""
        boards = {board.id: board for board in self._boards.boards()}
        done = []
        for key in await store_archive.archived_periods_of(self._store, player):
            board = boards.get(key.board)
            if board is not None:
                archived = await store_archive.archive_period(
                    self._store, key, board.keys, self._clock.now(), None
                )
                if archived is not None:
                    done.append(archived)
        return done

    async def run(self, interval_seconds: float, stopping: Callable[[], bool]) -> None:
        """The scheduler: a step every ``interval_seconds`` until ``stopping()``. The first,
        one interval after start, catches up on whatever closed while no server ran."""
        while not stopping():
            await asyncio.sleep(interval_seconds)
            if stopping():
                break
            try:
                await self.step()
            except RanklineError as exc:
                log.warning("archiving closed periods failed: %s; retrying later", exc.detail)
            except Exception:
                log.exception("archiving closed periods failed; retrying later")


async def archive_now(settings: Settings) -> list[ArchivedPeriod]:
    """``rankline archive``: one step on the durable store the settings name, with the system
    clock (the embedded SQLite is migrated first, as ``serve`` does)."""
    clock = SystemClock()
    async with open_store(settings) as store:
        boards = Boards(store, clock)
        await boards.reload()
        return await Lifecycle(store, clock, boards).step()
