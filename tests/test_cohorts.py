"""Cohorts on every backend stack: concurrent first submissions fill cohorts of N first come,
first served (none above N, no player in two), on one worker and across two connection
pools on one database, and ``scope=cohort`` answers a player's cohort leaderboard."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from helpers_api import AUTH, assert_problem, get_json, iso, put_board, utc
from rankline import Settings
from rankline.http.app import Application
from rankline.reading.requests import AroundRequest, PlayerRequest
from rankline.store.cohorts import CohortStore
from rankline.store.sql import SqlStore


async def _submit(client: httpx.AsyncClient, player: str, value: int, match: str) -> str:
    body = {"player_id": player, "score": value, "match_id": match}
    answer = await client.post("/v1/boards/league/scores", json=body, headers=AUTH)
    assert answer.status_code == 200, answer.text
    scopes = {s["scope"] for s in answer.json()["standings"]}
    [cohort] = [s for s in scopes if s.startswith("cohort:")]
    assert scopes == {"global", cohort}
    return cohort


async def test_concurrent_first_submissions_fill_cohorts_in_turn(client: httpx.AsyncClient) -> None:
    await put_board(client, "league", windows=["daily"], cohort_size=3)
    players = [f"p{i}" for i in range(20)]
    cohorts = await asyncio.gather(*(_submit(client, p, i, "m1") for i, p in enumerate(players)))
    sizes = Counter(cohorts)
    assert sorted(sizes) == [f"cohort:{k}" for k in range(1, 8)]  # ceil(20 / 3) cohorts
    assert sorted(sizes.values()) == [2, 3, 3, 3, 3, 3, 3]  # none above 3, the last filling
    # A later submission keeps the player's cohort.
    again = await asyncio.gather(
        *(_submit(client, p, 100 + i, "m2") for i, p in enumerate(players))
    )
    assert again == cohorts
    # Each cohort's leaderboard holds exactly its players.
    for cohort, size in sizes.items():
        top = await get_json(client, "/v1/boards/league/top", window="daily", scope=cohort)
        members = {p for p, c in zip(players, cohorts, strict=True) if c == cohort}
        assert {e["player_id"] for e in top["entries"]} == members and top["total"] == size
    # scope=cohort on a player's reads names the player's cohort.
    mine = await get_json(client, "/v1/boards/league/players/p7", window="daily", scope="cohort")
    assert mine["scope"] == cohorts[7] and mine["player_id"] == "p7"
    around = await get_json(
        client, "/v1/boards/league/players/p7/around", window="daily", scope="cohort", k=5
    )
    assert around["scope"] == cohorts[7]
    assert {e["player_id"] for e in around["entries"]} == {
        p for p, c in zip(players, cohorts, strict=True) if c == cohorts[7]
    }
    nobody = await client.get(
        "/v1/boards/league/players/ghost", params={"window": "daily", "scope": "cohort"}
    )
    assert_problem(nobody, 404)
    # Erasing a player erases their cohort membership too.
    assert (await client.delete("/v1/players/p7", headers=AUTH)).status_code == 204
    erased = await client.get(
        "/v1/boards/league/players/p7", params={"window": "daily", "scope": "cohort"}
    )
    assert_problem(erased, 404)
    given = {"player_id": "x", "score": 1, "match_id": "m", "scopes": {"cohort": "1"}}
    assert_problem(await client.post("/v1/boards/league/scores", json=given, headers=AUTH), 422)


async def test_a_new_period_starts_new_cohorts(client: httpx.AsyncClient) -> None:
    await put_board(client, "league", windows=["daily"], cohort_size=2)
    day1 = [await _submit(client, p, 1, "m1") for p in ("a", "b", "c")]
    assert day1 == ["cohort:1", "cohort:1", "cohort:2"]
    body = {"player_id": "c", "score": 5, "match_id": "m2", "at": iso(utc(2026, 11, 20, 12))}
    answer = await client.post("/v1/boards/league/scores", json=body, headers=AUTH)
    assert answer.status_code == 200, answer.text
    assert {s["scope"] for s in answer.json()["standings"]} == {"global", "cohort:1"}


async def test_a_service_read_with_scope_cohort_reads_the_players_cohort(
    app: Application, client: httpx.AsyncClient
) -> None:
    """The read resolves ``scope=cohort`` itself: an edge that calls the service (a gRPC
    servicer) answers as the HTTP API does."""
    await put_board(client, "league", windows=["daily"], cohort_size=2)
    for player in ("a", "b", "c"):
        await _submit(client, player, 1, "m1")
    reads = app.state.service.reads
    ask = PlayerRequest(board_id="league", player_id="c", window="daily", scope="cohort")
    answer = await reads.player(ask)
    assert answer.scope == "cohort:2" and answer.rank == 1 and answer.total == 1
    http = await get_json(client, "/v1/boards/league/players/c", window="daily", scope="cohort")
    assert http["scope"] == "cohort:2" and http["rank"] == 1
    around = await reads.around(AroundRequest(board_id="league", player_id="a", scope="cohort"))
    assert around.scope == "cohort:1" and [e.player_id for e in around.entries] == ["a", "b"]


async def test_tournament_cohorts(client: httpx.AsyncClient) -> None:
    spec = {
        "starts_at": iso(utc(2026, 11, 21, 11)),
        "ends_at": iso(utc(2026, 11, 21, 13)),
        "cohort_size": 2,
    }
    assert (await client.put("/v1/tournaments/cup", json=spec, headers=AUTH)).status_code == 201
    for i, player in enumerate(("a", "b", "c")):
        body = {"player_id": player, "score": 10 * i, "match_id": "m1"}
        answer = await client.post("/v1/tournaments/cup/scores", json=body, headers=AUTH)
        assert answer.status_code == 200, answer.text
    mine = await get_json(client, "/v1/tournaments/cup/players/b", scope="cohort")
    assert mine["scope"] == "cohort:1" and mine["rank"] == 1  # b beats a in cohort 1
    top = await get_json(client, "/v1/tournaments/cup/top", scope="cohort:2")
    assert [e["player_id"] for e in top["entries"]] == ["c"]


@asynccontextmanager
async def _cohorts(settings: Settings) -> AsyncIterator[CohortStore]:
    """Cohort assignment through a connection pool of its own, as another worker has."""
    sql = SqlStore(settings.database)
    await sql.start()
    try:
        yield CohortStore(sql)
    finally:
        await sql.close()


async def test_two_workers_assign_each_player_one_cohort(settings: Settings) -> None:
    async with _cohorts(settings) as one, _cohorts(settings) as two:
        players = [f"p{i}" for i in range(30)]
        # Every player's first submission arrives at both workers at once.
        work = [w.assign("b", "daily", "2026-11-21", p, 4) for p in players for w in (one, two)]
        assigned = await asyncio.gather(*work)
        by_player = {p: {assigned[2 * i], assigned[2 * i + 1]} for i, p in enumerate(players)}
        assert all(len(c) == 1 for c in by_player.values())  # no player in two cohorts
        sizes = Counter(c for [c] in (sorted(s) for s in by_player.values()))
        assert max(sizes.values()) == 4 and sorted(sizes) == list(range(1, 9))  # ceil(30 / 4)
        assert sum(sizes.values()) == 30
        for player, [cohort] in ((p, sorted(c)) for p, c in by_player.items()):
            assert await two.cohort_of("b", "daily", "2026-11-21", player) == cohort
