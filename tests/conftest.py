"""Shared fixtures: a manual clock, a started service, the ASGI app and a client for it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from asgi_lifespan import LifespanManager
from starlette.applications import Starlette

from rankline import ManualClock, Rankline, Settings
from rankline.http import create_app

SERVER_KEY = "test-server-key"
AUTH = {"Authorization": f"Bearer {SERVER_KEY}"}
START = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", server_keys=SERVER_KEY)


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
    async with LifespanManager(application):
        await application.state.service.wait_ready()
        yield application


@pytest.fixture
async def client(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://rankline.test") as c:
        yield c
