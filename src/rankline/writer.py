"""The write path: group commit of score submissions.

Submissions queue up while a commit is in flight; the writer takes everything queued (up
to ``max_batch``) and writes it in one transaction: the score events (unique on board,
player, match_id) and the standings the policies produce. Only after the commit are the
index updated and the callers answered, so an acknowledged submission is durable, and a
retried one is recognised as a duplicate, also after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from rankline.boards import Board, BoardSpec, Target
from rankline.errors import (
    Conflict,
    IndexUnavailable,
    InvalidInput,
    NotFound,
    RanklineError,
    Unavailable,
    WriteConflict,
)
from rankline.metrics import BATCH_SIZE, COMMIT_SECONDS
from rankline.ordering import encode
from rankline.policies import Entry, combine
from rankline.store.sql import SqlStore
from rankline.types import (
    GLOBAL_SCOPE,
    BoardId,
    Clock,
    IndexChange,
    LeaderboardId,
    MatchId,
    Micros,
    PlayerId,
    RankingIndex,
    Score,
    ScoreEvent,
    Standing,
    StoreTransaction,
)

log = logging.getLogger("rankline.writer")

_RETRIES = 5
_StandingKey = tuple[LeaderboardId, PlayerId]


@dataclass(slots=True)
class Submission:
    board: Board
    player: PlayerId
    match_id: MatchId
    score: Score
    at: Micros
    received_at: Micros
    scopes: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def event_key(self) -> tuple[BoardId, PlayerId, MatchId]:
        return (self.board.id, self.player, self.match_id)


@dataclass(slots=True)
class StandingOutcome:
    target: Target
    applied: bool
    reason: str | None
    entry: Entry | None
    previous: Entry | None


@dataclass(slots=True)
class Outcome:
    submission: Submission
    duplicate: bool
    standings: list[StandingOutcome]

    @property
    def primary(self) -> StandingOutcome | None:
        window = self.submission.board.primary_window
        for standing in self.standings:
            leaderboard = standing.target.leaderboard
            if leaderboard.window == window and leaderboard.scope == GLOBAL_SCOPE:
                return standing
        return None


@dataclass(slots=True)
class _Pending:
    submission: Submission
    future: asyncio.Future[Outcome]


@dataclass(slots=True)
class _Plan:
    outcomes: list[Outcome | RanklineError]
    changes: list[IndexChange]
    periods: set[tuple[BoardId, str, str]]


class GroupCommitWriter:
    """Gathers concurrent submissions into shared transactions."""

    def __init__(
        self,
        store: SqlStore,
        index: RankingIndex,
        clock: Clock,
        on_board: Callable[[Board], None] | None = None,
        *,
        max_batch: int = 2000,
        linger_seconds: float = 0.0,
        on_index_error: Callable[[Sequence[IndexChange], RanklineError], None] | None = None,
        on_applied: Callable[[Sequence[IndexChange]], None] | None = None,
    ) -> None:
        self._store = store
        self._index = index
        self._clock = clock
        self._on_board = on_board
        self._definitions: dict[str, Board] = {}
        self._max_batch = max_batch
        self._linger = linger_seconds
        self._on_index_error = on_index_error
        self._on_applied = on_applied
        """Called with each committed batch's index changes (the change feed)."""
        self._queue: asyncio.Queue[_Pending] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._known_periods: set[tuple[BoardId, str, str]] = set()
        self.commit_lock = asyncio.Lock()
        """Held while a batch commits; board deletion takes it to avoid racing a batch."""
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
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def forget_board(self, board_id: BoardId) -> None:
        self._known_periods = {p for p in self._known_periods if p[0] != board_id}

    async def submit(self, submissions: Sequence[Submission]) -> list[Outcome | RanklineError]:
        """Queue submissions and wait until their batch is durable."""
        loop = asyncio.get_running_loop()
        pending = [_Pending(s, loop.create_future()) for s in submissions]
        for item in pending:
            self._queue.put_nowait(item)
        results: list[Outcome | RanklineError] = []
        for item in pending:
            try:
                results.append(await item.future)
            except RanklineError as exc:
                results.append(exc)
        return results

    async def _run(self) -> None:
        while True:
            batch = [await self._queue.get()]
            if self._linger:
                await asyncio.sleep(self._linger)
            while len(batch) < self._max_batch and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            try:
                await self._commit(batch)
            except Exception as exc:  # never let the writer die with callers waiting
                log.exception("group commit failed")
                _fail(batch, RanklineError(f"the write failed unexpectedly ({type(exc).__name__})"))
            finally:
                for _ in batch:
                    self._queue.task_done()

    async def _commit(self, batch: list[_Pending]) -> None:
        started = time.perf_counter()
        BATCH_SIZE.observe(len(batch))
        async with self.commit_lock:
            for attempt in range(_RETRIES):
                now = self._clock.now()
                try:
                    async with self._store.transaction() as tx:
                        plan = await self._plan(tx, [p.submission for p in batch], now)
                    break
                except WriteConflict:
                    if attempt == _RETRIES - 1:
                        _fail(batch, Unavailable("too many concurrent writers; retry"))
                        return
                    await asyncio.sleep(0.005 * (attempt + 1))
                except Unavailable as exc:
                    _fail(batch, exc)
                    return
            try:
                await self._index.apply(plan.changes)
            except IndexUnavailable as exc:
                # Committed to SQL, so the writes stand; the index catches up later.
                if self._on_index_error is None:
                    raise
                self._on_index_error(plan.changes, exc)
            if self._on_applied is not None and plan.changes:
                self._on_applied(plan.changes)
        COMMIT_SECONDS.observe(time.perf_counter() - started)
        self._known_periods |= plan.periods
        self.batches += 1
        self.committed += len(batch)
        for item, outcome in zip(batch, plan.outcomes, strict=True):
            if item.future.done():
                continue
            if isinstance(outcome, RanklineError):
                item.future.set_exception(outcome)
            else:
                item.future.set_result(outcome)

    def _board(self, definition: str) -> Board:
        board = self._definitions.get(definition)
        if board is None:
            if len(self._definitions) > 1000:
                self._definitions.clear()
            board = Board(msgspec.json.decode(definition, type=BoardSpec))
            self._definitions[definition] = board
            if self._on_board is not None:
                self._on_board(board)
        return board

    async def _plan(
        self, tx: StoreTransaction, submissions: list[Submission], now: Micros
    ) -> _Plan:
        # Board definitions are read in the transaction: another worker may have frozen,
        # changed or deleted a board since this one validated the submission.
        definitions = await tx.board_definitions([sub.board.id for sub in submissions])
        boards = {board_id: self._board(text) for board_id, text in definitions.items()}
        checked: list[Submission | RanklineError] = []
        for sub in submissions:
            board = boards.get(sub.board.id)
            if board is None:
                checked.append(NotFound(f"no board {sub.board.id!r}"))
            elif board.frozen:
                checked.append(Conflict(f"board {board.id!r} is frozen"))
            else:
                sub.board = board
                checked.append(sub)
        live = [s for s in checked if isinstance(s, Submission)]
        existing = await tx.existing_events(list({s.event_key for s in live}))
        targets = {id(s): s.board.targets(s.at, s.scopes, now) for s in live}
        wanted = {(t.leaderboard, s.player) for s in live for t in targets[id(s)]}
        stored: dict[_StandingKey, Standing] = await tx.read_standings(list(wanted))
        state: dict[_StandingKey, Entry] = {
            k: Entry(v.score, v.achieved_at) for k, v in stored.items()
        }
        changed: dict[_StandingKey, Entry] = {}
        seen: set[tuple[BoardId, PlayerId, MatchId]] = set()
        events: list[ScoreEvent] = []
        periods: dict[tuple[BoardId, str, str], tuple[Micros | None, Micros | None]] = {}
        outcomes: list[Outcome | RanklineError] = []
        for item in checked:
            if isinstance(item, RanklineError):
                outcomes.append(item)
                continue
            sub = item
            duplicate = sub.event_key in existing or sub.event_key in seen
            try:
                staged, standings = _evaluate(sub, targets[id(sub)], state, duplicate)
            except InvalidInput as exc:
                outcomes.append(exc)
                continue
            outcome = Outcome(sub, duplicate, standings)
            outcomes.append(outcome)
            if duplicate:
                continue
            seen.add(sub.event_key)
            state.update(staged)
            changed.update(staged)
            primary = outcome.primary
            events.append(
                ScoreEvent(
                    board=sub.board.id,
                    player=sub.player,
                    match_id=sub.match_id,
                    score=sub.score,
                    at=sub.at,
                    received_at=sub.received_at,
                    applied=_applied(primary, standings),
                    scopes=sub.scopes,
                    metadata=sub.metadata,
                )
            )
            for standing in standings:
                lb, period = standing.target.leaderboard, standing.target.period
                key = (lb.board, lb.window, lb.period)
                if standing.applied and key not in self._known_periods:
                    periods[key] = (period.starts_at, period.ends_at)
        await tx.insert_events(events)
        rows = [
            Standing(lb, p, e.score, e.achieved_at, _next_revision(stored.get((lb, p))))
            for (lb, p), e in changed.items()
        ]
        await tx.write_standings(
            [r for r in rows if (r.leaderboard, r.player) not in stored],
            [r for r in rows if (r.leaderboard, r.player) in stored],
        )
        if periods:
            await tx.add_periods([(*key, *bounds) for key, bounds in sorted(periods.items())])
        # A banned player's submissions are recorded, but they stay off every leaderboard.
        banned = await tx.banned_players([s.player for s in live]) if rows else set()
        changes = [
            IndexChange(
                r.leaderboard,
                r.player,
                encode(r.score, r.achieved_at, r.player, boards[r.leaderboard.board].order),
                r.revision,
            )
            for r in rows
            if r.player not in banned
        ]
        return _Plan(outcomes, changes, set(periods))


