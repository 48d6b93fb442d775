"""The ingestion log as append-only SQL tables (SQLite, PostgreSQL, MariaDB).

``rl_log`` holds the records, keyed (log, partition, position): an append is a run of
inserts at the end of that key. ``rl_log_partitions`` holds one row per partition: the next
position to hand out, the applied position and the owner's lease. An append first writes
its partitions' rows (in partition order), so appenders to one partition take turns there
and positions become visible in order; on SQLite that first write takes the database's
write lock at once, which is what SQLite needs to queue writers instead of failing them.

Leases use the wall clock of the machines (microseconds since the epoch): keep them in
sync (NTP), and leases several seconds long.

Driver and SQLAlchemy errors never leave this module: they become ``LogUnavailable``, and a
commit by a consumer whose lease was taken over ``NotOwner``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import and_, bindparam, delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

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
from rankline.log.sql_append import Append
from rankline.log.sql_statistics import Statistics
from rankline.metrics import BACKEND_ERRORS
from rankline.store import schema as t
from rankline.store.hot import in_sqlite_thread

log = logging.getLogger("rankline.log")

_FILE_VERSION = 1
"""The layout of a log in a SQLite file of its own (``PRAGMA user_version``)."""

_EXPIRE_STEP = 5000
"""Records ``SqlLog.expire`` discards at most per call."""


def _now() -> int:
    return time.time_ns() // 1000


@asynccontextmanager
async def _mapped() -> AsyncIterator[None]:
    try:
        yield
    except (SQLAlchemyError, OSError) as exc:
        BACKEND_ERRORS.labels("log").inc()
        log.warning("SQL log error: %s", exc.__class__.__name__, exc_info=exc)
        raise LogUnavailable(f"the ingestion log is unavailable ({type(exc).__name__})") from exc


class SqlLog:
    """``IngestLog`` on a SQLAlchemy async URL or engine. In a store, the tables come from
    its migrations (``rankline migrate``; revision 0004); in a SQLite file of the log's own
    (``create_tables``), the log creates them."""

    def __init__(
        self,
        database: str | AsyncEngine,
        options: LogOptions,
        *,
        sqlite_synchronous: str = "FULL",
        writes: AsyncEngine | None = None,
        create_tables: bool = False,
        first_positions: Mapping[int, LogPosition] | None = None,
    ) -> None:
        self.options = options
        self._owns_engine = isinstance(database, str)
        self._create_tables = create_tables
        """A log in a SQLite file of its own creates its tables there when missing (a
        store's come from its migrations)."""
        self._first = dict(first_positions or {})
        """The position a partition created here starts after (a log moved out of a
        store numbers on from where it was, so that earlier tokens keep their meaning)."""
        created_writes = False
        if isinstance(database, str):
            url = make_url(database)
            sqlite = url.get_backend_name() == "sqlite"
            if sqlite and url.database not in (None, "", ":memory:"):
                Path(url.database).parent.mkdir(parents=True, exist_ok=True)
            engine_options: dict[str, Any] = {} if sqlite else {"pool_pre_ping": True}
            self._engine = create_async_engine(database, **engine_options)
            if sqlite:
                _configure_sqlite(self._engine, sqlite_synchronous)
                if writes is None:  # one write connection: see ``_writes``
                    writes = create_async_engine(database, pool_size=1, max_overflow=0)
                    _configure_sqlite(writes, sqlite_synchronous)
                    created_writes = True
        else:
            self._engine = database
        self._statistics = Statistics(self._engine)
        self._sqlite = self._engine.dialect.name == "sqlite"
        """On SQLite an append runs as one call in the write connection's thread: through
        SQLAlchemy's adapter each of its statements (five a partition) would take several
        trips to that thread and back, most of an append's time (``Append.on_sqlite``)."""
        self._owns_writes = created_writes
        self._writes = writes or self._engine
        """Where the log's writes run. SQLite has one writer at a time per file: a second
        connection would wait on the file lock (sleeping in its busy handler), so on
        SQLite every write of the log goes through one connection and writes take turns in
        the event loop instead. A log kept in an embedded store uses the store's own write
        connection (another one would also make the store's drop its page cache each time
        it wrote); a log in a file of its own has one of its own, so that its appends do
        not queue behind the store's transactions."""

    @property
    def partitions(self) -> int:
        return self.options.partitions

    @property
    def engine(self) -> AsyncEngine:
        """Reads."""
        return self._engine

    @property
    def writes(self) -> AsyncEngine:
        """Transactions that write."""
        return self._writes

    def partition_of(self, board: str) -> int:
        return partition_of(board, self.options.partitions)

    async def start(self) -> None:
        """Create the partitions' rows where missing (every process may, at once)."""
        p = t.log_partitions
        name = self.options.name
        async with _mapped():
            if self._create_tables:
                await self._ensure_tables()
            async with self._engine.connect() as conn:
                found = await conn.execute(select(p.c.part).where(p.c.log_name == name))
                missing = set(range(self.partitions)) - {row.part for row in found}
            if not missing:
                return
            try:  # all at once: one commit
                async with self._writes.begin() as conn:
                    await conn.execute(insert(p), [self._partition_row(n) for n in sorted(missing)])
            except SQLAlchemyError:  # another process created some meanwhile: one by one
                for part in sorted(missing):
                    await self._create_partition(part)

    def _partition_row(self, part: int) -> dict[str, object]:
        return {
            "log_name": self.options.name,
            "part": part,
            "next_seq": self._first.get(part, 0) + 1,
            "committed": self._first.get(part, 0),
            "owner": None,
            "lease_until": 0,
            "epoch": 0,
        }

    async def _create_partition(self, part: int) -> None:
        """The partition's row, unless another process created it meanwhile."""
        p = t.log_partitions
        try:
            async with self._writes.begin() as conn:
                await conn.execute(insert(p).values(**self._partition_row(part)))
        except SQLAlchemyError:
            async with self._engine.connect() as conn:
                row = await conn.execute(
                    select(p.c.part).where(p.c.log_name == self.options.name, p.c.part == part)
                )
                if row.first() is None:
                    raise

    async def _ensure_tables(self) -> None:
        """Create the log's tables in its own file when missing, and refuse a file a newer
        version laid out (its ``user_version``)."""
        for attempt in (1, 2, 3):
            try:
                async with self._writes.begin() as conn:
                    version = (await conn.exec_driver_sql("PRAGMA user_version")).scalar_one()
                    if version > _FILE_VERSION:
                        raise LogUnavailable(
                            f"the log file {self._engine.url.database} has layout {version}; "
                            f"this version of rankline knows {_FILE_VERSION}"
                        )
                    await conn.run_sync(_create_log_tables)
                    await conn.exec_driver_sql(f"PRAGMA user_version = {_FILE_VERSION}")
                return
            except SQLAlchemyError:
                if attempt == 3:
                    raise
                # another process created them meanwhile: the second look finds them

    async def close(self) -> None:
        await self._statistics.close()
        if self._owns_writes:
            await self._writes.dispose()
        if self._owns_engine:
            await self._engine.dispose()

    async def append(self, records: Sequence[LogRecord]) -> list[LogPosition]:
        if not records:
            return []
        by_partition, same = dedup_in_batch(records, self.partitions)
        positions: list[LogPosition] = [0] * len(records)
        now = _now()
        since = now - int(self.options.dedup_window_seconds * 1_000_000)
        append = Append(self.options.name, records, by_partition, positions, now, since)
        async with _mapped(), self._writes.begin() as conn:
            if self._sqlite:
                appended = await in_sqlite_thread(conn, "append", append.on_sqlite)
            else:
                appended = await append.through(conn)
        for i, earlier in enumerate(same):
            if earlier is not None:
                positions[i] = positions[earlier]
        self._statistics.appended(appended)
        return positions

    async def read(
        self, partition: int, after: LogPosition, limit: int
    ) -> list[tuple[LogPosition, LogRecord]]:
        check_partition(partition, self.partitions)
        r = t.log_records
        query = (
            select(r.c.seq, r.c.board_id, r.c.dedup_key, r.c.payload)
            .where(r.c.log_name == self.options.name, r.c.part == partition, r.c.seq > after)
            .order_by(r.c.seq)
            .limit(limit)
        )
        async with _mapped(), self._engine.connect() as conn:
            return [
                (int(seq), LogRecord(board=board, key=key, payload=bytes(payload)))
                for seq, board, key, payload in await conn.execute(query)
            ]

    async def first_position(self, partition: int) -> LogPosition:
        check_partition(partition, self.partitions)
        r = t.log_records
        query = select(func.min(r.c.seq)).where(
            r.c.log_name == self.options.name, r.c.part == partition
        )
        async with _mapped(), self._engine.connect() as conn:
            return int((await conn.execute(query)).scalar() or 0)

    async def last_position(self, partition: int) -> LogPosition:
        return int(await self._partition_value(partition, t.log_partitions.c.next_seq)) - 1

    async def committed(self, partition: int) -> LogPosition:
        return int(await self._partition_value(partition, t.log_partitions.c.committed))

    async def _partition_value(self, partition: int, column: Any) -> int:
        check_partition(partition, self.partitions)
        p = t.log_partitions
        query = select(column).where(p.c.log_name == self.options.name, p.c.part == partition)
        async with _mapped(), self._engine.connect() as conn:
            value = (await conn.execute(query)).scalar()
        if value is None:
            raise LogUnavailable(f"log {self.options.name!r} has no partition {partition}")
        return int(value)

    async def trim(self, partition: int, before: LogPosition) -> None:
        check_partition(partition, self.partitions)
        r = t.log_records
        async with _mapped(), self._writes.begin() as conn:
            await conn.execute(
                delete(r).where(
                    r.c.log_name == self.options.name, r.c.part == partition, r.c.seq < before
                )
            )

    async def drop(self) -> None:
        name = self.options.name
        async with _mapped(), self._writes.begin() as conn:
            for table in (t.log_records, t.log_members, t.log_partitions):
                await conn.execute(delete(table).where(table.c.log_name == name))

    async def expire(self, partition: int, committed: LogPosition) -> int:
        check_partition(partition, self.partitions)
        return await self._expire(partition, committed)

    async def _expire(self, partition: int, committed: LogPosition) -> int:
        keep = max(self.options.retention_seconds, self.options.dedup_window_seconds)
        cutoff = _now() - int(keep * 1_000_000)
        r = t.log_records
        old = and_(
            r.c.log_name == self.options.name,
            r.c.part == partition,
            r.c.seq <= committed,
            r.c.appended_at < cutoff,
        )
        async with _mapped(), self._writes.begin() as conn:
            # A bounded step: one transaction never holds the store for long.
            last = await conn.scalar(
                select(r.c.seq).where(old).order_by(r.c.seq).offset(_EXPIRE_STEP - 1).limit(1)
            )
            done = await conn.execute(
                delete(r).where(old, *([] if last is None else [r.c.seq <= last]))
            )
        return int(done.rowcount or 0)

    async def expire_applied(self) -> tuple[int, bool]:
        """One step of ``expire`` over every partition of this log name that has a row
        (however many the settings name now), each up to its committed position. Returns
        the records discarded and whether none is left: what a log that another took over
        from needs, as nothing applies it any more."""
        p, r = t.log_partitions, t.log_records
        name = self.options.name
        async with _mapped(), self._engine.connect() as conn:
            marks = (
                await conn.execute(select(p.c.part, p.c.committed).where(p.c.log_name == name))
            ).all()
        expired = 0
        for part, committed in marks:
            expired += await self._expire(int(part), int(committed))
        async with _mapped(), self._engine.connect() as conn:
            left = await conn.scalar(select(r.c.seq).where(r.c.log_name == name).limit(1))
        return expired, left is None

    def consumer(self, owner: str) -> SqlLogConsumer:
        return SqlLogConsumer(self, owner)


class SqlLogConsumer:
    """``LogConsumer`` over ``rl_log_partitions`` (leases) and ``rl_log_members`` (who is
    alive, for the fair share)."""

    def __init__(self, log: SqlLog, owner: str) -> None:
        self._log = log
        self.owner = owner
        self._owned: frozenset[int] = frozenset()

    @property
    def owned(self) -> frozenset[int]:
        return self._owned

    async def claim(self) -> frozenset[int]:
        # Consumers claiming at once can deadlock on MariaDB's gap locks (or time out on
        # SQLite's write lock): a claim changes nothing it cannot make again, so it retries.
        for attempt in range(3):
            try:
                return await self._claim()
            except LogUnavailable:
                if attempt == 2:
                    raise
                await asyncio.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    async def _claim(self) -> frozenset[int]:
        log, name = self._log, self._log.options.name
        p, m = t.log_partitions, t.log_members
        now = _now()
        until = now + int(log.options.lease_seconds * 1_000_000)
        async with _mapped():
            async with log.writes.begin() as conn:
                seen = await conn.execute(
                    update(m)
                    .where(m.c.log_name == name, m.c.owner == self.owner)
                    .values(seen_until=until)
                )
                if not seen.rowcount:
                    await conn.execute(
                        insert(m).values(log_name=name, owner=self.owner, seen_until=until)
                    )
            async with log.writes.begin() as conn:
                await conn.execute(delete(m).where(m.c.log_name == name, m.c.seen_until < now))
            async with log.engine.connect() as conn:
                live = int(
                    (
                        await conn.execute(
                            select(func.count()).where(m.c.log_name == name, m.c.seen_until >= now)
                        )
                    ).scalar_one()
                )
            target = fair_share(log.partitions, live)
            async with log.engine.connect() as conn:
                rows = (
                    await conn.execute(
                        select(p.c.part, p.c.owner, p.c.lease_until).where(p.c.log_name == name)
                    )
                ).all()
            mine = sorted(part for part, owner, _ in rows if owner == self.owner)
            extra, keep = mine[target:], mine[:target]
            # Every transaction here starts with its write: SQLite then waits for the write
            # lock instead of failing to upgrade a read.
            async with log.writes.begin() as conn:
                if extra:
                    await conn.execute(
                        update(p)
                        .where(p.c.log_name == name, p.c.owner == self.owner, p.c.part.in_(extra))
                        .values(owner=None, lease_until=0)
                    )
                if keep:
                    await conn.execute(
                        update(p)
                        .where(p.c.log_name == name, p.c.owner == self.owner, p.c.part.in_(keep))
                        .values(lease_until=until)
                    )
                still = await conn.execute(
                    select(p.c.part).where(p.c.log_name == name, p.c.owner == self.owner)
                )
                owned = {row.part for row in still}
            free = [
                part
                for part, owner, lease_until in rows
                if owner != self.owner and (owner is None or lease_until < now)
            ]
            # Start the search at a place of one's own, so consumers do not all race for the
            # same partitions first.
            offset = partition_of(self.owner, log.partitions)
            free.sort(key=lambda part: (part - offset) % log.partitions)
            for part in free:
                if len(owned) >= target:
                    break
                async with log.writes.begin() as conn:
                    taken = await conn.execute(
                        update(p)
                        .where(
                            p.c.log_name == name,
                            p.c.part == part,
                            or_(p.c.owner.is_(None), p.c.lease_until < now),
                        )
                        .values(owner=self.owner, lease_until=until, epoch=p.c.epoch + 1)
                    )
                    if taken.rowcount == 1:
                        owned.add(part)
        self._owned = frozenset(owned)
        return self._owned

    async def commit(self, partition: int, position: LogPosition) -> None:
        check_partition(partition, self._log.partitions)
        p = t.log_partitions
        async with _mapped(), self._log.writes.begin() as conn:
            done = await conn.execute(
                update(p)
                .where(
                    p.c.log_name == self._log.options.name,
                    p.c.part == partition,
                    p.c.owner == self.owner,
                    p.c.lease_until >= bindparam("now", _now()),
                )
                .values(committed=position)
            )
            if done.rowcount != 1:
                raise NotOwner(f"{self.owner} does not own partition {partition}")

    async def release(self) -> None:
        name = self._log.options.name
        p, m = t.log_partitions, t.log_members
        async with _mapped(), self._log.writes.begin() as conn:
            await conn.execute(
                update(p)
                .where(p.c.log_name == name, p.c.owner == self.owner)
                .values(owner=None, lease_until=0)
            )
            await conn.execute(delete(m).where(m.c.log_name == name, m.c.owner == self.owner))
        self._owned = frozenset()


def _create_log_tables(conn: Connection) -> None:
    """The log's tables and their indexes, those missing. SQLite commits each statement of
    a layout on its own, so a start stopped halfway leaves part of it: the indexes of a
    table that exists are looked for one by one (``create_all`` would skip them)."""
    tables = [t.log_records, t.log_partitions, t.log_members]
    t.metadata.create_all(conn, tables=tables)
    for table in tables:
        for index in table.indexes:
            index.create(conn, checkfirst=True)


def _configure_sqlite(engine: AsyncEngine, synchronous: str) -> None:
    from sqlalchemy import event

    @event.listens_for(engine.sync_engine, "connect")
    def _pragmas(dbapi_conn: Any, _record: Any) -> None:
        cursor = dbapi_conn.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.close()
