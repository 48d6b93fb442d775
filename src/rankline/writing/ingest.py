"""Asynchronous submissions: taken durably into the ingestion log, applied behind it.

A request with ``Prefer: respond-async`` is validated as any other (422, 404 or 409 before
anything is written), then its submissions are appended to the log (``rankline.log``) and
the request is answered 202 as soon as the log holds them durably, with a token naming
their positions. Every process runs an applier: it owns some of the log's partitions (one
owner per partition at a time, taken over when an owner dies), reads each owned partition in
order and hands the submissions to the group commit, which writes them exactly as if they
had been submitted synchronously; then it commits the partition's position.

A request's submissions go into the log as one record per board (``batch_records``: a
msgpack array of ``Item``s with the request's receive time, cut at ``BATCH_ITEMS``
submissions or ``BATCH_BYTES``), keyed ``board/batch/<digest>`` by a digest of the encoded
submissions, so that an identical retry of the request is kept once by the log; a single
submission is a record of its own (``record_of``: a ``Payload`` keyed ``board/<digest>``).
The applier takes both, and match records (``rankline.ratings.rated``), from one partition:
a batch record's submissions are applied in order, all at the record's position (their dead
letters share it).

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
import hashlib
import logging
import os
import socket
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec

from rankline.boards import Board
from rankline.clock import format_time
from rankline.errors import (
    Conflict,
    InvalidInput,
    NotFound,
    NotOwner,
    RanklineError,
    TooManyRequests,
    Unavailable,
)
from rankline.lifecycle.registry import Boards
from rankline.log.base import IngestLog, LogConsumer, LogRecord, Position
from rankline.metrics import DEAD_LETTERS, LOG_APPLIED
from rankline.ratings.rated import MatchApplier, MatchPayload, decode_match, is_match_record
from rankline.store.dead_letters import DeadLetter, DeadLetters
from rankline.types import Clock
from rankline.writing.writer import GroupCommitWriter, Outcome, Submission

log = logging.getLogger("rankline.writing.ingest")

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


class Payload(msgspec.Struct, array_like=True, frozen=True):
    """A submission as the log keeps it (its board is the record's)."""

    player: str
    match_id: str
    score: int
    at: int
    received_at: int
    at_given: bool
    scopes: dict[str, str]
    metadata: dict[str, Any]
    subscore: int | None = None
    """Last, so that records written before subscores existed decode unchanged."""


class Item(msgspec.Struct, array_like=True, frozen=True):
    """A submission in a batch record (its board and receive time are the record's)."""

    player: str
    match_id: str
    score: int
    at: int | None
    """None when the client gave none: the record's ``received_at`` then."""
    scopes: dict[str, str]
    metadata: dict[str, Any]
    subscore: int | None = None


class BatchPayload(msgspec.Struct, array_like=True, frozen=True):
    """A batch record's payload: the submissions of one request to one board, in order."""

    received_at: int
    items: list[Item]


BATCH_KEY = "batch"
"""The middle part of a batch record's log key (``board/batch/digest``), which tells it from a
record of one submission (``board/digest``) and from a match record (``board/match/digest``)."""
BATCH_ITEMS = 1000
"""Submissions one batch record holds at most."""
BATCH_BYTES = 512 * 1024
"""Bytes of submissions one batch record holds at most: well within the 1 MB a NATS or Kafka
message may take by default."""

_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder(Payload).decode
_decode_batch = msgspec.msgpack.Decoder(BatchPayload).decode
_json = msgspec.json.Encoder()


def record_of(sub: Submission) -> LogRecord:
    """The log record of a submission. Its dedup key covers the payload a retry repeats
    (``at`` only when the client gave it): an identical retry is kept once by the log, and
    the same (player, match_id) with another payload is not swallowed there but reaches
    the applier, which records it as a dead letter (a reused key)."""
    payload = _payload(sub)
    identity = _json.encode(
        [
            sub.player,
            sub.match_id,
            sub.score,
            sub.at if sub.at_given else None,
            sub.scopes,
            sub.metadata,
            # only on boards with a subscore: other boards' keys stay as they were
            *(() if sub.subscore is None else (sub.subscore,)),
        ]
    )
    digest = hashlib.sha256(identity).hexdigest()[:40]
    return LogRecord(sub.board.id, f"{sub.board.id}/{digest}", _encode(payload))


def batch_records(board: str, received_at: int, items: Sequence[Item]) -> list[LogRecord]:
    """The log records of one request's submissions to ``board``: as few as
    ``BATCH_ITEMS`` and ``BATCH_BYTES`` allow, in order. A record's dedup key is a digest of
    its submissions as encoded (``at`` only where the client gave it; not the receive
    time): an identical retry of the request is kept once by the log, and a submission
    repeated with another payload reaches the applier, which records it as a dead letter."""
    records: list[LogRecord] = []
    for start in range(0, len(items), BATCH_ITEMS):
        _chunk(board, received_at, items[start : start + BATCH_ITEMS], records)
    return records


def _chunk(board: str, received_at: int, items: Sequence[Item], records: list[LogRecord]) -> None:
    encoded = _encode(items)
    if len(encoded) > BATCH_BYTES and len(items) > 1:
        half = len(items) // 2
        _chunk(board, received_at, items[:half], records)
        _chunk(board, received_at, items[half:], records)
        return
    digest = hashlib.sha256(encoded).hexdigest()[:40]
    payload = _encode((received_at, msgspec.Raw(encoded)))
    records.append(LogRecord(board, f"{board}/{BATCH_KEY}/{digest}", payload))


def is_batch_record(record: LogRecord) -> bool:
    return record.key.split("/", 2)[1:2] == [BATCH_KEY]


def item_of(sub: Submission) -> Item:
    """A submission as a batch record keeps it (``batch_records``)."""
    return Item(
        sub.player,
        sub.match_id,
        sub.score,
        sub.at if sub.at_given else None,
        sub.scopes,
        sub.metadata,
        sub.subscore,
    )


def make_token(marks: dict[int, Position]) -> str:
    """``partition.position`` pairs joined by ``_``: URL-safe, opaque to clients."""
    return "_".join(f"{p}.{pos}" for p, pos in sorted(marks.items()))


def parse_token(token: str) -> dict[int, Position]:
    marks: dict[int, Position] = {}
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
    ) -> None:
        self._log = log
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
        self._applied: dict[int, Position] = {}
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
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._consumer is not None:
            with contextlib.suppress(RanklineError):
                await self._consumer.release()
        if self._retired is not None:
            await self._retired.close()
        await self._log.close()

    # --- taking ----------------------------------------------------------------------------

    async def accept(self, submissions: Sequence[Submission]) -> str:
        """Append the submissions to the log; on return they are durable. The token names
        their positions (``settled``). ``LogUnavailable`` (503): nothing was taken.

        One submission is a record of its own (``record_of``); several are one batch record
        per board (``batch_records``), their receive time the first one's."""
        if len(submissions) == 1:
            return await self.append([record_of(submissions[0])])
        by_board: dict[str, list[Item]] = {}
        for sub in submissions:
            by_board.setdefault(sub.board.id, []).append(item_of(sub))
        received_at = submissions[0].received_at if submissions else 0
        return await self.accept_items(by_board, received_at)

    async def accept_items(self, by_board: Mapping[str, Sequence[Item]], received_at: int) -> str:
        """``accept`` for a request's submissions already in their log form, by board."""
        records: list[LogRecord] = []
        for board, items in by_board.items():
            records += batch_records(board, received_at, items)
        return await self.append(records)

    async def append(self, records: Sequence[LogRecord]) -> str:
        """Append log records (submissions, or matches of rating boards); the token names
        their positions."""
        if not records:
            return ""
        positions = await self._log.append(records)
        marks: dict[int, Position] = {}
        for record, position in zip(records, positions, strict=True):
            partition = self._log.partition_of(record.board)
            marks[partition] = max(marks.get(partition, 0), position)
        self._appended.update(marks)
        self._wake.set()
        return make_token(marks)

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
                        await asyncio.wait_for(self._moved.wait(), min(left, poll))
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
                    try:
                        await asyncio.wait_for(self._wake.wait(), idle)
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

    def _take(self, partition: int, position: Position, record: LogRecord, run: _Run) -> int:
        """Add a record's submissions (or match) to ``run``; how many submissions it held."""
        run.last = position
        run.records += 1
        board = self._board(record.board)
        if is_match_record(record):
            if board is not None and self._matches is not None:
                run.matches.append((board, decode_match(record)))
            return 1  # a match of a deleted board goes nowhere (its answer says so)
        if is_batch_record(record):
            batch = _decode_batch(record.payload)
            if board is None:
                for item in batch.items:
                    payload = _payload_of(item, batch.received_at)
                    run.dead.append(self._letter(partition, position, record.board, payload))
            else:
                received_at = batch.received_at
                run.subs += [
                    (position, _item_submission(board, i, received_at)) for i in batch.items
                ]
            run.size += len(batch.items)
            return len(batch.items)
        payload = _decode(record.payload)
        if board is None:
            run.dead.append(self._letter(partition, position, record.board, payload))
        else:
            run.subs.append((position, _submission(board, payload)))
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
                partition, position, sub.board.id, _payload(sub), _reason(outcome)
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
        position: Position,
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

    last: Position = 0
    records: int = 0
    size: int = 0
    """Submissions (and matches) in it."""
    subs: list[tuple[Position, Submission]] = field(default_factory=list)
    dead: list[DeadLetter] = field(default_factory=list)
    matches: list[tuple[Board, MatchPayload]] = field(default_factory=list)


