"""``max_per_minute`` holds across workers: ``rankline serve --workers 2`` on PostgreSQL +
Redis, a player's submissions sent each on a new connection (so the kernel hands them to
either worker): exactly ``max_per_minute`` are written in the minute, whichever worker took
them, because the count is read from the store, not kept in a worker."""

from __future__ import annotations

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
SENT = 40
"""Submissions sent: past the limit, and enough that both workers take some (the chance
that one worker takes all of them is 2^-39)."""


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
        statuses = []
        for n in range(SENT):
            answer = await client.post(
                "/v1/boards/arena/scores",
                json={"score": n, "match_id": f"m-{n}"},
                headers=token,
            )
            assert answer.status_code in (200, 429), answer.text
            statuses.append(answer.status_code)
        top = await client.get("/v1/boards/arena/top")
    assert statuses == [200] * LIMIT + [429] * (SENT - LIMIT)
    assert [e["score"] for e in top.json()["entries"]] == [LIMIT - 1]
    served = requests_by_pid(server.data_dir / "metrics", "post_score")
    assert len([pid for pid, count in served.items() if count > 0]) == 2, served
