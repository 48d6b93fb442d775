"""Keeping PostgreSQL's statistics of the SQL log's table fresh while it grows."""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy.ext.asyncio import AsyncEngine

from rankline.runtime import tasks
from rankline.store import schema as t

log = logging.getLogger("rankline.log")
_ANALYZE_FIRST = 1000
_ANALYZE_MAX = 1_000_000


class Statistics:
    """Keeps PostgreSQL's statistics of the log table fresh while it grows.

    The dedup lookup (``sql_append._known_keys``) names the partition and the keys. Planned from the
    statistics of a table that was empty (a new deployment, or one whose log was trimmed)
    it walks the partition by its primary key and filters every record, instead of probing
    the dedup index once a key: appends slowed from 25 ms to 150 ms a thousand records
    within seconds, and autovacuum analyses a table a minute at the earliest. So the log
    analyses its table itself, in the background, after the first ``_ANALYZE_FIRST``
    records this process appended, then after twice as many as the time before (at most
    ``_ANALYZE_MAX``). It needs to own the table (PostgreSQL only warns, and analyses
    nothing, otherwise). Other engines plan the lookup from the index itself."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._on = engine.dialect.name == "postgresql"
        self._count = 0
        self._next = _ANALYZE_FIRST
        self._task: asyncio.Task[None] | None = None
        self.runs = 0

    def appended(self, n: int) -> None:
        if not self._on or not n:
            return
        self._count += n
        if self._count < self._next or (self._task is not None and not self._task.done()):
            return
        self._count = 0
        self._next = min(2 * self._next, _ANALYZE_MAX)
        self._task = asyncio.get_running_loop().create_task(self._analyze())

    async def _analyze(self) -> None:
        try:
            async with self._engine.connect() as conn:
                await conn.exec_driver_sql(f"ANALYZE {t.log_records.name}")
                await conn.commit()
            self.runs += 1
        except Exception as exc:  # only the plans suffer: the next one retries
            log.warning("could not analyse the log table: %s", exc)

    async def close(self) -> None:
        if self._task is not None:
            await tasks.stop(self._task)
