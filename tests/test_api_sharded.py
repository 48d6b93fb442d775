"""Sharded boards through the whole API: every answer equals the unsharded twin's.

Two boards with the same definition, one with ``"shards": S``, get the same submissions;
every read (top at many offsets, player, around, friends, bulk ranks, periods, the archive
past retention) must then answer the same, field for field, on every backend of the matrix
(the in-process index simulates the split as the Redis one does). Bans, erasure, the
index's rebuild and verify, and a lost shard key are checked the same way.
"""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest

from helpers_api import (
    AUTH,
    MOVEMENT,
    assert_problem,
    get_json,
    open_app,
    open_client,
    put_board,
    utc,
)
from helpers_backends import flush_redis, redis_client
from rankline import ManualClock, Settings
from rankline.http.app import Application
from rankline.index import maintenance, sharding
from rankline.index.redis import keys as k
from rankline.ordering import SCORE_MAX, SCORE_MIN
from rankline.service import Rankline
from rankline.types import LeaderboardId

FLAT, SPLIT = "flat", "split"
DEFINITION: dict[str, Any] = {"windows": ["all_time", "daily", "weekly"], "scopes": ["region"]}
SCORES = [SCORE_MIN, SCORE_MIN + 1, -(2**53) - 1, -7, 0, 0, 1, 5, 5, 5, 2**53 + 1, SCORE_MAX]
REGIONS = ["EU", "US", "AP"]
PLAYERS = [f"p:{i}" for i in range(60)] + ["A", "z_9", "a.b@c"]
PARAMS: list[dict[str, Any]] = [
    {},
    {"window": "daily"},
    {"scope": "region:EU"},
    {"window": "weekly", "scope": "region:US"},
]
VOLATILE = {"as_of", "board_id", "board", *MOVEMENT}
"""Movement is kept for an unsharded board only (null on a sharded one)."""


def _same(body: Any) -> Any:
    """An answer without what differs between the twins (the board's id, the time)."""
    if isinstance(body, dict):
        return {key: _same(value) for key, value in body.items() if key not in VOLATILE}
    if isinstance(body, list):
        return [_same(value) for value in body]
    return body


