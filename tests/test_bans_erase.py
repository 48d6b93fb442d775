"""Bans and erasure. A ban takes a player off every leaderboard (every board, period and
scope) and the others close the gap; their scores stay in SQL, and new submissions are
recorded but not shown; unban brings back exactly what SQL holds. This holds on the index,
on the degraded SQL read path and through a rebuild. Erasure leaves nothing of the player
in SQL or in the index."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from helpers_api import (
    AUTH,
    assert_problem,
    get_json,
    open_app,
    open_client,
    put_board,
    submit,
    top,
    unmoved,
    utc,
)
from helpers_backends import ALL, flush_redis, redis_client, selected
from rankline import ManualClock, Settings
from rankline.errors import IndexUnavailable
from rankline.http.app import Application
from rankline.ordering import encode
from rankline.players import accounts as players_module
from rankline.service import Rankline
from rankline.store import schema
from rankline.types import IndexChange, LeaderboardId

PLAYERS = [f"p{i}" for i in range(5)]
LEADERBOARDS = [
    ("arena", {"window": w, "scope": s})
    for w in ("all_time", "daily")
    for s in ("global", "region:EU", "region:US")
] + [("sprint", {"window": "weekly"})]

# Only a shared (Redis) index can be unreachable or have other workers writing to it.
SHARED = [name for name in selected() if ALL[name].redis_url]
SHARED_STACKS = pytest.mark.parametrize("stack", [ALL[n] for n in SHARED], ids=SHARED)


def _at(minute: int) -> str:
    return f"2026-11-21T10:{minute:02d}:00.000Z"


async def _setup(client: httpx.AsyncClient) -> None:
    """arena (desc; all_time, daily; region): p0..p4 scoring 50..10, EU and US alternating;
    sprint (asc, weekly): the same players, p4 fastest."""
    await put_board(client, "arena", windows=["all_time", "daily"], scopes=["region"])
    await put_board(client, "sprint", order="asc", windows=["weekly"])
    for i, player in enumerate(PLAYERS):
        region = "EU" if i % 2 == 0 else "US"
        await submit(client, "arena", player, 50 - 10 * i, at=_at(i), scopes={"region": region})
        await submit(client, "sprint", player, 100 - i, at=_at(i))


async def _snapshot(client: httpx.AsyncClient) -> dict[str, Any]:
    """Every leaderboard read there is, for comparing states."""
    found: dict[str, Any] = {}
    for board, params in LEADERBOARDS:
        name = f"{board} {params}"
        body = await top(client, board, **params)
        body.pop("degraded", None)
        found[name] = body
        for player in PLAYERS:
            response = await client.get(f"/v1/boards/{board}/players/{player}", params=params)
            found[f"{name} {player}"] = response.status_code, response.json()
            found[f"{name} {player}"][1].pop("degraded", None)
    # an unban restores entries, not the movement the index saw (test_api_movement.py)
    return dict(unmoved(found))


def _ranked(body: dict[str, Any]) -> list[tuple[int, str]]:
    return [(e["rank"], e["player_id"]) for e in body["entries"]]


async def _ban(client: httpx.AsyncClient, player: str) -> dict[str, Any]:
    response = await client.post(f"/v1/players/{player}/ban", headers=AUTH)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def _unban(client: httpx.AsyncClient, player: str) -> None:
    response = await client.delete(f"/v1/players/{player}/ban", headers=AUTH)
    assert response.status_code == 200, response.text
    assert response.json() == {"player_id": player, "banned": False, "banned_at": None}


async def _assert_hidden(client: httpx.AsyncClient, player: str, degraded: bool = False) -> None:
    """The player is on no leaderboard and the others' ranks have no gap."""
    for board, params in LEADERBOARDS:
        body = await top(client, board, **params)
        assert body.get("degraded", False) is degraded, body
        ids = [e["player_id"] for e in body["entries"]]
        assert player not in ids, (board, params)
        assert [e["rank"] for e in body["entries"]] == list(range(1, len(ids) + 1))
        assert body["total"] == len(ids)
        response = await client.get(f"/v1/boards/{board}/players/{player}", params=params)
        assert_problem(response, 404)
        for other in ids:
            around = await get_json(client, f"/v1/boards/{board}/players/{other}/around", **params)
            assert player not in [e["player_id"] for e in around["entries"]]
            assert around["total"] == len(ids)
        ranks = await client.post(
            f"/v1/boards/{board}/ranks", json={"player_ids": PLAYERS}, params=params
        )
        assert [e["player_id"] for e in ranks.json()["entries"]] == ids
        friends = await client.post(
            f"/v1/boards/{board}/players/{player}/friends",
            json={"friends": PLAYERS},
            params=params,
        )
        assert friends.json()["player"] is None
        assert [e["player_id"] for e in friends.json()["entries"]] == ids


