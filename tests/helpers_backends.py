"""The backend matrix: every API and service test that checks the index or the store runs on
each index and store combination; a test of the HTTP edge (marked ``edge``) runs on one,
``EDGE_STACK`` (conftest.py).

The server databases are the machine's real PostgreSQL and MariaDB (database
``rankline_test``, created and migrated once per session, emptied before each test) and its
real Redis (database 9, flushed before each test). Set RANKLINE_TEST_BACKENDS to a
comma-separated subset of the names below to run fewer. Two suites on one machine interfere
unless each sets RANKLINE_TEST_SLOT to its own small number: the databases become
``rankline_test_<slot>`` and the Redis database 9 + slot. Each pytest-xdist worker takes the
next slot (worker gw1 of slot 2 is slot 3), so suites run with ``-n N`` side by side need
slots N apart; Redis has databases up to 15, so slots go up to 6.
"""

from __future__ import annotations

import atexit
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import redis
import sqlalchemy as sa
from redis.cluster import ClusterNode, RedisCluster
from sqlalchemy.ext.asyncio import create_async_engine

from rankline.index.base import PLAIN, BoardShapes
from rankline.index.redis.cluster import ClusterLink, cluster_seeds
from rankline.index.redis.index import RedisIndex
from rankline.index.redis.lifecycle import RedisLifecycle
from rankline.index.redis.link import RedisLink
from rankline.store import migrate
from rankline.store.schema import metadata
from rankline_bench.cluster import LocalCluster

PG_ADMIN = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
_SLOT = int(os.environ.get("RANKLINE_TEST_SLOT", "0")) + int(_WORKER.removeprefix("gw"))
if not 0 <= _SLOT <= 6:
    raise ValueError(
        f"test slot {_SLOT} (RANKLINE_TEST_SLOT plus the xdist worker's number) is not in "
        "0..6: Redis database 9 + slot must exist"
    )
_DB = f"rankline_test_{_SLOT}" if _SLOT else "rankline_test"
PG_URL = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{_DB}"
MARIADB_ADMIN = "mysql+asyncmy://root@127.0.0.1:3306/test"
MARIADB_URL = f"mysql+asyncmy://root@127.0.0.1:3306/{_DB}"
REDIS_URL = f"redis://127.0.0.1:6379/{9 + _SLOT}"
CLUSTER_URL = "redis+cluster://local-test-cluster"
"""Stands for the suite's own Redis Cluster (``cluster_url`` starts it on first use)."""
_cluster: LocalCluster | None = None


def cluster_url() -> str:
    """The URL of the suite's local Redis Cluster (3 primaries, 3 replicas), started on first
    use and stopped when the test process ends."""
    global _cluster
    if _cluster is None:
        _cluster = LocalCluster(primaries=3, replicas=1)
        atexit.register(_cluster.stop)
        _cluster.start()
    return _cluster.url


def cluster_in_use() -> LocalCluster:
    """The suite's local Redis Cluster (``cluster_url`` starts it)."""
    assert _cluster is not None, "call cluster_url() first"
    return _cluster


def real_url(url: str | None) -> str | None:
    """``url``, with ``CLUSTER_URL`` replaced by the running cluster's."""
    return cluster_url() if url == CLUSTER_URL else url


def redis_client(url: str) -> redis.Redis | RedisCluster:
    """A synchronous client of the Redis (or Redis Cluster) at ``url``, for tests that look
    at or damage keys directly."""
    seeds = cluster_seeds(url)
    if seeds is None:
        return redis.Redis.from_url(url)
    return RedisCluster(startup_nodes=[ClusterNode(host, port) for host, port in seeds])


@dataclass(frozen=True)
class Backend:
    name: str
    database_url: str | None
    redis_url: str | None


