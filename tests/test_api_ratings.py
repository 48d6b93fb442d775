"""Rating boards through the HTTP API on every backend stack: ratings equal an independent
recomputation of every match in order, the answer's shape, provisional players off the ranks,
idempotency and reused match ids, windows and scopes, history, a restart and a replay that
give the same ratings to the last digit."""

from __future__ import annotations

import math
import random
from typing import Any

import httpx
import pytest
from openskill.models import PlackettLuce

from helpers_api import AUTH, assert_problem, get_json, put_board, ranking, utc
from helpers_backends import EDGE_STACK, Backend
from helpers_rating_reference import Glicko2Reference, displayed, elo_update, glicko_update
from rankline import ManualClock
from rankline.http.app import Application
from rankline.ratings.rerate import verify

MATCHES = 10_000
"""Matches of the recomputation on the embedded stack; the others replay the first
``MATCHES_ELSEWHERE`` (the systems' arithmetic is the same code on every stack: what differs
is where the ratings are stored and ranked)."""
MATCHES_ELSEWHERE = 1_000
PLAYERS = 100


async def _match(
    client: httpx.AsyncClient, board: str, match_id: str, *places: tuple[str, int], **extra: Any
) -> httpx.Response:
    results = [{"player_id": p, "place": place} for p, place in places]
    body = {"match_id": match_id, "results": results, **extra}
    return await client.post(f"/v1/boards/{board}/matches", json=body, headers=AUTH)


async def _rated(
    client: httpx.AsyncClient, board: str, match_id: str, *places: tuple[str, int], **extra: Any
) -> dict[str, Any]:
    response = await _match(client, board, match_id, *places, **extra)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def _rating(client: httpx.AsyncClient, board: str, player: str, **params: Any) -> Any:
    return await get_json(client, f"/v1/boards/{board}/players/{player}/rating", **params)


def _random_matches(seed: int) -> list[tuple[str, str, float]]:
    rng = random.Random(seed)
    players = [f"p{i}" for i in range(PLAYERS)]
    out = []
    for _ in range(MATCHES):
        a, b = rng.sample(players, 2)
        out.append((a, b, rng.choice((1.0, 0.0, 0.5))))
    return out


async def _submit_all(
    client: httpx.AsyncClient, board: str, matches: list[tuple[str, str, float]]
) -> None:
    """Every match through the batch path, 1,000 a request, in order."""
    for start in range(0, len(matches), 1000):
        items = []
        for i, (a, b, result) in enumerate(matches[start : start + 1000], start):
            place_a, place_b = {1.0: (1, 2), 0.0: (2, 1), 0.5: (1, 1)}[result]
            items.append(
                {
                    "board": board,
                    "match_id": f"m{i}",
                    "results": [
                        {"player_id": a, "place": place_a},
                        {"player_id": b, "place": place_b},
                    ],
                }
            )
        response = await client.post("/v1/matches/batch", json={"matches": items}, headers=AUTH)
        assert response.status_code == 200, response.text
        results = response.json()["results"]
        assert [r["index"] for r in results] == list(range(len(items)))
        assert all("error" not in r for r in results), results[:3]


