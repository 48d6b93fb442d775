"""Durable stores: the source of truth, ``store.sql.SqlStore`` on any SQLAlchemy database."""

from rankline.store.sql import SqlStore

__all__ = ["SqlStore"]
