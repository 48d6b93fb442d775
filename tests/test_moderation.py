"""Moderation: an entry removed (everywhere on a board, or on the leaderboards named) and a
period reset, on every stack. Each is exact on every read (ranks close up, totals, dense
ranks), durable (a restart reads the same), leaves the match ids used, comes back only
through a new submission, and is reproduced by ``rankline replay``."""

from __future__ import annotations

import asyncio
import hashlib
import random
from typing import Any

import httpx
import pytest
from sqlalchemy import delete, insert, select

from helpers_api import (
    AUTH,
    SERVER_KEY,
    assert_problem,
    get_json,
    iso,
    open_app,
    open_client,
    post_score,
    put_board,
    ranking,
    submit,
    top,
    utc,
)
from helpers_backends import ALL, flush_redis, selected
from rankline import ManualClock, Settings
from rankline.index import maintenance
from rankline.moderation import entries as entries_module
from rankline.ordering import encode
from rankline.ratings import rerate
from rankline.runtime.clock import parse_time as clock_micros
from rankline.service import Rankline
from rankline.store import schema as t
from rankline.store.sql import SqlStore
from rankline.types import IndexChange, LeaderboardId
from rankline.writing import replay

PLAYERS = [f"p{i}" for i in range(5)]
ACTOR = "key:" + hashlib.sha256(SERVER_KEY.encode()).hexdigest()[:12]
WHERES = [
    {"window": w, "scope": s}
    for w in ("all_time", "daily")
    for s in ("global", "region:EU", "region:US")
]


def _at(minute: int) -> str:
    return f"2026-11-21T10:{minute:02d}:00.000Z"


async def _setup(client: httpx.AsyncClient) -> None:
    """arena (desc, best; all_time and daily; region; dense ranks): p0..p4 scoring
    50, 40, 40, 20, 10, EU and US alternating."""
    await put_board(
        client, "arena", windows=["all_time", "daily"], scopes=["region"], dense_rank=True
    )
    for i, (player, score) in enumerate(zip(PLAYERS, (50, 40, 40, 20, 10), strict=True)):
        region = "EU" if i % 2 == 0 else "US"
        await submit(client, "arena", player, score, at=_at(i), scopes={"region": region})


