"""The write path: group commit of score submissions.

Requests queue up while a commit is in flight; the writer takes every queued request (up to
``max_batch`` submissions) and writes them in one transaction: the score events (unique on
board, player, match_id) and the standings the policies produce. Only after the commit are
the index updated and the callers answered, so an acknowledged submission is durable, and a
retried one is recognised as a duplicate, also after a restart.

A batch of a thousand submissions is planned in a few bulk reads (which events exist, the
current standings) and written in a few bulk statements (``rankline.store.hot``); the
per-submission work in between is plain Python on small objects, so keep it lean. It yields
to the event loop every ``SLICE`` submissions, as the index work after the commit does.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

import msgspec

from rankline.boards import Board, BoardSpec, Target
from rankline.errors import (
    Conflict,
    InvalidInput,
    NotFound,
    Overloaded,
    RanklineError,
    Unavailable,
    WriteConflict,
)
from rankline.fanout import FanOut
from rankline.index.base import IndexWriter
from rankline.metrics import BATCH_SIZE, COMMIT_SECONDS, THROTTLED
from rankline.policies import StandingScore
from rankline.runtime import tasks
from rankline.runtime.lru import LRUCache
from rankline.store.sql import SqlStore
from rankline.types import (
    BoardId,
    Clock,
    IndexChange,
    LeaderboardId,
    Micros,
    ScoreEvent,
    StandingRow,
    StoreTransaction,
)
from rankline.writing.admission import Admission, Deadline
from rankline.writing.commit_lock import CommitLock
from rankline.writing.submission import (
    EventKey,
    Outcome,
    StandingKey,
    StandingOutcome,
    Submission,
    applied_of,
    evaluate,
    reused,
    standing_rows,
)

log = logging.getLogger("rankline.writing.writer")

_RETRIES = 5
_DEFINITIONS = 1000
"""Board definitions kept decoded (by their stored text)."""
SLICE = 64
"""Submissions planned, and changes applied to the index, between two turns of the event
loop: a batch of thousands never holds it for long (the reads wait for no whole batch).
Callers are answered only once all of their batch is in the index. On Redis each slice is
one script, which Redis runs whole while the reads wait: at 250 a slice, rank reads beside
an overload of writes had a p99 of 134 to 141 ms on two cores, at 64 68 to 75 ms, the write
rates unchanged (docs/performance.md, *Overload*)."""


@dataclass(slots=True)
class _Pending:
    """One caller's submissions (a request), answered together."""

    submissions: list[Submission]
    future: asyncio.Future[list[Outcome | RanklineError]]
    deadline: Deadline | None


@dataclass(slots=True)
class _Plan:
    outcomes: list[Outcome | RanklineError]
    changes: list[IndexChange]
    periods: set[tuple[BoardId, str, str]]


class Changes(Protocol):
    """Where a committed batch's changes go: the ranking index (``IndexWriter``), or the
    change feed (``feed``), told which leaderboards moved."""

    def publish(self, changed: set[LeaderboardId]) -> None: ...