def _item_submission(board: Board, item: Item, received_at: int) -> Submission:
    at = item.at
    return Submission(
        board,
        item.player,
        item.match_id,
        item.score,
        received_at if at is None else at,
        received_at,
        dict(item.scopes),
        dict(item.metadata),
        at_given=at is not None,
        subscore=item.subscore,
    )


def _payload_of(item: Item, received_at: int) -> Payload:
    at = item.at
    return Payload(
        item.player,
        item.match_id,
        item.score,
        received_at if at is None else at,
        received_at,
        at is not None,
        item.scopes,
        item.metadata,
        item.subscore,
    )


def _payload(sub: Submission) -> Payload:
    return Payload(
        sub.player,
        sub.match_id,
        sub.score,
        sub.at,
        sub.received_at,
        sub.at_given,
        sub.scopes,
        sub.metadata,
        sub.subscore,
    )


def _submission(board: Board, p: Payload) -> Submission:
    return Submission(
        board,
        p.player,
        p.match_id,
        p.score,
        p.at,
        p.received_at,
        dict(p.scopes),
        dict(p.metadata),
        at_given=p.at_given,
        subscore=p.subscore,
    )


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


__all__ = [
    "BATCH_BYTES",
    "BATCH_ITEMS",
    "BATCH_KEY",
    "SETTLE_SECONDS",
    "AsyncIngest",
    "BatchPayload",
    "Item",
    "Payload",
    "batch_records",
    "is_batch_record",
    "item_of",
    "make_token",
    "parse_token",
    "record_of",
]
