"""The log engine a URL names: empty (the SQL store), ``sqlite…://`` (a SQLite file of its
own), ``nats://…`` or ``kafka://…``. A SQLite store keeps its log in a file of its own
beside it by default (``embedded_log``)."""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from rankline.errors import LogUnavailable
from rankline.log.base import IngestLog, LogOptions, LogPosition
from rankline.settings import Settings

if TYPE_CHECKING:
    from rankline.log.sql import SqlLog

log = logging.getLogger("rankline.log")


def options_from(settings: Settings, name: str | None = None) -> LogOptions:
    return LogOptions(
        name=name or settings.log_name,
        partitions=settings.log_partitions,
        dedup_window_seconds=settings.log_dedup_window_seconds,
        lease_seconds=settings.log_lease_seconds,
        retention_seconds=settings.log_retention_seconds,
    )


def open_log(
    log_url: str | None,
    database_url: str,
    options: LogOptions,
    *,
    store_engines: tuple[AsyncEngine, AsyncEngine] | None = None,
    sqlite_synchronous: str = "FULL",
    first_positions: Mapping[int, LogPosition] | None = None,
) -> IngestLog:
    """An unstarted log: on ``log_url``'s engine, or in the SQL store at ``database_url``
    when ``log_url`` is empty: there on ``store_engines`` (reads, writes) when given, the
    store's own connections. A SQLite file of the log's own numbers a new partition's
    records on from ``first_positions`` (partition: last position) when given. The
    engines' modules are imported only when chosen."""
    if not log_url:
        from rankline.log.sql import SqlLog

        if store_engines is not None:
            reads, writes = store_engines
            return SqlLog(reads, options, writes=writes)
        return SqlLog(database_url, options)
    try:
        scheme = _scheme(log_url)
    except ValueError as exc:
        raise ValueError(f"RANKLINE_LOG_URL: {exc}") from None
    if scheme == "sqlite+aiosqlite":
        from rankline.log.sql import SqlLog

        if _same_file(log_url, database_url):
            raise ValueError("RANKLINE_LOG_URL: the log's SQLite file must not be the store's")

        return SqlLog(
            log_url,
            options,
            sqlite_synchronous=sqlite_synchronous,
            create_tables=True,
            first_positions=first_positions,
        )
    if scheme == "kafka":
        from rankline.log.kafka import KafkaLog

        return KafkaLog(log_url, options)
    from rankline.log.nats import NatsLog

    return NatsLog(log_url, options)


_ENGINES = {
    "sqlite+aiosqlite": "SQLite file",
    "nats": "NATS JetStream",
    "tls": "NATS JetStream",
    "kafka": "Kafka",
}
"""The engine each scheme of a log URL opens, named for a person."""


def _scheme(log_url: str) -> str:
    """The scheme of ``log_url``, a key of ``_ENGINES`` (a ValueError for any other)."""
    scheme = urlsplit(log_url).scheme
    if scheme.startswith("sqlite") and scheme not in _ENGINES:
        raise ValueError(f"a SQLite log is sqlite+aiosqlite:///…, not {scheme}")
    if scheme not in _ENGINES:
        raise ValueError(
            f"unknown scheme {scheme!r} (sqlite+aiosqlite:///…, nats://… or kafka://…)"
        )
    return scheme


def engine_name(log_url: str | None, database_url: str = "") -> str:
    """The engine ``open_log`` opens for these URLs, named for a report: the log URL's, or
    without one where the store at ``database_url`` keeps its log."""
    if log_url:
        return _ENGINES[_scheme(log_url)]
    backend = make_url(database_url).get_backend_name()
    if backend == "sqlite":
        return "SQLite file beside the store"
    store = {"postgresql": "PostgreSQL", "mysql": "MariaDB"}.get(backend, backend)
    return f"{store}, in the store's own tables"


def _same_file(log_url: str, database_url: str) -> bool:
    store = make_url(database_url) if database_url else None
    if store is None or store.get_backend_name() != "sqlite":
        return False
    files = [store.database, make_url(log_url).database]
    if any(f in (None, "", ":memory:") for f in files):
        return False
    return Path(files[0] or "").resolve() == Path(files[1] or "").resolve()


def log_for(
    settings: Settings,
    name: str | None = None,
    *,
    store_engines: tuple[AsyncEngine, AsyncEngine] | None = None,
) -> IngestLog:
    """The log the settings describe (``store_engines``: see ``open_log``)."""
    return logs_for(settings, name, store_engines=store_engines)[0]


