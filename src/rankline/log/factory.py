"""The log engine a URL names: empty (the SQL store), ``sqlite…://`` (a SQLite file of its
own), ``nats://…`` or ``kafka://…``. A SQLite store keeps its log in a file of its own
beside it by default (``embedded_log_url``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import urlsplit

from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from rankline.log.base import IngestLog, LogOptions
from rankline.settings import Settings


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
) -> IngestLog:
    """An unstarted log: on ``log_url``'s engine, or in the SQL store at ``database_url``
    when ``log_url`` is empty: there on ``store_engines`` (reads, writes) when given, the
    store's own connections. The engines' modules are imported only when chosen."""
    if not log_url:
        from rankline.log.sql import SqlLog

        if store_engines is not None:
            reads, writes = store_engines
            return SqlLog(reads, options, writes=writes)
        return SqlLog(database_url, options)
    scheme = urlsplit(log_url).scheme
    if scheme.startswith("sqlite"):
        from rankline.log.sql import SqlLog

        return SqlLog(log_url, options, sqlite_synchronous=sqlite_synchronous, create_tables=True)
    if scheme in ("nats", "tls"):
        from rankline.log.nats import NatsLog

        return NatsLog(log_url, options)
    if scheme == "kafka":
        from rankline.log.kafka import KafkaLog

        return KafkaLog(log_url, options)
    raise ValueError(
        f"RANKLINE_LOG_URL: unknown scheme {scheme!r} (sqlite+aiosqlite:///…, nats://… or "
        "kafka://…)"
    )


def log_for(
    settings: Settings,
    name: str | None = None,
    *,
    store_engines: tuple[AsyncEngine, AsyncEngine] | None = None,
) -> IngestLog:
    """The log the settings describe (``store_engines``: see ``open_log``)."""
    return open_log(
        settings.log_url or embedded_log_url(settings.database),
        settings.database,
        options_from(settings, name),
        store_engines=store_engines,
        sqlite_synchronous=settings.sqlite_synchronous,
    )


def embedded_log_url(database_url: str) -> str | None:
    """Where a store keeps its log when ``RANKLINE_LOG_URL`` is empty: a SQLite store in a
    file of its own beside it (``rankline.db`` → ``rankline-log.db``), so that appends
    never wait for the store's transactions (SQLite has one writer per file); any other
    store in itself (None). A SQLite store that already holds log records (written by a
    version that kept the log in the store) keeps it there."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    store = Path(url.database)
    if _holds_log_records(store):
        return None
    own = store.with_name(f"{store.stem}-log{store.suffix or '.db'}")
    return f"sqlite+aiosqlite:///{own.as_posix()}"


def _holds_log_records(store: Path) -> bool:
    if not store.exists():
        return False
    try:
        conn = sqlite3.connect(f"{store.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
    except sqlite3.Error:
        return False
    try:
        return conn.execute("SELECT 1 FROM rl_log LIMIT 1").fetchone() is not None
    except sqlite3.Error:  # no log table: a store from before the log, or not migrated yet
        return False
    finally:
        conn.close()
