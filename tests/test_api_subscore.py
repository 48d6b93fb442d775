"""Boards with a subscore through the HTTP API, on every backend stack (see conftest.py).

Every read (top, player, around, friends, ranks, rank-of) is checked against a naive sorted
list of the entries, for each combination of board order and subscore order, on a plain
and on a sharded board; then the SQL read path (degraded mode), ``verify``, a restart that
rebuilds the index from SQL, the batch and asynchronous write paths, the policies, the
archive of a closed period, a replay of the score events and an import.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from helpers_api import (
    AUTH,
    assert_problem,
    error_locs,
    get_json,
    post_score,
    put_board,
    serve,
    submit,
    top,
    utc,
)
from helpers_backends import flush_redis
from rankline import ManualClock, Rankline, Settings
from rankline.http.app import Application
from rankline.index import maintenance
from rankline.index.sql import SqlIndex
from rankline.store import schema as t
from rankline.store.sql import SqlStore
from rankline.types import LeaderboardId, Order
from rankline.writing import replay
from rankline.writing.importing import import_file

ASYNC = {**AUTH, "Prefer": "respond-async"}
SCORES = (-5, 0, 10, 10, 2**53 + 1)
SUBSCORES = (-(2**63), -1, 0, 3, 2**63 - 1)
Value = tuple[int, int, int]
"""(score, subscore, minute of achieved_at)"""


def _rule(order: str, sub_order: str, player: str, value: Value) -> tuple[int, int, int, bytes]:
    score, subscore, minute = value
    return (
        -score if order == "desc" else score,
        -subscore if sub_order == "desc" else subscore,
        minute,
        player.encode(),
    )


def _naive(entries: dict[str, Value], order: str, sub_order: str) -> list[tuple[str, Value]]:
    return sorted(entries.items(), key=lambda item: _rule(order, sub_order, *item))


def _entries(seed: int, n: int = 18) -> dict[str, Value]:
    """Players with many ties: on score, on (score, subscore), and on all three values."""
    rng = random.Random(seed)
    return {
        f"p:{i}": (rng.choice(SCORES[:3]), rng.choice(SUBSCORES[1:4]), rng.choice((0, 1)))
        for i in range(n)
    } | {"top": (SCORES[4], SUBSCORES[0], 2), "bottom": (SCORES[0], SUBSCORES[4], 2)}


async def _fill(client: httpx.AsyncClient, board: str, entries: dict[str, Value]) -> None:
    for player, (score, subscore, minute) in entries.items():
        at = utc(2026, 11, 21, 10, minute)
        await submit(client, board, player, score, at=at, subscore=subscore)


async def _check_reads(
    client: httpx.AsyncClient, board: str, entries: dict[str, Value], order: str, sub: str
) -> None:
    ranked = _naive(entries, order, sub)
    body = await top(client, board, limit=1000)
    got = [(e["player_id"], e["score"], e["subscore"], e["rank"]) for e in body["entries"]]
    assert got == [(p, s, u, i + 1) for i, (p, (s, u, _)) in enumerate(ranked)]
    total = len(ranked)
    for offset, (player, value) in enumerate(ranked):
        better = sum(
            1
            for p, v in ranked
            if _rule(order, sub, p, v)[:2] < _rule(order, sub, player, value)[:2]
        )
        me = await get_json(client, f"/v1/boards/{board}/players/{player}")
        assert (me["rank"], me["competition_rank"], me["score"], me["subscore"]) == (
            offset + 1,
            better + 1,
            value[0],
            value[1],
        )
        assert me["percentile"] == round(100.0 * (total - offset - 1) / total, 4)
    middle, (score, subscore, _) = ranked[total // 2]
    around = await get_json(client, f"/v1/boards/{board}/players/{middle}/around", k=2)
    assert [(e["player_id"], e["subscore"]) for e in around["entries"]] == [
        (p, v[1]) for p, v in ranked[total // 2 - 2 : total // 2 + 3]
    ]
    assert around["player"]["subscore"] == subscore
    friends = [p for p, _ in ranked[::3]]
    response = await client.post(
        f"/v1/boards/{board}/players/{middle}/friends", json={"friends": friends}
    )
    assert response.status_code == 200, response.text
    among = sorted({middle, *friends}, key=lambda p: _rule(order, sub, p, entries[p]))
    assert [(e["player_id"], e["subscore"]) for e in response.json()["entries"]] == [
        (p, entries[p][1]) for p in among
    ]
    response = await client.post(f"/v1/boards/{board}/ranks", json={"player_ids": friends})
    assert [e["subscore"] for e in response.json()["entries"]] == [
        entries[p][1] for p in sorted(friends, key=lambda p: _rule(order, sub, p, entries[p]))
    ]
    # a new entry with a value comes after every entry of that value reached so far
    for score, subscore in [(10, 0), (10, 3), (-5, -(2**63)), (2**53 + 1, 2**63 - 1), (7, 7)]:
        value = _rule(order, sub, "", (score, subscore, 0))[:2]
        ahead = [_rule(order, sub, p, v)[:2] for p, v in ranked]
        found = await get_json(
            client, f"/v1/boards/{board}/rank-of", score=score, subscore=subscore
        )
        assert (found["rank"], found["competition_rank"], found["total"]) == (
            1 + sum(1 for v in ahead if v <= value),
            1 + sum(1 for v in ahead if v < value),
            total,
        )
        assert (found["score"], found["subscore"]) == (score, subscore)


CASES = [("desc", "desc", 1), ("desc", "asc", 3), ("asc", "desc", 3), ("asc", "asc", 1)]


@pytest.mark.parametrize(("order", "sub", "shards"), CASES)
async def test_reads_rank_by_score_then_subscore_then_time(
    app: Application, client: httpx.AsyncClient, order: Order, sub: Order, shards: int
) -> None:
    service: Rankline = app.state.service
    await put_board(client, "duel", order=order, subscore=sub, policy="latest", shards=shards)
    entries = _entries(seed=shards * 10 + len(order + sub))
    await _fill(client, "duel", entries)
    await _check_reads(client, "duel", entries, order, sub)

    # the SQL standings rank the same (the read path while the index is down)
    lb = LeaderboardId("duel", "all_time", "all", "global")
    sql = SqlIndex(service.store, service.boards.keys_of)
    assert await sql.page(lb, 0, 1000) == await service.index.page(lb, 0, 1000)
    for player in entries:
        assert await sql.position(lb, player) == await service.index.position(lb, player)
    board = service.boards.get("duel")
    keys = board.keys
    bounds = [keys.value_prefix(10, 0), keys.head_of(10, 3, 0)]
    assert await sql.counts_before(lb, bounds) == await service.index.counts_before(lb, bounds)
    report = await maintenance.verify(service.keeper, service.store, service.boards.boards())
    assert (report.count, report.entries) == (0, len(entries))


async def test_a_restart_rebuilds_the_same_ranking_from_sql(
    settings: Settings, clock: ManualClock
) -> None:
    entries = _entries(seed=7)
    async with serve(settings, clock) as client:
        await put_board(client, "duel", subscore="asc", windows=["all_time", "daily"])
        await _fill(client, "duel", entries)
        before = await top(client, "duel", limit=1000)
    if settings.redis_url is not None:
        flush_redis(settings.redis_url)
    async with serve(settings, clock) as client:
        assert await top(client, "duel", limit=1000) == before
        await _check_reads(client, "duel", entries, "desc", "asc")
        daily = await top(client, "duel", window="daily", limit=1000)
        assert [e["subscore"] for e in daily["entries"]] == [
            e["subscore"] for e in before["entries"]
        ]


async def test_submissions_carry_a_subscore_exactly_where_the_board_has_one(
    client: httpx.AsyncClient,
) -> None:
    await put_board(client, "duel", subscore="desc")
    await put_board(client, "plain")
    base = {"player_id": "p1", "score": 5, "match_id": "m1"}
    assert error_locs(await post_score(client, "duel", base)) == [["body", "subscore"]]
    with_sub = base | {"subscore": 1}
    assert error_locs(await post_score(client, "plain", with_sub)) == [["body", "subscore"]]
    for bad in (1.5, "7", True, 2**63, -(2**63) - 1):
        response = await post_score(client, "duel", base | {"subscore": bad})
        assert error_locs(response) == [["body", "subscore"]], bad
    assert (await top(client, "duel"))["total"] == 0
    answer = await submit(client, "duel", "p1", 5, "m1", subscore=2**63 - 1)
    assert (answer["score"], answer["subscore"]) == (5, 2**63 - 1)
    assert "previous_subscore" not in answer  # a first entry: as previous_score is null
    assert answer["previous_score"] is None
    assert answer["standings"][0]["subscore"] == 2**63 - 1
    # the same key with another subscore is not a retry
    reused = await post_score(client, "duel", base | {"subscore": 3})
    assert assert_problem(reused, 409)["existing"]["subscore"] == 2**63 - 1
    again = await post_score(client, "duel", base | {"subscore": 2**63 - 1})
    assert again.status_code == 200 and again.json()["duplicate"] is True
    # rank-of takes the subscore exactly where the board has one
    rank_of = "/v1/boards/{}/rank-of"
    assert error_locs(await client.get(rank_of.format("duel"), params={"score": 5})) == [
        ["query", "subscore"]
    ]
    for bad in ("x", "1.5", str(2**63)):
        response = await client.get(rank_of.format("duel"), params={"score": 5, "subscore": bad})
        assert error_locs(response) == [["query", "subscore"]]
    response = await client.get(rank_of.format("plain"), params={"score": 5, "subscore": 1})
    assert error_locs(response) == [["query", "subscore"]]
    plain = await get_json(client, rank_of.format("plain"), score=5)
    assert "subscore" not in plain
    # a board with entries keeps its subscore order
    response = await client.put("/v1/boards/duel", json={"subscore": "asc"}, headers=AUTH)
    assert_problem(response, 409)
    response = await client.put("/v1/boards/duel", json={}, headers=AUTH)
    assert_problem(response, 409)
    bad_board = {"policy": "rating", "rating": {"system": "elo"}, "subscore": "desc"}
    response = await client.put("/v1/boards/elo", json=bad_board, headers=AUTH)
    assert error_locs(response) == [["body", "subscore"]]
    # plain boards answer as before: no subscore field anywhere
    await submit(client, "plain", "p1", 5)
    assert "subscore" not in (await top(client, "plain"))["entries"][0]
    assert "subscore" not in await get_json(client, "/v1/boards/plain/players/p1")
    # the player's history carries the subscore of each submission where the board has one
    history = await get_json(client, "/v1/players/p1/history")
    assert [(i["board"], i["score"], i.get("subscore")) for i in history["items"]] == [
        ("plain", 5, None),
        ("duel", 5, 2**63 - 1),
    ]
    assert "subscore" not in history["items"][0]


async def test_policies_compare_score_and_subscore_as_one_value(
    client: httpx.AsyncClient,
) -> None:
    await put_board(client, "best", subscore="asc")  # a lower subscore is better
    first = await submit(client, "best", "p", 100, "m1", subscore=50)
    assert first["applied"] is True
    equal = await submit(client, "best", "p", 100, "m2", subscore=50)
    assert equal["applied"] is False
    better = await submit(client, "best", "p", 100, "m3", subscore=49)
    assert (better["applied"], better["subscore"], better["previous_subscore"]) == (True, 49, 50)
    worse = await submit(client, "best", "p", 100, "m4", subscore=58)
    assert worse["applied"] is False and worse["subscore"] == 49
    higher = await submit(client, "best", "p", 101, "m5", subscore=10**6)
    assert (higher["applied"], higher["score"], higher["subscore"]) == (True, 101, 10**6)
    await put_board(client, "total", subscore="desc", policy="sum")
    await submit(client, "total", "p", 10, "m1", subscore=1)
    summed = await submit(client, "total", "p", 5, "m2", subscore=-4)
    assert (summed["score"], summed["subscore"]) == (15, -3)
    await submit(client, "total", "q", 1, "m1", subscore=2**63 - 1)
    over = await post_score(
        client, "total", {"player_id": "q", "score": 1, "match_id": "m2", "subscore": 1}
    )
    assert error_locs(over) == [["body", "subscore"]]
    me = await get_json(client, "/v1/boards/total/players/p")
    assert (me["score"], me["subscore"]) == (15, -3)
    profile = await get_json(client, "/v1/players/p")
    assert {(x["board"], x["score"], x["subscore"]) for x in profile["standings"]} == {
        ("best", 101, 10**6),
        ("total", 15, -3),
    }


async def test_batch_and_asynchronous_submissions_carry_the_subscore(
    client: httpx.AsyncClient,
) -> None:
    await put_board(client, "duel", subscore="desc")
    items = [
        {"board": "duel", "player_id": "a", "score": 5, "match_id": "b1", "subscore": 1},
        {"board": "duel", "player_id": "b", "score": 5, "match_id": "b2"},
        {"board": "duel", "player_id": "c", "score": 5, "match_id": "b3", "subscore": 9},
    ]
    response = await client.post("/v1/scores/batch", json={"scores": items}, headers=AUTH)
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert results[1]["error"]["errors"][0]["loc"] == ["body", "scores", 1, "subscore"]
    assert [(r["player_id"], r["subscore"]) for r in (results[0], results[2])] == [
        ("a", 1),
        ("c", 9),
    ]
    body = {"player_id": "d", "score": 5, "match_id": "x1", "subscore": 4}
    response = await client.post("/v1/boards/duel/scores", json=body, headers=ASYNC)
    assert response.status_code == 202, response.text
    token = response.json()["token"]
    async_items = [
        {"board": "duel", "player_id": "e", "score": 6, "match_id": "x2", "subscore": -1},
        {"board": "duel", "player_id": "f", "score": 6, "match_id": "x3"},
    ]
    response = await client.post("/v1/scores/batch", json={"scores": async_items}, headers=ASYNC)
    assert response.status_code == 202, response.text
    batch = response.json()
    assert batch["accepted"] == 1
    assert batch["results"][1]["error"]["errors"][0]["loc"] == ["body", "scores", 1, "subscore"]
    ranked = await top(client, "duel", after=batch["token"])
    assert [(e["player_id"], e["score"], e["subscore"]) for e in ranked["entries"]] == [
        ("e", 6, -1),
        ("c", 5, 9),
        ("d", 5, 4),
        ("a", 5, 1),
    ]
    player = await get_json(client, "/v1/boards/duel/players/d", after=token)
    assert (player["rank"], player["competition_rank"], player["subscore"]) == (3, 3, 4)


async def test_an_archived_period_keeps_its_subscores(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    service: Rankline = app.state.service
    await put_board(client, "duel", subscore="asc", windows=["daily"], retention_days={"daily": 1})
    entries = _entries(seed=3, n=8)
    await _fill(client, "duel", entries)
    day = {"window": "daily", "period": "2026-11-21"}
    players = list(entries)

    async def answers() -> list[dict[str, Any]]:
        found = [await get_json(client, "/v1/boards/duel/top", **day, limit=1000)]
        found += [await get_json(client, f"/v1/boards/duel/players/{p}", **day) for p in players]
        found.append(await get_json(client, "/v1/boards/duel/rank-of", **day, score=10, subscore=0))
        for body in found:
            del body["as_of"]
        return found

    clock.set(utc(2026, 11, 22, 0, 5, 10))
    live = await answers()
    assert [e["player_id"] for e in live[0]["entries"]] == [
        p for p, _ in _naive(entries, "desc", "asc")
    ]
    await service.archive_periods()
    clock.set(utc(2026, 11, 23, 0, 5))
    assert await service.expire_periods()
    archived = await answers()
    # movement is kept beside the live index only: an archived period's is not known
    unknown = {"previous_rank": None, "best_rank": None}
    assert archived == [
        body | {"archived": True} | (unknown if "best_rank" in body else {}) for body in live
    ]


async def test_replay_rebuilds_the_standings_with_their_subscores(
    app: Application, client: httpx.AsyncClient
) -> None:
    service: Rankline = app.state.service
    await put_board(client, "duel", subscore="desc", policy="best")
    rng = random.Random(5)
    for i in range(40):
        player, score, subscore = f"p{rng.randrange(6)}", rng.choice((1, 2)), rng.randrange(-3, 3)
        await submit(client, "duel", player, score, f"m{i}", subscore=subscore)
    query = select(t.standings).order_by(*t.standings.primary_key.columns)

    async def standings() -> list[Any]:
        async with service.store.engine.connect() as conn:
            return [tuple(row) for row in await conn.execute(query)]

    before = await standings()
    assert before and all(row[-1] is not None for row in before)
    done = await replay.replay(service.store, ["duel"])
    assert done.unexplained == 0
    assert await standings() == before


@asynccontextmanager
async def _store(settings: Settings) -> AsyncIterator[SqlStore]:
    store = SqlStore(settings.database)
    await store.start()
    try:
        yield store
    finally:
        await store.close()


async def test_an_import_takes_the_subscore_column(
    settings: Settings, clock: ManualClock, tmp_path: Path
) -> None:
    async with serve(settings, clock) as client:
        await put_board(client, "duel", subscore="asc")
    path = tmp_path / "duel.jsonl"
    path.write_text(
        '{"player_id": "a", "score": 3, "subscore": 7, "achieved_at": "2026-11-21T09:00:00Z"}\n'
        '{"player_id": "b", "score": 3, "subscore": -2, "achieved_at": "2026-11-21T10:00:00Z"}\n'
        '{"player_id": "c", "score": 3}\n'
        '{"player_id": "d", "score": 3, "subscore": "x"}\n'
    )
    csv = tmp_path / "more.csv"
    csv.write_text("player_id,score,subscore\ne,4,0\n")
    async with _store(settings) as store:
        summary = await import_file(store, path, "duel", clock=clock)
        assert summary.imported == 2 and summary.rejected == 2
        assert (await import_file(store, csv, "duel", clock=clock)).imported == 1
    if settings.redis_url is not None:
        flush_redis(settings.redis_url)
    async with serve(settings, clock) as client:
        ranked = await top(client, "duel")
        assert [(e["player_id"], e["subscore"]) for e in ranked["entries"]] == [
            ("e", 0),
            ("b", -2),
            ("a", 7),
        ]
