"""``rankline serve --workers 2`` on PostgreSQL + Redis: workers share nothing else, yet a
read answered by one worker always shows a write acknowledged by the other.

Every request goes out on a NEW connection, so the kernel hands each one to whichever
worker accepts first; which worker answered is read back from the per-PID Prometheus
multiprocess files (``counter_<pid>.db``), so the test knows, for each write and the read
that follows it, which worker served them. Also: more than one worker without Redis, and
any start on an unmigrated database, exit non-zero with a message saying what to do.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers_chaos import (
    HOST,
    RanklineServer,
    RedisServer,
    cli_env,
    free_port,
    fresh_client,
    iso_ms,
    migrate,
    past_base,
    pg_database,
    rank_order,
    requests_by_pid,
    run_cli,
    wait_until,
)
from rankline.http.server import SERVERS

pytestmark = pytest.mark.timeout(150)

KEY = "workers-key"
AUTH = {"Authorization": f"Bearer {KEY}"}
BOARD = "duo"
SEQUENTIAL_WRITES = 60
CONCURRENT_TASKS = 6
CONCURRENT_WRITES = 12
STARTED = {
    "uvicorn": re.compile(r"Started server process \[(\d+)\]"),
    "granian": re.compile(r"Spawning worker-\d+ with PID: (\d+)"),
}
"""How each server logs a worker process it started."""


@dataclass
class Stack:
    server: RanklineServer
    redis: RedisServer
    env: dict[str, str]
    software: str

    @property
    def metrics_dir(self) -> Path:
        return self.server.data_dir / "metrics"


@pytest.fixture(params=SERVERS)
def stack(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Stack]:
    """Two workers on either HTTP server: the default, and the other one so it stays tested."""
    software: str = request.param
    redis = RedisServer(tmp_path / "redis")
    server: RanklineServer | None = None
    try:
        redis.start()
        with pg_database("rl_workers") as url:
            settings = {
                "database_url": url,
                "redis_url": redis.url(0),
                "server_keys": KEY,
                "index_check_seconds": "0.2",
                "server": software,
            }
            migrate(cli_env(tmp_path / "data", **settings))
            server = RanklineServer(
                tmp_path / "data", tmp_path / "serve.log", workers=2, **settings
            )
            try:
                server.start()
                server.wait_ready(60)
                # /readyz answered by one worker; wait for the other one to have started too.
                wait_until(
                    lambda: len(STARTED[software].findall(server.output())) >= 2,
                    60,
                    what="both workers to start",
                )
                _wait_every_worker_ready(server)
                yield Stack(server, redis, server.env, software)
            finally:
                server.stop()
    finally:
        redis.stop()


def _wait_every_worker_ready(server: RanklineServer) -> None:
    """A worker's startup completes before its index is built (it serves degraded reads
    meanwhile): ask /readyz on new connections until every worker has answered ready."""
    workers = set(server.worker_pids())
    ready: set[int] = set()
    deadline = time.monotonic() + 60
    while ready != workers:
        assert time.monotonic() < deadline, (ready, workers, server.output()[-4000:])
        with httpx.Client(base_url=server.url, timeout=10) as client:  # a new connection
            answer = client.get("/readyz")
        if answer.status_code == 200:
            ready.add(answer.json()["worker"])
        else:
            time.sleep(0.05)


@dataclass
class Model:
    """The expected state of a ``best``/``desc`` board: player -> (score, achieved_at ms)."""

    standings: dict[str, tuple[int, int]] = field(default_factory=dict)

    def submit(self, player: str, score: int, at_ms: int) -> None:
        current = self.standings.get(player)
        if current is None or score > current[0]:
            self.standings[player] = (score, at_ms)

    def ranked(self) -> list[tuple[str, int, int]]:
        return rank_order(self.standings)

    def rank(self, player: str) -> int:
        return next(i for i, (p, _, _) in enumerate(self.ranked(), 1) if p == player)

    def competition_rank(self, player: str) -> int:
        score = self.standings[player][0]
        return 1 + sum(1 for s, _ in self.standings.values() if s > score)


def _settled_requests(metrics_dir: Path, quiet: float = 0.3) -> dict[int, float]:
    """The request counters once they stop moving: a request is counted after its answer
    is sent, so the fixture's last /readyz could otherwise land in the first attribution."""
    last = requests_by_pid(metrics_dir)
    deadline = time.monotonic() + 10
    while True:
        time.sleep(quiet)
        now = requests_by_pid(metrics_dir)
        if now == last:
            return now
        assert time.monotonic() < deadline, "the request counters kept moving"
        last = now


