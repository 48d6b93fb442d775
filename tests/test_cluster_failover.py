"""A Redis Cluster primary killed (SIGKILL) in the middle of writes and reads.

A cluster of its own (3 primaries, 3 replicas, node timeout 1 s), PostgreSQL as the store.
One task submits scores to new players one after another and records every acknowledged
submission; another reads the top page and random acknowledged players the whole time.
The primary serving the leaderboard is killed midway. Checked:

- no read served without ``degraded`` ever missed an acknowledged submission (the page's
  total is at least the count acknowledged before the read was sent; an acknowledged player
  is never missing);
- after the failover the index serves again by itself, and ``verify`` against SQL finds 0
  differences: nothing acknowledged was lost;
- how long reads were degraded, printed beside the cluster's node timeout.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from asgi_lifespan import LifespanManager

from helpers_api import SERVER_KEY
from helpers_backends import PG_URL, empty_database, prepare_database
from rankline import Settings
from rankline.http import create_app
from rankline.index import maintenance
from rankline.index.redis import keys as k
from rankline.index.redis.cluster import slot_of
from rankline.types import LeaderboardId
from rankline_bench.cluster import LocalCluster

BOARD = "failover"
AUTH = {"Authorization": f"Bearer {SERVER_KEY}"}
LB = LeaderboardId(BOARD, "all_time", "all", "global")


@pytest.fixture
async def cluster() -> AsyncIterator[LocalCluster]:
    with LocalCluster(primaries=3, replicas=1, node_timeout_ms=1000) as local:
        yield local


async def test_a_killed_primary_loses_nothing_and_no_read_is_wrong_unflagged(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    await prepare_database(PG_URL)
    await empty_database(PG_URL)
    settings = Settings(
        data_dir=tmp_path / "data",
        server_keys=SERVER_KEY,
        database_url=PG_URL,
        redis_url=cluster.url,
        index_check_seconds=0.1,
        rate_limits=False,
    )
    app = create_app(settings)
    async with LifespanManager(app, startup_timeout=60, shutdown_timeout=60):
        service = app.state.service
        await service.wait_ready()
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            put = await client.put(f"/v1/boards/{BOARD}", json={}, headers=AUTH)
            assert put.status_code == 201
            acknowledged: list[str] = []
            wrong: list[str] = []
            degraded_at: list[float] = []
            reads = 0
            stop = asyncio.Event()

            async def write() -> None:
                n = 0
                while not stop.is_set():
                    player = f"p{n}"
                    body = {"player_id": player, "score": n, "match_id": f"m{n}"}
                    answer = await client.post(
                        f"/v1/boards/{BOARD}/scores", json=body, headers=AUTH
                    )
                    if answer.status_code == 200:
                        acknowledged.append(player)
                        n += 1
                    else:  # SQL stays up, so every write should be taken
                        wrong.append(f"write answered {answer.status_code}: {answer.text}")
                        await asyncio.sleep(0.01)

            async def read() -> None:
                nonlocal reads
                while not stop.is_set():
                    before = len(acknowledged)
                    top = (await client.get(f"/v1/boards/{BOARD}/top?limit=1")).json()
                    reads += 1
                    if top.get("degraded"):
                        degraded_at.append(time.monotonic())
                    elif top["total"] < before:
                        wrong.append(f"unflagged total {top['total']} < {before} acknowledged")
                    if before:
                        player = random.choice(acknowledged[:before])
                        one = await client.get(f"/v1/boards/{BOARD}/players/{player}")
                        if one.status_code == 404:
                            wrong.append(f"acknowledged {player} missing, unflagged")
                        elif one.json().get("degraded"):
                            degraded_at.append(time.monotonic())
                    await asyncio.sleep(0.002)

            tasks = [asyncio.create_task(write()), asyncio.create_task(read())]
            await asyncio.sleep(2)
            victim = cluster.primary_of(slot_of(k.entries(LB).encode()))
            killed_at = time.monotonic()
            cluster.kill(victim)
            written_at_kill = len(acknowledged)
            await asyncio.sleep(8)  # detection (1 s node timeout) and failover
            stop.set()
            await asyncio.gather(*tasks)

            # The index comes back by itself: reads stop being degraded.
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                top = (await client.get(f"/v1/boards/{BOARD}/top?limit=1")).json()
                if not top.get("degraded"):
                    break
                await asyncio.sleep(0.2)
            assert not top.get("degraded"), "the index did not recover after the failover"
            assert top["total"] == len(acknowledged)
            boards = service.boards.boards()
            report = await maintenance.verify(service.keeper, service.store, boards)
            assert report.count == 0, report

    assert not wrong, wrong[:5]
    assert written_at_kill > 0 and len(acknowledged) > written_at_kill  # writes went on
    assert reads > 100
    assert degraded_at, "the kill was never noticed by a read"
    window = max(degraded_at) - killed_at
    print(
        f"\nfailover: {len(acknowledged)} acknowledged writes, {reads} reads; reads degraded "
        f"for {window:.2f} s after the kill (node timeout 1.0 s)"
    )
