"""A Redis index that loses a key never answers wrong, and is repaired.

On the real Redis, through the whole app: a leaderboard of 60 players (with ties) loses one
of its keys (``rankline.index.redis.keys``: the sorted set, the layout hash, the stamps, one
bucket of the player map; or its board's registry of leaderboards), as eviction, a failover
or an operator's mistake would. Every read then answers right, flagged ``degraded`` where
the index could not vouch for it, and the leaderboard is repaired without a restart. With
the same loss, ``verify`` finds it, ``rebuild`` fixes exactly what it found, and ``verify``
then reports nothing. After a FLUSHDB the very first read is already degraded, not empty.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
import redis
from redis.cluster import RedisCluster

from helpers_api import AUTH, open_app, open_client, put_board
from helpers_backends import ALL, Backend, flush_redis, redis_client, selected
from helpers_procs import cli_env, run_cli
from rankline import ManualClock, Settings
from rankline.errors import IndexUnavailable
from rankline.http.app import Application
from rankline.index import maintenance
from rankline.index.redis import keys as k
from rankline.service import Rankline
from rankline.types import LeaderboardId

BOARD = "arena"
LB = LeaderboardId(BOARD, "all_time", "all", "global")
PLAYERS = [f"p{i:02d}" for i in range(60)]
SCORES = {p: (i * 37) % 50 for i, p in enumerate(PLAYERS)}  # ties: 60 players, 50 scores
RANKED = sorted(PLAYERS, key=lambda p: (-SCORES[p], p))  # one `at` for all: ties by id
REPAIR_TIMEOUT = 30.0
KINDS = ["entries", "meta", "stamp", "bucket"]
"""The keys of one leaderboard (``keys.entries``, ``meta``, ``stamp``, ``bucket_prefix``)."""


@pytest.fixture(params=[name for name in selected() if ALL[name].redis_url])
def stack(request: pytest.FixtureRequest) -> Backend:
    return ALL[request.param]


def _redis(app: Application) -> redis.Redis | RedisCluster:
    return redis_client(app.state.service.settings.redis_url)


def _name(r: redis.Redis | RedisCluster, kind: str) -> str:
    if kind == "entries":
        return k.entries(LB)
    if kind == "meta":
        return k.meta(LB)
    if kind == "stamp":
        return k.stamp(LB)
    if kind == "registry":
        return k.registry(BOARD)
    level, split = (int(r.hget(k.meta(LB), f) or 0) for f in ("l", "s"))
    assert 2**level + split > 1, "the test wants a leaderboard of several buckets"
    number = k.bucket_number(k.bucket_hash(b"p00"), level, split)
    return f"{k.bucket_prefix(LB)}{number}"


def _lose(app: Application, kind: str) -> None:
    with _redis(app) as r:
        name = _name(r, kind)
        assert r.delete(name) == 1, name


async def _seed(client: httpx.AsyncClient) -> None:
    await put_board(client, BOARD, windows=["all_time"])
    scores = [
        {"board": BOARD, "player_id": p, "score": s, "match_id": f"m-{p}"}
        for p, s in SCORES.items()
    ]
    response = await client.post("/v1/scores/batch", json={"scores": scores}, headers=AUTH)
    assert response.status_code == 200, response.text


async def _get(client: httpx.AsyncClient, path: str, **params: Any) -> dict[str, Any]:
    response = await client.get(f"/v1/boards/{BOARD}{path}", params=params)
    assert response.status_code == 200, (path, response.text)
    body: dict[str, Any] = response.json()
    return body


async def _reads(client: httpx.AsyncClient) -> int:
    """Read the leaderboard every way; each answer must be right. Returns how many answers
    were flagged degraded."""
    degraded = 0
    body = await _get(client, "/top", limit=100)
    assert body["total"] == len(PLAYERS)
    assert [(e["player_id"], e["score"]) for e in body["entries"]] == [
        (p, SCORES[p]) for p in RANKED
    ]
    degraded += body.get("degraded") is True
    for rank, player in enumerate(RANKED, 1):
        body = await _get(client, f"/players/{player}")
        assert (body["rank"], body["score"], body["total"]) == (rank, SCORES[player], 60)
        degraded += body.get("degraded") is True
    for player in ("p00", "p01", RANKED[30]):
        body = await _get(client, f"/players/{player}/around", k=2)
        at = RANKED.index(player)
        assert [e["player_id"] for e in body["entries"]] == RANKED[max(0, at - 2) : at + 3]
        degraded += body.get("degraded") is True
    response = await client.post(f"/v1/boards/{BOARD}/ranks", json={"player_ids": PLAYERS})
    assert response.status_code == 200, response.text
    body = response.json()
    assert [e["player_id"] for e in body["entries"]] == RANKED
    assert body["total"] == len(PLAYERS)
    degraded += body.get("degraded") is True
    return degraded


async def _verify(service: Rankline) -> maintenance.Report:
    return await maintenance.verify(service.keeper, service.store, service.boards.boards())


async def _until_repaired(client: httpx.AsyncClient, service: Rankline) -> None:
    """Read (right answers only) until nothing is degraded and verify finds nothing."""
    deadline = time.monotonic() + REPAIR_TIMEOUT
    while await _reads(client) or (await _verify(service)).count:
        assert time.monotonic() < deadline, "not repaired in time"
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_lost_key_is_read_degraded_and_repairs_itself(
    client: httpx.AsyncClient, app: Application, kind: str
) -> None:
    service: Rankline = app.state.service
    await _seed(client)
    assert await _reads(client) == 0  # the top and hot caches hold the leaderboard now
    assert (await _verify(service)).count == 0
    _lose(app, kind)
    assert await _reads(client) > 0  # right, and flagged where the index lost its say
    await _until_repaired(client, service)


@pytest.mark.parametrize("kind", [*KINDS, "registry"])
async def test_rebuild_fixes_what_verify_finds_after_a_lost_key(
    client: httpx.AsyncClient, app: Application, kind: str
) -> None:
    service: Rankline = app.state.service
    await _seed(client)
    assert (await _verify(service)).count == 0
    _lose(app, kind)  # no read until the rebuild: the servers do not repair it first
    found = await _verify(service)
    assert found.count > 0
    rebuilt = await maintenance.rebuild(service.keeper, service.store, service.boards.boards())
    assert (rebuilt.count, rebuilt.fixed, rebuilt.remaining) == (found.count, found.count, 0)
    assert (await _verify(service)).count == 0
    assert await _reads(client) == 0


async def test_the_first_read_after_a_flush_is_degraded_then_the_index_comes_back(
    client: httpx.AsyncClient, app: Application
) -> None:
    service: Rankline = app.state.service
    await _seed(client)
    assert await _reads(client) == 0
    flush_redis(app.state.service.settings.redis_url)
    body = await _get(client, "/top", limit=100)
    assert body.get("degraded") is True and body["total"] == len(PLAYERS)
    body = await _get(client, "/players/p00")
    assert body.get("degraded") is True and body["rank"] == RANKED.index("p00") + 1
    await _until_repaired(client, service)


async def test_the_commands_report_the_differences_and_what_was_fixed(
    client: httpx.AsyncClient, app: Application
) -> None:
    service: Rankline = app.state.service
    settings = service.settings
    urls = {"redis_url": str(settings.redis_url)}
    if settings.database_url:
        urls["database_url"] = str(settings.database_url)
    env = cli_env(settings.data_dir, **urls)
    await _seed(client)
    _lose(app, "entries")
    found = await asyncio.to_thread(run_cli, "verify", env=env, timeout=120)
    # every entry missing, and the counts kept beside them no longer agree
    assert found.returncode == 1, found.stderr
    assert f": {len(PLAYERS) + 1} differences" in found.stderr, found.stderr
    rebuilt = await asyncio.to_thread(run_cli, "rebuild", env=env, timeout=120)
    assert rebuilt.returncode == 0, rebuilt.stderr
    expected = f"found {len(PLAYERS) + 1} differences, fixed {len(PLAYERS) + 1} differences"
    assert expected in rebuilt.stderr, rebuilt.stderr
    verified = await asyncio.to_thread(run_cli, "verify", env=env, timeout=120)
    assert verified.returncode == 0 and ": 0 differences" in verified.stderr, verified.stderr
    assert await _reads(client) == 0


async def test_a_repair_waiting_on_another_worker_ends_with_the_server(
    settings: Settings, clock: ManualClock
) -> None:
    slow = settings.model_copy(update={"index_check_seconds": 30.0})
    async with open_app(slow, clock) as app, open_client(app) as client:
        service: Rankline = app.state.service
        await _seed(client)
        assert service.shared is not None
        assert await service.shared.repair_begin(LB, "another-worker", 60_000)  # its lease runs
        body = await _get(client, "/top")
        assert body.get("degraded") is True  # and this worker waits to repair it
        repairs = service.keeper.repairs
        assert repairs
    assert all(task.done() for task in repairs)


async def test_a_lost_registry_is_put_back_and_deleting_the_board_clears_it(
    client: httpx.AsyncClient, app: Application
) -> None:
    service: Rankline = app.state.service
    await _seed(client)
    _lose(app, "registry")
    assert [d.kind for d in (await _verify(service)).differences] == ["unregistered"]
    assert await _reads(client) == 0  # reads do not need it
    await service.expire_periods()  # the sweep every RANKLINE_RETENTION_SWEEP_SECONDS
    assert (await _verify(service)).count == 0
    response = await client.delete(f"/v1/boards/{BOARD}", headers=AUTH)
    assert response.status_code in (200, 204), response.text
    await put_board(client, BOARD, windows=["all_time"])
    body = await _get(client, "/top")
    assert (body["total"], body["entries"]) == (0, [])  # nothing of the old board


async def test_an_update_missed_while_the_keeper_reloads_is_reloaded_before_it_recovers(
    client: httpx.AsyncClient, app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keeper reloads the leaderboards whose updates the index missed. An update missed
    again after that reload read SQL must not be forgotten when it declares the index back:
    it reloads that leaderboard once more first, so no read is served stale unflagged."""
    service: Rankline = app.state.service
    index, keeper = service.index, service.keeper
    await _seed(client)
    real_apply, real_reload = index.apply, keeper._reload_missed

    async def refused(changes: Any) -> None:
        raise IndexUnavailable("Redis is down (test)")

    async def score(player: str, value: int) -> None:
        body = {"player_id": player, "score": value, "match_id": f"late-{player}"}
        response = await client.post(f"/v1/boards/{BOARD}/scores", json=body, headers=AUTH)
        assert response.status_code == 200, response.text

    reloads = 0

    async def reload_then_miss_again(*args: Any) -> None:
        nonlocal reloads
        reloads += 1
        await real_reload(*args)
        if reloads == 1:  # the reload has read SQL: this update comes after it
            monkeypatch.setattr(index, "apply", refused)
            await score("p01", 2000)
            monkeypatch.setattr(index, "apply", real_apply)

    # In place before the first miss: the keeper may start its reload before the miss's
    # answer reaches this test.
    monkeypatch.setattr(keeper, "_reload_missed", reload_then_miss_again)
    monkeypatch.setattr(index, "apply", refused)
    await score("p00", 1000)
    assert not service.health.usable
    monkeypatch.setattr(index, "apply", real_apply)
    deadline = time.monotonic() + REPAIR_TIMEOUT
    while not (reloads >= 1 and service.health.usable):
        assert time.monotonic() < deadline, "the index did not come back"
        await asyncio.sleep(0.02)
    body = await _get(client, "/top", limit=2)
    assert "degraded" not in body, body
    assert [(e["player_id"], e["score"]) for e in body["entries"]] == [("p01", 2000), ("p00", 1000)]
    assert reloads == 2