class Attribution:
    """Which worker answered the request just made: the PID whose request counter grew.
    Only valid while this test is the only client and its requests are sequential."""

    def __init__(self, metrics_dir: Path) -> None:
        self.metrics_dir = metrics_dir
        self.last = _settled_requests(metrics_dir)

    def settle(self, requests: int, timeout: float = 10.0) -> None:
        """Wait until ``requests`` more requests (made concurrently) have been counted."""
        before = sum(self.last.values())

        def counted() -> dict[int, float] | None:
            now = requests_by_pid(self.metrics_dir)
            return now if sum(now.values()) - before >= requests else None

        self.last = wait_until(counted, timeout, interval=0.01, what="the request counters")
        assert sum(self.last.values()) - before == requests, (self.last, before, requests)

    def who(self, timeout: float = 5.0) -> int:
        """The PID that answered exactly one request since the last call."""
        before = self.last

        def grown() -> dict[int, float] | None:
            now = requests_by_pid(self.metrics_dir)
            if sum(now.values()) - sum(before.values()) >= 1:
                return now
            return None

        now = wait_until(grown, timeout, interval=0.01, what="the request counter")
        self.last = now
        delta = {pid: now.get(pid, 0) - before.get(pid, 0) for pid in now}
        moved = [pid for pid, d in delta.items() if d]
        assert len(moved) == 1 and delta[moved[0]] == 1, delta
        return moved[0]


async def _post(client: httpx.AsyncClient, player: str, match: str, score: int, at: str) -> Any:
    response = await client.post(
        f"/v1/boards/{BOARD}/scores",
        json={"player_id": player, "match_id": match, "score": score, "at": at},
    )
    assert response.status_code == 200, response.text
    return response.json()


async def _get_player(client: httpx.AsyncClient, player: str) -> Any:
    response = await client.get(f"/v1/boards/{BOARD}/players/{player}")
    assert response.status_code == 200, response.text
    body = response.json()
    assert "degraded" not in body, body
    return body


async def _top(client: httpx.AsyncClient) -> list[tuple[str, int, int]]:
    response = await client.get(f"/v1/boards/{BOARD}/top", params={"limit": 1000})
    assert response.status_code == 200, response.text
    body = response.json()
    assert "degraded" not in body, body
    return [(e["player_id"], e["score"], e["rank"]) for e in body["entries"]]


def _expected_top(model: Model) -> list[tuple[str, int, int]]:
    return [(p, s, i) for i, (p, s, _) in enumerate(model.ranked(), 1)]