async def test_ratings_equal_an_independent_recomputation(
    client: httpx.AsyncClient, stack: Backend
) -> None:
    """10,000 random two-player matches (1,000 on a stack with a server) on one Elo, one
    Glicko-2 and one OpenSkill board; a reference recomputes each system from the match list,
    in order."""
    matches = _random_matches(18)
    if stack.name != EDGE_STACK:
        matches = matches[:MATCHES_ELSEWHERE]
    await put_board(
        client, "elo", policy="rating", rating={"system": "elo", "k": 24, "provisional_games": 0}
    )
    await put_board(
        client, "glicko", policy="rating", rating={"system": "glicko2", "provisional_rd": 400}
    )
    await put_board(
        client, "skill", policy="rating", rating={"system": "openskill", "provisional_sigma": 100}
    )
    for board in ("elo", "glicko", "skill"):
        await _submit_all(client, board, matches)

    elo = {f"p{i}": 1500.0 for i in range(PLAYERS)}
    glicko = {f"p{i}": Glicko2Reference(1500, 350, 0.06, tau=0.5) for i in range(PLAYERS)}
    model = PlackettLuce(mu=25.0, sigma=25.0 / 3)
    skill = {f"p{i}": model.rating() for i in range(PLAYERS)}
    played: set[str] = set()
    for a, b, result in matches:
        played |= {a, b}
        elo_update(elo, a, b, result, 24)
        glicko_update(glicko, a, b, result)
        ranks = {1.0: [1, 2], 0.0: [2, 1], 0.5: [1, 1]}[result]
        [[skill[a]], [skill[b]]] = model.rate([[skill[a]], [skill[b]]], ranks=ranks)

    for player in sorted(played):
        got = await _rating(client, "elo", player)
        assert got["rating"]["rating"] == elo[player]
        assert got["score"] == displayed(elo[player])
        got = await _rating(client, "glicko", player)
        ref = glicko[player]
        assert math.isclose(got["rating"]["rating"], ref.rating, rel_tol=1e-9)
        assert math.isclose(got["rating"]["rd"], ref.rd, rel_tol=1e-9)
        assert math.isclose(got["rating"]["volatility"], ref.vol, rel_tol=1e-9)
        assert abs(got["score"] - ref.rating) <= 0.5 + 1e-6
        got = await _rating(client, "skill", player)
        assert (got["rating"]["mu"], got["rating"]["sigma"]) == (
            skill[player].mu,
            skill[player].sigma,
        )
        assert got["score"] == displayed((skill[player].mu - 3 * skill[player].sigma) * 100)

    board_elo = sorted(
        ((p, displayed(r)) for p, r in elo.items() if p in played), key=lambda x: -x[1]
    )
    top = await ranking(client, "elo")
    assert sorted(s for _, s in top) == sorted(s for _, s in board_elo)
    assert [s for _, s in top] == sorted((s for _, s in top), reverse=True)


async def test_the_answer(client: httpx.AsyncClient) -> None:
    await put_board(
        client, "blitz", policy="rating", rating={"system": "glicko2", "provisional_rd": 350}
    )
    body = await _rated(
        client, "blitz", "g:1", ("magnus", 1), ("hikaru", 2), at="2026-11-21T11:00:00.000Z"
    )
    assert body["board"] == "blitz" and body["match_id"] == "g:1" and body["duplicate"] is False
    assert (body["window"], body["period"]) == ("all_time", "all")
    first, second = body["results"]
    assert first["player_id"] == "magnus" and first["place"] == 1
    assert first["previous"] == {"rating": 1500.0, "rd": 350.0, "volatility": 0.06, "games": 0}
    assert set(first["rating"]) == {"rating", "rd", "volatility", "games"}
    assert first["rating"]["rating"] > 1500 > second["rating"]["rating"]
    assert first["rating"]["rd"] < 350 and first["rating"]["games"] == 1
    assert first["score"] == displayed(first["rating"]["rating"])
    assert (first["rank"], second["rank"]) == (1, 2)
    assert first["provisional"] is False
    assert await ranking(client, "blitz") == [
        ("magnus", first["score"]),
        ("hikaru", second["score"]),
    ]