def logs_for(
    settings: Settings,
    name: str | None = None,
    *,
    store_engines: tuple[AsyncEngine, AsyncEngine] | None = None,
) -> tuple[IngestLog, SqlLog | None]:
    """The log the settings describe, and, decided at the same look at the store, the log a
    SQLite store kept in itself before it moved to a file of its own (``embedded_log``)
    when the store still holds that log's tables: nothing appends to that one or applies it
    any more, and its applied records are discarded as they expire
    (``SqlLog.expire_applied``). None when the log has not moved or never was in the
    store."""
    options = options_from(settings, name)
    beside = None if settings.log_url else embedded_log(settings.database, options.name)
    log_url, first_positions = beside if beside is not None else (settings.log_url, None)
    log = open_log(
        log_url,
        settings.database,
        options,
        store_engines=store_engines,
        sqlite_synchronous=settings.sqlite_synchronous,
        first_positions=first_positions,
    )
    if not first_positions:  # not moved, or the store never kept this log
        return log, None
    from rankline.log.sql import SqlLog

    if store_engines is not None:
        reads, writes = store_engines
        return log, SqlLog(reads, options, writes=writes)
    return log, SqlLog(settings.database, options)


def embedded_log(
    database_url: str, log_name: str, *, warn: bool = True
) -> tuple[str, dict[int, LogPosition]] | None:
    """Where a store keeps its log when ``RANKLINE_LOG_URL`` is empty: a SQLite store in a
    file of its own beside it (``rankline.db`` → ``rankline-log.db``), so that appends do
    not queue behind the store's transactions (SQLite has one writer per file); any other
    store in itself (None). Given with the file's URL: the last position of each partition
    the store's own log reached, which a partition created in the file numbers on from.

    A store that kept its log in itself (an earlier version did) keeps it there while any
    of its records is not applied yet, so that none is left behind, and while a process
    that started on it is still a live consumer there (its appends go on there, and the
    tokens it gave name the store's positions). Once the file exists it is the log, and
    unapplied records in the store then stop the start: they would never be applied."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    store = Path(url.database)
    own = store.with_name(f"{store.stem}-log{store.suffix or '.db'}")
    beside = url.set(drivername="sqlite+aiosqlite", database=str(own))
    unapplied, live, heads = _store_log(store, log_name)
    if unapplied and own.exists():
        raise LogUnavailable(
            f"{store} holds {unapplied} record(s) of the ingestion log {log_name!r} that are "
            f"not applied, but the log is {own} now: they would never be applied. Apply what "
            f"{own.name} holds first (serve with RANKLINE_LOG_URL naming it until it is idle), "
            "then set it aside and start again: the store's records are applied, and a later "
            "start moves the log"
        )
    if unapplied and warn:
        log.warning(
            "%s holds %d unapplied record(s) of the ingestion log: the log stays in the "
            "store until a start finds them all applied, then moves to %s",
            store,
            unapplied,
            own,
        )
    if live and own.exists() and warn:
        log.warning(
            "%d process(es) still take submissions through the ingestion log in %s, but the "
            "log is %s now: restart them so that every process uses one log",
            live,
            store,
            own,
        )
    if live and not own.exists() and warn:
        log.warning(
            "%d process(es) take submissions through the ingestion log in %s: the log stays "
            "there until a start finds none, then moves to %s",
            live,
            store,
            own,
        )
    if unapplied or (live and not own.exists()):
        return None
    return beside.render_as_string(hide_password=False), heads


def _store_log(store: Path, log_name: str) -> tuple[int, int, dict[int, LogPosition]]:
    """Of the ingestion log ``log_name`` kept in a SQLite store: how many of its records are
    not applied yet, how many consumers are live on it (their membership not expired), and
    each partition's last position (none without log tables). A store that cannot be read
    is an error here, not a no: its records would be left unapplied."""
    if not store.exists():
        return 0, 0, {}
    try:
        conn = sqlite3.connect(f"{store.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
        try:
            found = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rl_log_partitions'"
            ).fetchone()
            if found is None:  # a store from before the log, or not migrated yet
                return 0, 0, {}
            rows = conn.execute(
                "SELECT part, next_seq - 1, committed FROM rl_log_partitions WHERE log_name = ?",
                (log_name,),
            ).fetchall()
            (live,) = conn.execute(
                "SELECT count(*) FROM rl_log_members WHERE log_name = ? AND seen_until >= ?",
                (log_name, time.time_ns() // 1000),
            ).fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise LogUnavailable(
            f"cannot read {store} to tell whether it holds ingestion log records: {exc}"
        ) from exc
    unapplied = sum(max(0, int(last) - int(committed)) for _, last, committed in rows)
    return unapplied, int(live), {int(part): int(last) for part, last, _ in rows}