def _evaluate(
    sub: Submission,
    targets: list[Target],
    state: dict[_StandingKey, Entry],
    duplicate: bool,
) -> tuple[dict[_StandingKey, Entry], list[StandingOutcome]]:
    """What one submission does to each of its leaderboards, without committing it."""
    staged: dict[_StandingKey, Entry] = {}
    standings: list[StandingOutcome] = []
    board = sub.board
    for target in targets:
        key = (target.leaderboard, sub.player)
        current = state.get(key)
        if duplicate:
            standings.append(StandingOutcome(target, False, "duplicate", current, current))
        elif target.closed:
            standings.append(StandingOutcome(target, False, "closed", current, current))
        else:
            new = combine(board.policy, board.order, current, sub.score, sub.at)
            if new is None:
                standings.append(StandingOutcome(target, False, "policy", current, current))
            else:
                staged[key] = new
                standings.append(StandingOutcome(target, True, None, new, current))
    return staged, standings


def _next_revision(stored: Standing | None) -> int:
    return 1 if stored is None else stored.revision + 1


def _applied(primary: StandingOutcome | None, standings: list[StandingOutcome]) -> bool:
    return any(s.applied for s in standings) if primary is None else primary.applied


def _fail(batch: list[_Pending], error: RanklineError) -> None:
    for item in batch:
        if not item.future.done():
            item.future.set_exception(error)
