"""Durable stores: the source of truth, behind ``rankline.types.DurableStore``."""

from rankline.store.sql import SqlStore

__all__ = ["SqlStore"]