async def test_provisional_players_are_rated_but_not_ranked(client: httpx.AsyncClient) -> None:
    await put_board(
        client, "rapid", policy="rating", rating={"system": "elo", "provisional_games": 2}
    )
    body = await _rated(client, "rapid", "r1", ("a", 1), ("b", 2))
    assert [r["provisional"] for r in body["results"]] == [True, True]
    assert [r["rank"] for r in body["results"]] == [None, None]
    top = await get_json(client, "/v1/boards/rapid/top")
    assert top["total"] == 0 and top["entries"] == []
    own = await _rating(client, "rapid", "a")
    assert own["provisional"] is True and own["rank"] is None and own["score"] == 1516
    assert_problem(await client.get("/v1/boards/rapid/players/a"), 404)
    # rated matches fix the system, also while every player is provisional
    changed = {"system": "glicko2"}
    response = await client.put(
        "/v1/boards/rapid", json={"policy": "rating", "rating": changed}, headers=AUTH
    )
    assert_problem(response, 409)

    await _rated(client, "rapid", "r2", ("a", 1), ("c", 2))  # a: 2 games, established
    assert await ranking(client, "rapid") == [("a", (await _rating(client, "rapid", "a"))["score"])]
    own = await _rating(client, "rapid", "a")
    assert own["provisional"] is False and own["rank"] == 1 and own["games"] == 2
    assert (await get_json(client, "/v1/boards/rapid/top"))["total"] == 1


async def test_a_retry_is_a_duplicate_and_another_payload_is_409(client: httpx.AsyncClient) -> None:
    await put_board(
        client, "elo", policy="rating", rating={"system": "elo", "provisional_games": 0}
    )
    first = await _rated(client, "elo", "m:1", ("a", 1), ("b", 2), at="2026-11-21T11:00:00.000Z")
    again = await _rated(client, "elo", "m:1", ("a", 1), ("b", 2), at="2026-11-21T11:00:00.000Z")
    assert again["duplicate"] is True
    assert {**again, "duplicate": False} == first
    other = await _match(client, "elo", "m:1", ("a", 2), ("b", 1), at="2026-11-21T11:00:00.000Z")
    assert_problem(other, 409)
    history = await get_json(client, "/v1/players/a/history", board="elo")
    assert [i["match_id"] for i in history["items"]] == ["m:1"]
    assert (await _rating(client, "elo", "a"))["rating"] == first["results"][0]["rating"]


@pytest.mark.edge
async def test_bad_matches_are_refused(client: httpx.AsyncClient) -> None:
    await put_board(client, "elo", policy="rating", rating={"system": "elo"})
    await put_board(client, "plain")
    assert_problem(await _match(client, "elo", "x", ("a", 1)), 422)
    assert_problem(await _match(client, "elo", "x", ("a", 1), ("a", 2)), 422)
    assert_problem(await _match(client, "elo", "x", ("a", 0), ("b", 1)), 422)
    assert_problem(await _match(client, "plain", "x", ("a", 1), ("b", 2)), 409)
    assert_problem(await _match(client, "nope", "x", ("a", 1), ("b", 2)), 404)
    score = await client.post(
        "/v1/boards/elo/scores", json={"player_id": "a", "score": 1, "match_id": "s"}, headers=AUTH
    )
    assert_problem(score, 409)
    no_key = await client.post(
        "/v1/boards/elo/matches",
        json={
            "match_id": "x",
            "results": [{"player_id": "a", "place": 1}, {"player_id": "b", "place": 2}],
        },
    )
    assert_problem(no_key, 401)
    bad = await client.put(
        "/v1/boards/x",
        json={"policy": "rating", "rating": {"system": "elo", "k": -1}},
        headers=AUTH,
    )
    assert_problem(bad, 422)


