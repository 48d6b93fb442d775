"""The log engine a URL names: empty (the SQL store), ``sqlite…://`` (a SQLite file of its
own), ``nats://…`` or ``kafka://…``. A SQLite store keeps its log in a file of its own
beside it by default (``embedded_log``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from rankline.errors import LogUnavailable
from rankline.log.base import IngestLog, LogOptions, Position
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
    first_positions: Mapping[int, Position] | None = None,
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
    scheme = urlsplit(log_url).scheme
    if scheme == "sqlite+aiosqlite":
        from rankline.log.sql import SqlLog

        return SqlLog(
            log_url,
            options,
            sqlite_synchronous=sqlite_synchronous,
            create_tables=True,
            first_positions=first_positions,
        )
    if scheme.startswith("sqlite"):
        raise ValueError(f"RANKLINE_LOG_URL: a SQLite log is sqlite+aiosqlite:///…, not {scheme}")
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
    options = options_from(settings, name)
    log_url, first_positions = settings.log_url, None
    if not log_url:
        beside = embedded_log(settings.database)
        if beside is not None:
            log_url, heads = beside
            first_positions = {part: at for (log, part), at in heads.items() if log == options.name}
    return open_log(
        log_url,
        settings.database,
        options,
        store_engines=store_engines,
        sqlite_synchronous=settings.sqlite_synchronous,
        first_positions=first_positions,
    )


def embedded_log(database_url: str) -> tuple[str, dict[tuple[str, int], Position]] | None:
    """Where a store keeps its log when ``RANKLINE_LOG_URL`` is empty: a SQLite store in a
    file of its own beside it (``rankline.db`` → ``rankline-log.db``), so that appends do
    not queue behind the store's transactions (SQLite has one writer per file); any other
    store in itself (None). Given with the file's URL: the last position of each (log,
    partition) the store's own log reached, to number on from.

    A store that kept its log in itself (an earlier version did) keeps it there while any
    of its records is not applied yet, so that none is left behind; once the file exists,
    it is the log."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    store = Path(url.database)
    own = store.with_name(f"{store.stem}-log{store.suffix or '.db'}")
    beside = url.set(drivername="sqlite+aiosqlite", database=str(own))
    if own.exists():
        return beside.render_as_string(hide_password=False), {}
    state = _store_log(store)
    if state is not None and state[0]:
        return None
    return beside.render_as_string(hide_password=False), {} if state is None else state[1]


def _store_log(store: Path) -> tuple[bool, dict[tuple[str, int], Position]] | None:
    """Of the ingestion log kept in a SQLite store: whether any record is not applied yet,
    and each partition's last position; None when the store has no log tables. A store that
    cannot be read is an error here, not a no: its records would be left unapplied."""
    if not store.exists():
        return None
    try:
        conn = sqlite3.connect(f"{store.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
        try:
            found = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rl_log_partitions'"
            ).fetchone()
            if found is None:  # a store from before the log, or not migrated yet
                return None
            rows = conn.execute(
                "SELECT log_name, part, next_seq - 1, committed FROM rl_log_partitions"
            ).fetchall()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise LogUnavailable(
            f"cannot read {store} to tell whether it holds ingestion log records: {exc}"
        ) from exc
    unapplied = any(last > committed for _, _, last, committed in rows)
    return unapplied, {(log, part): int(last) for log, part, last, _ in rows}
