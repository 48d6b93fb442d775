"""``max_per_minute`` holds across workers: ``rankline serve --workers 2`` on PostgreSQL +
Redis, a player's submissions sent each on a new connection (so the kernel hands them to
either worker): exactly ``max_per_minute`` are written in the minute, whichever worker took
them, because the count is read from the store, not kept in a worker.

Sent one after another, every submission may be taken by the same worker (an idle worker
that just answered is often the first to accept again), so after the sequential ones the
test sends bursts of concurrent submissions until both workers have taken some: once both
have, one of them refused while it had counted fewer than the limit itself."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers_chaos import (
    RanklineServer,
    RedisServer,
    cli_env,
    fresh_client,
    migrate,
    pg_database,
    requests_by_pid,
    wait_until,
)
from helpers_idp import SECRET, claims, mint_hs256

pytestmark = pytest.mark.timeout(150)

KEY = "workers-key"
AUTH = {"Authorization": f"Bearer {KEY}"}
LIMIT = 5
SENT = 10
"""Submissions sent one after another: past the limit."""
BURST = 8
BURSTS = 25
"""Concurrent submissions per burst, and the most bursts sent waiting for both workers."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RanklineServer]:
    redis = RedisServer(tmp_path / "redis")
    try:
        redis.start()
        with pg_database("rl_client_writes") as url:
            settings = {
                "database_url": url,
                "redis_url": redis.url(0),
                "server_keys": KEY,
                "player_jwt_secret": SECRET,
                "index_check_seconds": "0.2",
            }
            migrate(cli_env(tmp_path / "data", **settings))
            running = RanklineServer(
                tmp_path / "data", tmp_path / "serve.log", workers=2, **settings
            )
            try:
                running.start()
                running.wait_ready(60)
                wait_until(lambda: len(running.worker_pids()) >= 2, 60, what="both workers")
                yield running
            finally:
                running.stop()
    finally:
        redis.stop()


async def test_max_per_minute_is_counted_across_workers(server: RanklineServer) -> None:
    token = {"Authorization": f"Bearer {mint_hs256(claims('ann'))}"}
    async with fresh_client(server.url) as client:
        board = {"client_writes": {"max_per_minute": LIMIT}}
        created = await client.put("/v1/boards/arena", json=board, headers=AUTH)
        assert created.status_code == 201, created.text

        async def submit(n: int) -> int:
            answer = await client.post(
                "/v1/boards/arena/scores",
                json={"score": n, "match_id": f"m-{n}"},
                headers=token,
            )
            assert answer.status_code in (200, 429), answer.text
            return answer.status_code

        statuses = [await submit(n) for n in range(SENT)]
        assert statuses == [200] * LIMIT + [429] * (SENT - LIMIT)
        metrics = server.data_dir / "metrics"
        bursts = 0
        while _serving(requests_by_pid(metrics, "post_score")) < 2 and bursts < BURSTS:
            first = SENT + bursts * BURST
            burst = await asyncio.gather(*(submit(first + n) for n in range(BURST)))
            assert burst == [429] * BURST, burst
            bursts += 1
        top = await client.get("/v1/boards/arena/top")
    assert [e["score"] for e in top.json()["entries"]] == [LIMIT - 1]
    served = requests_by_pid(metrics, "post_score")
    assert _serving(served) == 2, f"one worker took every submission: {served}"


def _serving(served: dict[int, float]) -> int:
    """How many workers have taken a submission."""
    return len([pid for pid, count in served.items() if count > 0])