def _force_degraded(app: Application, monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Send reads to the SQL path (as while Redis is down) until the returned undo runs."""
    service: Rankline = app.state.service
    service.health.degrade("test")
    if not service.keeper.shared:
        return lambda: None  # nothing brings an in-process index back by itself

    async def unreachable() -> None:
        raise IndexUnavailable("Redis is unreachable (test)")

    # the watcher pings before it brings the index back
    monkeypatch.setattr(service.keeper.shared, "ping", unreachable)
    return lambda: monkeypatch.undo()


# --- ban and unban --------------------------------------------------------------------


async def test_ban_hides_everywhere_and_unban_restores_exactly(
    client: httpx.AsyncClient,
) -> None:
    await _setup(client)
    before = await _snapshot(client)
    assert _ranked(before["arena {'window': 'all_time', 'scope': 'global'}"])[:3] == [
        (1, "p0"),
        (2, "p1"),
        (3, "p2"),
    ]
    body = await _ban(client, "p1")
    assert body == {"player_id": "p1", "banned": True, "banned_at": "2026-11-21T12:00:00.000Z"}
    await _assert_hidden(client, "p1")
    after = await _snapshot(client)
    assert _ranked(after["arena {'window': 'all_time', 'scope': 'global'}"]) == [
        (1, "p0"),
        (2, "p2"),
        (3, "p3"),
        (4, "p4"),
    ]
    assert _ranked(after["arena {'window': 'daily', 'scope': 'region:US'}"]) == [(1, "p3")]
    assert after["arena {'window': 'all_time', 'scope': 'global'} p2"][1]["rank"] == 2
    # the profile shows the ban and the kept scores, without ranks
    profile = await get_json(client, "/v1/players/p1")
    assert profile["banned"] is True
    assert {(s["board"], s["score"], s["rank"]) for s in profile["standings"]} == {
        ("arena", 40, None),
        ("sprint", 99, None),
    }
    await _unban(client, "p1")
    assert await _snapshot(client) == before
    assert (await get_json(client, "/v1/players/p1"))["banned"] is False


async def test_ban_twice_keeps_the_first_time_and_unban_of_no_ban_is_404(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await _setup(client)
    first = await _ban(client, "p1")
    clock.advance(60)
    assert await _ban(client, "p1") == first
    await _unban(client, "p1")
    assert_problem(await client.delete("/v1/players/p1/ban", headers=AUTH), 404)
    assert_problem(await client.post("/v1/players/p1/ban"), 401)
    assert_problem(await client.delete("/v1/players/p1/ban"), 401)
    response = await client.post("/v1/players/bad%20id/ban", headers=AUTH)
    assert_problem(response, 422)


async def test_submissions_while_banned_are_recorded_and_shown_after_unban(
    client: httpx.AsyncClient,
) -> None:
    await _setup(client)
    await _ban(client, "p3")
    await _ban(client, "newbie")  # a player may be banned before their first entry
    shown = await top(client, "arena")
    answer = await submit(
        client, "arena", "p3", 99, "comeback", at=_at(30), scopes={"region": "US"}
    )
    assert answer["applied"] is True and answer["score"] == 99
    assert all(s["rank"] is None and s["score"] == 99 for s in answer["standings"])
    batch = await client.post(
        "/v1/scores/batch",
        json={
            "scores": [
                {"board": "arena", "player_id": "newbie", "score": 1, "match_id": "n1"},
                {"board": "arena", "player_id": "p2", "score": 45, "match_id": "m2", "at": _at(31)},
            ]
        },
        headers=AUTH,
    )
    results = batch.json()["results"]
    assert results[0]["standings"][0]["rank"] is None
    assert results[1]["standings"][0]["rank"] == 2  # p0 50, p2 45 (p3 is hidden)
    assert _ranked(await top(client, "arena")) == [(1, "p0"), (2, "p2"), (3, "p1"), (4, "p4")]
    assert shown["total"] == 4
    history = await get_json(client, "/v1/players/p3/history", board="arena")
    latest = history["items"][0]
    assert (latest["match_id"], latest["score"], latest["applied"]) == ("comeback", 99, True)
    await _unban(client, "p3")
    await _unban(client, "newbie")
    body = await top(client, "arena")
    assert body["entries"][0] == {
        "rank": 1,
        "player_id": "p3",
        "score": 99,
        "achieved_at": _at(30),
    }
    assert _ranked(body) == [(1, "p3"), (2, "p0"), (3, "p2"), (4, "p1"), (5, "p4"), (6, "newbie")]
    us = await top(client, "arena", window="daily", scope="region:US")
    assert _ranked(us)[0] == (1, "p3")


async def test_degraded_reads_hide_banned_players(
    app: Application, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _setup(client)
    before = await _snapshot(client)
    await _ban(client, "p0")
    undo = _force_degraded(app, monkeypatch)
    try:
        await _assert_hidden(client, "p0", degraded=True)
        body = await top(client, "arena")
        assert _ranked(body) == [(1, "p1"), (2, "p2"), (3, "p3"), (4, "p4")]
        player = await get_json(client, "/v1/boards/arena/players/p4")
        assert (player["rank"], player["competition_rank"], player["total"]) == (4, 4, 4)
        assert player["percentile"] == 0
        await _unban(client, "p0")
        assert await _snapshot(client) == before
        await _ban(client, "p2")
        await _assert_hidden(client, "p2", degraded=True)
    finally:
        undo()
    await _unban(client, "p2")
    assert await _snapshot(client) == before


async def test_rebuild_leaves_banned_players_out(settings: Settings, clock: ManualClock) -> None:
    async with open_app(settings, clock) as app, open_client(app) as client:
        await _setup(client)
        before = await _snapshot(client)
        await _ban(client, "p2")
        await submit(client, "arena", "p2", 1000, "while-banned", at=_at(40))
    if settings.redis_url is not None:
        flush_redis(settings.redis_url)  # a lost Redis: the next start rebuilds from SQL
    async with open_app(settings, clock) as app, open_client(app) as client:
        await _assert_hidden(client, "p2")
        await _unban(client, "p2")
        after = await _snapshot(client)
    changed = {k for k in before if before[k] != after[k]}
    # only what the submission made while banned changed: p2's arena standings
    assert changed and all(k.startswith("arena") for k in changed)
    body = after["arena {'window': 'all_time', 'scope': 'global'}"]
    assert body["entries"][0] == {
        "rank": 1,
        "player_id": "p2",
        "score": 1000,
        "achieved_at": _at(40),
    }
    assert before["sprint {'window': 'weekly'}"] == after["sprint {'window': 'weekly'}"]


@SHARED_STACKS
async def test_a_ban_the_index_missed_is_applied_when_it_recovers(
    app: Application, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    service: Rankline = app.state.service
    assert service.keeper.shared
    await _setup(client)
    index = service.index
    real_apply = index.apply

    async def failing(changes: list[IndexChange]) -> None:
        raise IndexUnavailable("Redis is down (test)")

    monkeypatch.setattr(index, "apply", failing)
    await _ban(client, "p1")  # recorded in SQL; the index could not take it
    await _assert_hidden(client, "p1", degraded=True)
    monkeypatch.setattr(index, "apply", real_apply)
    for _ in range(100):
        if service.health.usable:
            break
        await asyncio.sleep(0.05)
    assert service.health.usable
    await _assert_hidden(client, "p1")


@SHARED_STACKS
async def test_a_late_batch_of_another_worker_is_taken_off_again(
    app: Application, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another worker's batch that committed just before the ban may reach the shared index
    just after it; the ban's second pass takes it off again."""
    service: Rankline = app.state.service
    assert service.keeper.shared
    monkeypatch.setattr(players_module, "_SETTLE_SECONDS", 0.2)
    await _setup(client)
    board = service.boards.get("arena")
    leaderboard = LeaderboardId("arena", "all_time", "all", "global")
    await _ban(client, "p1")
    late = encode(45, 0, "p1", board.order)
    await service.index.apply([IndexChange(leaderboard, "p1", late, 2)])
    assert "p1" in [e["player_id"] for e in (await top(client, "arena"))["entries"]]
    for _ in range(100):
        await asyncio.sleep(0.05)
        if "p1" not in [e["player_id"] for e in (await top(client, "arena"))["entries"]]:
            break
    await _assert_hidden(client, "p1")


# --- erasure --------------------------------------------------------------------------


async def _sql_traces(service: Rankline, player: str) -> dict[str, int]:
    """Rows naming the player, per table and column, across every rankline table."""
    found: dict[str, int] = {}
    async with service.store.engine.connect() as conn:
        for table in schema.metadata.sorted_tables:
            for column in table.columns:
                if column.name in ("player_id", "friend_id"):
                    query = sa.select(sa.func.count()).where(column == player)
                    found[f"{table.name}.{column.name}"] = int((await conn.scalar(query)) or 0)
    return found


def _redis_traces(url: str, player: str) -> list[str]:
    """Redis keys whose members, fields or values name the player."""
    wanted = player.encode()
    client = redis_client(url)
    found = []
    try:
        for key in client.scan_iter(count=1000):
            kind = client.type(key).decode()
            if kind == "zset":
                hit = any(m[16:] == wanted for m in client.zrange(key, 0, -1))
            elif kind == "hash":
                hit = client.hexists(key, wanted)
            elif kind == "set":
                hit = any(wanted in m.split(b"|") for m in client.smembers(key))
            elif kind == "string":
                hit = wanted in (client.get(key) or b"")
            else:
                hit = wanted in key
            if hit or wanted in key.split(b"|"):
                found.append(key.decode())
    finally:
        client.close()
    return found


async def test_erase_leaves_nothing_of_the_player(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    service: Rankline = app.state.service
    await _setup(client)
    victim = "p1"
    await client.put(
        f"/v1/players/{victim}", json={"display_name": "Gone", "country": "SE"}, headers=AUTH
    )
    await client.put(f"/v1/players/{victim}/friends", json={"friends": ["p0", "p2"]}, headers=AUTH)
    await client.put("/v1/players/p3/friends", json={"friends": [victim, "p4"]}, headers=AUTH)
    # a day later: yesterday's daily leaderboards are archived, and there is a new one
    clock.set(utc(2026, 11, 22, 1))
    archived = await service.archive_periods()
    assert archived, "the closed daily period should have been archived"
    await submit(client, "arena", victim, 5, "today", scopes={"region": "US"})
    await submit(client, "arena", "p4", 7, "today")
    assert (await _sql_traces(service, victim))["rl_archive.player_id"] > 0
    assert any(v for v in (await _sql_traces(service, victim)).values())

    response = await client.delete(f"/v1/players/{victim}", headers=AUTH)
    assert response.status_code == 204, response.text
    assert await _sql_traces(service, victim) == dict.fromkeys(
        await _sql_traces(service, "nobody"), 0
    )
    for board in ("arena", "sprint"):
        leaderboards = await service.index.leaderboards(board)
        assert leaderboards
        for leaderboard in leaderboards:
            assert await service.index.position(leaderboard, victim) is None, leaderboard
    if service.settings.redis_url is not None:
        assert _redis_traces(service.settings.redis_url, victim) == []
        assert _redis_traces(service.settings.redis_url, "p2") != []  # the scan does find
    # the others closed up, everywhere, and the archive's ranks have no gap
    assert _ranked(await top(client, "arena")) == [(1, "p0"), (2, "p2"), (3, "p3"), (4, "p4")]
    daily = await top(client, "arena", window="daily", period="2026-11-21")
    assert _ranked(daily) == [(1, "p0"), (2, "p2"), (3, "p3"), (4, "p4")]
    assert _ranked(await top(client, "arena", window="daily")) == [(1, "p4")]
    async with service.store.engine.connect() as conn:
        ranks = (
            await conn.execute(
                sa.select(schema.archive.c.scope, schema.archive.c.rank).order_by(
                    schema.archive.c.scope, schema.archive.c.rank
                )
            )
        ).all()
    by_scope: dict[str, list[int]] = {}
    for scope, rank in ranks:
        by_scope.setdefault(scope, []).append(rank)
    assert by_scope and all(r == list(range(1, len(r) + 1)) for r in by_scope.values())
    # nothing to read, nothing left to erase
    assert_problem(await client.get(f"/v1/players/{victim}"), 404)
    history = await get_json(client, f"/v1/players/{victim}/history")
    assert history["items"] == []
    assert (await get_json(client, "/v1/players/p3/friends"))["friends"] == ["p4"]
    assert_problem(await client.delete(f"/v1/players/{victim}", headers=AUTH), 404)
    # the id may be used again from scratch
    await submit(client, "arena", victim, 1, "again")
    assert (await get_json(client, f"/v1/players/{victim}"))["display_name"] is None


async def test_erase_a_banned_player_and_unknown_players(client: httpx.AsyncClient) -> None:
    await _setup(client)
    await _ban(client, "p4")
    response = await client.delete("/v1/players/p4", headers=AUTH)
    assert response.status_code == 204
    assert_problem(await client.delete("/v1/players/p4/ban", headers=AUTH), 404)
    assert _ranked(await top(client, "sprint", window="weekly")) == [
        (1, "p3"),
        (2, "p2"),
        (3, "p1"),
        (4, "p0"),
    ]
    assert_problem(await client.delete("/v1/players/ghost", headers=AUTH), 404)
    assert_problem(await client.delete("/v1/players/p0"), 401)
    assert_problem(await client.delete("/v1/players/bad%20id", headers=AUTH), 422)
