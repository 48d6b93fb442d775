"""Asynchronous submissions: taken durably into the ingestion log, applied behind it.

A request with ``Prefer: respond-async`` is validated as any other (422, 404 or 409 before
anything is written), then its submissions are appended to the log (``rankline.log``) and
the request is answered 202 as soon as the log holds them durably, with a token naming
their positions. Every process runs an applier: it owns some of the log's partitions (one
owner per partition at a time, taken over when an owner dies), reads each owned partition in
order and hands the submissions to the group commit, which writes them exactly as if they
had been submitted synchronously; then it commits the partition's position.

A request's submissions go into the log as one record per board, a single submission as a
record of its own (``rankline.writing.records``: an identical retry of the request is kept
once by the log). The applier takes both, and match records (``rankline.ratings.rated``),
from one partition: a batch record's submissions are applied in order, all at the record's
position (their dead letters share it).

Nothing is lost or counted twice. A record is in the log before the 202, and the position
is committed only after the group commit that applied it: a crash in between makes the next
owner apply the records again, and the group commit recognises each as a duplicate by its
(board, player, match_id). A record that cannot be applied (its board was deleted or frozen
meanwhile, its key was used with another payload, its score is outside a changed range)
goes to the dead-letter table with the reason (``rankline dead-letters``) and never blocks
its partition. A store or index that cannot take the batch now leaves the position where it
is: the batch is tried again.

``settled(token)`` waits until every position the token names is applied: reads given
``after=<token>`` answer then, so a client that submitted asynchronously reads its writes
when it asks to.

    token = await ingest.accept([submission])      # durable in the log
    await ingest.settled(token)                    # applied: reads include it
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import msgspec

from rankline.boards import Board
from rankline.errors import (
    Conflict,
    InvalidInput,
    NotFound,
    NotOwner,
    RanklineError,
    TooManyRequests,
    Unavailable,
)
from rankline.log.base import IngestLog, LogConsumer, LogPosition, LogRecord
from rankline.metrics import DEAD_LETTERS, LOG_APPLIED
from rankline.ratings.rated import MatchApplier, MatchPayload, decode_match, is_match_record
from rankline.registry import Boards
from rankline.runtime import tasks
from rankline.runtime.clock import format_time
from rankline.store.dead_letters import DeadLetter, DeadLetters
from rankline.types import Clock
from rankline.writing.admission import Admission, Concurrent, Deadline
from rankline.writing.records import (
    BATCH_ITEMS,
    Item,
    Payload,
    batch_records,
    decode_batch,
    decode_payload,
    is_batch_record,
    item_of,
    item_submission,
    payload_of,
    payload_of_item,
    record_of,
    submission_of,
)
from rankline.writing.writer import GroupCommitWriter, Outcome, Submission

log = logging.getLogger("rankline.writing.ingest")
_json = msgspec.json.Encoder()

SETTLE_SECONDS = 2.0
"""How long a read given ``after=`` waits for its token to be applied (then 503)."""
_READ_LIMIT = 5000
"""Records one step of the applier takes from a partition (one group commit)."""
_IDLE_SECONDS = (0.02, 1.0)
"""How long the applier sleeps when no partition had anything new: from the first to the
second, doubling while it stays idle (an append in this process wakes it at once; one in
another process is found at the next look)."""
_LOOK_SECONDS = 0.05
"""Under traffic of its own, how often the applier still looks at every partition it owns
(for what other processes appended); in between, only at those this process appended to
and those it found busy."""
_GATHER_SECONDS = 0.05
"""How long a woken applier waits for the appends this process has on the way (requests
between their validation and their append) before it takes a step without them."""
_RETRY_SECONDS = 0.5
_EXPIRE_SECONDS = 60.0
"""How often the applier discards its partitions' expired records (the SQL log's only)."""
_POLL_SECONDS = 0.02
"""How often ``settled`` looks at a committed position another process moves."""
_OWNED_POLL_SECONDS = 0.25
"""How often it looks at one this process's applier moves (and wakes it for each step):
only in case the partition passed to another process meanwhile."""


class RetiredLog(Protocol):
    """A log nothing appends to or applies any more (``rankline.log.sql.SqlLog``)."""

    async def expire_applied(self) -> tuple[int, bool]: ...

    async def close(self) -> None: ...


def make_token(marks: dict[int, LogPosition]) -> str:
    """``partition.position`` pairs joined by ``_``: URL-safe, opaque to clients."""
    return "_".join(f"{p}.{pos}" for p, pos in sorted(marks.items()))


def parse_token(token: str) -> dict[int, LogPosition]:
    marks: dict[int, LogPosition] = {}
    try:
        for part in token.split("_"):
            partition, _, position = part.partition(".")
            marks[int(partition)] = max(marks.get(int(partition), 0), int(position))
    except ValueError:
        raise InvalidInput.at(["query", "after"], "not a token of this service") from None
    if not marks or any(p < 0 or pos < 0 for p, pos in marks.items()):
        raise InvalidInput.at(["query", "after"], "not a token of this service")
    return marks


class AsyncIngest:
    """Takes submissions into the log and applies the partitions this process owns."""

    def __init__(
        self,
        log: IngestLog,
        writer: GroupCommitWriter,
        boards: Boards,
        dead_letters: DeadLetters,
        clock: Clock,
        *,
        owner: str | None = None,
        matches: MatchApplier | None = None,
        retired: RetiredLog | None = None,
        apply: bool = True,
        admission: Admission | None = None,
    ) -> None:
        self._log = log
        self.appends = Concurrent(admission or Admission(1.0, unit="appends"))
        """The appends in flight and the rate they complete at: a request is admitted by the
        wait it would meet behind them (``rankline.writing.admission``)."""
        self._apply = apply
        """Whether this process applies the log (else it only appends, and other processes
        sharing the log apply what it appends)."""
        self._retired = retired
        """The log a SQLite store kept in itself before it moved to a file of its own, whose
        applied records go as they expire, until none is left (``rankline.log.factory``)."""
        self._matches = matches
        """Applies the match records of rating boards (``rankline.ratings.rated``), in log order."""
        self._writer = writer
        self._boards = boards
        self._dead = dead_letters
        self._clock = clock
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._consumer: LogConsumer | None = None
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._appended: set[int] = set()
        """Partitions this process appended to since the applier last looked."""
        self._applied: dict[int, LogPosition] = {}
        """The positions this process committed (or saw committed), per partition."""
        self._moved = asyncio.Condition()
        self._coming: set[asyncio.Future[None]] = set()
        """The appends announced and not waited for yet (``coming``), each done when it
        lands."""
        self._largest: dict[int, int] = {}
        """Per partition, the most submissions a record held in the last step's read."""
        self.applied = 0
        self.steps = 0
        """Steps taken: runs of records applied together."""
        self.dead = 0

    @property
    def running(self) -> bool:
        return self._task is not None

    async def start(self) -> None:
        await self._log.start()
        if self._apply:
            self._consumer = self._log.consumer(self.owner)
            self._task = asyncio.create_task(self._apply_forever(), name="rankline-applier")

    async def close(self) -> None:
        if self._task is not None:
            await tasks.stop(self._task)  # (on NATS, one cancel may be dropped below it)
            self._task = None
        if self._consumer is not None:
            with contextlib.suppress(RanklineError):
                await self._consumer.release()
        if self._retired is not None:
            await self._retired.close()
        await self._log.close()

    # --- taking ----------------------------------------------------------------------------

    async def accept(
        self, submissions: Sequence[Submission], deadline: Deadline | None = None
    ) -> str:
        """Append the submissions to the log; on return they are durable. The token names
        their positions (``settled``). ``LogUnavailable`` (503): nothing was taken;
        ``TooManyRequests`` (429): appending lags too far behind ``deadline`` to take them.

        One submission is a record of its own (``record_of``); several are one batch record
        per board (``batch_records``), their receive time the first one's."""
        if len(submissions) == 1:
            return await self.append([record_of(submissions[0])], deadline)
        by_board: dict[str, list[Item]] = {}
        for sub in submissions:
            by_board.setdefault(sub.board.id, []).append(item_of(sub))
        received_at = submissions[0].received_at if submissions else 0
        return await self.accept_items(by_board, received_at, deadline)

    async def accept_items(
        self,
        by_board: Mapping[str, Sequence[Item]],
        received_at: int,
        deadline: Deadline | None = None,
    ) -> str:
        """``accept`` for a request's submissions already in their log form, by board."""
        records: list[LogRecord] = []
        for board, items in by_board.items():
            records += batch_records(board, received_at, items)
        return await self.append(records, deadline)

    async def append(self, records: Sequence[LogRecord], deadline: Deadline | None = None) -> str:
        """Append log records (submissions, or matches of rating boards); the token names
        their positions. With a ``deadline``, admitted by the wait behind the appends in
        flight (one append a request, whatever its size: a request's records go together)."""
        if not records:
            return ""
        self.admit(deadline)
        appends = self.appends
        appends.begin()
        try:
            positions = await self._log.append(records)
        finally:
            appends.end()
        marks: dict[int, LogPosition] = {}
        for record, position in zip(records, positions, strict=True):
            partition = self._log.partition_of(record.board)
            marks[partition] = max(marks.get(partition, 0), position)
        self._appended.update(marks)
        self._wake.set()
        return make_token(marks)

    def admit(self, deadline: Deadline | None) -> None:
        """Return when an append would be taken now; else ``TooManyRequests``. ``append``
        asks again: a request may ask first, before it prepares its items."""
        self.appends.admission.admit(self.appends.running, 1, deadline)

    @contextlib.contextmanager
    def coming(self) -> Iterator[None]:
        """Announce an append on the way (a request that waits for its records to be
        applied). Before a step, the applier waits up to ``_GATHER_SECONDS`` for the appends
        announced by then to land (not for those announced while it waits, and for each
        announcement before one step only; not at all in a process that owns no
        partition, whose appends another process applies), so that requests
        arriving together are applied in one step: a step's cost is mostly fixed (its reads,
        its commit), and a request that misses one waits for the whole of it before its own
        begins."""
        landed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._coming.add(landed)
        try:
            yield
        finally:
            self._coming.discard(landed)
            landed.set_result(None)

    async def settled(self, token: str, seconds: float = SETTLE_SECONDS) -> None:
        """Return once every position ``token`` names is applied; ``Unavailable`` (503,
        retry) when that takes longer than ``seconds``."""
        marks = parse_token(token)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        for partition, position in marks.items():
            if partition >= self._log.partitions:
                raise InvalidInput.at(["query", "after"], "not a token of this service")
            moved = False  # woken by this process's applier: it moved the position itself
            while self._applied.get(partition, 0) < position:
                owned = self._owns(partition)
                if not (moved and owned):
                    committed = await self._log.committed(partition)
                    if committed > self._applied.get(partition, 0):
                        self._applied[partition] = committed
                        continue
                left = deadline - loop.time()
                if left <= 0:
                    raise Unavailable(
                        "the submissions of that token are not applied yet; retry shortly"
                    )
                # This process's applier wakes the wait when it moves the partition on;
                # another process's is looked at every _POLL_SECONDS.
                poll = _OWNED_POLL_SECONDS if owned else _POLL_SECONDS
                async with self._moved:
                    try:
                        async with asyncio.timeout(min(left, poll)):
                            await self._moved.wait()
                        moved = True
                    except TimeoutError:
                        moved = False

    def _owns(self, partition: int) -> bool:
        return self._consumer is not None and partition in self._consumer.owned

    # --- applying --------------------------------------------------------------------------

    async def _apply_forever(self) -> None:
        assert self._consumer is not None
        consumer = self._consumer
        loop = asyncio.get_running_loop()
        claimed_at = -1e9
        renew = self._log.options.lease_seconds / 3
        idle = _IDLE_SECONDS[0]
        expired_at = looked_at = loop.time()
        busy: set[int] = set()
        while True:
            try:
                if loop.time() - claimed_at >= renew:
                    await consumer.claim()
                    claimed_at = loop.time()
                    looked_at = -1e9
                if self._coming and consumer.owned:
                    # each announcement holds back one step at most: one still on its way
                    # after this wait is not waited for again
                    pending, self._coming = self._coming, set()
                    await asyncio.wait(pending, timeout=_GATHER_SECONDS)
                # cleared before looking, so that an append during the look wakes the wait
                # below at once (cleared after it, that wake-up would be lost: the wait
                # would run to its timeout, up to a second)
                self._wake.clear()
                appended, self._appended = self._appended, set()
                look = set(consumer.owned)
                if loop.time() - looked_at >= _LOOK_SECONDS:
                    looked_at = loop.time()
                else:  # soon after a look at all: where this process appended, or was busy
                    look &= appended | busy
                busy = set()
                for partition in sorted(look):
                    if await self._apply_step(consumer, partition):
                        busy.add(partition)
                if loop.time() - expired_at >= _EXPIRE_SECONDS:
                    expired_at = loop.time()
                    await self._expire(consumer)
                if busy:
                    idle = _IDLE_SECONDS[0]
                else:
                    try:  # (not wait_for, which drops a stop that lands with a wake-up)
                        async with asyncio.timeout(idle):
                            await self._wake.wait()
                        idle = _IDLE_SECONDS[0]
                    except TimeoutError:  # quiet here: look at every partition again
                        looked_at = -1e9
                        idle = min(2 * idle, _IDLE_SECONDS[1])
            except asyncio.CancelledError:
                raise
            except RanklineError as exc:
                log.warning("the applier waits: %s", exc.detail)
                claimed_at = -1e9
                await asyncio.sleep(_RETRY_SECONDS)
            except Exception:
                log.exception("the applier failed; retrying")
                claimed_at = -1e9
                await asyncio.sleep(_RETRY_SECONDS)

    async def _apply_step(self, consumer: LogConsumer, partition: int) -> bool:
        """Apply the next records of ``partition``; whether there were any.

        A step reads up to ``_READ_LIMIT`` submissions' worth of records (as many records
        as the largest one read last from the partition allows: a batch record holds up to
        ``BATCH_ITEMS``) and applies them in runs of about that many submissions, each
        committed on its own."""
        after = self._applied.get(partition)
        if after is None:
            after = self._applied[partition] = await self._log.committed(partition)
        limit = max(1, _READ_LIMIT // self._largest.get(partition, BATCH_ITEMS))
        records = await self._log.read(partition, after, limit)
        if not records:
            return False
        if any(self._board(record.board) is None for _, record in records):
            # Taken by another worker against a board this one may not have loaded yet (one
            # just created there): the registry then reads every change acknowledged before
            # now, so only a board deleted since is missing below.
            await self._boards.refresh()
        largest = 1
        run = _Run()
        for position, record in records:
            taken = self._take(partition, position, record, run)
            largest = max(largest, taken)
            if run.size >= _READ_LIMIT:
                if not await self._apply_run(consumer, partition, run):
                    return False
                run = _Run()
        self._largest[partition] = largest
        if run.last and not await self._apply_run(consumer, partition, run):
            return False
        self.steps += 1
        return True

    def _take(self, partition: int, position: LogPosition, record: LogRecord, run: _Run) -> int:
        """Add a record's submissions (or match) to ``run``; how many submissions it held."""
        run.last = position
        run.records += 1
        board = self._board(record.board)
        if is_match_record(record):
            if board is not None and self._matches is not None:
                run.matches.append((board, decode_match(record)))
            return 1  # a match of a deleted board goes nowhere (its answer says so)
        if is_batch_record(record):
            batch = decode_batch(record)
            if board is None:
                for item in batch.items:
                    payload = payload_of_item(item, batch.received_at)
                    run.dead.append(self._letter(partition, position, record.board, payload))
            else:
                received_at = batch.received_at
                run.subs += [
                    (position, item_submission(board, i, received_at)) for i in batch.items
                ]
            run.size += len(batch.items)
            return len(batch.items)
        payload = decode_payload(record)
        if board is None:
            run.dead.append(self._letter(partition, position, record.board, payload))
        else:
            run.subs.append((position, submission_of(board, payload)))
        run.size += 1
        return 1

    async def _apply_run(self, consumer: LogConsumer, partition: int, run: _Run) -> bool:
        """Apply a run of records and commit its last position; False when the partition
        passed to another process meanwhile."""
        if run.matches:
            assert self._matches is not None
            await self._matches.apply(run.matches)
        subs = run.subs
        outcomes = await self._writer.submit([sub for _, sub in subs]) if subs else []
        dead = run.dead
        for (position, sub), outcome in zip(subs, outcomes, strict=True):
            if isinstance(outcome, Outcome):
                continue
            if isinstance(outcome, Unavailable | TooManyRequests):
                # the store or index cannot take it now: nothing of this run is committed,
                # and it runs again (what did commit is recognised as duplicates then)
                raise outcome
            letter = self._letter(
                partition, position, sub.board.id, payload_of(sub), _reason(outcome)
            )
            dead.append(letter)
        if dead:
            await self._dead.add(dead)
            for letter in dead:
                DEAD_LETTERS.labels(letter.reason.split(":", 1)[0]).inc()
            self.dead += len(dead)
            log.warning("%d submission(s) could not be applied (rankline dead-letters)", len(dead))
        try:
            await consumer.commit(partition, run.last)
        except NotOwner:
            self._applied.pop(partition, None)  # another process applies it from now on
            return False
        self._applied[partition] = run.last
        LOG_APPLIED.inc(run.records)
        self.applied += run.records
        async with self._moved:
            self._moved.notify_all()
        return True

    async def _expire(self, consumer: LogConsumer) -> int:
        """Discard the applied records of the owned partitions that are past retention."""
        expired = 0
        for partition in sorted(consumer.owned):
            applied = self._applied.get(partition)
            if applied:
                expired += await self._log.expire(partition, applied)
        if self._retired is not None:
            discarded, emptied = await self._retired.expire_applied()
            expired += discarded
            if emptied:
                if discarded:  # not at every start once it is empty
                    log.info("the ingestion log the store kept before it moved is empty now")
                retired, self._retired = self._retired, None
                await retired.close()
        return expired

    def _board(self, board_id: str) -> Board | None:
        return self._boards.cached(board_id)

    def _letter(
        self,
        partition: int,
        position: LogPosition,
        board: str,
        payload: Payload,
        reason: str = "no board",
    ) -> DeadLetter:
        submission = {
            "board": board,
            "player_id": payload.player,
            "match_id": payload.match_id,
            "score": payload.score,
            **({} if payload.subscore is None else {"subscore": payload.subscore}),
            "at": format_time(payload.at),
            "scopes": payload.scopes,
            "metadata": payload.metadata,
        }
        return DeadLetter(
            board,
            payload.player,
            payload.match_id,
            partition,
            position,
            reason,
            _json.encode(submission).decode(),
            self._clock.now(),
        )


@dataclass(slots=True)
class _Run:
    """Records of a partition applied together, up to ``last``."""

    last: LogPosition = 0
    records: int = 0
    size: int = 0
    """Submissions (and matches) in it."""
    subs: list[tuple[LogPosition, Submission]] = field(default_factory=list)
    dead: list[DeadLetter] = field(default_factory=list)
    matches: list[tuple[Board, MatchPayload]] = field(default_factory=list)


def _reason(error: RanklineError) -> str:
    """A dead letter's reason: a short kind, then the error's own words."""
    kind = (
        "key reused"
        if isinstance(error, Conflict) and "match_id" in error.detail
        else "conflict"
        if isinstance(error, Conflict)
        else "no board"
        if isinstance(error, NotFound)
        else "invalid"
        if isinstance(error, InvalidInput)
        else "failed"
    )
    return f"{kind}: {error.detail}"


__all__ = ["SETTLE_SECONDS", "AsyncIngest", "Payload", "make_token", "parse_token", "record_of"]
