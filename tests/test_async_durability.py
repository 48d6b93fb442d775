"""SIGKILL of the real server in the middle of an asynchronous burst and of synchronous writes on
a ``sum`` board: after a restart, every acknowledged submission (202 or 200) is counted,
exactly once. Embedded (one server, the log in a SQLite file of its own), and in production:
two servers on PostgreSQL + Redis with the log on NATS JetStream or on a Kafka-protocol
broker, one of them killed while both take traffic.

``rankline serve`` (embedded: SQLite, the ingestion log in a file beside it) takes batches
with ``Prefer: respond-async`` from 4 connections and single synchronous scores from 8, and is
killed mid-stream. After the restart, one more asynchronous submission to the board is waited
for: every record of the board is in one partition, applied in order, so once it is applied
everything taken before the kill is too. Then every attempted submission is sent again
synchronously: ``duplicate: true`` means it was recorded before. Checked: every acknowledged
one was recorded; each player's total is exactly the sum of the recorded ones (none counted
twice); after the resubmission, exactly the sum of all attempted ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers_backends import REDIS_URL, flush_redis
from helpers_brokers import NATS_URL, drop_nats_log, tansu_broker
from helpers_chaos import migrate, pg_database
from helpers_procs import Server, cli_env

pytestmark = pytest.mark.timeout(180)

KEY = "k"
AUTH = {"Authorization": f"Bearer {KEY}"}
ASYNC = {**AUTH, "Prefer": "respond-async"}
BOARD = "b"
PLAYERS = 40
BATCH = 250


@dataclass(frozen=True, slots=True)
class Sub:
    player: str
    match_id: str
    score: int

    def item(self) -> dict[str, object]:
        return {
            "board": BOARD,
            "player_id": self.player,
            "match_id": self.match_id,
            "score": self.score,
        }


@dataclass
class Traffic:
    attempted: list[Sub] = field(default_factory=list)
    acked: list[Sub] = field(default_factory=list)
    acked_async: int = 0
    acked_sync: int = 0
    killed: bool = False


async def _async_sender(
    url: str, n: int, traffic: Traffic, rng: random.Random, stop: Traffic | None = None
) -> None:
    stop = stop or traffic
    async with httpx.AsyncClient(base_url=url, headers=ASYNC, timeout=30) as client:
        seq = 0
        while not stop.killed:
            subs = [
                Sub(f"p:{rng.randrange(PLAYERS)}", f"a{n}-{seq + i}", rng.randint(1, 1000))
                for i in range(BATCH)
            ]
            seq += BATCH
            traffic.attempted += subs
            try:
                response = await client.post(
                    "/v1/scores/batch", json={"scores": [s.item() for s in subs]}
                )
            except httpx.TransportError:
                return
            if response.status_code == 202:
                assert response.json()["accepted"] == BATCH
                traffic.acked += subs
                traffic.acked_async += BATCH
            else:
                assert response.status_code in (429, 503), response.text
                await asyncio.sleep(0.01)


async def _sync_sender(
    url: str, n: int, traffic: Traffic, rng: random.Random, stop: Traffic | None = None
) -> None:
    stop = stop or traffic
    async with httpx.AsyncClient(base_url=url, headers=AUTH, timeout=30) as client:
        seq = 0
        while not stop.killed:
            sub = Sub(f"p:{rng.randrange(PLAYERS)}", f"s{n}-{seq}", rng.randint(1, 1000))
            seq += 1
            traffic.attempted.append(sub)
            body = {"player_id": sub.player, "match_id": sub.match_id, "score": sub.score}
            try:
                response = await client.post(f"/v1/boards/{BOARD}/scores", json=body)
            except httpx.TransportError:
                return
            if response.status_code == 200:
                traffic.acked.append(sub)
                traffic.acked_sync += 1
            else:
                assert response.status_code in (429, 503), response.text


async def _totals(client: httpx.AsyncClient) -> dict[str, int]:
    body = (await client.get(f"/v1/boards/{BOARD}/top", params={"limit": 1000})).json()
    return {e["player_id"]: e["score"] for e in body["entries"] if e["player_id"] != "marker"}


async def _settle_everything(client: httpx.AsyncClient) -> None:
    """Submit a marker asynchronously and wait until it is applied (with it, everything
    appended to the board's partition before it)."""
    body = {"player_id": "marker", "match_id": f"marker-{time.monotonic_ns()}", "score": 1}
    response = await client.post(f"/v1/boards/{BOARD}/scores", json=body, headers=ASYNC)
    assert response.status_code == 202, response.text
    token = response.json()["token"]
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        read = await client.get(f"/v1/boards/{BOARD}/top", params={"after": token})
        if read.status_code == 200:
            return
        assert read.status_code == 503, read.text
    raise AssertionError("the log was not applied within 90 s of the restart")


async def _recorded(client: httpx.AsyncClient, subs: list[Sub]) -> dict[Sub, bool]:
    duplicate: dict[Sub, bool] = {}
    for start in range(0, len(subs), 1000):
        chunk = subs[start : start + 1000]
        response = await client.post(
            "/v1/scores/batch", json={"scores": [s.item() for s in chunk]}, headers=AUTH
        )
        assert response.status_code == 200, response.text
        for sub, result in zip(chunk, response.json()["results"], strict=True):
            assert "error" not in result, result
            duplicate[sub] = result["duplicate"]
    return duplicate


def _sums(subs: list[Sub]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for sub in subs:
        totals[sub.player] = totals.get(sub.player, 0) + sub.score
    return totals


async def _enough_traffic(traffic: Traffic, seconds: float) -> None:
    """Wait until the senders have 2,000 asynchronous and 50 synchronous submissions
    acknowledged, or ``seconds`` have passed."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if traffic.acked_async >= 2000 and traffic.acked_sync >= 50:
            return
        await asyncio.sleep(0.02)


async def _assert_counted_once(url: str, traffic: Traffic, label: str) -> None:
    """After the restart: every acknowledged submission was recorded, each player's total is
    the sum of the recorded ones, and after resubmitting every attempted one, of them all."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        await _settle_everything(client)
        before = await _totals(client)
        duplicate = await _recorded(client, traffic.attempted)
        after = await _totals(client)
    recorded = [s for s in traffic.attempted if duplicate[s]]
    print(
        f"{label}: attempted={len(traffic.attempted)} acked async={traffic.acked_async} "
        f"sync={traffic.acked_sync} recorded={len(recorded)}"
    )
    lost = [s for s in traffic.acked if not duplicate[s]]
    assert not lost, f"{len(lost)} acknowledged submissions lost, e.g. {lost[:3]}"
    assert before == _sums(recorded)
    assert after == _sums(traffic.attempted)


async def test_acknowledged_async_and_sync_submissions_survive_sigkill_once(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "data"
    first = Server(data_dir, tmp_path / "first.log", server_keys=KEY)
    second = Server(data_dir, tmp_path / "second.log", server_keys=KEY)
    traffic = Traffic()
    try:
        first.start()
        await asyncio.to_thread(first.wait_ready)
        async with httpx.AsyncClient(base_url=first.url, timeout=30) as client:
            response = await client.put(f"/v1/boards/{BOARD}", json={"policy": "sum"}, headers=AUTH)
            assert response.status_code == 201, response.text
        rng = random.Random(20261124)
        tasks = [
            asyncio.create_task(_async_sender(first.url, n, traffic, random.Random(rng.random())))
            for n in range(4)
        ] + [
            asyncio.create_task(_sync_sender(first.url, n, traffic, random.Random(rng.random())))
            for n in range(8)
        ]
        await _enough_traffic(traffic, 30)
        traffic.killed = True
        first.kill9()
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
        assert traffic.acked_async >= 2000 and traffic.acked_sync >= 50, traffic

        second.start()
        await asyncio.to_thread(second.wait_ready)
        await _assert_counted_once(second.url, traffic, "embedded")
        # the log in a file of its own, the default: the store holds none of its records
        assert (data_dir / "rankline-log.db").exists()
        with contextlib.closing(sqlite3.connect(data_dir / "rankline.db")) as store:
            assert store.execute("SELECT COUNT(*) FROM rl_log").fetchone() == (0,)
    finally:
        first.stop()
        second.stop()


def _in_thread(coroutine: Any) -> None:
    """Run ``coroutine`` to completion on an event loop of its own (a cleanup step)."""
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, coroutine).result()


async def _start_traffic(url: str, first: int, traffic: Traffic, stop: Traffic) -> list[Any]:
    """2 asynchronous batch senders and 4 synchronous single senders against ``url``; their
    match ids are numbered from ``first`` so two servers' traffic never collides."""
    rng = random.Random(20261124 + first)
    return [
        asyncio.create_task(
            _async_sender(url, first + n, traffic, random.Random(rng.random()), stop)
        )
        for n in range(2)
    ] + [
        asyncio.create_task(
            _sync_sender(url, first + n, traffic, random.Random(rng.random()), stop)
        )
        for n in range(4)
    ]


@pytest.mark.parametrize("engine", ["nats", "kafka"])
async def test_one_worker_of_two_killed_mid_burst_loses_nothing_and_counts_once(
    engine: str, tmp_path: Path
) -> None:
    """Two servers share PostgreSQL, Redis and the log; both take asynchronous batches and
    synchronous scores; one is killed (SIGKILL). The survivor takes its partitions over once
    the lease has passed, applies what the dead one had taken, and a restarted server joins
    again. Every acknowledged submission counts exactly once."""
    name = f"crash{uuid.uuid4().hex[:10]}"
    flush_redis(REDIS_URL)
    with contextlib.ExitStack() as stack:
        log_url = NATS_URL if engine == "nats" else stack.enter_context(tansu_broker(tmp_path))
        if engine == "nats":
            stack.callback(_in_thread, drop_nats_log(name))
        database_url = stack.enter_context(pg_database("rl_crash"))
        settings = {
            "server_keys": KEY,
            "database_url": database_url,
            "redis_url": REDIS_URL,
            "log_url": log_url,
            "log_name": name,
            # Kafka's group session timeout cannot go below the broker's minimum (6 s).
            "log_lease_seconds": "3" if engine == "nats" else "6",
        }
        migrate(cli_env(**settings))
        servers = [
            Server(tmp_path / f"data-{n}", tmp_path / f"server-{n}.log", **settings)
            for n in ("a", "b", "a-again")
        ]
        for server in servers:
            server.data_dir.mkdir()
            stack.callback(server.stop)
        doomed, survivor, restarted = servers
        traffic, stop_doomed, stop_survivor = Traffic(), Traffic(), Traffic()
        doomed.start()
        survivor.start()
        await asyncio.to_thread(doomed.wait_ready)
        await asyncio.to_thread(survivor.wait_ready)
        async with httpx.AsyncClient(base_url=survivor.url, timeout=30) as client:
            response = await client.put(f"/v1/boards/{BOARD}", json={"policy": "sum"}, headers=AUTH)
            assert response.status_code == 201, response.text
        tasks = await _start_traffic(doomed.url, 0, traffic, stop_doomed)
        tasks += await _start_traffic(survivor.url, 100, traffic, stop_survivor)
        await _enough_traffic(traffic, 60)
        assert traffic.acked_async >= 2000 and traffic.acked_sync >= 50, traffic
        stop_doomed.killed = True
        doomed.kill9()
        await asyncio.sleep(1.0)  # the survivor goes on taking traffic alone
        stop_survivor.killed = True
        await asyncio.wait_for(asyncio.gather(*tasks), 60)

        restarted.start()
        await asyncio.to_thread(restarted.wait_ready)
        await _assert_counted_once(survivor.url, traffic, engine)
