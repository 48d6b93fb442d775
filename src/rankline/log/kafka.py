"""The ingestion log on Kafka or Redpanda (aiokafka).

One topic per log (``rl.<log>``) with one Kafka partition per log partition; a position is
the record's Kafka offset + 1. Appends go through one producer with ``acks=all`` and
idempotence (a retried produce request is written once; ``?idempotence=false`` in the URL
turns it off, for brokers that lack it). An append returns once every record is
acknowledged by all in-sync replicas.

Ownership is the consumer group ``rl.<log>``: each ``KafkaLogConsumer`` is a member, the group
coordinator spreads the partitions over the live members, and a member that stops
heartbeating for ``lease_seconds`` (the session timeout) is dropped and its partitions go to
the others. Applied positions are the group's committed offsets; a commit by a member that
lost the partition in a rebalance is refused by the coordinator (``NotOwner``).

Kafka has no deduplication by message id. The log recognises a retry when the same process
appended the key within the dedup window, and ``read`` skips a record whose key it already
returned at an earlier position within the window; a retry sent through another process and
read by a new owner after a restart reaches the applier, whose unique key on (board, player,
match_id) keeps it once.

Library errors never leave this module: they become ``LogUnavailable`` or ``NotOwner``.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any
from urllib.parse import parse_qs, urlsplit

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic, RecordsToDelete
from aiokafka.errors import (
    KafkaError,
    TopicAlreadyExistsError,
    UnknownTopicOrPartitionError,
    for_code,
)
from aiokafka.structs import OffsetAndMetadata

from rankline.errors import LogUnavailable, NotOwner
from rankline.log.base import (
    LogOptions,
    LogPosition,
    LogRecord,
    check_partition,
    dedup_in_batch,
    partition_of,
)
from rankline.metrics import BACKEND_ERRORS

log = logging.getLogger("rankline.log")

_BOARD = "rl-board"
_TIMEOUT_MS = 10_000
_SEEN_MAX = 1_000_000
"""Keys remembered per partition for recognising retries (oldest forgotten first)."""


@asynccontextmanager
async def _mapped() -> AsyncIterator[None]:
    try:
        yield
    except (NotOwner, LogUnavailable):
        raise
    except (KafkaError, TimeoutError, OSError) as exc:
        BACKEND_ERRORS.labels("log").inc()
        log.warning("Kafka log error: %s", exc.__class__.__name__, exc_info=exc)
        raise LogUnavailable(f"the ingestion log is unavailable ({type(exc).__name__})") from exc


class _Seen:
    """Keys appended or read in one partition within the dedup window: key → position."""

    def __init__(self, window_seconds: float) -> None:
        self._window = window_seconds
        self._keys: OrderedDict[str, tuple[LogPosition, float]] = OrderedDict()

    def get(self, key: str, now: float) -> LogPosition | None:
        self._expire(now)
        found = self._keys.get(key)
        return None if found is None else found[0]

    def add(self, key: str, position: LogPosition, at: float) -> None:
        """Remember the key at ``position``, or at the earlier of two positions: the first
        record with the key is the one that counts."""
        known = self._keys.get(key)
        if known is None or position < known[0]:
            self._keys[key] = (position, at)
            if len(self._keys) > _SEEN_MAX:
                self._keys.popitem(last=False)

    def _expire(self, now: float) -> None:
        while self._keys:
            key, (_, at) = next(iter(self._keys.items()))
            if now - at <= self._window:
                break
            del self._keys[key]


class KafkaLog:
    """``IngestLog`` on a Kafka topic. URL: ``kafka://host:9092[,host2:9092][?replication=3]
    [&idempotence=false]``."""

    def __init__(self, url: str, options: LogOptions) -> None:
        self.options = options
        parts = urlsplit(url)
        self._bootstrap = parts.netloc
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        self._replication = int(query.get("replication", "1"))
        self._idempotence = query.get("idempotence", "true").lower() not in ("false", "0", "no")
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,100}", options.name):
            raise ValueError(f"log name {options.name!r}: use letters, digits, '_' or '-'")
        self.topic = f"rl.{options.name}"
        self.group = f"rl.{options.name}"
        self._producer: AIOKafkaProducer | None = None
        self._offsets: AIOKafkaConsumer | None = None
        self._readers: dict[int, AIOKafkaConsumer] = {}
        self._read_locks = [asyncio.Lock() for _ in range(options.partitions)]
        self._seen = [_Seen(options.dedup_window_seconds) for _ in range(options.partitions)]

    @property
    def partitions(self) -> int:
        return self.options.partitions

    @property
    def bootstrap(self) -> str:
        return self._bootstrap

    def partition_of(self, board: str) -> int:
        return partition_of(board, self.options.partitions)

    def _tp(self, partition: int) -> TopicPartition:
        check_partition(partition, self.partitions)
        return TopicPartition(self.topic, partition)

    async def start(self) -> None:
        async with _mapped():
            async with self._admin() as admin:
                with suppress(TopicAlreadyExistsError):
                    await admin.create_topics(
                        [
                            NewTopic(
                                self.topic,
                                self.partitions,
                                self._replication,
                                topic_configs={
                                    "retention.ms": str(int(self.options.retention_seconds * 1000)),
                                    "cleanup.policy": "delete",
                                },
                            )
                        ]
                    )
            self._producer = AIOKafkaProducer(
                bootstrap_servers=self._bootstrap,
                acks="all",
                enable_idempotence=self._idempotence,
                request_timeout_ms=_TIMEOUT_MS,
                linger_ms=0,
            )
            await self._producer.start()
            self._offsets = AIOKafkaConsumer(
                bootstrap_servers=self._bootstrap,
                group_id=self.group,
                enable_auto_commit=False,
                request_timeout_ms=_TIMEOUT_MS,
            )
            await self._offsets.start()
            found = self._producer_partitions()
            if found is not None and found != self.partitions:
                raise LogUnavailable(
                    f"topic {self.topic} has {found} partitions, this server wants "
                    f"{self.partitions} (RANKLINE_LOG_PARTITIONS)"
                )

    def _producer_partitions(self) -> int | None:
        if self._producer is None:
            return None
        found = self._producer.client.cluster.partitions_for_topic(self.topic)
        return None if found is None else len(found)

    async def close(self) -> None:
        clients: list[Any] = [self._producer, self._offsets, *self._readers.values()]
        self._producer, self._offsets, self._readers = None, None, {}
        for client in clients:
            if client is not None:
                try:
                    await client.stop()
                except (KafkaError, OSError) as exc:
                    log.debug("Kafka log: ignored %s while closing", type(exc).__name__)

    async def append(self, records: Sequence[LogRecord]) -> list[LogPosition]:
        if not records:
            return []
        if self._producer is None:
            raise LogUnavailable("the Kafka log is not started")
        by_partition, same = dedup_in_batch(records, self.partitions)
        positions: list[LogPosition] = [0] * len(records)
        now = time.time()
        async with _mapped():
            pending: list[tuple[int, int, asyncio.Future[Any]]] = []
            for part in sorted(by_partition):
                for i in by_partition[part]:
                    record = records[i]
                    known = self._seen[part].get(record.key, now)
                    if known is not None:
                        positions[i] = known
                        continue
                    future = await self._producer.send(
                        self.topic,
                        record.payload,
                        key=record.key.encode(),
                        partition=part,
                        headers=[(_BOARD, record.board.encode())],
                    )
                    pending.append((i, part, future))
            sent = await asyncio.gather(*(f for _, _, f in pending))
            for (i, part, _), meta in zip(pending, sent, strict=True):
                positions[i] = int(meta.offset) + 1
                self._seen[part].add(records[i].key, positions[i], now)
        for i, earlier in enumerate(same):
            if earlier is not None:
                positions[i] = positions[earlier]
        return positions

    async def _reader(self, partition: int) -> AIOKafkaConsumer:
        reader = self._readers.get(partition)
        if reader is None:
            reader = AIOKafkaConsumer(
                bootstrap_servers=self._bootstrap,
                enable_auto_commit=False,
                fetch_max_wait_ms=50,
                request_timeout_ms=_TIMEOUT_MS,
            )
            await reader.start()
            reader.assign([self._tp(partition)])
            self._readers[partition] = reader
        return reader

    async def read(
        self, partition: int, after: LogPosition, limit: int
    ) -> list[tuple[LogPosition, LogRecord]]:
        tp = self._tp(partition)
        out: list[tuple[LogPosition, LogRecord]] = []
        async with self._read_locks[partition], _mapped():
            reader = await self._reader(partition)
            reader.seek(tp, after)
            seen = self._seen[partition]
            scanned = after
            while len(out) < limit:
                batch = await reader.getmany(tp, timeout_ms=200, max_records=limit - len(out))
                messages = batch.get(tp, [])
                for message in messages:
                    position = int(message.offset) + 1
                    scanned = position
                    key = bytes(message.key or b"").decode()
                    at = message.timestamp / 1000.0
                    earlier = seen.get(key, time.time())
                    if earlier is not None and earlier < position:
                        continue  # a retry of a record already read
                    seen.add(key, position, at)
                    board = dict(message.headers or ()).get(_BOARD, b"")
                    out.append(
                        (
                            position,
                            LogRecord(board=bytes(board).decode(), key=key, payload=message.value),
                        )
                    )
                end = reader.highwater(tp)
                if not messages or (end is not None and scanned >= end):
                    break
        return out

    async def first_position(self, partition: int) -> LogPosition:
        tp = self._tp(partition)
        async with _mapped():
            reader = await self._reader(partition)
            first = (await reader.beginning_offsets([tp]))[tp]
            last = await self._end(reader, tp)
            return 0 if first >= last else int(first) + 1

    async def last_position(self, partition: int) -> LogPosition:
        tp = self._tp(partition)
        async with self._read_locks[partition], _mapped():
            return await self._end(await self._reader(partition), tp)

    async def _end(self, reader: AIOKafkaConsumer, tp: TopicPartition) -> int:
        """The partition's end offset (= the last position). Taken from a fetch's high
        watermark: some Kafka-compatible brokers answer ListOffsets with the start of the
        last batch."""
        listed = int((await reader.end_offsets([tp]))[tp])
        reader.seek(tp, max(0, listed - 1))
        await reader.getmany(tp, timeout_ms=200, max_records=1)
        end = reader.highwater(tp)
        return max(listed, int(end)) if end is not None else listed

    async def expire(self, partition: int, committed: LogPosition) -> int:
        return 0  # the stream's (topic's) own retention discards old records

    async def drop(self) -> None:
        """The topic goes, and the group's committed offsets with it (the broker discards
        the offsets of a deleted topic)."""
        async with _mapped(), self._admin() as admin:
            answer = await admin.delete_topics([self.topic], _TIMEOUT_MS)
        for _, code, *_ in answer.topic_error_codes:
            if code not in (0, UnknownTopicOrPartitionError.errno):  # gone, or already gone
                BACKEND_ERRORS.labels("log").inc()
                raise LogUnavailable(
                    f"Kafka did not delete {self.topic} ({for_code(code).__name__})"
                )

    async def trim(self, partition: int, before: LogPosition) -> None:
        tp = self._tp(partition)
        if before <= 1:
            return
        async with _mapped(), self._admin() as admin:
            await admin.delete_records({tp: RecordsToDelete(before - 1)}, _TIMEOUT_MS)

    @asynccontextmanager
    async def _admin(self) -> AsyncIterator[AIOKafkaAdminClient]:
        admin = AIOKafkaAdminClient(
            bootstrap_servers=self._bootstrap, request_timeout_ms=_TIMEOUT_MS
        )
        await admin.start()
        try:
            yield admin
        finally:
            await admin.close()

    async def committed(self, partition: int) -> LogPosition:
        tp = self._tp(partition)
        if self._offsets is None:
            raise LogUnavailable("the Kafka log is not started")
        async with _mapped():
            offset = await self._offsets.committed(tp)
            return 0 if offset is None else int(offset)

    def consumer(self, owner: str) -> KafkaLogConsumer:
        return KafkaLogConsumer(self, owner)


class KafkaLogConsumer:
    """``LogConsumer`` as a member of the log's consumer group. It takes no records itself
    (its partitions stay paused); the applier reads through ``KafkaLog.read``."""

    def __init__(self, log: KafkaLog, owner: str) -> None:
        self._log = log
        self.owner = owner
        self._member: AIOKafkaConsumer | None = None
        self._owned: frozenset[int] = frozenset()

    @property
    def owned(self) -> frozenset[int]:
        return self._owned

    async def claim(self) -> frozenset[int]:
        lease_ms = int(self._log.options.lease_seconds * 1000)
        async with _mapped():
            if self._member is None:
                member = AIOKafkaConsumer(
                    self._log.topic,
                    bootstrap_servers=self._log.bootstrap,
                    group_id=self._log.group,
                    client_id=self.owner,
                    enable_auto_commit=False,
                    session_timeout_ms=lease_ms,
                    heartbeat_interval_ms=max(100, lease_ms // 3),
                    request_timeout_ms=max(_TIMEOUT_MS, lease_ms + 5000),
                )
                await member.start()
                self._member = member
            member = self._member
            member.pause(*member.assignment())
            await member.getmany(timeout_ms=0)  # a poll: keeps the membership alive
            member.pause(*member.assignment())
            self._owned = frozenset(tp.partition for tp in member.assignment())
        return self._owned

    async def commit(self, partition: int, position: LogPosition) -> None:
        tp = self._log._tp(partition)
        member = self._member
        if member is None or tp not in member.assignment():
            raise NotOwner(f"{self.owner} does not own partition {partition}")
        try:
            async with _mapped():
                await member.commit({tp: OffsetAndMetadata(position, "")})
        except LogUnavailable as exc:
            if tp not in member.assignment():
                raise NotOwner(f"{self.owner} lost partition {partition}") from exc
            raise

    async def release(self) -> None:
        member, self._member = self._member, None
        self._owned = frozenset()
        if member is not None:
            async with _mapped():
                await member.stop()  # leaves the group: a rebalance hands its partitions on
