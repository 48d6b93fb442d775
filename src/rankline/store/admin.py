"""A server database's own upkeep, for scratch databases (the benchmark's): make one anew,
drop one, and ``VACUUM ANALYZE`` after a bulk load. These need a connection outside any
transaction, to the server's ``postgres`` database for the first two."""

from __future__ import annotations

from sqlalchemy import Table, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from rankline.store.errors import mapped_errors


async def recreate_database(url: str) -> None:
    """Drop and create the (PostgreSQL) database of ``url``: a clean slate."""
    await _database(url, create=True)


async def drop_database(url: str) -> None:
    """Drop the (PostgreSQL) database of ``url``, if it exists."""
    await _database(url, create=False)


async def _database(url: str, *, create: bool) -> None:
    parsed = make_url(url)
    name = parsed.database
    if parsed.get_backend_name() != "postgresql" or not name:
        raise ValueError(f"this needs a PostgreSQL URL, not {url!r}")
    admin = create_async_engine(
        parsed.set(database="postgres").render_as_string(hide_password=False),
        isolation_level="AUTOCOMMIT",
    )
    try:
        async with mapped_errors(), admin.connect() as conn:
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            if create:
                await conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        await admin.dispose()


async def vacuum_analyze(url: str, tables: tuple[Table, ...]) -> None:
    """On PostgreSQL, ``VACUUM ANALYZE`` these tables (fresh statistics and a visibility map,
    as autovacuum would soon make them); elsewhere nothing."""
    if make_url(url).get_backend_name() != "postgresql":
        return
    engine = create_async_engine(url, isolation_level="AUTOCOMMIT")
    try:
        async with mapped_errors(), engine.connect() as conn:
            for table in tables:
                await conn.execute(text(f'VACUUM ANALYZE "{table.name}"'))
    finally:
        await engine.dispose()


async def ensure_database(url: str, *, fresh: bool = False) -> None:
    """Create the server database named in ``url`` if it does not exist (PostgreSQL,
    MariaDB); with ``fresh``, drop it first. Nothing for SQLite (the file is made on use)."""
    parsed = make_url(url)
    dialect = parsed.get_backend_name()
    name = parsed.database
    if dialect == "sqlite" or not name:
        return
    server = parsed.set(database="postgres" if dialect == "postgresql" else "mysql")
    engine = create_async_engine(server, isolation_level="AUTOCOMMIT")
    quoted = f'"{name}"' if dialect == "postgresql" else f"`{name}`"
    try:
        async with mapped_errors(), engine.connect() as conn:
            if fresh:
                await conn.execute(text(f"DROP DATABASE IF EXISTS {quoted}"))
            if dialect == "postgresql":
                found = await conn.scalar(
                    text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}
                )
                if not found:
                    await conn.execute(text(f"CREATE DATABASE {quoted}"))
            else:
                await conn.execute(text(f"CREATE DATABASE IF NOT EXISTS {quoted}"))
    finally:
        await engine.dispose()