def _submissions(seed: int, count: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    items = []
    for n in range(count):
        player = rng.choice(PLAYERS)
        item: dict[str, Any] = {
            "player_id": player,
            "score": rng.choice(SCORES) if rng.random() < 0.5 else rng.randint(-20, 20),
            "match_id": f"m{n}",
            "at": f"2026-11-{rng.choice((20, 21)):02d}T{rng.randint(0, 11):02d}:00:00Z",
        }
        if rng.random() < 0.7:
            item["scopes"] = {"region": rng.choice(REGIONS)}
        items.append(item)
    return items


async def _twins(client: httpx.AsyncClient, shards: int, **definition: Any) -> None:
    spec = {**DEFINITION, **definition}
    await put_board(client, FLAT, **spec)
    body = await put_board(client, SPLIT, **spec, shards=shards)
    assert body["shards"] == shards


async def _submit_both(client: httpx.AsyncClient, items: list[dict[str, Any]]) -> None:
    for start in range(0, len(items), 1000):
        part = items[start : start + 1000]
        answers = []
        for board in (FLAT, SPLIT):
            batch = [{**item, "board": board} for item in part]
            response = await client.post("/v1/scores/batch", json={"scores": batch}, headers=AUTH)
            assert response.status_code == 200, response.text
            answers.append(_same(response.json()))
        assert answers[0] == answers[1]  # the ranks each submission answered with, too


async def _both(
    client: httpx.AsyncClient, method: str, path: str, **kwargs: Any
) -> tuple[int, Any]:
    """The twins' answers to one request (``{board}`` in the path); asserts they agree."""
    seen = []
    for board in (FLAT, SPLIT):
        response = await client.request(method, path.format(board=board), **kwargs)
        body = response.json() if response.content else None
        seen.append((response.status_code, _same(body)))
    assert seen[0] == seen[1], (method, path, kwargs)
    return seen[0]


async def _compare_reads(
    client: httpx.AsyncClient, rng: random.Random, every: list[dict[str, Any]] = PARAMS
) -> int:
    """Every read on both twins; returns how many answers were compared."""
    compared = 0
    for params in every:
        status, body = await _both(client, "GET", "/v1/boards/{board}/top", params=params)
        assert status == 200
        total = body["total"]
        for offset, limit in ((0, 1000), (0, 7), (3, 10), (total - 5, 20), (total, 5)):
            query = {**params, "offset": max(0, offset), "limit": limit}
            status, _ = await _both(client, "GET", "/v1/boards/{board}/top", params=query)
            assert status == 200
            compared += 1
        for player in [*PLAYERS, "ghost"]:
            await _both(client, "GET", f"/v1/boards/{{board}}/players/{player}", params=params)
            compared += 1
        for player in rng.sample(PLAYERS, 12):
            for near in (0, 1, 3, 50):
                path = f"/v1/boards/{{board}}/players/{player}/around"
                await _both(client, "GET", path, params={**params, "k": near})
                compared += 1
            friends = [*rng.sample(PLAYERS, rng.randint(0, 20)), "ghost"]
            path = f"/v1/boards/{{board}}/players/{player}/friends"
            await _both(client, "POST", path, params=params, json={"friends": friends})
            compared += 1
        asked = [*rng.sample(PLAYERS, 30), "ghost"]
        await _both(
            client, "POST", "/v1/boards/{board}/ranks", params=params, json={"players": asked}
        )
    if every is PARAMS:
        await _both(client, "GET", "/v1/boards/{board}/periods", params={"window": "daily"})
    return compared


@pytest.mark.parametrize("shards", [3, 7])
async def test_a_sharded_board_answers_as_its_unsharded_twin(
    app: Application, client: httpx.AsyncClient, shards: int
) -> None:
    service: Rankline = app.state.service
    await _twins(client, shards)
    rng = random.Random(shards)
    await _submit_both(client, _submissions(shards, 400))
    # the split is real: the index underneath holds S parts of each leaderboard
    held = await service.index.inner.leaderboards(SPLIT)
    lb = LeaderboardId(SPLIT, "all_time", "all", "global")
    assert set(sharding.shards_of(lb, shards)) <= set(held)
    assert all(sharding.parse(name) is not None for name in held)
    listed = [
        sorted(lb[1:] for lb in await service.index.leaderboards(board)) for board in (FLAT, SPLIT)
    ]
    assert listed[0] == listed[1] != []
    assert await _compare_reads(client, rng) > 500
    # an asc board with the sum policy too
    for board in (FLAT, SPLIT):
        assert (await client.delete(f"/v1/boards/{board}", headers=AUTH)).status_code == 204
    await _twins(client, shards, order="asc", policy="sum")
    await _submit_both(client, _submissions(shards + 100, 300))
    await _compare_reads(client, rng)


async def test_bans_and_erasure_on_a_sharded_board(client: httpx.AsyncClient) -> None:
    await _twins(client, 7)
    await _submit_both(client, _submissions(5, 300))
    rng = random.Random(5)
    for victim in ("p:1", "p:2", "A"):
        response = await client.post(f"/v1/players/{victim}/ban", headers=AUTH)
        assert response.status_code == 200, response.text
    status, _ = await _both(client, "GET", "/v1/boards/{board}/players/p:1")
    assert status == 404
    await _compare_reads(client, rng)
    assert (await client.delete("/v1/players/p:2/ban", headers=AUTH)).status_code in (200, 204)
    assert (await client.delete("/v1/players/z_9", headers=AUTH)).status_code == 204
    status, _ = await _both(client, "GET", "/v1/boards/{board}/players/z_9")
    assert status == 404
    status, _ = await _both(client, "GET", "/v1/boards/{board}/players/p:2")
    assert status == 200
    await _compare_reads(client, rng)


async def test_deep_pages_of_a_sharded_board(client: httpx.AsyncClient) -> None:
    await _twins(client, 7, windows=["all_time"], scopes=[])
    items = [{"player_id": f"q{n:05d}", "score": n % 97, "match_id": "one"} for n in range(5_300)]
    await _submit_both(client, items)
    for offset in (0, 4_990, 5_000, 5_123, 5_290, 5_300):
        status, body = await _both(
            client, "GET", "/v1/boards/{board}/top", params={"offset": offset, "limit": 100}
        )
        assert status == 200 and body["total"] == 5_300
    for player in ("q00000", "q05299", "q02500"):
        await _both(
            client, "GET", f"/v1/boards/{{board}}/players/{player}/around", params={"k": 20}
        )


async def test_periods_past_retention_read_the_archive_on_a_sharded_board(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    service: Rankline = app.state.service
    await _twins(client, 3)
    await _submit_both(client, _submissions(9, 200))
    day = {"window": "daily", "period": "2026-11-21"}
    _, before = await _both(client, "GET", "/v1/boards/{board}/top", params=day)
    clock.set(utc(2026, 12, 1, 12))  # past the daily retention (7 days)
    assert await service.archive_periods()
    dropped = await service.expire_periods()
    assert LeaderboardId(SPLIT, "daily", "2026-11-21", "global") in dropped
    assert not [lb for lb in await service.index.inner.leaderboards(SPLIT) if lb.window == "daily"]
    _, after = await _both(client, "GET", "/v1/boards/{board}/top", params=day)
    assert after["archived"] is True and after["entries"] == before["entries"]
    await _both(client, "GET", "/v1/boards/{board}/players/p:3", params=day)


async def test_shards_change_freely_until_the_board_has_entries(client: httpx.AsyncClient) -> None:
    await put_board(client, SPLIT, shards=5)
    body = await put_board(client, SPLIT, expect=200, shards=2)
    assert body["shards"] == 2
    assert (await get_json(client, f"/v1/boards/{SPLIT}"))["shards"] == 2
    response = await client.post(
        f"/v1/boards/{SPLIT}/scores",
        json={"player_id": "p", "score": 1, "match_id": "m"},
        headers=AUTH,
    )
    assert response.status_code == 200, response.text
    assert_problem(await client.put(f"/v1/boards/{SPLIT}", json={"shards": 3}, headers=AUTH), 409)
    assert (await put_board(client, SPLIT, expect=200, shards=2, title="x"))["title"] == "x"
    schema = (await get_json(client, "/openapi.json"))["components"]["schemas"]
    spec = next(s for name, s in schema.items() if "shards" in s.get("properties", {}))
    assert spec["properties"]["shards"]["minimum"] == 1
    assert spec["properties"]["shards"]["maximum"] == 64


async def test_rebuild_and_verify_a_sharded_board(
    app: Application, client: httpx.AsyncClient
) -> None:
    service: Rankline = app.state.service
    await _twins(client, 3, windows=["all_time"], scopes=[])
    await _submit_both(client, _submissions(11, 200))
    boards = service.boards.boards()
    report = await maintenance.verify(service.keeper, service.store, boards)
    assert (report.count, report.leaderboards) == (0, 2)
    assert report.entries == 2 * len(
        await service.index.slice(LeaderboardId(SPLIT, "all_time", "all", "global"), 0, 10_000)
    )
    if service.shared is not None:
        # a shard loses its sorted set: verify sees it, rebuild fixes exactly that
        lb = LeaderboardId(SPLIT, "all_time", "all", "global")
        url = service.settings.redis_url
        assert url is not None
        with redis_client(url) as r:
            assert r.delete(k.entries(sharding.shard(lb, 1, 3))) == 1
        report = await maintenance.verify(service.keeper, service.store, boards)
        assert report.count > 0
        assert {d.kind for d in report.differences} >= {"damaged", "missing"}
        rebuilt = await maintenance.rebuild(service.keeper, service.store, boards)
        assert (rebuilt.fixed, rebuilt.remaining) == (rebuilt.count, 0), rebuilt
    report = await maintenance.verify(service.keeper, service.store, boards)
    assert report.count == 0
    await _compare_reads(client, random.Random(11), [{}])


async def test_a_restart_rebuilds_the_shards_from_sql(
    settings: Settings, clock: ManualClock
) -> None:
    """The in-process index loads each shard whole at start (``load_keys``); a lost Redis
    index is rebuilt through ``fill``: either way the twins answer alike again."""
    async with open_app(settings, clock) as app, open_client(app) as client:
        await _twins(client, 7)
        await _submit_both(client, _submissions(21, 300))
        _, before = await _both(client, "GET", "/v1/boards/{board}/top", params={"limit": 1000})
    if settings.redis_url:
        flush_redis(settings.redis_url)
    async with open_app(settings, clock) as app, open_client(app) as client:
        service: Rankline = app.state.service
        held = await service.index.inner.leaderboards(SPLIT)
        assert held and all(sharding.parse(name) is not None for name in held)
        _, after = await _both(client, "GET", "/v1/boards/{board}/top", params={"limit": 1000})
        assert after == before and before["total"] > 0
        await _compare_reads(client, random.Random(21))
