"""The write path's store tuning: the bulk loader leaves the indexes the migrations make,
and the embedded SQLite commits every batch on one connection with a big page cache and
full durability."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from helpers_backends import PG_URL, prepare_database
from rankline import ManualClock, Settings
from rankline.store import schema as t
from rankline.store import sql
from rankline.store.sql import SqlStore
from rankline_bench import load
from rankline_bench.bulk import load_first_scores


async def _indexes(engine: AsyncEngine) -> dict[str, set[tuple[Any, ...]]]:
    def read(conn: sa.Connection) -> dict[str, set[tuple[Any, ...]]]:
        inspector = sa.inspect(conn)
        found: dict[str, set[tuple[Any, ...]]] = {}
        for table in (t.score_events.name, t.standings.name):
            indexes = {
                (i["name"], tuple(i["column_names"]), bool(i["unique"]))
                for i in inspector.get_indexes(table)
            }
            unique = {
                (u["name"], tuple(u["column_names"]), True)
                for u in inspector.get_unique_constraints(table)
            }
            primary = inspector.get_pk_constraint(table)
            found[table] = indexes | unique | {("pk", tuple(primary["constrained_columns"]), True)}
        return found

    async with engine.connect() as conn:
        return await conn.run_sync(read)


async def test_the_bulk_load_leaves_the_indexes_the_migrations_made(
    settings: Settings, clock: ManualClock
) -> None:
    now = clock.now()
    url = settings.database
    await load.prepare(url, now)  # migrates
    store = SqlStore(url)
    try:
        migrated = await _indexes(store.engine)
        assert {i[0] for i in migrated[t.standings.name]} >= {
            "ix_rl_standings_rank",
            "ix_rl_standings_player",
        }
        data = load.Dataset(300, at0=now - 10_000_000)
        written = await load_first_scores(
            store,
            load.bench_board(),
            data.rows(chunk=100),
            match_id=load.MATCH_ID,
            now=now,
            drop_indexes=True,
        )
        assert written == 300
        assert await _indexes(store.engine) == migrated
    finally:
        await store.close()


async def test_sqlite_commits_on_one_connection_with_its_own_page_cache(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite+aiosqlite:///{tmp_path / 'r.db'}", sqlite_cache_mb=48)
    try:
        await store.start()
        connections = set()
        for _ in range(3):
            async with store.transaction() as tx:
                conn = tx._conn
                raw = await conn.get_raw_connection()
                connections.add(id(raw.driver_connection))
                pragmas = [
                    (await conn.exec_driver_sql(f"PRAGMA {name}")).scalar()
                    for name in ("cache_size", "synchronous", "journal_mode", "wal_autocheckpoint")
                ]
                assert pragmas == [-48 * 1024, 2, "wal", 0]  # KiB; 2 is FULL; see below
        assert len(connections) == 1
        async with store.engine.connect() as conn:  # reads keep SQLite's default cache
            assert (await conn.exec_driver_sql("PRAGMA cache_size")).scalar() == -2000
            assert (await conn.exec_driver_sql("PRAGMA synchronous")).scalar() == 2
    finally:
        await store.close()


def test_the_default_sqlite_cache_follows_the_memory() -> None:
    assert 16 <= Settings().sqlite_cache_mb <= 64
    assert Settings(sqlite_cache_mb=300).sqlite_cache_mb == 300


async def test_sqlite_checkpoints_between_batches_so_the_wal_stays_short(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The group commit's connection does not checkpoint itself: the store does it, on
    another connection, after the batch that took the rows changed since the last one past
    ``_CHECKPOINT_ROWS``. Without it, 300 commits would leave 300+ frames."""
    monkeypatch.setattr(sql, "_CHECKPOINT_ROWS", 5)
    path = tmp_path / "r.db"
    store = SqlStore(f"sqlite+aiosqlite:///{path}")
    try:
        await store.start()
        async with store.engine.begin() as conn:
            await conn.exec_driver_sql("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
        for k in range(300):
            async with store.transaction() as tx:
                await tx._conn.exec_driver_sql("INSERT INTO t VALUES (?, ?)", (k, "x" * 500))
        async with store.engine.connect() as conn:
            assert (await conn.exec_driver_sql("SELECT count(*) FROM t")).scalar() == 300
        page = 4096 + 24  # a WAL frame
        assert _wal_bytes(path) < 20 * page
    finally:
        await store.close()


def _wal_bytes(database: Path) -> int:
    return Path(f"{database}-wal").stat().st_size


async def test_postgres_connections_plan_every_statement_for_its_parameters() -> None:
    """The hot statements take the batch as one JSON parameter; a generic plan would be
    made for an assumed size. Every connection of the store is opened with custom plans,
    so no transaction spends a round trip setting it."""
    await prepare_database(PG_URL)  # this test may be the first to need it
    store = SqlStore(PG_URL)
    try:
        async with store.transaction() as tx:
            conn = tx._conn
            shown = (await conn.exec_driver_sql("SHOW plan_cache_mode")).scalar_one()
        assert shown == "force_custom_plan"
    finally:
        await store.close()


async def test_the_pool_settings_bound_a_servers_connections_to_postgresql() -> None:
    """Workers times (pool + overflow) must fit the database's connection limit: the settings
    size the pool, and no more connections open than they allow."""
    await prepare_database(PG_URL)
    settings = Settings(database_url=PG_URL, database_pool_size=2, database_pool_overflow=1)
    store = SqlStore.from_settings(settings)
    pool = store.engine.sync_engine.pool
    try:
        held = [await store.engine.connect() for _ in range(3)]
        assert (pool.size(), pool.checkedout(), pool.overflow()) == (2, 3, 1)
        with pytest.raises(TimeoutError):  # a fourth waits for one of the three
            async with asyncio.timeout(1):
                await store.engine.connect()
        for conn in held:
            await conn.close()
        assert pool.checkedout() == 0
    finally:
        await store.close()
