"""One way to open the durable store the settings name: ``open_store``.

    async with open_store(settings, schema="current") as store:
        ...

``schema`` says what the store's schema must be before the block runs:

- ``"any"``: as it is (``rankline migrate`` brings it to the current revision itself);
- ``"current"``: at the current revision, or ``NotMigrated`` asks for ``rankline migrate``;
- ``"embedded"``: the embedded SQLite is migrated when behind, as a server start does; a
  PostgreSQL or MariaDB database must be current (it is migrated once, by an operator);
- ``"upgraded"``: migrated when behind, whatever the database (``rankline migrate``, and
  the benchmark's scratch databases).

Every failure on the way is one of rankline's errors (``rankline.errors``): a database that
does not exist or cannot be reached is ``StoreUnavailable``, with the driver's error as its
cause.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Literal

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from rankline.settings import Settings
from rankline.store import migrate
from rankline.store.sql import SqlStore

Schema = Literal["any", "current", "embedded", "upgraded"]


@asynccontextmanager
async def open_store(settings: Settings, *, schema: Schema = "embedded") -> AsyncIterator[SqlStore]:
    """The started store of ``settings``, its schema as ``schema`` asks; closed on exit."""
    store = SqlStore.from_settings(settings)
    try:
        await store.start()
        if schema != "any":
            upgrade = schema == "upgraded" or (schema == "embedded" and settings.is_embedded)
            await migrate.ensure_current(store.engine, upgrade_if_behind=upgrade)
        yield store
    finally:
        await store.close()


async def check_store(settings: Settings) -> None:
    """The store can be opened and, unless it is the embedded SQLite (which a server
    migrates as it starts), is at the current revision."""
    async with open_store(settings, schema="any" if settings.is_embedded else "current"):
        pass


def store_settings(url: str) -> Settings:
    """Settings naming the store at ``url`` and rankline's defaults for the rest (not this
    process's environment): a scratch store of the benchmark, say."""
    return Settings.model_construct(database_url=url)


async def migrated(settings: Settings) -> str | None:
    """``rankline migrate``: bring the store to the current revision; the revision it is at."""
    async with open_store(settings, schema="upgraded") as store:
        return await migrate.current_revision(store.engine)


def redacted(url: str) -> str:
    """A database URL fit to print: its password hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(an invalid URL)"


def dialect(url: str) -> str:
    """The SQL dialect a database URL names (``postgresql``, ``mysql``, ``sqlite``…); empty
    for a malformed URL, which the store names when it opens it."""
    try:
        return str(make_url(url).get_backend_name())
    except ArgumentError:
        return ""
