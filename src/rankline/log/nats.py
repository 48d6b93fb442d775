"""The ingestion log on NATS JetStream (nats-py).

One stream per log, on file storage, with a subject per partition (``rl.<log>.<partition>``);
a position is the stream sequence of the record (increasing within a partition, shared by
all of them). Every record is published with ``Nats-Msg-Id`` = its dedup key, so the stream's
duplicate window (the dedup window) drops a retry and answers with the original's position.
An append returns once JetStream acknowledged every record: the record is stored (how often
the server syncs its files to disk is its ``sync_interval``; see docs/deploy.md).

Ownership is a key per partition in a key-value bucket whose entries expire after the lease
(``rl_<log>_leases``): a consumer creates the key to take a free partition and renews it by
revision (compare-and-set), so only the one holding the current revision can; when it stops
renewing, the key expires and another consumer creates it. Live consumers announce themselves
in the same bucket (``m.<id>``). The applied positions live in a bucket without expiry
(``rl_<log>_committed``).

Library errors never leave this module: they become ``LogUnavailable`` or ``NotOwner``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import nats
import nats.errors
import nats.js.errors
from nats.aio.client import Client as NatsClient
from nats.js import JetStreamContext
from nats.js.api import (
    AckPolicy,
    ConsumerConfig,
    DeliverPolicy,
    KeyValueConfig,
    StorageType,
    StreamConfig,
)
from nats.js.kv import KeyValue

from rankline.errors import LogUnavailable, NotOwner
from rankline.log.base import (
    LogOptions,
    LogPosition,
    LogRecord,
    check_partition,
    dedup_in_batch,
    fair_share,
    partition_of,
)
from rankline.metrics import BACKEND_ERRORS

log = logging.getLogger("rankline.log")

_BOARD = "Rl-Board"
_MSG_ID = "Nats-Msg-Id"
_TIMEOUT = 5.0
_WRONG_LAST = frozenset({10071, 10164})  # JetStream: wrong last sequence (as such, or constant)

_T = TypeVar("_T")


@asynccontextmanager
async def _mapped() -> AsyncIterator[None]:
    try:
        yield
    except NotOwner:
        raise
    except (nats.errors.Error, TimeoutError, OSError) as exc:
        BACKEND_ERRORS.labels("log").inc()
        log.warning("NATS log error: %s", exc.__class__.__name__, exc_info=exc)
        raise LogUnavailable(f"the ingestion log is unavailable ({type(exc).__name__})") from exc


async def _unless_outdated(change: Awaitable[_T]) -> _T | None:
    """The answer of a change to a lease key by revision (``last=``), or None when the key is
    at another revision: the lease is no longer the one this consumer holds, and is left as it
    is. nats-py reports that as ``KeyWrongLastSequenceError`` for a create or an update, but
    as a plain ``BadRequestError`` (err_code 10071) for a delete."""
    try:
        return await change
    except nats.js.errors.KeyWrongLastSequenceError:
        return None
    except nats.js.errors.APIError as exc:
        if getattr(exc, "err_code", None) in _WRONG_LAST:
            return None
        raise


def _token(name: str) -> str:
    """A log name as a subject token and part of a stream or bucket name."""
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,48}", name):
        raise ValueError(f"log name {name!r}: use 1 to 48 letters, digits, '_' or '-'")
    return name


class NatsLog:
    """``IngestLog`` on a JetStream stream."""

    def __init__(self, url: str, options: LogOptions) -> None:
        self.options = options
        self._url = url
        token = _token(options.name)
        self.stream = f"rl_{token}"
        self._buckets = (f"{self.stream}_leases", f"{self.stream}_committed")
        self._subject = f"rl.{token}"
        self._nc: NatsClient | None = None
        self._js: JetStreamContext | None = None
        self._leases: KeyValue | None = None
        self._commits: KeyValue | None = None
        self._readers: dict[int, tuple[JetStreamContext.PullSubscription, LogPosition]] = {}
        self._read_locks = [asyncio.Lock() for _ in range(options.partitions)]

    @property
    def partitions(self) -> int:
        return self.options.partitions

    def partition_of(self, board: str) -> int:
        return partition_of(board, self.options.partitions)

    def subject(self, partition: int) -> str:
        return f"{self._subject}.{partition}"

    @property
    def js(self) -> JetStreamContext:
        if self._js is None:
            raise LogUnavailable("the NATS log is not started")
        return self._js

    @property
    def leases(self) -> KeyValue:
        if self._leases is None:
            raise LogUnavailable("the NATS log is not started")
        return self._leases

    @property
    def commits(self) -> KeyValue:
        if self._commits is None:
            raise LogUnavailable("the NATS log is not started")
        return self._commits

    async def start(self) -> None:
        o = self.options
        description = f"rankline ingestion log, {o.partitions} partitions"
        async with _mapped():
            # Once connected, the client reconnects for ever; the first connection gets a
            # deadline (nats-py would otherwise keep trying, and start would never return).
            self._nc = await asyncio.wait_for(
                nats.connect(
                    self._url,
                    connect_timeout=_TIMEOUT,
                    allow_reconnect=True,
                    max_reconnect_attempts=-1,
                    reconnect_time_wait=0.5,
                ),
                timeout=_TIMEOUT * 2,
            )
            self._js = self._nc.jetstream(timeout=_TIMEOUT)
            try:
                info = await self._js.stream_info(self.stream)
                if info.config.description != description:
                    raise LogUnavailable(
                        f"stream {self.stream} exists with another layout "
                        f"({info.config.description!r}; this server wants {description!r})"
                    )
            except nats.js.errors.NotFoundError:
                await self._js.add_stream(
                    StreamConfig(
                        name=self.stream,
                        description=description,
                        subjects=[f"{self._subject}.*"],
                        storage=StorageType.FILE,
                        max_age=o.retention_seconds,
                        duplicate_window=o.dedup_window_seconds,
                        allow_direct=True,
                    )
                )
            leases, commits = self._buckets
            self._leases = await self._bucket(leases, ttl=o.lease_seconds)
            self._commits = await self._bucket(commits, ttl=None)

    async def _bucket(self, name: str, ttl: float | None) -> KeyValue:
        try:
            return await self.js.key_value(name)
        except nats.js.errors.BucketNotFoundError:
            return await self.js.create_key_value(
                KeyValueConfig(bucket=name, history=1, ttl=ttl, storage=StorageType.FILE)
            )

    async def close(self) -> None:
        for sub, _ in self._readers.values():
            await _quietly(sub.unsubscribe())
        self._readers.clear()
        if self._nc is not None:
            await _quietly(self._nc.close())
        self._nc = self._js = self._leases = self._commits = None

    async def append(self, records: Sequence[LogRecord]) -> list[LogPosition]:
        if not records:
            return []
        by_partition, same = dedup_in_batch(records, self.partitions)
        positions: list[LogPosition] = [0] * len(records)
        async with _mapped():
            pending: list[tuple[int, asyncio.Future[Any]]] = []
            for part in sorted(by_partition):
                subject = self.subject(part)
                for i in by_partition[part]:
                    record = records[i]
                    future = await self.js.publish_async(
                        subject,
                        record.payload,
                        headers={_MSG_ID: record.key, _BOARD: record.board},
                    )
                    pending.append((i, future))
            acks = await asyncio.wait_for(
                asyncio.gather(*(f for _, f in pending)), timeout=_TIMEOUT * 2
            )
            for (i, _), ack in zip(pending, acks, strict=True):
                positions[i] = int(ack.seq)
        for i, earlier in enumerate(same):
            if earlier is not None:
                positions[i] = positions[earlier]
        return positions

    async def read(
        self, partition: int, after: LogPosition, limit: int
    ) -> list[tuple[LogPosition, LogRecord]]:
        check_partition(partition, self.partitions)
        async with self._read_locks[partition], _mapped():
            last = await self.last_position(partition)
            if last <= after or limit <= 0:
                return []
            sub = await self._reader(partition, after)
            out: list[tuple[LogPosition, LogRecord]] = []
            while len(out) < limit:
                try:
                    messages = await sub.fetch(min(limit - len(out), 1000), timeout=_TIMEOUT)
                except nats.errors.TimeoutError:
                    break
                for msg in messages:
                    seq = int(msg.metadata.sequence.stream)
                    headers = msg.headers or {}
                    out.append(
                        (
                            seq,
                            LogRecord(
                                board=headers.get(_BOARD, ""),
                                key=headers.get(_MSG_ID, ""),
                                payload=msg.data,
                            ),
                        )
                    )
                if out and out[-1][0] >= last:
                    break
            self._readers[partition] = (sub, out[-1][0] if out else after)
            return out

    async def _reader(
        self, partition: int, after: LogPosition
    ) -> JetStreamContext.PullSubscription:
        """A pull consumer delivering the partition after ``after``: the one the previous
        read left there, or a new one."""
        held = self._readers.pop(partition, None)
        if held is not None:
            if held[1] == after:
                return held[0]
            await _quietly(held[0].unsubscribe())
        return await self.js.pull_subscribe(
            self.subject(partition),
            stream=self.stream,
            config=ConsumerConfig(
                deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
                opt_start_seq=after + 1,
                ack_policy=AckPolicy.NONE,
                inactive_threshold=60.0,
                mem_storage=True,
            ),
        )

    async def first_position(self, partition: int) -> LogPosition:
        check_partition(partition, self.partitions)
        async with _mapped():
            try:
                msg = await self.js.get_msg(
                    self.stream, seq=1, subject=self.subject(partition), next=True
                )
            except nats.js.errors.NotFoundError:
                return 0
            return int(msg.seq or 0)

    async def last_position(self, partition: int) -> LogPosition:
        check_partition(partition, self.partitions)
        async with _mapped():
            try:
                msg = await self.js.get_last_msg(self.stream, self.subject(partition))
            except nats.js.errors.NotFoundError:
                return 0
            return int(msg.seq or 0)

    async def expire(self, partition: int, committed: LogPosition) -> int:
        return 0  # the stream's (topic's) own retention discards old records

    async def drop(self) -> None:
        async with _mapped():
            for bucket in self._buckets:
                with contextlib.suppress(nats.js.errors.NotFoundError):  # already gone
                    await self.js.delete_key_value(bucket)
            with contextlib.suppress(nats.js.errors.NotFoundError):
                await self.js.delete_stream(self.stream)
        self._leases = self._commits = None

    async def trim(self, partition: int, before: LogPosition) -> None:
        check_partition(partition, self.partitions)
        if before <= 1:
            return
        async with _mapped():
            await self.js.purge_stream(self.stream, subject=self.subject(partition), seq=before)

    async def committed(self, partition: int) -> LogPosition:
        check_partition(partition, self.partitions)
        async with _mapped():
            try:
                entry = await self.commits.get(f"c.{partition}")
            except nats.js.errors.KeyNotFoundError:
                return 0
            return int(entry.value or b"0")

    def consumer(self, owner: str) -> NatsLogConsumer:
        return NatsLogConsumer(self, owner)


class NatsLogConsumer:
    """``LogConsumer`` on the lease bucket: ``p.<partition>`` = the owner, by revision."""

    def __init__(self, log: NatsLog, owner: str) -> None:
        self._log = log
        self.owner = owner
        self._me = owner.encode()
        self._member = "m." + hashlib.sha1(self._me).hexdigest()[:20]
        self._revisions: dict[int, int] = {}

    @property
    def owned(self) -> frozenset[int]:
        return frozenset(self._revisions)

    async def claim(self) -> frozenset[int]:
        leases = self._log.leases
        async with _mapped():
            await leases.put(self._member, self._me)
            try:
                keys = await leases.keys()
            except nats.js.errors.NoKeysError:
                keys = []
            target = fair_share(self._log.partitions, sum(k.startswith("m.") for k in keys))
            held: dict[int, int] = {}
            free: list[int] = []
            for part in range(self._log.partitions):
                key = f"p.{part}"
                try:
                    entry = await leases.get(key)
                except nats.js.errors.KeyNotFoundError:
                    free.append(part)
                    continue
                if entry.value == self._me and entry.revision is not None:
                    held[part] = entry.revision
            owned: dict[int, int] = {}
            for n, (part, revision) in enumerate(sorted(held.items())):
                key = f"p.{part}"
                if n >= target:
                    await _unless_outdated(leases.delete(key, last=revision))
                    continue
                renewed = await _unless_outdated(leases.update(key, self._me, last=revision))
                if renewed is not None:  # (else expired and taken meanwhile)
                    owned[part] = renewed
            offset = partition_of(self.owner, self._log.partitions)
            free.sort(key=lambda part: (part - offset) % self._log.partitions)
            for part in free:
                if len(owned) >= target:
                    break
                created = await _unless_outdated(leases.create(f"p.{part}", self._me))
                if created is not None:  # (else another consumer took it first)
                    owned[part] = created
        self._revisions = owned
        return self.owned

    async def commit(self, partition: int, position: LogPosition) -> None:
        check_partition(partition, self._log.partitions)
        revision = self._revisions.get(partition)
        if revision is None:
            raise NotOwner(f"{self.owner} does not own partition {partition}")
        async with _mapped():
            # Renewing by revision proves the lease is still this consumer's.
            renewed = await _unless_outdated(
                self._log.leases.update(f"p.{partition}", self._me, last=revision)
            )
            if renewed is None:
                self._revisions.pop(partition, None)
                raise NotOwner(f"{self.owner} lost partition {partition}")
            self._revisions[partition] = renewed
            await self._log.commits.put(f"c.{partition}", str(position).encode())

    async def release(self) -> None:
        leases = self._log.leases
        async with _mapped():
            for part, revision in sorted(self._revisions.items()):
                key = f"p.{part}"
                if await _unless_outdated(leases.delete(key, last=revision)) is None:
                    # At another revision: renewed by a renewal this stop interrupted (still
                    # this consumer's: freed now, not when it expires), or expired and taken.
                    try:
                        entry = await leases.get(key)
                    except nats.js.errors.KeyNotFoundError:
                        continue
                    if entry.value == self._me and entry.revision is not None:
                        await _unless_outdated(leases.delete(key, last=entry.revision))
            await leases.delete(self._member)
        self._revisions = {}


async def _quietly(awaitable: Any) -> None:
    try:
        await awaitable
    except (nats.errors.Error, TimeoutError, OSError) as exc:
        log.debug("NATS log: ignored %s while closing", type(exc).__name__)