async def _remove(client: httpx.AsyncClient, player: str, **params: Any) -> dict[str, Any]:
    response = await client.delete(
        f"/v1/boards/arena/players/{player}", params=params, headers=AUTH
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def _views(client: httpx.AsyncClient) -> dict[str, Any]:
    """Every leaderboard's entries and total, and each player's view (or 404) on it."""
    found: dict[str, Any] = {}
    for where in WHERES:
        body = await top(client, "arena", **where)
        found[str(where)] = (
            body["total"],
            [(e["rank"], e["player_id"], e["score"], e["dense_rank"]) for e in body["entries"]],
        )
        for player in PLAYERS:
            response = await client.get(f"/v1/boards/arena/players/{player}", params=where)
            assert response.status_code in (200, 404), response.text
            view = response.json()
            found[f"{where} {player}"] = (
                None
                if response.status_code == 404
                else (view["rank"], view["competition_rank"], view["dense_rank"], view["total"])
            )
    return found


async def test_an_entry_is_removed_where_named_then_everywhere(client: httpx.AsyncClient) -> None:
    await _setup(client)
    body = await _remove(client, "p1", window="daily", reason="reported cheat")
    assert body == {"board": "arena", "player_id": "p1", "window": "daily", "removed": 2}
    views = await _views(client)
    # daily: p1 gone, the others close up, dense ranks too (40 is still held by p2)
    assert views["{'window': 'daily', 'scope': 'global'}"] == (
        4,
        [(1, "p0", 50, 1), (2, "p2", 40, 2), (3, "p3", 20, 3), (4, "p4", 10, 4)],
    )
    assert views["{'window': 'daily', 'scope': 'region:US'}"] == (1, [(1, "p3", 20, 1)])
    assert views["{'window': 'daily', 'scope': 'global'} p1"] is None
    # all-time keeps p1
    assert views["{'window': 'all_time', 'scope': 'global'} p1"] == (2, 2, 2, 5)
    # then everywhere: the rest of p1's entries (all-time global and US)
    body = await _remove(client, "p1")
    assert body == {"board": "arena", "player_id": "p1", "removed": 2}
    for where in WHERES:
        assert "p1" not in [p for p, _ in await ranking(client, "arena", **where)]
    # p2 alone at 40 now: dense ranks and competition ranks close up
    assert (await _views(client))["{'window': 'all_time', 'scope': 'global'}"] == (
        4,
        [(1, "p0", 50, 1), (2, "p2", 40, 2), (3, "p3", 20, 3), (4, "p4", 10, 4)],
    )
    # nothing left: 404; a bad narrowing: 422
    assert_problem(await client.delete("/v1/boards/arena/players/p1", headers=AUTH), 404)
    for params in ({"window": "weekly"}, {"period": "2026-11-21"}, {"scope": "planet:x"}):
        response = await client.delete("/v1/boards/arena/players/p2", params=params, headers=AUTH)
        assert_problem(response, 422)
    assert_problem(await client.delete("/v1/boards/arena/players/p2"), 401)
    assert_problem(await client.delete("/v1/boards/nope/players/p2", headers=AUTH), 404)


async def test_a_removed_entry_comes_back_only_through_a_new_submission(
    client: httpx.AsyncClient,
) -> None:
    await _setup(client)
    await _remove(client, "p0")
    # the match id stays used: the same submission is a duplicate and brings nothing back
    again = await post_score(
        client,
        "arena",
        {
            "player_id": "p0",
            "score": 50,
            "match_id": "m-p0-50",
            "at": _at(0),
            "scopes": {"region": "EU"},
        },
    )
    assert again.status_code == 200, again.text
    assert again.json()["duplicate"] is True
    assert "p0" not in [p for p, _ in await ranking(client, "arena")]
    # a new submission starts afresh: on a best board a lower score now counts
    answer = await submit(client, "arena", "p0", 15, at=_at(9), scopes={"region": "EU"})
    assert answer["previous_score"] is None and answer["applied"] is True
    assert await ranking(client, "arena") == [
        ("p1", 40),
        ("p2", 40),
        ("p3", 20),
        ("p0", 15),
        ("p4", 10),
    ]
    # the player's history keeps every submission
    history = await get_json(client, "/v1/players/p0/history", board="arena")
    assert [item["score"] for item in history["items"]] == [15, 50]


async def test_a_reset_restarts_the_current_period(client: httpx.AsyncClient) -> None:
    await _setup(client)
    response = await client.post(
        "/v1/boards/arena/reset",
        json={"window": "daily", "reason": "event restart"},
        headers=AUTH,
    )
    assert response.status_code == 200, response.text
    assert response.json() == {
        "board": "arena",
        "window": "daily",
        "period": "2026-11-21",
        "removed": 10,
    }
    for scope in ("global", "region:EU", "region:US"):
        body = await top(client, "arena", window="daily", scope=scope)
        assert (body["total"], body["entries"]) == (0, [])
    assert len(await ranking(client, "arena")) == 5  # all-time untouched
    await submit(client, "arena", "p4", 5, at=_at(30), scopes={"region": "EU"})
    assert await ranking(client, "arena", window="daily") == [("p4", 5)]
    # only one scope
    response = await client.post(
        "/v1/boards/arena/reset",
        json={"window": "all_time", "scope": "region:US"},
        headers=AUTH,
    )
    assert response.json()["removed"] == 2
    assert await ranking(client, "arena", scope="region:US") == []
    assert len(await ranking(client, "arena", scope="region:EU")) == 3
    for body in ({"window": "weekly"}, {"scope": "planet:x"}, {"reason": 1}):
        response = await client.post("/v1/boards/arena/reset", json=body, headers=AUTH)
        assert_problem(response, 422)


async def _void(client: httpx.AsyncClient, board: str, match: str, expect: int = 200) -> Any:
    response = await client.post(
        f"/v1/boards/{board}/matches/{match}/void", json={"reason": "fixed"}, headers=AUTH
    )
    assert response.status_code == expect, response.text
    return response.json()


async def test_a_voided_match_is_undone_as_if_never_submitted(client: httpx.AsyncClient) -> None:
    await _setup(client)
    # m1: p0 and p1 improve; p0 then submits a worse score elsewhere (not applied on best)
    await submit(client, "arena", "p0", 90, "m1", at=_at(10), scopes={"region": "EU"})
    await submit(client, "arena", "p1", 80, "m1", at=_at(10), scopes={"region": "US"})
    await submit(client, "arena", "p0", 60, "m2", at=_at(11), scopes={"region": "EU"})
    assert await ranking(client, "arena") == [
        ("p0", 90),
        ("p1", 80),
        ("p2", 40),
        ("p3", 20),
        ("p4", 10),
    ]
    body = await _void(client, "arena", "m1")
    assert body == {"board": "arena", "match_id": "m1", "players": ["p0", "p1"]}
    # p0's best without m1 is 60 (from m2, reached at its time); p1 is back to 40
    for where in WHERES[:2] + WHERES[3:5]:
        assert await ranking(client, "arena", **where) == [
            row
            for row in [("p0", 60), ("p1", 40), ("p2", 40), ("p3", 20), ("p4", 10)]
            if where["scope"] == "global"
            or (where["scope"] == "region:EU") == (row[0] in ("p0", "p2", "p4"))
        ]
    view = await get_json(client, "/v1/boards/arena/players/p0")
    assert view["achieved_at"] == _at(11)
    # dense ranks: 60, 40, 40, 20, 10
    entries = (await top(client, "arena"))["entries"]
    assert [e["dense_rank"] for e in entries] == [1, 2, 2, 3, 4]
    # the match id stays used: the same submission is a duplicate, another payload 409
    again = await post_score(
        client,
        "arena",
        {
            "player_id": "p0",
            "score": 90,
            "match_id": "m1",
            "at": _at(10),
            "scopes": {"region": "EU"},
        },
    )
    assert again.json()["duplicate"] is True and again.json()["score"] == 60
    other = await post_score(client, "arena", {"player_id": "p0", "score": 95, "match_id": "m1"})
    assert_problem(other, 409)
    assert (await ranking(client, "arena"))[0] == ("p0", 60)
    assert_problem(await client.post("/v1/boards/arena/matches/m1/void", headers=AUTH), 409)
    assert_problem(await client.post("/v1/boards/arena/matches/m9/void", headers=AUTH), 404)
    assert_problem(await client.post("/v1/boards/arena/matches/m2/void"), 401)


async def test_a_void_on_a_sum_board_takes_its_scores_out(client: httpx.AsyncClient) -> None:
    await put_board(client, "xp", policy="sum")
    for match, score in (("a", 10), ("b", 20), ("c", 5)):
        await submit(client, "xp", "p0", score, match, at=_at(len(match)))
    await submit(client, "xp", "p1", 7, "b", at=_at(2))
    await _void(client, "xp", "b")
    assert await ranking(client, "xp") == [("p0", 15)]
    assert_problem(await client.get("/v1/boards/xp/players/p1"), 404)
    await submit(client, "xp", "p1", 3, "d", at=_at(5))
    assert await ranking(client, "xp") == [("p0", 15), ("p1", 3)]


async def _standings(store: SqlStore) -> list[tuple[Any, ...]]:
    s = t.standings
    async with store.engine.connect() as conn:
        rows = await conn.execute(select(s).order_by(*s.primary_key.columns))
        return [tuple(r) for r in rows]


@pytest.mark.cases  # every stack replays with flushes; the embedded one also all in memory
@pytest.mark.parametrize("max_held", [3, 1_000_000])
async def test_moderation_survives_a_restart_and_is_reproduced_by_replay(
    settings: Settings, clock: ManualClock, max_held: int
) -> None:
    async with open_app(settings, clock) as app, open_client(app) as client:
        await _setup(client)
        await _remove(client, "p1")
        await submit(client, "arena", "p1", 5, at=_at(20), scopes={"region": "US"})
        await _remove(client, "p2", window="daily", scope="region:EU")
        await submit(client, "arena", "p3", 60, at=_at(21), scopes={"region": "US"})
        reset = await client.post("/v1/boards/arena/reset", json={"window": "daily"}, headers=AUTH)
        assert reset.status_code == 200, reset.text
        await submit(client, "arena", "p4", 30, at=_at(22), scopes={"region": "EU"})
        await submit(client, "arena", "p0", 70, at=_at(23), scopes={"region": "EU"})
        await submit(client, "arena", "p2", 80, "big", at=_at(24), scopes={"region": "EU"})
        await submit(client, "arena", "p3", 75, "big", at=_at(24), scopes={"region": "US"})
        await submit(client, "arena", "p2", 45, "small", at=_at(25), scopes={"region": "EU"})
        await _void(client, "arena", "big")
        views = await _views(client)
        service: Rankline = app.state.service
        rows = await _standings(service.store)
    daily = [r[4] for r in rows if r[1] == "daily" and r[3] == "global"]
    assert daily == ["p0", "p2", "p4"]
    store = SqlStore(settings.database)
    try:
        async with store.engine.begin() as conn:
            await conn.execute(delete(t.standings))
        done = await replay.replay(store, max_held=max_held)
        assert (done.removals, done.voided, done.unexplained) == (3, 2, 0)
        assert await _standings(store) == rows
    finally:
        await store.close()
    if settings.redis_url:
        flush_redis(settings.redis_url)
    async with open_app(settings, clock) as app, open_client(app) as client:
        service = app.state.service
        assert await _views(client) == views
        report = await maintenance.verify(service.keeper, service.store, service.boards.boards())
        assert report.count == 0, report.differences


async def test_a_void_on_a_rating_board_rerates_every_later_match(
    client: httpx.AsyncClient, app: Any
) -> None:
    """The voided board ends where a board that never had the match is, to the last digit,
    and ``ratings verify`` finds its stored states are what its matches give."""
    spec = {
        "policy": "rating",
        "windows": ["all_time", "daily"],
        "rating": {"system": "glicko2", "provisional_rd": 400},
    }
    await put_board(client, "g2", **spec)
    await put_board(client, "twin", **spec)
    rng = random.Random(3)
    for i in range(8):
        a, b, c = rng.sample([f"p{n}" for n in range(5)], 3)
        results = [{"player_id": p, "place": n} for n, p in enumerate((a, b, c), 1)]
        body = {"match_id": f"m{i}", "results": results, "at": _at(i)}
        for board in ("g2", "twin") if i != 4 else ("g2",):
            response = await client.post(f"/v1/boards/{board}/matches", json=body, headers=AUTH)
            assert response.status_code == 200, response.text
    voided = await _void(client, "g2", "m4")
    assert voided["match_id"] == "m4" and len(voided["players"]) == 3
    for where in ({}, {"window": "daily"}):
        assert await ranking(client, "g2", **where) == await ranking(client, "twin", **where)
    for n in range(5):
        mine = await get_json(client, f"/v1/boards/g2/players/p{n}/rating")
        twin = await get_json(client, f"/v1/boards/twin/players/p{n}/rating")
        assert mine["rating"] == twin["rating"]
        history = await get_json(client, f"/v1/players/p{n}/history", board="g2")
        assert "m4" not in [item["match_id"] for item in history["items"]]
    service: Rankline = app.state.service
    report = await rerate.verify(service.ratings, service.boards.get("g2"))
    assert report.identical and report.states > 0, report.differing
    # the id stays used; the same match again is a duplicate and changes nothing
    again = await client.post(
        "/v1/boards/g2/matches",
        json={
            "match_id": "m4",
            "results": [{"player_id": "p0", "place": 1}, {"player_id": "p1", "place": 2}],
        },
        headers=AUTH,
    )
    assert again.status_code in (200, 409), again.text
    assert await ranking(client, "g2") == await ranking(client, "twin")
    _ = await _void(client, "g2", "m4", expect=409)
    # removals and resets are refused on rating boards: an entry is the player's rating
    removal = await client.delete("/v1/boards/g2/players/p0", headers=AUTH)
    assert "void a match" in assert_problem(removal, 409)["detail"]
    assert_problem(await client.post("/v1/boards/g2/reset", json={}, headers=AUTH), 409)


async def test_a_removal_from_an_archived_period_is_archived_again(
    client: httpx.AsyncClient, app: Any, clock: ManualClock
) -> None:
    await _setup(client)
    clock.set(utc(2026, 11, 23, 1))  # 2026-11-21 closed (and past its grace): archive it
    service: Rankline = app.state.service
    assert await service.archive_periods()
    where = {"window": "daily", "period": "2026-11-21"}
    assert [p for p, _ in await ranking(client, "arena", **where)] == PLAYERS
    body = await _remove(client, "p0", **where)
    assert body["removed"] == 2  # global and region:EU
    archived = await top(client, "arena", **where)
    assert [(e["rank"], e["player_id"]) for e in archived["entries"]] == [
        (1, "p1"),
        (2, "p2"),
        (3, "p3"),
        (4, "p4"),
    ]
    assert archived["total"] == 4
    # the archive itself (read once the live leaderboard's retention ends) closed up too
    a = t.archive
    async with service.store.engine.connect() as conn:
        rows = await conn.execute(
            select(a.c.scope, a.c.rank, a.c.player_id)
            .where(a.c.board_id == "arena", a.c.window == "daily", a.c.period == "2026-11-21")
            .order_by(a.c.scope, a.c.rank)
        )
        assert [tuple(r) for r in rows] == [
            ("global", 1, "p1"),
            ("global", 2, "p2"),
            ("global", 3, "p3"),
            ("global", 4, "p4"),
            ("region:EU", 1, "p2"),
            ("region:EU", 2, "p4"),
            ("region:US", 1, "p1"),
            ("region:US", 2, "p3"),
        ]
    assert next(p for p, _ in await ranking(client, "arena")) == "p0"  # all-time kept


@pytest.mark.edge
async def test_a_void_that_finds_a_newer_submission_starts_again(
    client: httpx.AsyncClient, app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another worker's submission for a player of the match, committed between the void's
    recomputation and its transaction: the void computes again and keeps it."""
    await put_board(client, "arena")
    await submit(client, "arena", "p0", 50, "m1", at=_at(1))
    await submit(client, "arena", "p0", 20, "m2", at=_at(2))
    service: Rankline = app.state.service
    calls = []
    original = entries_module.recompute_players

    async def recompute_then_a_submission(*args: Any) -> Any:
        done = await original(*args)
        if not calls:  # as if another worker committed one just now
            async with service.store.engine.begin() as conn:
                await conn.execute(
                    insert(t.score_events),
                    [
                        {
                            "board_id": "arena",
                            "player_id": "p0",
                            "match_id": "elsewhere",
                            "score": 30,
                            "at": clock_micros(_at(3)),
                            "received_at": clock_micros(_at(3)),
                            "applied": False,
                            "scopes": "{}",
                            "metadata": "{}",
                        }
                    ],
                )
        calls.append(1)
        return done

    monkeypatch.setattr(entries_module, "recompute_players", recompute_then_a_submission)
    await _void(client, "arena", "m1")
    assert len(calls) == 2
    assert await ranking(client, "arena") == [("p0", 30)]


async def test_a_void_keeps_a_write_that_committed_after_its_period_closed_out(
    client: httpx.AsyncClient, app: Any, settings: Settings
) -> None:
    """A submission received just before its day closed, whose write committed after the
    close, never counted there (its ``applied`` is False although it beat the standing).
    Voiding an earlier match leaves it out as the write did, as ``rankline replay`` does,
    not as if it had been written when it was received."""
    await put_board(client, "late", windows=["daily"])
    await submit(client, "late", "p0", 30, "m0", at=_at(0))
    await submit(client, "late", "p0", 40, "m1", at=_at(1))
    service: Rankline = app.state.service
    # As the writer leaves a commit that came after the close (2026-11-22T00:05 with the
    # default grace): the event recorded, not applied, no standing changed.
    async with service.store.engine.begin() as conn:
        await conn.execute(
            insert(t.score_events),
            [
                {
                    "board_id": "late",
                    "player_id": "p0",
                    "match_id": "m-late",
                    "score": 50,
                    "at": clock_micros("2026-11-21T23:59:00.000Z"),
                    "received_at": clock_micros("2026-11-21T23:59:30.000Z"),
                    "applied": False,
                    "scopes": "{}",
                    "metadata": "{}",
                }
            ],
        )
    assert await ranking(client, "late", window="daily") == [("p0", 40)]
    await _void(client, "late", "m1")
    assert await ranking(client, "late", window="daily") == [("p0", 30)]
    e = t.score_events
    async with service.store.engine.connect() as conn:
        found = await conn.execute(select(e.c.match_id, e.c.applied).where(e.c.board_id == "late"))
        flags = {match: bool(applied) for match, applied in found}
    assert flags == {"m0": True, "m1": True, "m-late": False}
    rows = await _standings(service.store)
    report = await maintenance.verify(service.keeper, service.store, service.boards.boards())
    assert report.count == 0, report.differences
    store = SqlStore(settings.database)
    try:
        async with store.engine.begin() as conn:
            await conn.execute(delete(t.standings))
        done = await replay.replay(store)
        assert (done.late_closes, done.voided, done.unexplained) == (1, 1, 0)
        assert await _standings(store) == rows
    finally:
        await store.close()


async def test_a_void_moves_its_players_as_a_write_does(client: httpx.AsyncClient) -> None:
    """The void is a change of each of its players' standings: ``previous_rank`` is the rank
    they held just before it, ``best_rank`` keeps the best they held (as for any applied
    change); a player whose only entry there was the match's has none left."""
    await _setup(client)
    await submit(client, "arena", "p3", 45, "m1", at=_at(10), scopes={"region": "US"})
    await submit(client, "arena", "p5", 15, "m1", at=_at(10), scopes={"region": "US"})
    await submit(client, "arena", "p3", 30, "m2", at=_at(11), scopes={"region": "US"})
    view = await get_json(client, "/v1/boards/arena/players/p3")
    assert (view["rank"], view["previous_rank"], view["best_rank"]) == (2, 4, 2)
    await _void(client, "arena", "m1")
    # all-time: 50, 40, 40, then p3's best without m1 (30, from m2), 10
    view = await get_json(client, "/v1/boards/arena/players/p3")
    assert (view["score"], view["rank"], view["previous_rank"], view["best_rank"]) == (30, 4, 2, 2)
    us = await get_json(client, "/v1/boards/arena/players/p3", scope="region:US")
    assert (us["score"], us["rank"], us["previous_rank"], us["best_rank"]) == (30, 2, 1, 1)
    for where in WHERES:
        assert_problem(await client.get("/v1/boards/arena/players/p5", params=where), 404)
    # the next write moves on from there, as after any change
    await submit(client, "arena", "p3", 60, "m3", at=_at(12), scopes={"region": "US"})
    view = await get_json(client, "/v1/boards/arena/players/p3")
    assert (view["rank"], view["previous_rank"], view["best_rank"]) == (1, 4, 1)


async def test_a_void_changes_each_leaderboard_in_one_step(
    client: httpx.AsyncClient, app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However many players the match had, each leaderboard goes from its standings before
    the void to those after in one change of the index: between any two, a reader sees each
    leaderboard wholly before or wholly after."""
    await put_board(client, "arena", windows=["all_time", "daily"], scopes=["region"])
    players = [f"p{i:03d}" for i in range(150)]
    for i, player in enumerate(players):
        region = {"region": "EU" if i % 2 else "US"}
        await submit(client, "arena", player, i, "m0", at=_at(0), scopes=region)
        await submit(client, "arena", player, 1000 - i, "big", at=_at(1), scopes=region)
    service: Rankline = app.state.service
    index = service.gateway.index
    leaderboards = await index.leaderboards("arena")
    assert len(leaderboards) == 6

    async def state() -> dict[Any, list[bytes]]:
        return {lb: await index.slice(lb, 0, 1000) for lb in leaderboards}

    before = await state()
    seen: list[dict[Any, list[bytes]]] = []
    calls: list[set[Any]] = []
    apply = index.apply

    async def spied(changes: Any) -> None:
        await apply(changes)
        calls.append({change.leaderboard for change in changes})
        seen.append(await state())

    monkeypatch.setattr(index, "apply", spied)
    await _void(client, "arena", "big")
    monkeypatch.undo()
    after = await state()
    for lb in leaderboards:
        assert before[lb] != after[lb]
        assert all(s[lb] in (before[lb], after[lb]) for s in seen)
    assert [sorted(c) for c in calls] == [[lb] for lb in sorted(leaderboards)]
    assert await ranking(client, "arena") == [(p, i) for i, p in reversed(list(enumerate(players)))]


async def _cohort_of(client: httpx.AsyncClient, player: str) -> str | None:
    """The cohort scope of the player's entry on the league's daily leaderboard (None: no
    entry there)."""
    response = await client.get(
        f"/v1/boards/league/players/{player}", params={"window": "daily", "scope": "cohort"}
    )
    if response.status_code == 404:
        return None
    assert response.status_code == 200, response.text
    scope: str = response.json()["scope"]
    return scope


async def test_a_reset_and_a_void_on_a_board_with_cohorts(client: httpx.AsyncClient) -> None:
    """A reset of the period empties every cohort's leaderboard; the players keep their
    cohorts (assigned once per period), so a returning player is ranked among the same
    players, and a newcomer fills the newest cohort. A void takes the match's scores off
    the cohort leaderboards too."""
    await put_board(client, "league", windows=["daily", "all_time"], cohort_size=2)
    for player, score in (("a", 10), ("b", 20), ("c", 30), ("d", 40)):
        await submit(client, "league", player, score, f"m-{player}", at=_at(1))
    assert [await _cohort_of(client, p) for p in "abcd"] == ["cohort:1"] * 2 + ["cohort:2"] * 2
    response = await client.post("/v1/boards/league/reset", json={"window": "daily"}, headers=AUTH)
    assert response.json()["removed"] == 8  # global and the cohort, per player
    for cohort in ("cohort:1", "cohort:2"):
        assert await ranking(client, "league", window="daily", scope=cohort) == []
    assert [await _cohort_of(client, p) for p in "abcd"] == [None] * 4
    assert len(await ranking(client, "league", window="all_time", scope="cohort:1")) == 2
    await submit(client, "league", "c", 5, "again-c", at=_at(2))
    await submit(client, "league", "e", 7, "m-e", at=_at(2))
    await submit(client, "league", "e", 8, "n-e", at=_at(3))
    assert await ranking(client, "league", window="daily", scope="cohort:2") == [("c", 5)]
    assert await ranking(client, "league", window="daily", scope="cohort:3") == [("e", 8)]
    # a void: e's better score comes out of e's cohort leaderboards as everywhere
    await _void(client, "league", "n-e")
    assert await ranking(client, "league", window="daily", scope="cohort:3") == [("e", 7)]
    assert await ranking(client, "league", window="all_time", scope="cohort:3") == [("e", 7)]
    # one cohort only
    response = await client.post(
        "/v1/boards/league/reset", json={"window": "daily", "scope": "cohort:2"}, headers=AUTH
    )
    assert response.json()["removed"] == 1
    assert await ranking(client, "league", window="daily", scope="cohort:2") == []
    assert await ranking(client, "league", window="daily") == [("e", 7), ("c", 5)]


async def test_a_void_and_a_reset_give_a_tournament_s_submissions_back(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    """On a tournament with ``max_submissions``, a voided submission no longer counts, and a
    reset of the edition restarts every player's count; a retry of a match id (a duplicate)
    is still never counted, and a void of a submission made before a reset gives nothing
    back twice."""
    spec = {
        "title": "Cup",
        "starts_at": iso(utc(2026, 11, 21, 12, 10)),
        "ends_at": iso(utc(2026, 11, 21, 12, 50)),
        "max_submissions": 2,
    }
    created = await client.put("/v1/tournaments/cup", json=spec, headers=AUTH)
    assert created.status_code == 201, created.text
    clock.set(utc(2026, 11, 21, 12, 15))

    async def play(player: str, value: int, match: str) -> httpx.Response:
        body = {"player_id": player, "score": value, "match_id": match}
        return await client.post("/v1/tournaments/cup/scores", json=body, headers=AUTH)

    def refused(response: httpx.Response) -> None:
        assert assert_problem(response, 409)["detail"].startswith("max_submissions:")

    for value, match in ((10, "m1"), (30, "m2")):
        assert (await play("p1", value, match)).status_code == 200
    refused(await play("p1", 50, "m3"))
    await _void(client, "cup", "m2")
    assert await ranking(client, "cup") == [("p1", 10)]
    retry = await play("p1", 30, "m2")
    assert retry.status_code == 200 and retry.json()["duplicate"] is True
    assert await ranking(client, "cup") == [("p1", 10)]
    assert (await play("p1", 20, "m3")).status_code == 200  # the void gave one back
    refused(await play("p1", 50, "m4"))
    response = await client.post("/v1/boards/cup/reset", json={}, headers=AUTH)
    assert response.json() == {"board": "cup", "window": "season", "period": "1", "removed": 1}
    assert await ranking(client, "cup") == []
    for value, match in ((5, "m5"), (6, "m6")):
        assert (await play("p1", value, match)).status_code == 200
    refused(await play("p1", 50, "m7"))
    await _void(client, "cup", "m3")  # counted before the reset, which gave it back
    refused(await play("p1", 50, "m7"))
    assert await ranking(client, "cup") == [("p1", 6)]
    await _void(client, "cup", "m6")
    assert (await play("p1", 7, "m7")).status_code == 200
    assert await ranking(client, "cup") == [("p1", 7)]


async def test_moderation_names_periods_as_writes_do_in_time_zones_and_cron_windows(
    client: httpx.AsyncClient,
) -> None:
    """A reset's current period and a removal's named one are the board's own: of its time
    zone, and of its cron windows, as the period a submission lands in."""
    event = {"id": "friday-event", "cron": "0 18 * * FRI", "timezone": "Europe/Paris"}
    await put_board(client, "zoned", windows=["daily", event], timezone="Pacific/Kiritimati")
    # 2026-11-21T12:00Z is 02:00 on the 22nd at UTC+14; the event began Friday 18:00 in Paris
    landed = await submit(client, "zoned", "p0", 10)
    periods = {s["window"]: s["period"] for s in landed["standings"]}
    assert periods == {"daily": "2026-11-22", "friday-event": "2026-11-20T17:00:00Z"}
    await submit(client, "zoned", "p1", 20)
    response = await client.post("/v1/boards/zoned/reset", json={"window": "daily"}, headers=AUTH)
    assert response.status_code == 200, response.text
    assert (response.json()["period"], response.json()["removed"]) == ("2026-11-22", 2)
    assert await ranking(client, "zoned", window="daily") == []
    response = await client.delete(
        "/v1/boards/zoned/players/p1",
        params={"window": "friday-event", "period": "2026-11-20T17:00:00Z"},
        headers=AUTH,
    )
    assert response.status_code == 200, response.text
    assert await ranking(client, "zoned", window="friday-event") == [("p0", 10)]
    response = await client.post(
        "/v1/boards/zoned/reset", json={"window": "friday-event"}, headers=AUTH
    )
    assert response.status_code == 200, response.text
    assert response.json()["period"] == "2026-11-20T17:00:00Z"
    assert await ranking(client, "zoned", window="friday-event") == []


SHARED = [name for name in selected() if ALL[name].redis_url]


@pytest.mark.parametrize("stack", [ALL[n] for n in SHARED], ids=SHARED)
async def test_a_late_batch_of_another_worker_is_set_right_after_a_void(
    app: Any, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a shared index, another worker's batch that committed just before the void may
    reach the index just after it; the void's second pass sets SQL's standing again."""
    service: Rankline = app.state.service
    assert service.keeper.shared
    monkeypatch.setattr(entries_module, "_SETTLE_SECONDS", 0.2)
    await put_board(client, "arena")
    await submit(client, "arena", "p0", 50, "m0", at=_at(0))
    await submit(client, "arena", "p0", 90, "m1", at=_at(1))
    await submit(client, "arena", "p1", 70, "m2", at=_at(2))
    await _void(client, "arena", "m1")
    assert await ranking(client, "arena") == [("p1", 70), ("p0", 50)]
    board = service.boards.get("arena")
    leaderboard = LeaderboardId("arena", "all_time", "all", "global")
    late = encode(90, clock_micros(_at(1)), "p0", board.order)
    await service.index.apply([IndexChange(leaderboard, "p0", late, 2)])  # m1's, arriving late
    assert await ranking(client, "arena") == [("p0", 90), ("p1", 70)]
    for _ in range(100):
        await asyncio.sleep(0.05)
        if await ranking(client, "arena") == [("p1", 70), ("p0", 50)]:
            break
    assert await ranking(client, "arena") == [("p1", 70), ("p0", 50)]
