"""Asynchronous submissions: taken durably into the ingestion log, applied behind it.

A request with ``Prefer: respond-async`` is validated as any other (422, 404 or 409 before
anything is written), then its submissions are appended to the log (``rankline.log``) and
the request is answered 202 as soon as the log holds them durably, with a token naming
their positions. Every process runs an applier: it owns some of the log's partitions (one
owner per partition at a time, taken over when an owner dies), reads each owned partition in
order and hands the submissions to the group commit, which writes them exactly as if they
had been submitted synchronously; then it commits the partition's position.

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
from collections.abc import Iterator, Sequence
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


_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder(Payload).decode
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
    ) -> None:
        self._log = log
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
        self.applied = 0
        self.steps = 0
        """Steps taken: runs of records applied together."""
        self.dead = 0

    @property
    def running(self) -> bool:
        return self._task is not None

    async def start(self) -> None:
        await self._log.start()
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
        their positions (``settled``). ``LogUnavailable`` (503): nothing was taken."""
        return await self.append([record_of(sub) for sub in submissions])

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
        """Apply the next records of ``partition``; whether there were any."""
        after = self._applied.get(partition)
        if after is None:
            after = self._applied[partition] = await self._log.committed(partition)
        records = await self._log.read(partition, after, _READ_LIMIT)
        if not records:
            return False
        if any(self._board(record.board) is None for _, record in records):
            # Taken by another worker against a board this one may not have loaded yet (one
            # just created there): the registry then reads every change acknowledged before
            # now, so only a board deleted since is missing below.
            await self._boards.refresh()
        subs: list[tuple[Position, Submission]] = []
        dead: list[DeadLetter] = []
        matches: list[tuple[Board, MatchPayload]] = []
        for position, record in records:
            if is_match_record(record):
                board = self._board(record.board)
                if board is not None and self._matches is not None:
                    matches.append((board, decode_match(record)))
                continue  # a match of a deleted board goes nowhere (its answer says so)
            payload = _decode(record.payload)
            board = self._board(record.board)
            if board is None:
                dead.append(self._letter(partition, position, record.board, payload, "no board"))
                continue
            subs.append((position, _submission(board, payload)))
        if matches:
            assert self._matches is not None
            await self._matches.apply(matches)
        outcomes = await self._writer.submit([sub for _, sub in subs]) if subs else []
        for (position, sub), outcome in zip(subs, outcomes, strict=True):
            if isinstance(outcome, Outcome):
                continue
            if isinstance(outcome, Unavailable | TooManyRequests):
                # the store or index cannot take it now: nothing of this step is committed,
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
        last = records[-1][0]
        try:
            await consumer.commit(partition, last)
        except NotOwner:
            self._applied.pop(partition, None)  # another process applies it from now on
            return False
        self._applied[partition] = last
        LOG_APPLIED.inc(len(records))
        self.applied += len(records)
        self.steps += 1
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
        self, partition: int, position: Position, board: str, payload: Payload, reason: str
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


__all__ = ["SETTLE_SECONDS", "AsyncIngest", "Payload", "make_token", "parse_token", "record_of"]
