"""Redis dies under an app with its gRPC server, then comes back empty: the gRPC health
service and ``/readyz`` change together, as the keeper finds the index gone and rebuilt.

A private ``redis-server`` (no persistence) is the ranking index; the app and its gRPC
server run in the test's event loop, as ``rankline serve --grpc-port`` runs them. A health
``Watch`` is open throughout; each status it hears is compared with ``/readyz`` asked right
after, and a ``Check`` asked after that agrees with both."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from helpers_chaos import RedisServer
from helpers_grpc import SERVER_KEY, Rig, rig
from rankline import ManualClock, Settings
from rankline.grpc.rpcs import SERVICE

pytestmark = pytest.mark.timeout(120)

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
WAIT_SECONDS = 60.0
"""How long a change may take to reach the watch: the keeper's own detection and rebuild,
on a machine that may be busy (a bound on a hang, not a measure of speed)."""


async def _readyz(r: Rig) -> tuple[int, str]:
    answer = await r.http.get("/readyz")
    state: str = answer.json()["state"]
    return answer.status_code, state


async def _check(r: Rig) -> int:
    stub = health_pb2_grpc.HealthStub(r.channel)
    answer = await stub.Check(health_pb2.HealthCheckRequest(service=SERVICE))
    status: int = answer.status
    return status


async def _statuses(r: Rig) -> AsyncIterator[int]:
    call = health_pb2_grpc.HealthStub(r.channel).Watch(
        health_pb2.HealthCheckRequest(service=SERVICE)
    )
    try:
        async for answer in call:
            yield answer.status
    finally:
        call.cancel()


async def test_health_and_readyz_change_together_through_a_redis_outage(
    tmp_path: Path, migrated_template: Path, clock: ManualClock
) -> None:
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    try:
        data_dir = tmp_path / "data"
        shutil.copytree(migrated_template, data_dir)
        settings = Settings(
            data_dir=data_dir,
            server_keys=SERVER_KEY,
            redis_url=redis.url(0),
            index_check_seconds=0.2,
        )
        async with rig(settings, clock) as r:
            statuses = _statuses(r)

            async def heard() -> int:
                return await asyncio.wait_for(anext(statuses), WAIT_SECONDS)

            assert await heard() == SERVING
            assert await _readyz(r) == (200, "ready")

            await asyncio.to_thread(redis.kill9)
            assert await heard() == NOT_SERVING  # no SERVING heard while Redis is gone
            status, state = await _readyz(r)
            assert status == 503 and state in ("degraded", "rebuilding")
            assert await _check(r) == NOT_SERVING

            await asyncio.to_thread(redis.start)  # back, and empty: the keeper rebuilds
            assert await heard() == SERVING
            assert await _readyz(r) == (200, "ready")
            assert await _check(r) == SERVING
            await statuses.aclose()
    finally:
        redis.stop()