class GroupCommitWriter:
    """Gathers concurrent submissions into shared transactions."""

    def __init__(
        self,
        store: SqlStore,
        index: IndexWriter,
        clock: Clock,
        *,
        feed: Changes | None = None,
        commit_lock: CommitLock | None = None,
        max_batch: int = 2000,
        linger_seconds: float = 0.0,
        max_queued: int | None = None,
        admission: Admission | None = None,
    ) -> None:
        self._store = store
        self._index = index
        """Takes each committed batch's changes; it must not fail a committed batch (the
        gateway keeps what the index could not take for the keeper to reload)."""
        self._clock = clock
        self._feed = feed
        """Told which leaderboards each committed batch moved (live streams)."""
        self._definitions: LRUCache[str, Board] = LRUCache(_DEFINITIONS)
        self._max_batch = max_batch
        self._linger = linger_seconds
        self._queue: asyncio.Queue[_Pending] = asyncio.Queue()
        self._max_queued = max_queued
        """Submissions that may wait for a batch; a request beyond it is refused (429)."""
        self._queued = 0
        """Submissions queued and not yet in a batch."""
        self.admission = admission or Admission(1.0)
        """Admits a request by the wait it would meet; told each large batch's rate."""
        self._outstanding = 0
        """Submissions admitted and not answered yet: the work ahead of a new one."""
        self._sample_min = max(1, max_batch // 4)
        self._held: _Pending | None = None
        """A request taken from the queue that did not fit the last batch: the next one's."""
        self._task: asyncio.Task[None] | None = None
        self._known_periods: set[tuple[BoardId, str, str]] = set()
        self._fanout = FanOut()
        self.commit_lock = commit_lock or CommitLock()
        """Held while a batch commits and goes to the index; board changes, bans and erasure
        take it too, so that none interleaves with a batch of this process. Kept across
        queued batches while nobody else asks for it."""
        self.batches = 0
        self.committed = 0

    @property
    def running(self) -> bool:
        return self._task is not None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="rankline-writer")

    async def close(self) -> None:
        if self._task is not None:
            await self._queue.join()
            await tasks.stop(self._task)
            self._task = None

    def forget_periods(self) -> None:
        """Board definitions changed (a board may have been deleted and made again): record
        periods in SQL again as they take their first standing (an idempotent insert)."""
        self._known_periods = set()

    async def submit(
        self, submissions: Sequence[Submission], deadline: Deadline | None = None
    ) -> list[Outcome | RanklineError]:
        """Queue submissions and wait until their batch is durable; one result each.

        ``Overloaded`` (429, nothing recorded) when their wait would not fit ``deadline``, when
        it passes while they queue, or while ``max_queued`` submissions wait (a memory
        guard, the only check without a deadline: the log's applier, imports)."""
        if not submissions:
            return []
        self.admit(len(submissions), deadline)
        self._queued += len(submissions)
        self._outstanding += len(submissions)
        future: asyncio.Future[list[Outcome | RanklineError]] = (
            asyncio.get_running_loop().create_future()
        )
        self._queue.put_nowait(_Pending(list(submissions), future, deadline))
        return await future

    def admit(self, size: int, deadline: Deadline | None) -> None:
        """``Overloaded`` (429) unless ``size`` submissions would be taken now (``submit``
        asks again: a request may ask first, before it prepares its items)."""
        if self._max_queued is not None and self._queued >= self._max_queued:
            THROTTLED.labels("queue").inc()
            raise Overloaded(
                f"the write queue is full ({self._queued} submissions waiting); "
                "nothing was recorded, retry shortly"
            )
        self.admission.admit(self._outstanding, size, deadline)

    async def _next_batch(self, wait: bool = True) -> list[_Pending]:
        """Queued requests of up to ``max_batch`` submissions together (a larger request
        goes alone: its submissions are never split over transactions); those whose deadline
        passed are left out. Empty when nothing is left and ``wait`` is false."""
        first, self._held = self._held, None
        while first is None or self._expired(first):
            if not wait and self._queue.empty():
                return []
            first = await self._queue.get()
        if self._linger:
            await asyncio.sleep(self._linger)
        batch, size = [first], len(first.submissions)
        while size < self._max_batch and not self._queue.empty():
            item = self._queue.get_nowait()
            if self._expired(item):
                continue
            if size + len(item.submissions) > self._max_batch:
                self._held = item
                break
            batch.append(item)
            size += len(item.submissions)
        return batch

    def _expired(self, item: _Pending) -> bool:
        """Whether ``item``'s deadline passed while it waited: then it is answered 429 and
        left out, nothing of it written (its caller has given up, or is about to)."""
        deadline = item.deadline
        if deadline is None or deadline.left(self.admission.now()) > 0:
            return False
        self._queued -= len(item.submissions)
        self._outstanding -= len(item.submissions)
        THROTTLED.labels("deadline").inc()
        if not item.future.done():
            why = "the write waited past its deadline for the writer; nothing was recorded"
            item.future.set_exception(Overloaded(f"{why}, retry shortly"))
        self._queue.task_done()
        return True

    async def _run(self) -> None:
        while True:
            batch = await self._next_batch()
            async with self.commit_lock:
                await self._pipeline(batch)

    async def _pipeline(self, batch: list[_Pending]) -> None:
        """Commit ``batch``, then each batch queued behind it while nobody else wants the
        commit lock: a batch's SQL runs while the batch before it goes to the index and its
        callers are answered. Batches reach the index in commit order, and a caller is
        answered only once its batch is in the index."""
        started = time.perf_counter()
        plan = await self._written(batch)
        while True:
            following: list[_Pending] | None = None
            if self._follows():
                following = await self._next_batch(wait=False) or None
            if following is not None:
                following_started = time.perf_counter()
                writing = asyncio.create_task(self._written(following))
                await asyncio.sleep(0)  # its first statement goes out before the index work
            await self._finished(batch, plan, started)
            if following is None:
                return
            batch, started = following, following_started
            plan = await writing

    def _follows(self) -> bool:
        """Whether a batch waits and the commit lock may be kept for it."""
        queued = self._held is not None or not self._queue.empty()
        return queued and not self.commit_lock.wanted

    async def _written(self, batch: list[_Pending]) -> _Plan | None:
        """``batch`` planned and committed in SQL; None when it was not (its callers are
        answered with why)."""
        submissions = [sub for item in batch for sub in item.submissions]
        self._queued -= len(submissions)
        BATCH_SIZE.observe(len(submissions))
        try:
            for attempt in range(_RETRIES):
                now = self._clock.now()
                try:
                    async with self._store.transaction() as tx:
                        plan = await self._plan(tx, submissions, now, optimistic=attempt == 0)
                    break
                except WriteConflict:
                    if attempt == _RETRIES - 1:
                        _fail(batch, Unavailable("too many concurrent writers; retry"))
                        return None
                    if attempt > 0:
                        await asyncio.sleep(0.005 * attempt)
                except Unavailable as exc:
                    _fail(batch, exc)
                    return None
        except Exception as exc:  # never let the writer die with callers waiting
            _failed(batch, exc, "group commit failed")
            return None
        self._known_periods |= plan.periods
        return plan

    async def _finished(self, batch: list[_Pending], plan: _Plan | None, started: float) -> None:
        """A committed batch's changes into the index (and the change feed), then its
        callers answered."""
        try:
            if plan is None:
                return
            # Committed to SQL, so the writes stand; the index catches up if it must.
            changes = plan.changes
            for start in range(0, len(changes), SLICE):
                if start:
                    await asyncio.sleep(0)  # reads get a turn between slices
                await self._index.apply(changes[start : start + SLICE])
            if self._feed is not None and plan.changes:
                self._feed.publish({change.leaderboard for change in plan.changes})
            took = time.perf_counter() - started
            COMMIT_SECONDS.observe(took)
            size = sum(len(item.submissions) for item in batch)
            if size >= self._sample_min:
                self.admission.measured(size, took)
            self.batches += 1
            start = 0
            for item in batch:
                stop = start + len(item.submissions)
                if not item.future.done():
                    item.future.set_result(plan.outcomes[start:stop])
                start = stop
            self.committed += start
        except Exception as exc:  # never let the writer die with callers waiting
            _failed(batch, exc, "group commit failed after its commit")
        finally:
            for item in batch:
                self._outstanding -= len(item.submissions)
                self._queue.task_done()

    def _board(self, definition: str) -> Board:
        board = self._definitions.get(definition)
        if board is None:
            board = Board(msgspec.json.decode(definition, type=BoardSpec))
            self._definitions[definition] = board
        return board

    async def _live(
        self, tx: StoreTransaction, submissions: list[Submission]
    ) -> list[Submission | RanklineError]:
        """Each submission on its board as stored now, or why it cannot be written.

        Board definitions are read in the transaction (and share-locked until it ends):
        another worker may have frozen, changed or deleted a board since this one validated
        the submission, and a change waits for the batches that read the old definition."""
        definitions = await tx.board_definitions(list({sub.board.id for sub in submissions}))
        boards = {board_id: self._board(text) for board_id, text in definitions.items()}
        checked: list[Submission | RanklineError] = []
        for sub in submissions:
            board = boards.get(sub.board.id)
            if board is None:
                checked.append(NotFound(f"no board {sub.board.id!r}"))
            elif board.frozen:
                checked.append(Conflict(f"board {board.id!r} is frozen"))
            elif board.policy == "rating":
                checked.append(Conflict("a rating board takes match results, not scores"))
            else:
                try:
                    board.check_score(sub.score)
                    board.check_subscore(sub.subscore)
                    board.check_scopes(sub.scopes)
                except InvalidInput as exc:
                    checked.append(exc)
                    continue
                sub.board = board
                checked.append(sub)
        return checked

    async def _plan(
        self, tx: StoreTransaction, submissions: list[Submission], now: Micros, *, optimistic: bool
    ) -> _Plan:
        """Read, decide and write one batch in ``tx``.

        ``optimistic`` skips looking for events already stored: inserting one of them again
        breaks the events' unique key, a ``WriteConflict``, and the batch is planned again
        with the look-up (a resubmission is rare; the look-up costs every batch)."""
        checked = await self._live(tx, submissions)
        live = [s for s in checked if isinstance(s, Submission)]
        existing = {} if optimistic else await tx.existing_events(list({s.event_key for s in live}))
        fanout = self._fanout
        targets = [fanout.targets(s.board, s.at, s.scopes, now) for s in live]
        wanted = {
            (t.leaderboard, s.player) for s, ts in zip(live, targets, strict=True) for t in ts
        }
        stored = await tx.read_standings(list(wanted))
        state = {
            k: StandingScore(score, at, sub) for k, (_, _, score, at, _, sub) in stored.items()
        }
        changed: set[StandingKey] = set()
        seen: dict[EventKey, Submission] = {}
        events: list[ScoreEvent] = []
        opened: dict[int, Target] = {}
        outcomes: list[Outcome | RanklineError] = []
        next_targets = iter(targets)
        for n, item in enumerate(checked):
            if n % SLICE == SLICE - 1:
                await asyncio.sleep(0)  # reads and other requests get a turn
            if isinstance(item, RanklineError):
                outcomes.append(item)
                continue
            sub, subtargets = item, next(next_targets)
            key = (sub.board.id, sub.player, sub.match_id)
            conflict = reused(sub, existing.get(key), seen.get(key))
            if conflict is not None:
                outcomes.append(conflict)
                continue
            duplicate = key in existing or key in seen
            try:
                standings = evaluate(sub, subtargets, state, duplicate)
            except InvalidInput as exc:
                outcomes.append(exc)
                continue
            outcome = Outcome(sub, duplicate, standings)
            outcomes.append(outcome)
            if duplicate:
                continue
            seen[key] = sub
            for standing in standings:
                if standing.applied and standing.entry is not None:
                    target = standing.target
                    state[target.leaderboard, sub.player] = standing.entry
                    changed.add((target.leaderboard, sub.player))
                    opened[id(target)] = target
            applied = applied_of(outcome.primary, standings)
            events.append(
                ScoreEvent(
                    *key,
                    sub.score,
                    sub.at,
                    sub.received_at,
                    applied,
                    sub.scopes,
                    sub.metadata,
                    sub.subscore,
                )
            )
        await tx.insert_events(events)
        rows = standing_rows(changed, state, stored)
        await tx.write_standings(rows)
        periods = self._new_periods(opened.values())
        if periods:
            await tx.add_periods([(*key, *bounds) for key, bounds in sorted(periods.items())])
        changes = await self._changes(tx, rows, live)
        return _Plan(outcomes, changes, set(periods))

    def _new_periods(
        self, targets: Iterable[Target]
    ) -> dict[tuple[BoardId, str, str], tuple[Micros | None, Micros | None]]:
        """Periods that took their first standing in this process: recorded in SQL."""
        found = {}
        for target in targets:
            lb, period = target.leaderboard, target.period
            key = (lb.board, lb.window, lb.period)
            if key not in self._known_periods:
                found[key] = (period.starts_at, period.ends_at)
        return found

    async def _changes(
        self, tx: StoreTransaction, rows: list[StandingRow], live: list[Submission]
    ) -> list[IndexChange]:
        # A banned player's submissions are recorded, but they stay off every leaderboard.
        if not rows:
            return []
        banned = await tx.banned_players([s.player for s in live])
        keys = {s.board.id: s.board.keys for s in live}
        return [
            IndexChange(lb, player, keys[lb.board].encode(score, sub, at, player), revision)
            for lb, player, score, at, revision, sub in rows
            if player not in banned
        ]


def _failed(batch: list[_Pending], exc: Exception, what: str) -> None:
    """Log an unexpected error of a batch, and answer its callers with it."""
    log.exception(what)
    _fail(batch, RanklineError(f"the write failed unexpectedly ({type(exc).__name__})"))


def _fail(batch: list[_Pending], error: RanklineError) -> None:
    for item in batch:
        if not item.future.done():
            item.future.set_result([error] * len(item.submissions))


__all__ = ["SLICE", "Changes", "GroupCommitWriter", "Outcome", "StandingOutcome", "Submission"]
