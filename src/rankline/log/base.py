"""The ingestion log's contract: what the write path needs from SQL, NATS JetStream or Kafka.

A submission, once validated at the edge, is appended to a partitioned log and acknowledged
when the log holds it durably; an applier per partition reads the log in order and applies
it. Every engine (``rankline.log.sql``, ``.nats``, ``.kafka``) implements ``IngestLog`` and
``LogConsumer`` and maps its library's errors to ``LogUnavailable`` (or ``NotOwner``), so no
engine exception leaves this package.

Positions are integers, at least 1, increasing within a partition in append order (not
necessarily contiguous: NATS numbers a whole stream). 0 means "before the first record": a
partition nothing was applied from has committed position 0, and ``read(p, 0, n)`` starts at
its oldest record.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import msgspec

LogPosition = int
"""A record's place in its partition (1, 2, …; 0: before the first)."""


class LogRecord(msgspec.Struct, frozen=True):
    """One entry of the log. ``payload`` is opaque here (the caller encodes it with msgspec);
    ``board`` chooses the partition; ``key`` identifies the submission for deduplication,
    e.g. ``board/player/match_id``: a record appended again with the same key within the
    dedup window is a retry, and the log keeps it once."""

    board: str
    key: str
    payload: bytes


@dataclass(frozen=True)
class LogOptions:
    """How a log is laid out and kept; every process sharing a log uses the same values.

    ``name`` tells logs apart on one engine (the SQL log's rows, the NATS stream and
    buckets, the Kafka topic and consumer group). ``partitions`` is fixed when the log is
    first created: changing it moves boards to other partitions, so a log keeps the count
    it was created with."""

    name: str = "rankline"
    partitions: int = 16
    dedup_window_seconds: float = 7 * 24 * 3600.0
    lease_seconds: float = 10.0
    retention_seconds: float = 14 * 24 * 3600.0

    def __post_init__(self) -> None:
        if self.partitions < 1:
            raise ValueError("a log needs at least one partition")
        if self.lease_seconds <= 0 or self.dedup_window_seconds <= 0:
            raise ValueError("the lease and the dedup window must be positive")
        if self.retention_seconds < self.dedup_window_seconds:
            raise ValueError("records must be kept at least as long as the dedup window")


def partition_of(board: str, partitions: int) -> int:
    """The partition of a board: CRC-32 of its id modulo the partition count. Stable across
    processes, machines and Python versions (unlike ``hash``)."""
    return zlib.crc32(board.encode()) % partitions


def fair_share(partitions: int, consumers: int) -> int:
    """How many partitions one of ``consumers`` live consumers may own (rounded up)."""
    return -(-partitions // max(1, consumers))


@runtime_checkable
class LogConsumer(Protocol):
    """One worker's claim on partitions. At most one consumer owns a partition at a time;
    ownership is a lease that ``claim`` renews. A consumer that stops calling ``claim``
    (crashed, killed, hung) loses its partitions once the lease runs out, and the others take
    them over; so an applier calls ``claim`` well within ``lease_seconds`` and applies only
    the partitions the last call returned."""

    owner: str

    async def claim(self) -> frozenset[int]:
        """Renew this consumer's leases, hand back partitions beyond its fair share, take
        free or expired ones up to it, and return the partitions it owns now."""
        ...

    @property
    def owned(self) -> frozenset[int]:
        """The partitions the last ``claim`` returned."""
        ...

    async def commit(self, partition: int, position: LogPosition) -> None:
        """Record ``position`` as applied in ``partition``, durably. Raises ``NotOwner`` when
        this consumer does not own the partition any more (nothing is recorded then)."""
        ...

    async def release(self) -> None:
        """Give up every partition now (a clean stop), so others need not wait for the
        leases to run out."""
        ...


@runtime_checkable
class IngestLog(Protocol):
    """A partitioned, durable, append-only log of ``LogRecord``s."""

    options: LogOptions

    @property
    def partitions(self) -> int: ...

    def partition_of(self, board: str) -> int:
        """The partition every record of ``board`` goes to."""
        ...

    async def start(self) -> None:
        """Connect, and create the log's stream, topic or partition rows where missing."""
        ...

    async def close(self) -> None: ...

    async def append(self, records: Sequence[LogRecord]) -> list[LogPosition]:
        """Append ``records`` in one step; on return every one of them is durable. Records of
        one partition keep their order. Returns each record's position, in order; a retry
        (a key appended within the dedup window) gets the original's position where the
        engine recognises it on append (SQL, NATS) and is stored once."""
        ...

    async def read(
        self, partition: int, after: LogPosition, limit: int
    ) -> list[tuple[LogPosition, LogRecord]]:
        """Up to ``limit`` records of ``partition`` after position ``after``, in order (empty
        when none is there yet)."""
        ...

    async def first_position(self, partition: int) -> LogPosition:
        """The oldest position still held in ``partition`` (0 when it holds none)."""
        ...

    async def last_position(self, partition: int) -> LogPosition:
        """The newest position appended to ``partition`` (0 when none ever was)."""
        ...

    async def trim(self, partition: int, before: LogPosition) -> None:
        """Discard the records of ``partition`` before position ``before`` (the applier
        trims what it applied and what is past retention)."""
        ...

    async def expire(self, partition: int, committed: LogPosition) -> int:
        """Discard some applied records (at or below ``committed``) older than the log's
        retention and dedup window, at most a few thousand per call; how many. Engines whose
        server keeps the retention itself (NATS, Kafka) discard nothing here."""
        ...

    async def committed(self, partition: int) -> LogPosition:
        """The position last committed as applied in ``partition`` (0: none)."""
        ...

    def consumer(self, owner: str) -> LogConsumer:
        """A consumer named ``owner`` (unique per worker, e.g. host and pid)."""
        ...

    async def drop(self) -> None:
        """Delete the log on a started log: its records, applied positions and leases (the
        SQL log's rows, the NATS stream and buckets, the Kafka topic), so that nothing of it
        is left; then close it. For scratch logs, such as the benchmark's."""
        ...


def check_partition(partition: int, partitions: int) -> None:
    if not 0 <= partition < partitions:
        raise ValueError(f"partition {partition} is outside 0..{partitions - 1}")


def dedup_in_batch(
    records: Sequence[LogRecord], partitions: int
) -> tuple[dict[int, list[int]], list[int | None]]:
    """Group record indexes by partition, keeping the first of each key in a batch: returns
    the indexes to append per partition, and per record the index of the earlier record with
    its key in this batch (None for a first)."""
    by_partition: dict[int, list[int]] = {}
    first: dict[str, int] = {}
    same: list[int | None] = []
    for i, record in enumerate(records):
        earlier = first.get(record.key)
        same.append(earlier)
        if earlier is None:
            first[record.key] = i
            by_partition.setdefault(partition_of(record.board, partitions), []).append(i)
    return by_partition, same
