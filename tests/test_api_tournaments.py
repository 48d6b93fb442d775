"""Tournaments over HTTP on every backend stack: definitions, the schedule's edges, joins
with a capacity under a race, max_submissions and join_required, and edition reads."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from helpers_api import AUTH, assert_problem, get_json, iso, utc
from rankline import ManualClock, Settings
from rankline.runtime.clock import to_micros
from rankline.store.sql import SqlStore
from rankline.store.tournaments import TournamentStore

# The conftest clock starts at 2026-11-21T12:00:00Z.
STARTS, ENDS = utc(2026, 11, 21, 12, 10), utc(2026, 11, 21, 12, 20)


def tournament(**extra: Any) -> dict[str, Any]:
    return {
        "title": "Cup",
        "starts_at": iso(STARTS),
        "ends_at": iso(ENDS),
        "grace_seconds": 60,
        **extra,
    }


async def put(
    client: httpx.AsyncClient, tid: str, expect: int = 201, **extra: Any
) -> dict[str, Any]:
    response = await client.put(f"/v1/tournaments/{tid}", json=tournament(**extra), headers=AUTH)
    assert response.status_code == expect, response.text
    body: dict[str, Any] = response.json()
    return body


async def score(
    client: httpx.AsyncClient, tid: str, player: str, value: int, match: str, **extra: Any
) -> httpx.Response:
    body = {"player_id": player, "score": value, "match_id": match, **extra}
    return await client.post(f"/v1/tournaments/{tid}/scores", json=body, headers=AUTH)


async def join(client: httpx.AsyncClient, tid: str, player: str) -> httpx.Response:
    return await client.post(
        f"/v1/tournaments/{tid}/join", json={"player_id": player}, headers=AUTH
    )


def refused(response: httpx.Response, reason: str) -> None:
    body = assert_problem(response, 409)
    assert body["detail"].startswith(f"{reason}:"), body


async def test_define_read_list_and_delete(client: httpx.AsyncClient) -> None:
    created = await put(client, "cup", webhook={"url": "http://127.0.0.1:9/x", "secret": "s3"})
    assert created["id"] == "cup" and created["title"] == "Cup"
    assert created["webhook"] == {"url": "http://127.0.0.1:9/x"}  # the secret is never shown
    assert created["edition"]["edition"] == "1"
    assert created["edition"]["state"] == "upcoming"
    assert created["edition"]["starts_at"] == iso(STARTS)
    assert created["edition"]["closes_at"] == "2026-11-21T12:21:00.000Z"
    updated = await put(client, "cup", 200, title="Cup 2")
    assert updated["title"] == "Cup 2"
    listed = await get_json(client, "/v1/tournaments")
    assert [t["id"] for t in listed["tournaments"]] == ["cup"]
    # The board it ranks on: one window, whose periods are the editions.
    board = await get_json(client, "/v1/boards/cup")
    assert board["windows"] == ["season"] and board["schedule"]["starts_at"] == iso(STARTS)
    # Its board changes with the tournament, not on its own.
    assert_problem(await client.put("/v1/boards/cup", json={}, headers=AUTH), 409)
    bad = await client.put(
        "/v1/tournaments/bad", json=tournament(ends_at=iso(STARTS)), headers=AUTH
    )
    assert_problem(bad, 422)
    both = tournament(rewards=[{"ranks": [1, 1], "top_percent": 5, "reward": {}}])
    assert_problem(await client.put("/v1/tournaments/bad", json=both, headers=AUTH), 422)
    taken = await client.put("/v1/boards/plain", json={}, headers=AUTH)
    assert taken.status_code == 201
    assert_problem(await client.put("/v1/tournaments/plain", json=tournament(), headers=AUTH), 409)
    assert (await client.delete("/v1/tournaments/cup", headers=AUTH)).status_code == 204
    assert_problem(await client.get("/v1/tournaments/cup"), 404)
    assert_problem(await client.get("/v1/boards/cup"), 404)


async def test_schedule_edges(client: httpx.AsyncClient, clock: ManualClock) -> None:
    await put(client, "edges")
    clock.set(utc(2026, 11, 21, 12, 9, 59, 999000))  # just before the start
    refused(await score(client, "edges", "early", 5, "m1"), "not_started")
    clock.set(STARTS)  # at the start
    assert (await score(client, "edges", "a", 10, "m1")).status_code == 200
    clock.set(ENDS)  # at the end: the edition is over (its end is exclusive)
    refused(await score(client, "edges", "late", 7, "m1"), "ended")
    clock.set(utc(2026, 11, 21, 12, 20, 59))  # within the grace, a match that ended in time
    in_grace = await score(client, "edges", "b", 8, "m1", at=iso(utc(2026, 11, 21, 12, 19, 59)))
    assert in_grace.status_code == 200, in_grace.text
    assert in_grace.json()["standings"][0]["period"] == "1"
    clock.set(utc(2026, 11, 21, 12, 21))  # the grace has passed: final
    refused(
        await score(client, "edges", "c", 9, "m1", at=iso(utc(2026, 11, 21, 12, 19, 59))), "closed"
    )
    top = await get_json(client, "/v1/tournaments/edges/top", edition="1")
    assert [(e["player_id"], e["score"]) for e in top["entries"]] == [("a", 10), ("b", 8)]
    assert top["window"] == "season" and top["period"] == "1"


async def test_a_hundred_joins_race_for_ten_places(client: httpx.AsyncClient) -> None:
    await put(client, "race", max_size=10, join_required=True)
    answers = await asyncio.gather(*(join(client, "race", f"p{i}") for i in range(100)))
    joined = [f"p{i}" for i, a in enumerate(answers) if a.status_code == 200]
    full = [a for a in answers if a.status_code == 409]
    assert len(joined) == 10 and len(full) == 90
    for answer in full:
        refused(answer, "full")
    again = await join(client, "race", joined[0])
    assert again.status_code == 200 and again.json()["players"] == 10  # idempotent
    described = await get_json(client, "/v1/tournaments/race")
    assert described["edition"]["players"] == 10
    refused(await join(client, "race", "late"), "full")


async def test_joins_through_two_workers_never_pass_the_capacity(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    """The same race through two connection pools of their own, as two workers have (of
    four connections each: a hundred joins wait for them, and the suite's other tests keep
    theirs)."""
    await put(client, "twice", max_size=10)
    async with _tournament_store(settings) as one, _tournament_store(settings) as two:
        now = to_micros(STARTS)
        joins = [(one if i % 2 else two).join("twice", "1", f"p{i}", 10, now) for i in range(100)]
        joined = await asyncio.gather(*joins)
        assert joined.count(True) == 10
        assert await one.players_joined("twice", "1") == 10
        in_ = [f"p{i}" for i, ok in enumerate(joined) if ok]
        assert all([await two.joined("twice", "1", p) for p in in_])
        assert not any(
            [await one.joined("twice", "1", f"p{i}") for i, ok in enumerate(joined) if not ok]
        )


@asynccontextmanager
async def _tournament_store(settings: Settings) -> AsyncIterator[TournamentStore]:
    sql = SqlStore(settings.database, pool_size=4, pool_overflow=0)
    await sql.start()
    try:
        yield TournamentStore(sql)
    finally:
        await sql.close()


async def test_joins_and_max_submissions_record_nothing_when_refused(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put(client, "rules", join_required=True, max_submissions=2)
    clock.set(utc(2026, 11, 21, 12, 15))
    refused(await score(client, "rules", "p1", 10, "m1"), "not_joined")
    assert (await join(client, "rules", "p1")).json()["edition"] == "1"
    assert (await score(client, "rules", "p1", 10, "m1")).status_code == 200
    retry = await score(client, "rules", "p1", 10, "m1")
    assert retry.status_code == 200 and retry.json()["duplicate"] is True  # not counted twice
    assert (await score(client, "rules", "p1", 30, "m2")).status_code == 200
    refused(await score(client, "rules", "p1", 50, "m3"), "max_submissions")
    player = await get_json(client, "/v1/tournaments/rules/players/p1")
    assert player["score"] == 30 and player["period"] == "1"
    around = await get_json(client, "/v1/tournaments/rules/players/p1/around", k=2)
    assert [e["player_id"] for e in around["entries"]] == ["p1"]


async def test_a_recurring_tournament_ranks_each_edition_apart(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put(client, "daily", recurrence="daily")
    clock.set(utc(2026, 11, 21, 12, 15))
    assert (await score(client, "daily", "p1", 10, "m1")).status_code == 200
    clock.set(utc(2026, 11, 22, 12, 15))  # the next day's edition
    assert (await score(client, "daily", "p2", 20, "m1")).status_code == 200
    first = await get_json(client, "/v1/tournaments/daily/top", edition="1")
    second = await get_json(client, "/v1/tournaments/daily/top")
    assert [e["player_id"] for e in first["entries"]] == ["p1"]
    assert second["period"] == "2" and [e["player_id"] for e in second["entries"]] == ["p2"]
    clock.set(utc(2026, 11, 22, 20, 0))  # between editions: the next one is joined
    assert (await join(client, "daily", "p3")).json()["edition"] == "3"


async def test_the_board_of_a_tournament_changes_only_through_it(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    """Scores straight to the tournament's board (single, batch, asynchronous) and deleting
    that board are refused: they would skip the schedule, the joins and max_submissions.
    Through the tournament, the same score is taken."""
    await put(client, "cup", max_submissions=1)
    clock.set(utc(2026, 11, 21, 12, 15))
    body = {"player_id": "p1", "score": 5, "match_id": "m1"}
    for headers in (AUTH, {**AUTH, "Prefer": "respond-async"}):
        direct = await client.post("/v1/boards/cup/scores", json=body, headers=headers)
        assert "POST /v1/tournaments/cup/scores" in assert_problem(direct, 409)["detail"]
    batch = await client.post(
        "/v1/scores/batch", json={"scores": [{"board": "cup", **body}]}, headers=AUTH
    )
    assert batch.status_code == 200, batch.text
    assert batch.json()["results"][0]["error"]["status"] == 409
    deleted = await client.delete("/v1/boards/cup", headers=AUTH)
    assert "DELETE /v1/tournaments" in assert_problem(deleted, 409)["detail"]
    assert (await score(client, "cup", "p1", 5, "m1")).status_code == 200
    refused(await score(client, "cup", "p1", 6, "m2"), "max_submissions")
    top = await get_json(client, "/v1/tournaments/cup/top")
    assert [(e["player_id"], e["score"]) for e in top["entries"]] == [("p1", 5)]
    assert (await client.delete("/v1/tournaments/cup", headers=AUTH)).status_code == 204
    assert (await client.get("/v1/boards/cup")).status_code == 404


async def test_a_tournament_with_a_subscore_orders_equal_scores_by_it(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put(client, "cup", subscore="asc")
    clock.set(utc(2026, 11, 21, 12, 15))
    for player, sub in (("slow", 90), ("fast", 40), ("mid", 60)):
        response = await score(client, "cup", player, 10, f"m-{player}", subscore=sub)
        assert response.status_code == 200, response.text
    assert_problem(await score(client, "cup", "none", 10, "m-none"), 422)
    top = await get_json(client, "/v1/tournaments/cup/top")
    assert [(e["player_id"], e["subscore"]) for e in top["entries"]] == [
        ("fast", 40),
        ("mid", 60),
        ("slow", 90),
    ]
    definition = await get_json(client, "/v1/tournaments/cup")
    assert definition["subscore"] == "asc"
