"""Shared fixtures: a manual clock, settings for each backend, a started service, the ASGI
app and a client for it.

``settings`` is parametrized over the backend matrix of ``backends.py``, so every test that
uses it (directly or through ``service``, ``app`` or ``client``) runs on the in-process and
the Redis index, and on SQLite, PostgreSQL and MariaDB.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from starlette.applications import Starlette

from backends import (
    ALL,
    Backend,
    empty_database,
    flush_redis,
    prepare_database,
    real_url,
    selected,
)
from helpers_api import SERVER_KEY
from rankline import ManualClock, Rankline, Settings
from rankline.http import create_app

START = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def _run(coroutine: Any) -> Any:
    """Run a coroutine on its own event loop, apart from the tests' loops."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture(scope="session")
def prepared_databases() -> Iterator[set[str]]:
    """Server databases created and migrated so far in this session."""
    yield set()


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir whose SQLite database is already migrated (migrating is the slow part of
    starting an app on SQLite); tests copy it instead of migrating a fresh database."""
    data_dir = tmp_path_factory.mktemp("template") / "data"

    async def migrate() -> None:
        service = Rankline(Settings(data_dir=data_dir, server_keys=SERVER_KEY))
        await service.start(wait_ready=True)
        await service.close()

    _run(migrate())
    (data_dir / "server-key").unlink(missing_ok=True)
    return data_dir


@pytest.fixture(params=selected())
def stack(request: pytest.FixtureRequest) -> Backend:
    """The index and durable store under test (see backends.py)."""
    return ALL[request.param]


@pytest.fixture
def settings(
    stack: Backend,
    tmp_path: Path,
    migrated_template: Path,
    prepared_databases: set[str],
) -> Settings:
    data_dir = tmp_path / "data"
    if stack.database_url is None:
        shutil.copytree(migrated_template, data_dir)
    else:
        if stack.database_url not in prepared_databases:
            _run(prepare_database(stack.database_url))
            prepared_databases.add(stack.database_url)
        _run(empty_database(stack.database_url))
    redis_url = real_url(stack.redis_url)
    if redis_url is not None:
        flush_redis(redis_url)
    return Settings(
        data_dir=data_dir,
        server_keys=SERVER_KEY,
        database_url=stack.database_url,
        redis_url=redis_url,
        index_check_seconds=0.1,
    )


@pytest.fixture
async def service(settings: Settings, clock: ManualClock) -> AsyncIterator[Rankline]:
    svc = Rankline(settings, clock=clock)
    await svc.start(wait_ready=True)
    try:
        yield svc
    finally:
        await svc.close()


@pytest.fixture
async def app(settings: Settings, clock: ManualClock) -> AsyncIterator[Starlette]:
    application = create_app(settings, clock=clock)
    async with LifespanManager(application, startup_timeout=60, shutdown_timeout=60):
        await application.state.service.wait_ready()
        yield application


@pytest.fixture
async def client(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://rankline.test") as c:
        yield c
