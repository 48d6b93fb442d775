"""Redis dies under traffic, then comes back EMPTY: rankline keeps answering and heals.

A private ``redis-server`` (no persistence), a database of its own on the shared
PostgreSQL server and ``rankline serve`` (one worker, index checked every 0.2 s). After a
few hundred scores (with ties), readers (top, player, around) and writers run
concurrently; redis-server is SIGKILLed mid-traffic. Then:

- reads keep answering 200, flagged ``"degraded": true`` (a bounded switch-over: a handful
  of non-200s at most within the first second, none after), and a degraded snapshot of
  every leaderboard is exact;
- writes keep answering 200 and are recorded;
- ``/readyz`` answers 503, state ``degraded``, with a reason.

redis-server restarts on the same port, empty. Within a bounded time ``/readyz`` is 200
and reads are no longer degraded; every leaderboard (whole top, each player's rank) is
exactly the model's (the seed plus every write, including those made during the outage),
and ``rankline verify`` reports 0 differences.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers_chaos import (
    RanklineServer,
    RedisServer,
    cli_env,
    iso_ms,
    migrate,
    past_base,
    pg_database,
    rank_order,
    run_cli,
)

pytestmark = pytest.mark.timeout(150)

KEY = "outage-key"
AUTH = {"Authorization": f"Bearer {KEY}"}
BOARD = "arena"
REGIONS = ("EU", "NA", "AS")
PLAYERS = 80
SEED_SCORES = 300
READERS = 6
WRITERS = 2
NORMAL_SECONDS = 1.0
OUTAGE_SECONDS = 2.5
SWITCH_OVER_SECONDS = 1.0
SWITCH_OVER_ERRORS = 5
RECOVERY_TIMEOUT = 30.0


@dataclass
class Stack:
    server: RanklineServer
    redis: RedisServer
    env: dict[str, str]


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    redis = RedisServer(tmp_path / "redis")
    try:
        redis.start()
        with pg_database("rl_redis_outage") as url:
            settings = {
                "database_url": url,
                "redis_url": redis.url(0),
                "server_keys": KEY,
                "index_check_seconds": "0.2",
            }
            env = cli_env(tmp_path / "data", **settings)
            migrate(env)
            server = RanklineServer(tmp_path / "data", tmp_path / "serve.log", **settings)
            try:
                server.start()
                server.wait_ready(60)
                yield Stack(server, redis, env)
            finally:
                server.stop()
    finally:
        redis.stop()


def region_of(player: str) -> str:
    return REGIONS[sum(player.encode()) % len(REGIONS)]


@dataclass
class Model:
    """A ``best``/``desc`` board with a ``region`` scope: player -> (score, at ms)."""

    standings: dict[str, tuple[int, int]] = field(default_factory=dict)

    def submit(self, player: str, score: int, at_ms: int) -> None:
        current = self.standings.get(player)
        if current is None or score > current[0]:
            self.standings[player] = (score, at_ms)

    def ranked(self, scope: str = "global") -> list[tuple[str, int, int]]:
        if scope == "global":
            chosen = self.standings
        else:
            region = scope.removeprefix("region:")
            chosen = {p: v for p, v in self.standings.items() if region_of(p) == region}
        return rank_order(chosen)


SCOPES = ("global", *(f"region:{r}" for r in REGIONS))


@dataclass
class Read:
    started: float  # before the request was sent
    ended: float  # once its answer was read
    op: str
    status: int | None  # None: no HTTP answer
    degraded: bool
    detail: str = ""


@dataclass
class Traffic:
    model: Model
    base: Any
    at_ms: int = 0
    reads: list[Read] = field(default_factory=list)
    writes: list[tuple[float, int | None, str]] = field(default_factory=list)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    writing: asyncio.Event = field(default_factory=asyncio.Event)  # cleared: writers pause
    in_flight_writes: int = 0
    new_players: int = 0
    seeded: set[str] = field(default_factory=set)

    def next_at(self) -> tuple[int, str]:
        self.at_ms += 1
        return self.at_ms, iso_ms(self.base + timedelta(milliseconds=self.at_ms))


def _score_body(player: str, match: str, score: int, at: str) -> dict[str, Any]:
    return {
        "player_id": player,
        "match_id": match,
        "score": score,
        "at": at,
        "scopes": {"region": region_of(player)},
    }


async def _reader(client: httpx.AsyncClient, traffic: Traffic, n: int) -> None:
    rng = random.Random(1000 + n)
    seeded = sorted(traffic.seeded)
    while not traffic.stop.is_set():
        player = rng.choice(seeded)  # every read is of a player with an entry
        scope = rng.choice(SCOPES) if rng.random() < 0.3 else "global"
        if scope != "global" and region_of(player) != scope.removeprefix("region:"):
            scope = f"region:{region_of(player)}"
        op, path, params = rng.choice(
            [
                ("top", f"/v1/boards/{BOARD}/top", {"limit": 50, "scope": scope}),
                ("player", f"/v1/boards/{BOARD}/players/{player}", {"scope": scope}),
                ("around", f"/v1/boards/{BOARD}/players/{player}/around", {"k": 3}),
            ]
        )
        started = time.monotonic()
        try:
            response = await client.get(path, params=params)
        except httpx.TransportError as exc:
            traffic.reads.append(Read(started, time.monotonic(), op, None, False, repr(exc)))
            continue
        degraded = False
        detail = ""
        if response.status_code == 200:
            degraded = response.json().get("degraded") is True
        else:
            detail = response.text[:300]
        ended = time.monotonic()
        traffic.reads.append(Read(started, ended, op, response.status_code, degraded, detail))
        await asyncio.sleep(0.002)


async def _writer(client: httpx.AsyncClient, traffic: Traffic, n: int) -> None:
    rng = random.Random(2000 + n)
    mine = [f"p{i:03d}" for i in range(PLAYERS) if i % WRITERS == n]
    seq = 0
    while not traffic.stop.is_set():
        await traffic.writing.wait()
        if traffic.stop.is_set():
            break
        if rng.random() < 0.15:
            traffic.new_players += 1
            mine.append(f"new{n}-{traffic.new_players:03d}")  # first entry during traffic
        player = rng.choice(mine)
        score = rng.randint(0, 75)
        at_ms, at = traffic.next_at()
        seq += 1
        started = time.monotonic()
        traffic.in_flight_writes += 1
        try:
            response = await client.post(
                f"/v1/boards/{BOARD}/scores", json=_score_body(player, f"w{n}-{seq}", score, at)
            )
        except httpx.TransportError as exc:
            traffic.writes.append((started, None, repr(exc)))
            continue
        finally:
            traffic.in_flight_writes -= 1
        traffic.writes.append((started, response.status_code, response.text[:300]))
        if response.status_code == 200:
            # Each player is written by one writer only, in order: the model is exact.
            traffic.model.submit(player, score, at_ms)
            assert response.json()["duplicate"] is False
        await asyncio.sleep(0.005)


async def _leaderboard(
    client: httpx.AsyncClient, scope: str
) -> tuple[list[tuple[str, int, int, str]], bool]:
    response = await client.get(f"/v1/boards/{BOARD}/top", params={"limit": 1000, "scope": scope})
    assert response.status_code == 200, response.text
    body = response.json()
    entries = [(e["player_id"], e["score"], e["rank"], e["achieved_at"]) for e in body["entries"]]
    assert body["total"] == len(entries), body
    return entries, body.get("degraded") is True


def _expected(model: Model, scope: str, base: Any) -> list[tuple[str, int, int, str]]:
    return [
        (p, s, i, iso_ms(base + timedelta(milliseconds=a)))
        for i, (p, s, a) in enumerate(model.ranked(scope), 1)
    ]


async def _wait(predicate: Any, seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    last = None
    while time.monotonic() < deadline:
        last = await predicate()
        if last:
            return last
        await asyncio.sleep(0.1)
    raise AssertionError(f"{what}: not within {seconds}s ({last!r})")


async def test_redis_killed_and_restarted_empty(stack: Stack) -> None:
    server, redis = stack.server, stack.redis
    model = Model()
    traffic = Traffic(model, past_base())
    rng = random.Random(7)
    timeout = httpx.Timeout(30.0, connect=10.0)
    limits = httpx.Limits(max_connections=20, max_keepalive_connections=20)
    async with httpx.AsyncClient(
        base_url=server.url, headers=AUTH, timeout=timeout, limits=limits
    ) as client:
        board = {"windows": ["all_time"], "policy": "best", "scopes": ["region"]}
        response = await client.put(f"/v1/boards/{BOARD}", json=board)
        assert response.status_code == 201, response.text

        # Seed: a few hundred scores across the players, from a small range: ties.
        seed = []
        for i in range(SEED_SCORES):
            player, score = f"p{rng.randrange(PLAYERS):03d}", rng.randint(0, 60)
            at_ms, at = traffic.next_at()
            seed.append((player, score, at_ms, _score_body(player, f"seed-{i}", score, at)))
        for start in range(0, len(seed), 100):
            chunk = seed[start : start + 100]
            items = [{"board": BOARD, **body} for _, _, _, body in chunk]
            response = await client.post("/v1/scores/batch", json={"scores": items})
            assert response.status_code == 200, response.text
            results = response.json()["results"]
            errors = [r for r in results if "error" in r]
            assert not errors, (errors, server.output()[-3000:])
            for player, score, at_ms, _ in chunk:
                model.submit(player, score, at_ms)
        for scope in SCOPES:
            entries, degraded = await _leaderboard(client, scope)
            assert not degraded, server.output()[-3000:]
            assert entries == _expected(model, scope, traffic.base), scope
        traffic.seeded = set(model.standings)

        # Traffic; then SIGKILL redis-server in the middle of it.
        traffic.writing.set()
        tasks = [asyncio.create_task(_reader(client, traffic, n)) for n in range(READERS)]
        tasks += [asyncio.create_task(_writer(client, traffic, n)) for n in range(WRITERS)]
        try:
            await asyncio.sleep(NORMAL_SECONDS)
            reads_before = len(traffic.reads)
            killing = time.monotonic()
            await asyncio.to_thread(redis.kill9)
            killed_at = time.monotonic()  # redis-server is dead (reaped) from here on

            # Degraded: /readyz 503 with a reason, within the switch-over window.
            async def unready() -> Any:
                response = await client.get("/readyz")
                return response if response.status_code == 503 else None

            ready = await _wait(unready, 5.0, "/readyz 503 after Redis died")
            body = ready.json()
            assert ready.headers.get("retry-after"), ready.headers
            assert body["ready"] is False and body["degraded"] is True, body
            assert body["state"] == "degraded", body
            assert isinstance(body.get("reason"), str) and body["reason"], body

            await asyncio.sleep(OUTAGE_SECONDS)

            # A consistent degraded snapshot: pause the writers, read every leaderboard.
            traffic.writing.clear()
            await _wait(lambda: _true_if(traffic.in_flight_writes == 0), 30, "in-flight writes")
            for scope in SCOPES:
                entries, degraded = await _leaderboard(client, scope)
                assert degraded, "a read while Redis is down must say it is degraded"
                assert entries == _expected(model, scope, traffic.base), scope
            response = await client.get("/readyz")
            assert response.status_code == 503, response.text
            assert response.json()["state"] == "degraded", response.text
            traffic.writing.set()

            # Redis comes back on the same port, EMPTY.
            await asyncio.sleep(0.3)
            restarted_at = time.monotonic()
            await asyncio.to_thread(redis.start)

            async def recovered() -> Any:
                response = await client.get("/readyz")
                return response if response.status_code == 200 else None

            ready = await _wait(recovered, RECOVERY_TIMEOUT, "/readyz 200 after Redis returned")
            assert ready.json()["ready"] is True and ready.json()["state"] == "ready"
            recovered_at = time.monotonic()
            await asyncio.sleep(1.0)  # more traffic on the rebuilt index
        finally:
            traffic.stop.set()
            traffic.writing.set()
            done = await asyncio.gather(*tasks, return_exceptions=True)
        for outcome in done:
            if isinstance(outcome, BaseException):
                raise outcome

        # --- what the clients saw --------------------------------------------------------
        reads = traffic.reads
        normal = reads[:reads_before]
        assert normal and all(r.status == 200 and not r.degraded for r in normal), normal[:5]
        # Answered entirely while redis-server was dead.
        during = [r for r in reads if killed_at <= r.started and r.ended <= restarted_at]
        switching = [r for r in reads if killing <= r.started < killing + SWITCH_OVER_SECONDS]
        settled = [r for r in during if r.started >= killing + SWITCH_OVER_SECONDS]
        bad_early = [r for r in switching if r.status != 200]
        assert len(bad_early) <= SWITCH_OVER_ERRORS, bad_early
        assert len(settled) >= 20, f"too little read traffic during the outage: {len(settled)}"
        assert all(r.status == 200 for r in settled), [r for r in settled if r.status != 200]
        # Redis was gone: any 200 answered after the kill came from SQL and says so.
        assert all(r.degraded for r in during if r.status == 200), [
            r for r in during if not r.degraded
        ][:5]
        after = [r for r in reads if r.started >= recovered_at]
        assert after, "no reads after the recovery"
        assert all(r.status == 200 and not r.degraded for r in after), (
            [r for r in after if r.status != 200 or r.degraded][:5],
            server.output()[-6000:],
        )
        assert all(r.status == 200 for r in reads if r.started >= restarted_at)

        writes_during = [w for w in traffic.writes if killed_at <= w[0] < restarted_at - 0.5]
        assert len(writes_during) >= 10, f"too few writes during the outage: {writes_during}"
        assert all(status == 200 for _, status, _ in traffic.writes), [
            w for w in traffic.writes if w[1] != 200
        ][:5]

        # --- the healed index is the truth: the seed plus every write ----------------------
        for scope in SCOPES:
            entries, degraded = await _leaderboard(client, scope)
            assert not degraded
            assert entries == _expected(model, scope, traffic.base), scope
        expected_ranks = {p: i for i, (p, _, _) in enumerate(model.ranked(), 1)}
        for player, (score, _) in model.standings.items():
            response = await client.get(f"/v1/boards/{BOARD}/players/{player}")
            assert response.status_code == 200, response.text
            body = response.json()
            assert "degraded" not in body, body
            assert (body["score"], body["rank"]) == (score, expected_ranks[player]), body
        assert traffic.new_players > 0

    assert redis.command("DBSIZE").startswith(b":") and redis.command("DBSIZE") != b":0\r\n"
    verified = run_cli("verify", env=stack.env, timeout=120)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert " 0 differences" in verified.stderr, verified.stderr


async def _true_if(value: bool) -> bool:
    return value
