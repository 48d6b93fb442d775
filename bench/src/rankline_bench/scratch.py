"""The scratch databases the soak, the history check and the rebuild probe use by default
(emptied first)."""

SOAK_DATABASE_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_soak"
SOAK_REDIS_URL = "redis://127.0.0.1:6379/6"
REBUILD_DATABASE_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_fill_probe"
REBUILD_REDIS_URL = "redis://127.0.0.1:6379/13"
"""The databases of ``rankline bench probe rebuild`` (recreated and flushed)."""
