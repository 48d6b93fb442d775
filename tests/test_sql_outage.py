"""PostgreSQL dies under a stream of writes: writes answer 503 and record nothing, reads
keep working from Redis, and after PostgreSQL returns every submission counts exactly once.

A PRIVATE PostgreSQL instance (initdb + pg_ctl as the ``postgres`` user), a private
redis-server and ``rankline serve``. Concurrent clients stream submissions with unique
(player, match) ids on a ``sum`` board, so a double count would show in the totals, while
readers read the already-indexed leaderboard. ``pg_ctl stop -m immediate`` mid-stream:

- every write sent while PostgreSQL is down answers 503, ``application/problem+json``,
  with ``Retry-After``;
- reads keep answering 200 from Redis, not degraded;

``pg_ctl start``: writes succeed again within a bounded time. Finally every attempted
submission is sent again (twice): each acknowledged one answers ``duplicate: true``; each
refused one was not recorded (only a commit in flight at the very moment PostgreSQL died
may have been, and then the retry says so); the totals before the retry are exactly the
sums of what was recorded, and after it, of every submission once.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers_chaos import (
    PrivatePostgres,
    RanklineServer,
    RedisServer,
    cli_env,
    migrate,
    run_cli,
)

pytestmark = pytest.mark.timeout(170)

KEY = "sql-outage-key"
AUTH = {"Authorization": f"Bearer {KEY}"}
BOARD = "tally"
PLAYERS = 20
WRITERS = 8
READERS = 2
NORMAL_SECONDS = 1.0
OUTAGE_SECONDS = 2.0
AFTER_SECONDS = 1.0
RECOVERY_TIMEOUT = 30.0


@dataclass
class Stack:
    server: RanklineServer
    postgres: PrivatePostgres
    redis: RedisServer
    env: dict[str, str]


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    postgres = PrivatePostgres()
    redis = RedisServer(tmp_path / "redis")
    server: RanklineServer | None = None
    try:
        postgres.init()
        postgres.start()
        redis.start()
        settings = {
            "database_url": postgres.url,
            "redis_url": redis.url(3),
            "server_keys": KEY,
            "index_check_seconds": "0.2",
        }
        env = cli_env(tmp_path / "data", **settings)
        migrate(env)
        server = RanklineServer(tmp_path / "data", tmp_path / "serve.log", **settings)
        server.start()
        server.wait_ready(60)
        yield Stack(server, postgres, redis, env)
    finally:
        try:
            if server is not None:
                server.stop()
        finally:
            try:
                redis.stop()
            finally:
                postgres.close()


@dataclass(frozen=True, slots=True)
class Sub:
    player: str
    match_id: str
    score: int

    def body(self) -> dict[str, Any]:
        return {"player_id": self.player, "match_id": self.match_id, "score": self.score}


@dataclass
class Sent:
    sub: Sub
    started: float
    ended: float
    status: int | None  # None: no HTTP answer


@dataclass
class Traffic:
    sent: list[Sent] = field(default_factory=list)
    reads: list[tuple[float, int | None, bool]] = field(default_factory=list)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    problems: list[str] = field(default_factory=list)  # malformed 503s


def _check_503(response: httpx.Response) -> str | None:
    """What is wrong with this 503, if anything."""
    if not response.headers.get("content-type", "").startswith("application/problem+json"):
        return f"content-type {response.headers.get('content-type')}"
    if not response.headers.get("retry-after", "").isdigit():
        return f"no Retry-After: {dict(response.headers)}"
    body = response.json()
    if body.get("status") != 503 or not body.get("type") or not body.get("title"):
        return f"not a problem: {body}"
    if "Traceback" in response.text:
        return "a stack trace"
    return None


async def _writer(url: str, traffic: Traffic, n: int) -> None:
    rng = random.Random(300 + n)
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    timeout = httpx.Timeout(30.0, connect=10.0)
    async with httpx.AsyncClient(
        base_url=url, headers=AUTH, limits=limits, timeout=timeout
    ) as client:
        seq = 0
        while not traffic.stop.is_set():
            sub = Sub(f"p{rng.randrange(PLAYERS):02d}", f"w{n}-{seq}", rng.randint(1, 1000))
            seq += 1
            started = time.monotonic()
            try:
                response = await client.post(f"/v1/boards/{BOARD}/scores", json=sub.body())
            except httpx.TransportError:
                traffic.sent.append(Sent(sub, started, time.monotonic(), None))
                continue
            traffic.sent.append(Sent(sub, started, time.monotonic(), response.status_code))
            if response.status_code == 503:
                problem = _check_503(response)
                if problem:
                    traffic.problems.append(problem)
                await asyncio.sleep(0.02)  # a client that backs off a little
            elif response.status_code == 200:
                assert response.json()["duplicate"] is False, response.text
            await asyncio.sleep(0.003)


async def _reader(url: str, traffic: Traffic, n: int) -> None:
    rng = random.Random(400 + n)
    async with httpx.AsyncClient(base_url=url, timeout=httpx.Timeout(30.0)) as client:
        while not traffic.stop.is_set():
            if rng.random() < 0.5:
                path = f"/v1/boards/{BOARD}/top"
            else:
                path = f"/v1/boards/{BOARD}/players/p{rng.randrange(PLAYERS):02d}"
            started = time.monotonic()
            try:
                response = await client.get(path)
            except httpx.TransportError:
                traffic.reads.append((started, None, False))
                continue
            degraded = response.status_code == 200 and response.json().get("degraded") is True
            traffic.reads.append((started, response.status_code, degraded))
            await asyncio.sleep(0.005)


async def _totals(client: httpx.AsyncClient) -> dict[str, int]:
    response = await client.get(f"/v1/boards/{BOARD}/top", params={"limit": 1000})
    assert response.status_code == 200, response.text
    body = response.json()
    assert "degraded" not in body, body
    return {e["player_id"]: e["score"] for e in body["entries"]}


async def _resubmit(client: httpx.AsyncClient, subs: list[Sub]) -> dict[Sub, bool]:
    """Send every submission again (batches); whether each was a duplicate."""
    found: dict[Sub, bool] = {}
    for start in range(0, len(subs), 500):
        chunk = subs[start : start + 500]
        items = [{"board": BOARD, **s.body()} for s in chunk]
        response = await client.post("/v1/scores/batch", json={"scores": items})
        assert response.status_code == 200, response.text
        for sub, result in zip(chunk, response.json()["results"], strict=True):
            assert "error" not in result, result
            found[sub] = result["duplicate"]
    return found


def _sums(subs: list[Sub]) -> dict[str, int]:
    sums: dict[str, int] = defaultdict(int)
    for sub in subs:
        sums[sub.player] += sub.score
    return dict(sums)


async def test_writes_refused_while_postgres_is_down_and_counted_once(stack: Stack) -> None:
    server, postgres = stack.server, stack.postgres
    traffic = Traffic()
    async with httpx.AsyncClient(
        base_url=server.url, headers=AUTH, timeout=httpx.Timeout(60.0)
    ) as client:
        response = await client.put(
            f"/v1/boards/{BOARD}", json={"windows": ["all_time"], "policy": "sum"}
        )
        assert response.status_code == 201, response.text
        seed = [Sub(f"p{i:02d}", "seed", 1) for i in range(PLAYERS)]
        for sub in seed:
            response = await client.post(f"/v1/boards/{BOARD}/scores", json=sub.body())
            assert response.status_code == 200, response.text
            traffic.sent.append(Sent(sub, 0.0, 0.0, 200))

        tasks = [asyncio.create_task(_writer(server.url, traffic, n)) for n in range(WRITERS)]
        tasks += [asyncio.create_task(_reader(server.url, traffic, n)) for n in range(READERS)]
        try:
            await asyncio.sleep(NORMAL_SECONDS)
            deadline = time.monotonic() + RECOVERY_TIMEOUT
            while sum(s.status == 200 and s.started > 0 for s in traffic.sent) < 2 * WRITERS:
                # A loaded machine may not have answered any write yet.
                assert time.monotonic() < deadline, "no write answered before the stop"
                await asyncio.sleep(0.1)
            stopping = time.monotonic()
            await asyncio.to_thread(postgres.stop_immediate)
            stopped = time.monotonic()
            await asyncio.sleep(OUTAGE_SECONDS)
            starting = time.monotonic()
            await asyncio.to_thread(postgres.start)
            started = time.monotonic()

            async def writes_back() -> bool:
                return any(s.status == 200 and s.started >= started for s in traffic.sent)

            deadline = time.monotonic() + RECOVERY_TIMEOUT
            while not await writes_back():
                assert time.monotonic() < deadline, "writes did not recover"
                await asyncio.sleep(0.1)
            recovered = time.monotonic()
            await asyncio.sleep(AFTER_SECONDS)
        finally:
            traffic.stop.set()
            outcomes = await asyncio.gather(*tasks, return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome

        # --- during the outage ------------------------------------------------------------
        assert not traffic.problems, traffic.problems[:5]
        statuses = {s.status for s in traffic.sent}
        assert statuses <= {200, 503}, statuses  # no 500s, no transport errors
        down = [s for s in traffic.sent if stopped <= s.started and s.ended <= starting]
        assert len(down) >= 2 * WRITERS, f"too few writes while PostgreSQL was down: {len(down)}"
        assert all(s.status == 503 for s in down), [s for s in down if s.status != 503][:5]
        before = [s for s in traffic.sent if s.status is not None and 0 < s.ended < stopping]
        assert before and all(s.status == 200 for s in before), "writes failed before the stop"
        after = [s for s in traffic.sent if s.started >= recovered]
        assert after and all(s.status == 200 for s in after), [s for s in after if s.status != 200][
            :5
        ]

        reads_down = [r for r in traffic.reads if stopped <= r[0] <= starting]
        assert len(reads_down) >= 10, f"too few reads while PostgreSQL was down: {reads_down}"
        assert all(status == 200 and not degraded for _, status, degraded in reads_down), [
            r for r in reads_down if r[1] != 200 or r[2]
        ][:5]
        assert all(status == 200 for _, status, _ in traffic.reads), "a read failed"

        response = await client.get("/metrics")
        errors = [
            line
            for line in response.text.splitlines()
            if line.startswith('rankline_backend_errors_total{backend="sql"}')
        ]
        assert errors and float(errors[0].split()[-1]) > 0, errors

        # --- every submission counts exactly once -------------------------------------------
        acked = [s.sub for s in traffic.sent if s.status == 200]
        refused = [s for s in traffic.sent if s.status == 503]
        assert refused, "no write was refused"
        everything = [s.sub for s in traffic.sent]
        assert len(set(everything)) == len(everything)

        totals_before = await _totals(client)
        first = await _resubmit(client, everything)
        assert all(first[sub] for sub in acked), [s for s in acked if not first[s]][:5]
        # A 503 means nothing was recorded; only a commit that was in flight when PostgreSQL
        # died can have been (the client cannot know, and a retry is then a duplicate).
        recorded_refusals = [s for s in refused if first[s.sub]]
        assert all(s.started < stopped for s in recorded_refusals), recorded_refusals
        assert len(recorded_refusals) <= WRITERS, recorded_refusals
        recorded = acked + [s.sub for s in recorded_refusals]
        assert totals_before == _sums(recorded), (totals_before, _sums(recorded))

        totals_after = await _totals(client)
        assert totals_after == _sums(everything), (totals_after, _sums(everything))
        second = await _resubmit(client, everything)
        assert all(second.values()), "a submission was not recognised on its third sending"
        assert await _totals(client) == _sums(everything)

    verified = run_cli("verify", env=stack.env, timeout=120)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert " 0 differences" in verified.stderr, verified.stderr
