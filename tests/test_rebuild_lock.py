"""The shared index's rebuild lock is renewed on a clock of its own while a rebuild runs, so
a rebuild whose SQL takes longer than the lock's lifetime before its first rows (a store of
tens of millions of standings) keeps it; a renewal that fails stops the rebuild. Against
the machine's real Redis."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis
from redis.exceptions import LockNotOwnedError

from helpers_backends import REDIS_URL, flush_redis
from rankline.index.keeper import _Renewal


@pytest.fixture
async def client() -> aioredis.Redis:
    flush_redis(REDIS_URL)
    found = aioredis.Redis.from_url(REDIS_URL)
    yield found
    await found.aclose()


async def test_a_lock_renewed_in_the_background_outlives_its_timeout(
    client: aioredis.Redis,
) -> None:
    lock = client.lock("rl:test:rebuild-lock", timeout=1)
    assert await lock.acquire(blocking=False)
    renewal = _Renewal(lambda: lock.extend(1, replace_ttl=True), 0.2)
    async with renewal.running():
        await asyncio.sleep(2.5)  # work with no progress for longer than the lock lives
        await renewal.check()
    assert await lock.owned()
    await lock.release()


async def test_a_lost_lock_stops_the_work_that_checks_it(client: aioredis.Redis) -> None:
    lock = client.lock("rl:test:rebuild-lock", timeout=5)
    assert await lock.acquire(blocking=False)
    renewal = _Renewal(lambda: lock.extend(5, replace_ttl=True), 0.2)
    async with renewal.running():
        await client.delete("rl:test:rebuild-lock")  # taken away (expired, or stolen)
        await asyncio.sleep(0.6)
        with pytest.raises(LockNotOwnedError):
            await renewal.check()