async def test_weekly_boards_start_each_week_from_the_initial_rating(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put_board(
        client,
        "weekly",
        policy="rating",
        windows=["all_time", "weekly"],
        scopes=["country"],
        rating={"system": "elo", "provisional_games": 0},
    )

    async def play(match_id: str, at: str) -> dict[str, Any]:
        body = {
            "match_id": match_id,
            "at": at,
            "results": [
                {"player_id": "a", "place": 1, "scopes": {"country": "NO"}},
                {"player_id": "b", "place": 2, "scopes": {"country": "US"}},
            ],
        }
        response = await client.post("/v1/boards/weekly/matches", json=body, headers=AUTH)
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()
        return result

    await play("w47", "2026-11-21T10:00:00.000Z")
    clock.set(utc(2026, 11, 24, 12))
    await play("w48", "2026-11-24T10:00:00.000Z")
    assert await ranking(client, "weekly") == [("a", 1531), ("b", 1469)]
    assert await ranking(client, "weekly", window="weekly", period="2026-W47") == [
        ("a", 1516),
        ("b", 1484),
    ]
    assert await ranking(client, "weekly", window="weekly") == [("a", 1516), ("b", 1484)]
    week = await _rating(client, "weekly", "a", window="weekly")
    assert week["period"] == "2026-W48" and week["games"] == 1
    # a country leaderboard shows the same rating, from the one submission
    assert await ranking(client, "weekly", scope="country:NO") == [("a", 1531)]
    scoped = await _rating(client, "weekly", "b", scope="country:US")
    assert (scoped["scope"], scoped["rank"], scoped["score"]) == ("country:US", 1, 1469)
    assert await ranking(client, "weekly", window="weekly", scope="country:US") == [("b", 1484)]


async def test_history_carries_the_match_and_both_ratings(client: httpx.AsyncClient) -> None:
    await put_board(
        client, "elo", policy="rating", rating={"system": "elo", "provisional_games": 0}
    )
    one = await _rated(client, "elo", "m1", ("a", 1), ("b", 2))
    two = await _rated(client, "elo", "m2", ("a", 2), ("c", 1))
    page = await get_json(client, "/v1/players/a/history", board="elo", limit=1)
    [item] = page["items"]
    assert item["match_id"] == "m2" and item["place"] == 2
    assert item["previous"] == one["results"][0]["rating"]
    assert item["rating"] == two["results"][0]["rating"]
    assert item["score"] == two["results"][0]["score"]
    rest = await get_json(client, "/v1/players/a/history", board="elo", cursor=page["next_cursor"])
    assert [i["match_id"] for i in rest["items"]] == ["m1"] and rest["next_cursor"] is None
    assert rest["items"][0]["previous"] == {"rating": 1500.0, "games": 0}


async def test_a_restart_and_a_replay_give_the_same_ratings(
    app: Application, client: httpx.AsyncClient, settings: Any, clock: ManualClock
) -> None:
    from asgi_lifespan import LifespanManager

    from rankline.http import create_app

    await put_board(
        client,
        "g2",
        policy="rating",
        windows=["all_time", "daily"],
        rating={"system": "glicko2", "provisional_rd": 400},
    )
    rng = random.Random(7)
    for i in range(60):
        a, b, c = rng.sample([f"p{n}" for n in range(8)], 3)
        await _rated(client, "g2", f"m{i}", (a, 1), (b, 2), (c, rng.choice((2, 3))))
    before = {p: await _rating(client, "g2", p) for p in (f"p{n}" for n in range(8))}
    top = await ranking(client, "g2")
    service = app.state.service
    board = service.boards.get("g2")
    report = await verify(service.ratings, board)
    assert report.matches == 60 and report.states > 0 and report.identical, report.differing

    # another process over the same stores, after this one stopped: same ratings, and the
    # next match continues from them
    fresh = create_app(settings, clock=clock)
    await app.state.service.close()
    async with LifespanManager(fresh, startup_timeout=60, shutdown_timeout=60):
        await fresh.state.service.wait_ready()
        transport = httpx.ASGITransport(app=fresh)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as again:
            after = {p: await _rating(again, "g2", p) for p in before}
            assert after == before
            assert await ranking(again, "g2") == top
            body = await _rated(again, "g2", "m60", ("p0", 1), ("p1", 2))
            assert body["results"][0]["previous"] == {
                k: v for k, v in before["p0"]["rating"].items()
            }
            report = await verify(fresh.state.service.ratings, board)
            assert report.matches == 61 and report.identical


async def test_the_python_client_and_the_batch_path(app: Application) -> None:
    from rankline.client import AsyncClient

    transport = httpx.ASGITransport(app=app)
    async with AsyncClient("http://t", server_key="test-server-key", transport=transport) as rl:
        await rl.put_board(
            "skill", policy="rating", rating={"system": "openskill", "provisional_sigma": 9}
        )
        one = await rl.submit_match(
            "skill",
            "t:1",
            [
                {"player_id": "a", "place": 1, "team": "red"},
                {"player_id": "b", "place": 1, "team": "red"},
                {"player_id": "c", "place": 2, "team": "blue"},
                {"player_id": "d", "place": 2, "team": "blue"},
            ],
        )
        model = PlackettLuce(mu=25.0, sigma=25.0 / 3)
        teams = [[model.rating(), model.rating()], [model.rating(), model.rating()]]
        [[a, _], [c, _]] = model.rate(teams, ranks=[1, 2])
        assert (
            one["results"][0]["rating"]["mu"] == a.mu and one["results"][2]["rating"]["mu"] == c.mu
        )
        assert one["results"][0]["team"] == "red"
        batch = await rl.submit_matches(
            [
                {
                    "board": "skill",
                    "match_id": "t:2",
                    "results": [{"player_id": "a", "place": 1}, {"player_id": "c", "place": 2}],
                },
                {"board": "skill", "match_id": "t:3", "results": [{"player_id": "a", "place": 1}]},
                {
                    "board": "nope",
                    "match_id": "t:4",
                    "results": [{"player_id": "a", "place": 1}, {"player_id": "c", "place": 2}],
                },
                {
                    "board": "skill",
                    "match_id": "t:1",
                    "results": [{"player_id": "a", "place": 2}, {"player_id": "c", "place": 1}],
                },
            ]
        )
        results = batch["results"]
        assert (
            results[0]["index"] == 0
            and results[0]["results"][0]["previous"] == one["results"][0]["rating"]
        )
        assert results[1]["error"]["status"] == 422
        assert results[1]["error"]["errors"][0]["loc"][:3] == ["body", "matches", 1]
        assert results[2]["error"]["status"] == 404
        assert results[3]["error"]["status"] == 409
        assert (await rl.rating("skill", "a"))["games"] == 2


async def test_respond_async_takes_the_match_and_rates_it_behind(client: httpx.AsyncClient) -> None:
    await put_board(
        client, "elo", policy="rating", rating={"system": "elo", "provisional_games": 0}
    )
    body = {
        "match_id": "m1",
        "results": [{"player_id": "a", "place": 1}, {"player_id": "b", "place": 2}],
    }
    response = await client.post(
        "/v1/boards/elo/matches", json=body, headers={**AUTH, "Prefer": "respond-async"}
    )
    assert response.status_code == 202, response.text
    token = response.json()["token"]
    top = await get_json(client, "/v1/boards/elo/top", after=token)
    assert [(e["player_id"], e["score"]) for e in top["entries"]] == [("a", 1516), ("b", 1484)]
    again = await _rated(client, "elo", "m1", ("a", 1), ("b", 2))
    assert again["duplicate"] is True and again["results"][0]["score"] == 1516


async def test_erasing_a_player_removes_their_ratings(client: httpx.AsyncClient) -> None:
    await put_board(
        client, "elo", policy="rating", rating={"system": "elo", "provisional_games": 0}
    )
    await _rated(client, "elo", "m1", ("a", 1), ("b", 2))
    assert (await client.delete("/v1/players/a", headers=AUTH)).status_code == 204
    assert_problem(await client.get("/v1/boards/elo/players/a/rating"), 404)
    assert (await get_json(client, "/v1/players/a/history", board="elo"))["items"] == []
    assert await ranking(client, "elo") == [("b", 1484)]
    # a new match starts the erased player from the initial rating again
    again = await _rated(client, "elo", "m2", ("a", 1), ("c", 2))
    assert again["results"][0]["previous"] == {"rating": 1500.0, "games": 0}