ALL = {
    b.name: b
    for b in (
        Backend("memory-sqlite", None, None),
        Backend("redis-sqlite", None, REDIS_URL),
        Backend("memory-postgresql", PG_URL, None),
        Backend("redis-postgresql", PG_URL, REDIS_URL),
        Backend("redis-mariadb", MARIADB_URL, REDIS_URL),
        Backend("cluster-postgresql", PG_URL, CLUSTER_URL),
    )
}
EDGE_STACK = "memory-sqlite"
"""The one stack of the tests marked ``edge`` (the embedded default: no server)."""


def selected() -> list[str]:
    wanted = os.environ.get("RANKLINE_TEST_BACKENDS")
    if not wanted:
        return list(ALL)
    names = [n.strip() for n in wanted.split(",") if n.strip()]
    unknown = [n for n in names if n not in ALL]
    if unknown:
        raise ValueError(f"unknown RANKLINE_TEST_BACKENDS {unknown}; known: {list(ALL)}")
    return names


def flush_redis(url: str) -> None:
    """Empty the Redis at ``url`` (every primary of a cluster)."""
    if cluster_seeds(url) is not None:
        assert _cluster is not None and url == _cluster.url, "only the suite's own cluster"
        _cluster.flush()
        return
    client = redis.Redis.from_url(url)
    try:
        client.flushdb()
    finally:
        client.close()


async def prepare_database(url: str) -> None:
    """Create the test database if needed and migrate it to the current revision."""
    admin = PG_ADMIN if url.startswith("postgresql") else MARIADB_ADMIN
    name = sa.engine.make_url(url).database
    engine = create_async_engine(admin, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            if admin == PG_ADMIN:
                exists = await conn.scalar(
                    sa.text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}
                )
                if not exists:
                    await conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
            else:
                await conn.execute(
                    sa.text(f"CREATE DATABASE IF NOT EXISTS `{name}` CHARACTER SET utf8mb4")
                )
    finally:
        await engine.dispose()
    target = create_async_engine(url)
    try:
        await migrate.upgrade(target)
    finally:
        await target.dispose()


class Emptier:
    """Empties a server test database before each test, on one engine for the session.

    A DELETE per table in one transaction: on these nearly empty tables it takes about 15 ms
    on PostgreSQL and 10 ms on MariaDB, where one ``TRUNCATE ... RESTART IDENTITY CASCADE``
    of all the tables takes about 280 ms (PostgreSQL makes new files for each table) and a
    TRUNCATE per table on MariaDB about 240 ms."""

    def __init__(self, url: str) -> None:
        self.engine = create_async_engine(url)

    async def empty(self) -> None:
        async with self.engine.begin() as conn:
            for table in reversed(metadata.sorted_tables):
                await conn.execute(table.delete())

    async def dispose(self) -> None:
        await self.engine.dispose()


async def empty_database(url: str) -> None:
    emptier = Emptier(url)
    try:
        await emptier.empty()
    finally:
        await emptier.dispose()


def redis_index(url: str = REDIS_URL, shapes: BoardShapes = PLAIN) -> RedisIndex:
    """A ``RedisIndex`` (not started) on a single Redis, or on a Redis Cluster."""
    link = ClusterLink(url) if cluster_seeds(url) is not None else RedisLink(url)
    return RedisIndex(link, shapes)


def shared(index: RedisIndex) -> RedisLifecycle:
    """The lifecycle of the shared index ``index`` is (built marker, repairs, ...)."""
    return index.link.shared_index(index.shapes)


@asynccontextmanager
async def open_redis_index(
    url: str = REDIS_URL, shapes: BoardShapes = PLAIN
) -> AsyncIterator[RedisIndex]:
    """A started ``RedisIndex`` on the machine's real Redis (the test slot's database,
    flushed before and after)."""
    opened = redis_index(url, shapes)
    await opened.start()
    await opened.client.flushdb()
    await shared(opened).mark_built()  # reads check the built marker, as on a served index
    try:
        yield opened
    finally:
        await opened.client.flushdb()
        await opened.close()