async def test_read_your_writes_across_two_workers(stack: Stack) -> None:
    server = stack.server
    workers = server.worker_pids()
    assert len(workers) == 2, (workers, server.output())
    started = {int(pid) for pid in STARTED[stack.software].findall(server.output())}
    assert started == set(workers), (started, workers, server.output())

    rng = random.Random(20261121)
    model = Model()
    base = past_base()
    at_ms = 0
    attribution = Attribution(stack.metrics_dir)
    pairs: list[tuple[int, int]] = []  # (worker that acknowledged the write, worker that read)
    posts = reads = 0

    async with fresh_client(server.url, headers=AUTH) as client:
        response = await client.put(
            f"/v1/boards/{BOARD}", json={"windows": ["all_time"], "policy": "best"}
        )
        assert response.status_code == 201, response.text
        attribution.who()

        # 1. Sequential: each acknowledged write, then at once a read on a new connection.
        for i in range(SEQUENTIAL_WRITES):
            player, score = f"p{rng.randrange(20):02d}", rng.randint(0, 30)  # ties on purpose
            at_ms += 1
            at = iso_ms(base + _ms(at_ms))
            ack = await _post(client, player, f"s{i}", score, at)
            posts += 1
            wrote = attribution.who()
            model.submit(player, score, at_ms)
            [standing] = ack["standings"]
            assert ack["score"] == model.standings[player][0], (ack, model.standings[player])
            assert standing["rank"] == model.rank(player), (ack, model.ranked())

            body = await _get_player(client, player)
            reads += 1
            read = attribution.who()
            pairs.append((wrote, read))
            assert body["score"] == model.standings[player][0], (i, body)
            assert body["rank"] == model.rank(player), (i, body, model.ranked())
            assert body["competition_rank"] == model.competition_rank(player), body
            assert body["total"] == len(model.standings), body
            assert body["achieved_at"] == iso_ms(base + _ms(model.standings[player][1])), body

            # Again at once (a warm read, through the hot-read cache), and the top (through
            # the top cache): neither may show a state older than the acknowledged write.
            again = await _get_player(client, player)
            reads += 1
            attribution.who()
            assert (again["score"], again["rank"]) == (body["score"], body["rank"]), (i, again)
            assert await _top(client) == _expected_top(model), i
            attribution.who()

        # 2. Concurrent: several clients, each with its own players, write and read back.
        async def one_client(n: int) -> None:
            local = random.Random(n)
            for j in range(CONCURRENT_WRITES):
                player = f"c{n}-{local.randrange(3)}"
                score = local.randint(0, 30)
                stamp = at_ms + 1 + n * 1000 + j
                model.submit(player, score, stamp)  # each player is this client's alone
                ack = await _post(client, player, f"c{n}-{j}", score, iso_ms(base + _ms(stamp)))
                assert ack["score"] == model.standings[player][0], ack
                body = await _get_player(client, player)
                assert body["score"] == model.standings[player][0], body
                assert body["achieved_at"] == iso_ms(base + _ms(model.standings[player][1]))
                assert 1 <= body["rank"] <= body["total"], body

        await asyncio.gather(*(one_client(n) for n in range(CONCURRENT_TASKS)))
        posts += CONCURRENT_TASKS * CONCURRENT_WRITES
        reads += CONCURRENT_TASKS * CONCURRENT_WRITES
        attribution.settle(2 * CONCURRENT_TASKS * CONCURRENT_WRITES)

        # 3. The whole leaderboard, and every player's rank, as the model says, on both workers.
        expected = _expected_top(model)
        answered: set[int] = set()
        for _ in range(8):
            assert await _top(client) == expected
            answered.add(attribution.who())
        for player in model.standings:
            body = await _get_player(client, player)
            reads += 1
            assert (body["score"], body["rank"]) == (
                model.standings[player][0],
                model.rank(player),
            ), body
            answered.add(attribution.who())

        # 4. /metrics aggregates the workers' counters.
        async def counted() -> dict[tuple[str, str], float]:
            response = await client.get("/metrics")
            assert response.status_code == 200
            return _requests_total(response.text)

        deadline = time.monotonic() + 10
        while True:
            totals = await counted()
            if totals.get(("post_score", "200"), 0) >= posts or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.1)

    assert totals.get(("post_score", "200")) == posts, totals
    assert totals.get(("player", "200")) == reads, totals
    # The same, per worker process: both served writes and reads.
    for route, count in (("post_score", posts), ("player", reads)):
        served = requests_by_pid(stack.metrics_dir, route)
        assert set(served) <= set(workers), (served, workers)
        assert sum(served.values()) == count, (route, served)
        assert all(served.get(pid, 0) > 0 for pid in workers), (route, served)

    # Writes and the reads right after them were answered by both workers, and some
    # write acknowledged by one worker was read back from the other one.
    assert {w for w, _ in pairs} | {r for _, r in pairs} <= set(workers)
    crossed = [(w, r) for w, r in pairs if w != r]
    assert {w for w, _ in crossed} == set(workers), (
        f"no write on one worker read on the other: {pairs}"
    )
    assert answered == set(workers), answered


def _ms(n: int) -> timedelta:
    return timedelta(milliseconds=n)


_SAMPLE = re.compile(r"^rankline_http_requests_total\{(?P<labels>[^}]*)\}\s+(?P<value>\S+)$")


def _requests_total(text: str) -> dict[tuple[str, str], float]:
    found: dict[tuple[str, str], float] = {}
    for line in text.splitlines():
        match = _SAMPLE.match(line)
        if match:
            labels = dict(re.findall(r'(\w+)="([^"]*)"', match["labels"]))
            key = (labels["route"], labels["status"])
            found[key] = found.get(key, 0) + float(match["value"])
    return found


def test_more_than_one_worker_needs_redis(tmp_path: Path) -> None:
    env = cli_env(
        tmp_path / "data",
        database_url=f"postgresql+asyncpg://postgres@{HOST}:5432/test",
        server_keys=KEY,
    )
    args = ("serve", "--host", HOST, "--port", str(free_port()), "--workers", "2")
    done = run_cli(*args, env=env, timeout=60)
    assert done.returncode != 0, done
    assert "RANKLINE_REDIS_URL" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr + done.stdout

    # And with Redis but the embedded SQLite: it needs a server database.
    env = cli_env(tmp_path / "data", redis_url=f"redis://{HOST}:{free_port()}/0", server_keys=KEY)
    done = run_cli(*args, env=env, timeout=60)
    assert done.returncode != 0, done
    assert "RANKLINE_DATABASE_URL" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr + done.stdout


@pytest.mark.parametrize("workers", ["1", "2"])
def test_serve_refuses_an_unmigrated_database(tmp_path: Path, workers: str) -> None:
    with pg_database("rl_unmigrated") as url:
        env = cli_env(
            tmp_path / "data",
            database_url=url,
            redis_url=f"redis://{HOST}:{free_port()}/0",
            server_keys=KEY,
        )
        args = ("serve", "--host", HOST, "--port", str(free_port()), "--workers", workers)
        done = run_cli(*args, env=env, timeout=90)
    assert done.returncode != 0, done
    assert "rankline migrate" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
