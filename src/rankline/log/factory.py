"""The log engine a URL names: empty (the SQL store), ``nats://…`` or ``kafka://…``."""

from __future__ import annotations

from urllib.parse import urlsplit

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
    if scheme in ("nats", "tls"):
        from rankline.log.nats import NatsLog

        return NatsLog(log_url, options)
    if scheme == "kafka":
        from rankline.log.kafka import KafkaLog

        return KafkaLog(log_url, options)
    raise ValueError(f"RANKLINE_LOG_URL: unknown scheme {scheme!r} (nats://… or kafka://…)")


def log_for(
    settings: Settings,
    name: str | None = None,
    *,
    store_engines: tuple[AsyncEngine, AsyncEngine] | None = None,
) -> IngestLog:
    """The log the settings describe (``store_engines``: see ``open_log``)."""
    return open_log(
        settings.log_url,
        settings.database,
        options_from(settings, name),
        store_engines=store_engines,
    )
