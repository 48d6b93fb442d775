"""One append to the SQL log, partition by partition: on any engine through SQLAlchemy
(``Append.through``), and on SQLite as one call in the sqlite3 connection's thread
(``Append.on_sqlite``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import and_, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from rankline.log.base import LogPosition, LogRecord
from rankline.store import schema as t
from rankline.store.sql import chunks

_COLUMNS = ("log_name", "part", "seq", "board_id", "dedup_key", "appended_at", "payload")


class Append:
    """One append, partition by partition in partition order: take the partition's row
    (appenders of one partition take turns there), read its next position, look up which
    keys it holds within the dedup window, insert the other records, store the next
    position. ``through`` runs it on any engine; ``on_sqlite`` on the sqlite3 connection
    under the append's transaction, in one call to its thread (through SQLAlchemy's adapter
    each statement takes several trips to that thread and back: most of an append's time)."""

    _P, _R = t.log_partitions.name, t.log_records.name
    _TAKE = f'UPDATE "{_P}" SET next_seq = next_seq WHERE log_name = ? AND part = ?'
    _NEXT = f'SELECT next_seq FROM "{_P}" WHERE log_name = ? AND part = ?'
    _SET_NEXT = f'UPDATE "{_P}" SET next_seq = ? WHERE log_name = ? AND part = ?'
    _INSERT = (
        f'INSERT INTO "{_R}" ({", ".join(_COLUMNS)}) VALUES ({", ".join("?" * len(_COLUMNS))})'
    )

    def __init__(
        self,
        name: str,
        records: Sequence[LogRecord],
        by_partition: Mapping[int, list[int]],
        positions: list[LogPosition],
        now: int,
        since: int,
    ) -> None:
        self._name = name
        self._records = records
        self._by_partition = by_partition
        self._positions = positions
        """Filled in: each record's position (an earlier one's, for a key already held)."""
        self._now = now
        self._since = since

    def _rows(
        self, part: int, next_seq: int, known: Mapping[str, LogPosition]
    ) -> tuple[list[tuple[Any, ...]], int]:
        """The partition's new rows, numbered from ``next_seq``; and the next position."""
        rows: list[tuple[Any, ...]] = []
        for i in self._by_partition[part]:
            record = self._records[i]
            earlier = known.get(record.key)
            if earlier is not None:
                self._positions[i] = earlier
                continue
            self._positions[i] = next_seq
            row = (self._name, part, next_seq, record.board, record.key, self._now, record.payload)
            rows.append(row)
            next_seq += 1
        return rows, next_seq

    def _keys(self, part: int) -> list[str]:
        return [self._records[i].key for i in self._by_partition[part]]

    async def through(self, conn: AsyncConnection) -> int:
        """Append on ``conn``; the records newly written."""
        r, p = t.log_records, t.log_partitions
        appended = 0
        for part in sorted(self._by_partition):
            head = and_(p.c.log_name == self._name, p.c.part == part)
            await conn.execute(update(p).where(head).values(next_seq=p.c.next_seq))
            next_seq = int((await conn.execute(select(p.c.next_seq).where(head))).scalar_one())
            known = await _known_keys(conn, self._name, part, self._keys(part), self._since)
            rows, next_seq = self._rows(part, next_seq, known)
            if rows:
                await conn.execute(
                    insert(r), [dict(zip(_COLUMNS, row, strict=True)) for row in rows]
                )
                await conn.execute(update(p).where(head).values(next_seq=next_seq))
                appended += len(rows)
        return appended

    def on_sqlite(self, db: sqlite3.Connection) -> int:
        """Append on the sqlite3 connection ``db``; the records newly written."""
        appended = 0
        for part in sorted(self._by_partition):
            db.execute(self._TAKE, (self._name, part))
            head = db.execute(self._NEXT, (self._name, part)).fetchone()
            if head is None:  # as ``scalar_one`` fails on other engines: LogUnavailable
                raise sqlite3.OperationalError(f"the log has no partition {part}")
            (next_seq,) = head
            known: dict[str, LogPosition] = {}
            keys = self._keys(part)
            for chunk in chunks(keys):
                query = (
                    f'SELECT dedup_key, seq FROM "{self._R}" WHERE log_name = ? AND part = ? '
                    f"AND dedup_key IN ({', '.join('?' * len(chunk))}) AND appended_at >= ?"
                )
                for key, seq in db.execute(query, (self._name, part, *chunk, self._since)):
                    known.setdefault(key, int(seq))
            rows, next_seq = self._rows(part, int(next_seq), known)
            if rows:
                db.executemany(self._INSERT, rows)
                db.execute(self._SET_NEXT, (next_seq, self._name, part))
                appended += len(rows)
        return appended


async def _known_keys(
    conn: AsyncConnection, name: str, part: int, keys: list[str], since: int
) -> dict[str, LogPosition]:
    """Of these keys, the ones appended to the partition within the dedup window."""
    r = t.log_records
    known: dict[str, LogPosition] = {}
    for chunk in chunks(keys):
        rows = await conn.execute(
            select(r.c.dedup_key, r.c.seq).where(
                r.c.log_name == name,
                r.c.part == part,
                r.c.dedup_key.in_(chunk),
                r.c.appended_at >= since,
            )
        )
        for key, seq in rows:
            known.setdefault(key, int(seq))
    return known
