"""Alembic migrations, run programmatically on the store's own async engine."""

from __future__ import annotations

import functools
import logging
from importlib.resources import files

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from rankline.errors import RanklineError
from rankline.store.sql import mapped_errors

logging.getLogger("alembic").setLevel(logging.WARNING)


class NotMigrated(RanklineError):
    title, slug = "Database not migrated", "not-migrated"


class MigrationFailed(RanklineError):
    """Alembic refused: the database is at a revision this version does not know (a newer
    rankline migrated it), say."""

    title, slug = "Migration failed", "migration-failed"


def _config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(files("rankline") / "migrations"))
    config.attributes["connection"] = connection
    return config


@functools.cache
def head_revision() -> str | None:
    """The newest revision this version ships (read from its migration files once per
    process: every start compares the database with it)."""
    return ScriptDirectory.from_config(_config()).get_current_head()


async def current_revision(engine: AsyncEngine) -> str | None:
    def read(conn: Connection) -> str | None:
        return MigrationContext.configure(conn).get_current_revision()

    async with mapped_errors(), engine.connect() as conn:
        return await conn.run_sync(read)


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Apply every migration up to ``revision`` in one transaction where the dialect allows."""

    def run(conn: Connection) -> None:
        command.upgrade(_config(conn), revision)

    try:
        async with mapped_errors(), engine.begin() as conn:
            await conn.run_sync(run)
    except CommandError as exc:
        raise MigrationFailed(f"cannot migrate the database: {exc}") from exc


async def is_current(engine: AsyncEngine) -> bool:
    return await current_revision(engine) == head_revision()


async def ensure_current(engine: AsyncEngine, *, upgrade_if_behind: bool) -> None:
    """Bring the schema to the current revision (the embedded default), or refuse with
    ``NotMigrated`` (a shared database is migrated by `rankline migrate`, once)."""
    if await is_current(engine):
        return
    if not upgrade_if_behind:
        shown = engine.url.render_as_string(hide_password=True)
        raise NotMigrated(
            f"{shown} is not migrated to revision {head_revision()}: run `rankline migrate` first"
        )
    await upgrade(engine)
