"""Alembic migrations, run programmatically on the store's own async engine.

Every start compares the database's revision with ``HEAD``; that check reads alembic's
version table with one query, and alembic itself is imported only to migrate (it is a tenth
of what a process imports)."""

from __future__ import annotations

import logging
from importlib.resources import files
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from rankline.errors import RanklineError
from rankline.store.errors import mapped_errors

if TYPE_CHECKING:
    from alembic.config import Config

logging.getLogger("alembic").setLevel(logging.WARNING)

HEAD = "0012k"
"""The newest revision this version ships: the last migration's ``revision`` (a test checks
it against the migration files)."""
VERSION_TABLE = "alembic_version"


class NotMigrated(RanklineError):
    title, slug = "Database not migrated", "not-migrated"


class MigrationFailed(RanklineError):
    """Alembic refused: the database is at a revision this version does not know (a newer
    rankline migrated it), say."""

    title, slug = "Migration failed", "migration-failed"


def _config(connection: Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(files("rankline") / "migrations"))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str | None:
    """The newest revision in the migration files (alembic's reading of them)."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_config()).get_current_head()


async def current_revision(engine: AsyncEngine) -> str | None:
    """The database's revision (None before its first migration)."""

    def read(conn: Connection) -> str | None:
        if not sa.inspect(conn).has_table(VERSION_TABLE):
            return None
        found = conn.execute(sa.text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars().all()
        if len(found) > 1:
            raise MigrationFailed(f"the database is at several revisions: {sorted(found)}")
        return found[0] if found else None

    async with mapped_errors(), engine.connect() as conn:
        return await conn.run_sync(read)


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Apply every migration up to ``revision`` in one transaction where the dialect allows."""

    from alembic import command
    from alembic.util import CommandError

    def run(conn: Connection) -> None:
        command.upgrade(_config(conn), revision)

    try:
        async with mapped_errors(), engine.begin() as conn:
            await conn.run_sync(run)
    except CommandError as exc:
        raise MigrationFailed(f"cannot migrate the database: {exc}") from exc


async def is_current(engine: AsyncEngine) -> bool:
    return await current_revision(engine) == HEAD


async def ensure_current(engine: AsyncEngine, *, upgrade_if_behind: bool) -> None:
    """Bring the schema to the current revision (the embedded default), or refuse with
    ``NotMigrated`` (a shared database is migrated by `rankline migrate`, once)."""
    if await is_current(engine):
        return
    if not upgrade_if_behind:
        shown = engine.url.render_as_string(hide_password=True)
        raise NotMigrated(
            f"{shown} is not migrated to revision {HEAD}: run `rankline migrate` first"
        )
    await upgrade(engine)
