"""Restarts: a new app on the same data dir rebuilds its index from SQLite, and every entry,
rank, board definition and idempotency key is still there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from helpers_api import (
    AUTH,
    get_json,
    open_app,
    open_client,
    put_board,
    ranking,
    serve,
    submit,
    unmoved,
    utc,
)
from helpers_backends import flush_redis
from rankline import ManualClock, Settings
from rankline.types import LeaderboardId

SEASONS = [
    {"id": "s1", "start": "2026-11-01T00:00:00Z", "end": "2026-11-15T00:00:00Z"},
    {"id": "s2", "start": "2026-11-15T00:00:00Z", "end": "2026-12-01T00:00:00Z"},
]
DEFINITION: dict[str, Any] = {
    "title": "Arena",
    "windows": ["all_time", "daily"],
    "scopes": ["region"],
    "seasons": SEASONS,
    "metadata": {"game": "arena"},
}
VIEWS: list[dict[str, str]] = [
    {},
    {"window": "daily"},
    {"window": "daily", "period": "2026-11-20"},
    {"window": "season"},
    {"window": "season", "period": "s1"},
    {"scope": "region:EU"},
    {"window": "daily", "scope": "region:NA"},
]


async def _fill(client: httpx.AsyncClient, clock: ManualClock) -> None:
    await put_board(client, "arena", **DEFINITION)
    await put_board(client, "speed", order="asc", policy="latest")
    clock.set(utc(2026, 11, 10, 12))
    await submit(client, "arena", "old", 50, match="m0")
    clock.set(utc(2026, 11, 20, 12))
    await submit(client, "arena", "yesterday", 40, match="m1", scopes={"region": "EU"})
    clock.set(utc(2026, 11, 21, 12))
    await submit(client, "arena", "b", 2**53 + 1, match="m2", at=utc(2026, 11, 21, 9))
    await submit(client, "arena", "a", 2**53 + 1, match="m3", at=utc(2026, 11, 21, 10))
    await submit(client, "arena", "c", 30, match="m4", scopes={"region": "NA"})
    await submit(client, "arena", "c", 20, match="m5", scopes={"region": "EU"})
    items = [
        {"board": "speed", "player_id": f"r{i}", "score": 100 - i, "match_id": "race"}
        for i in range(5)
    ]
    response = await client.post("/v1/scores/batch", json={"scores": items}, headers=AUTH)
    assert response.status_code == 200


async def _snapshot(client: httpx.AsyncClient) -> dict[str, Any]:
    """Everything a client can read about the two boards."""
    views: dict[str, Any] = {"boards": await get_json(client, "/v1/boards")}
    for params in VIEWS:
        views[f"top {params}"] = await get_json(client, "/v1/boards/arena/top", **params)
    for player in ("a", "b", "c", "old", "yesterday"):
        views[player] = await get_json(client, f"/v1/boards/arena/players/{player}")
    views["around"] = await get_json(client, "/v1/boards/arena/players/c/around", k=1)
    views["periods"] = await get_json(client, "/v1/boards/arena/periods")
    views["speed"] = await get_json(client, "/v1/boards/speed/top")
    ranks = await client.post("/v1/boards/arena/ranks", json={"player_ids": ["c", "a", "x"]})
    views["ranks"] = ranks.json()
    # movement is the live index's: a rebuilt one cannot vouch for it (test_api_movement.py)
    return dict(unmoved(views))


async def test_entries_ranks_and_boards_survive_a_restart(
    settings: Settings, clock: ManualClock
) -> None:
    async with serve(settings, clock) as client:
        await _fill(client, clock)
        before = await _snapshot(client)
    assert before["top {}"]["total"] == 5
    assert [e["player_id"] for e in before["top {}"]["entries"]] == [
        "b",
        "a",
        "old",
        "yesterday",
        "c",
    ]
    async with serve(settings, clock) as client:
        after = await _snapshot(client)
    assert after == before


async def test_idempotency_keys_survive_a_restart(settings: Settings, clock: ManualClock) -> None:
    async with serve(settings, clock) as client:
        await _fill(client, clock)
        before = await _snapshot(client)
    async with serve(settings, clock) as client:
        again = await submit(client, "arena", "c", 20, match="m5", scopes={"region": "EU"})
        assert (again["duplicate"], again["applied"], again["score"]) == (True, False, 30)
        reused = await client.post(
            "/v1/boards/arena/scores",
            json={"player_id": "c", "score": 999, "match_id": "m5", "scopes": {"region": "EU"}},
            headers=AUTH,
        )
        assert reused.status_code == 409
        assert reused.json()["existing"] == {
            "board": "arena",
            "player_id": "c",
            "match_id": "m5",
            "score": 20,
            "at": "2026-11-21T12:00:00.000Z",
            "scopes": {"region": "EU"},
            "metadata": {},
        }
        batch = await client.post(
            "/v1/scores/batch",
            json={
                "scores": [
                    {"board": "speed", "player_id": "r0", "score": 100, "match_id": "race"},
                    {"board": "speed", "player_id": "r1", "score": 1, "match_id": "race"},
                ]
            },
            headers=AUTH,
        )
        results = batch.json()["results"]
        assert results[0]["duplicate"] is True
        assert results[1]["error"]["status"] == 409
        assert results[1]["error"]["existing"]["score"] == 99
        assert await _snapshot(client) == before
        fresh = await submit(client, "arena", "c", 999, match="m6")
        assert (fresh["duplicate"], fresh["applied"], fresh["previous_score"]) == (False, True, 30)
        assert fresh["standings"][0]["rank"] == 3


async def test_writes_after_restart_rank_against_old_entries(
    settings: Settings, clock: ManualClock
) -> None:
    async with serve(settings, clock) as client:
        await _fill(client, clock)
    async with serve(settings, clock) as client:
        # "aa" ties "a" on score and achieved_at, so it ranks right after "a" (bytewise)
        answer = await submit(
            client, "arena", "aa", 2**53 + 1, match="n1", at=utc(2026, 11, 21, 10)
        )
        assert answer["standings"][0]["rank"] == 3
        assert await ranking(client, "arena") == [
            ("b", 2**53 + 1),
            ("a", 2**53 + 1),
            ("aa", 2**53 + 1),
            ("old", 50),
            ("yesterday", 40),
            ("c", 30),
        ]
        first = await get_json(client, "/v1/boards/arena/players/a")
        assert first["achieved_at"] == "2026-11-21T10:00:00.000Z"
        assert first["competition_rank"] == 1


async def test_index_is_rebuilt_from_sqlite(settings: Settings, clock: ManualClock) -> None:
    async with open_app(settings, clock) as app, open_client(app) as client:
        await _fill(client, clock)
        # the daily 2026-11-10 is past its 7 days of retention: a restart does not load it
        expired = await app.state.service.expire_periods()
        assert expired == [LeaderboardId("arena", "daily", "2026-11-10", "global")]
        index = app.state.service.index
        live = {b: set(await index.leaderboards(b)) for b in ("arena", "speed")}
        sizes = {lb: await index.total(lb) for lbs in live.values() for lb in lbs}
    assert LeaderboardId("arena", "season", "s1", "global") in live["arena"]
    if settings.redis_url:
        flush_redis(settings.redis_url)  # a shared index survives a restart; lose it here
    async with open_app(settings, clock) as app:
        service = app.state.service
        assert service.index is not index
        rebuilt = {b: set(await service.index.leaderboards(b)) for b in ("arena", "speed")}
        assert rebuilt == live, rebuilt["arena"] ^ live["arena"]
        assert {lb: await service.index.total(lb) for lb in sizes} == sizes
        standings = await service.store.count_standings()
        assert standings == sum(sizes.values()) + 1  # the expired one stays in SQL
        async with open_client(app) as client:
            ready = await get_json(client, "/readyz")
            assert ready["ready"] is True
            loaded = sum(sizes.values())
            assert ready["rebuild"] == {"done": loaded, "total": standings}


async def test_board_updates_after_restart_follow_the_same_rules(
    settings: Settings, clock: ManualClock
) -> None:
    async with serve(settings, clock) as client:
        await _fill(client, clock)
        shown = await get_json(client, "/v1/boards/arena")
    async with serve(settings, clock) as client:
        assert await get_json(client, "/v1/boards/arena") == shown
        # the same definition again, and what GET shows, are no change
        assert await put_board(client, "arena", expect=200, **DEFINITION) == shown
        assert await put_board(client, "arena", expect=200, **shown) == shown
        for change in ({"order": "asc"}, {"scopes": []}, {"seasons": SEASONS[:1]}):
            response = await client.put(
                "/v1/boards/arena", json={**DEFINITION, **change}, headers=AUTH
            )
            assert response.status_code == 409, change
        frozen = await put_board(client, "arena", expect=200, **{**DEFINITION, "status": "frozen"})
        assert frozen["status"] == "frozen"
    async with serve(settings, clock) as client:
        assert (await get_json(client, "/v1/boards/arena"))["status"] == "frozen"
        response = await client.post(
            "/v1/boards/arena/scores",
            json={"player_id": "z", "score": 1, "match_id": "z"},
            headers=AUTH,
        )
        assert response.status_code == 409


async def test_deleted_board_stays_deleted(settings: Settings, clock: ManualClock) -> None:
    async with serve(settings, clock) as client:
        await _fill(client, clock)
        assert (await client.delete("/v1/boards/arena", headers=AUTH)).status_code == 204
    async with serve(settings, clock) as client:
        assert (await client.get("/v1/boards/arena")).status_code == 404
        assert [b["id"] for b in (await get_json(client, "/v1/boards"))["boards"]] == ["speed"]
        await put_board(client, "arena", **DEFINITION)
        assert await ranking(client, "arena") == []
        again = await submit(client, "arena", "c", 5, match="m4")
        assert again["duplicate"] is False


async def test_expired_periods_are_not_rebuilt(settings: Settings, clock: ManualClock) -> None:
    async with serve(settings, clock) as client:
        await put_board(client, "arena", windows=["all_time", "daily"], retention_days={"daily": 1})
        await submit(client, "arena", "p1", 10)
    clock.set(utc(2026, 11, 23, 0, 5))  # 2026-11-21 ended + 300 s grace + 1 day
    async with open_app(settings, clock) as app:
        live = await app.state.service.index.leaderboards("arena")
        assert live == [LeaderboardId("arena", "all_time", "all", "global")]
        async with open_client(app) as client:
            assert await ranking(client, "arena") == [("p1", 10)]


async def test_fresh_data_dir_is_migrated_and_restarts(tmp_path: Path, clock: ManualClock) -> None:
    settings = Settings(data_dir=tmp_path / "fresh", server_keys="fresh-key")
    headers = {"Authorization": "Bearer fresh-key"}
    async with serve(settings, clock) as client:
        response = await client.put("/v1/boards/arena", json={}, headers=headers)
        assert response.status_code == 201
        response = await client.post(
            "/v1/boards/arena/scores",
            json={"player_id": "p1", "score": 3, "match_id": "m1"},
            headers=headers,
        )
        assert response.status_code == 200
    assert (tmp_path / "fresh" / "rankline.db").exists()
    async with serve(settings, clock) as client:
        assert await ranking(client, "arena") == [("p1", 3)]
