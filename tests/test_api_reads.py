"""Reading leaderboards: top, player, around, friends, ranks, periods; the window, period and
scope parameters; the ranking order across ties."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from helpers_api import (
    AUTH,
    NOW,
    assert_problem,
    error_locs,
    get_json,
    put_board,
    ranking,
    submit,
    top,
    utc,
)
from rankline import ManualClock

HEAD = {
    "board": "arena",
    "window": "all_time",
    "period": "all",
    "scope": "global",
    "as_of": NOW,
    "period_ends_at": None,
    "closes_at": None,
}


def _at(minute: int) -> str:
    return f"2026-11-21T10:{minute:02d}:00.000Z"


async def _ties(client: httpx.AsyncClient) -> None:
    """top 100; b and a tie on 90 (b earlier); Zed and abe tie on score and time; z last."""
    await put_board(client, "arena")
    await submit(client, "arena", "z", 70, at=_at(0))
    await submit(client, "arena", "a", 90, at=_at(2))
    await submit(client, "arena", "abe", 80, at=_at(3))
    await submit(client, "arena", "top", 100, at=_at(5))
    await submit(client, "arena", "b", 90, at=_at(1))
    await submit(client, "arena", "Zed", 80, at=_at(3))


async def _twenty(client: httpx.AsyncClient) -> None:
    """p00..p19 with scores 100..81: p00 is rank 1, p19 rank 20."""
    await put_board(client, "arena", windows=["all_time", "daily"], scopes=["region"])
    items = [
        {
            "board": "arena",
            "player_id": f"p{i:02d}",
            "score": 100 - i,
            "match_id": "m",
            "at": _at(i),
        }
        for i in range(20)
    ]
    response = await client.post("/v1/scores/batch", json={"scores": items}, headers=AUTH)
    assert response.status_code == 200
    assert all("error" not in r for r in response.json()["results"])


def _entry(i: int) -> dict[str, Any]:
    return {"rank": i + 1, "player_id": f"p{i:02d}", "score": 100 - i, "achieved_at": _at(i)}


# --- the ranking order ----------------------------------------------------------------


async def test_top_orders_ties_by_achieved_at_then_player_id_bytewise(
    client: httpx.AsyncClient,
) -> None:
    await _ties(client)
    assert await top(client, "arena") == {
        **HEAD,
        "total": 6,
        "entries": [
            {"rank": 1, "player_id": "top", "score": 100, "achieved_at": _at(5)},
            {"rank": 2, "player_id": "b", "score": 90, "achieved_at": _at(1)},
            {"rank": 3, "player_id": "a", "score": 90, "achieved_at": _at(2)},
            {"rank": 4, "player_id": "Zed", "score": 80, "achieved_at": _at(3)},
            {"rank": 5, "player_id": "abe", "score": 80, "achieved_at": _at(3)},
            {"rank": 6, "player_id": "z", "score": 70, "achieved_at": _at(0)},
        ],
    }


async def test_player_ids_compare_bytewise_not_numerically(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", order="asc")
    for player in ("p:9", "p:10", "P:9", "p:1"):
        await submit(client, "arena", player, 5, at=_at(0))
    assert await ranking(client, "arena") == [("P:9", 5), ("p:1", 5), ("p:10", 5), ("p:9", 5)]


RANKED = [
    # player, score, achieved_at, rank, competition_rank, percentile
    ("top", 100, _at(5), 1, 1, 500 / 6),
    ("b", 90, _at(1), 2, 2, 400 / 6),
    ("a", 90, _at(2), 3, 2, 50.0),
    ("Zed", 80, _at(3), 4, 4, 200 / 6),
    ("abe", 80, _at(3), 5, 4, 100 / 6),
    ("z", 70, _at(0), 6, 6, 0.0),
]


BEST = {"z": 1, "a": 1, "abe": 2, "top": 1, "b": 2, "Zed": 4}
"""The rank each player of ``_ties`` entered at (its one submission), or now if better."""


async def test_player_rank_competition_rank_and_percentile(client: httpx.AsyncClient) -> None:
    await _ties(client)
    for player, score, at, rank, competition_rank, percentile in RANKED:
        body = await get_json(client, f"/v1/boards/arena/players/{player}")
        assert body.pop("percentile") == pytest.approx(percentile, abs=1e-3), player
        assert body == {
            **HEAD,
            "total": 6,
            "player_id": player,
            "score": score,
            "rank": rank,
            "competition_rank": competition_rank,
            "achieved_at": at,
            "previous_rank": None,
            "best_rank": BEST[player],
        }


async def test_competition_ranks_1_2_2_4(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    for player, score in [("a", 10), ("b", 9), ("c", 9), ("d", 8)]:
        await submit(client, "arena", player, score)
    found = []
    for player in "abcd":
        body = await get_json(client, f"/v1/boards/arena/players/{player}")
        found.append((body["rank"], body["competition_rank"], body["percentile"]))
    assert found == [(1, 1, 75.0), (2, 2, 50.0), (3, 2, 25.0), (4, 4, 0.0)]


async def test_single_player_percentile_is_zero(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    await submit(client, "arena", "solo", 1)
    body = await get_json(client, "/v1/boards/arena/players/solo")
    assert (body["rank"], body["competition_rank"], body["percentile"], body["total"]) == (
        1,
        1,
        0,
        1,
    )


async def test_asc_board_ranks_lowest_first(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", order="asc")
    for player, score in [("a", 30), ("b", 10), ("c", 20), ("d", 10)]:
        await submit(client, "arena", player, score, at=_at(0))
    assert await ranking(client, "arena") == [("b", 10), ("d", 10), ("c", 20), ("a", 30)]
    body = await get_json(client, "/v1/boards/arena/players/d")
    assert (body["rank"], body["competition_rank"]) == (2, 1)


# --- top ------------------------------------------------------------------------------


async def test_top_limit_and_offset(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    body = await top(client, "arena", limit=3, offset=4)
    assert isinstance(body.pop("next"), str)  # entries follow (cursors: test_api_cursors.py)
    assert body == {**HEAD, "total": 20, "entries": [_entry(4), _entry(5), _entry(6)]}
    assert (await top(client, "arena"))["entries"] == [_entry(i) for i in range(20)]
    assert (await top(client, "arena", limit=1))["entries"] == [_entry(0)]
    assert (await top(client, "arena", limit=1000, offset=18))["entries"] == [
        _entry(18),
        _entry(19),
    ]
    assert (await top(client, "arena", offset=20)) == {**HEAD, "total": 20, "entries": []}


async def test_top_default_limit_is_100(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    items = [
        {"board": "arena", "player_id": f"p{i:03d}", "score": i, "match_id": "m"}
        for i in range(150)
    ]
    await client.post("/v1/scores/batch", json={"scores": items}, headers=AUTH)
    body = await top(client, "arena")
    assert body["total"] == 150
    assert [e["rank"] for e in body["entries"]] == list(range(1, 101))
    assert body["entries"][0]["player_id"] == "p149"


async def test_top_of_empty_board(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    assert await top(client, "arena") == {**HEAD, "total": 0, "entries": []}


@pytest.mark.edge
async def test_top_bad_limit_or_offset_is_422(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    bad = [("limit", v) for v in ("0", "1001", "-1", "ten", "1.5", "")] + [
        ("offset", v) for v in ("-1", "x", "1e3")
    ]
    for param, value in bad:
        response = await client.get(f"/v1/boards/arena/top?{param}={value}")
        assert error_locs(response) == [["query", param]], (param, value)


# --- player ---------------------------------------------------------------------------


async def test_unknown_player_is_404(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    assert_problem(await client.get("/v1/boards/arena/players/ghost"), 404)
    assert_problem(await client.get("/v1/boards/arena/players/ghost/around"), 404)
    assert_problem(
        await client.get("/v1/boards/arena/players/p00", params={"scope": "region:EU"}), 404
    )


@pytest.mark.edge
async def test_unknown_board_is_404(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    for method, path, body in [
        ("GET", "/v1/boards/ghost/top", None),
        ("GET", "/v1/boards/ghost/players/p00", None),
        ("GET", "/v1/boards/ghost/players/p00/around", None),
        ("POST", "/v1/boards/ghost/players/p00/friends", {"friends": ["p01"]}),
        ("POST", "/v1/boards/ghost/ranks", {"player_ids": ["p00"]}),
        ("GET", "/v1/boards/ghost/periods", None),
    ]:
        assert_problem(await client.request(method, path, json=body), 404)


@pytest.mark.edge
async def test_invalid_player_id_in_path_is_422(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    for player in ["p%20x", "a" * 65, "%C3%A9", "p!"]:
        for suffix in ("", "/around"):
            response = await client.get(f"/v1/boards/arena/players/{player}{suffix}")
            assert error_locs(response) == [["path", "player_id"]], player


# --- around ---------------------------------------------------------------------------


async def test_around(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    for player, k, ranks in [
        (9, 0, [9]),
        (9, 5, list(range(4, 15))),
        (1, 5, list(range(0, 7))),
        (0, 3, [0, 1, 2, 3]),
        (19, 5, list(range(14, 20))),
        (18, 100, list(range(20))),
    ]:
        body = await get_json(client, f"/v1/boards/arena/players/p{player:02d}/around", k=k)
        percentile = body["player"].pop("percentile")
        assert percentile == pytest.approx(100 * (19 - player) / 20)
        assert body == {
            **HEAD,
            "total": 20,
            "player": {
                "player_id": f"p{player:02d}",
                "score": 100 - player,
                "rank": player + 1,
                "competition_rank": player + 1,
                "achieved_at": _at(player),
                "previous_rank": None,  # one submission each, entered in rank order
                "best_rank": player + 1,
            },
            "entries": [_entry(i) for i in ranks],
        }, (player, k)


async def test_around_default_k_is_5(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    body = await get_json(client, "/v1/boards/arena/players/p10/around")
    assert [e["rank"] for e in body["entries"]] == list(range(6, 17))


@pytest.mark.edge
async def test_around_bad_k_is_422(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    for k in ["-1", "101", "x"]:
        response = await client.get("/v1/boards/arena/players/p10/around", params={"k": k})
        assert error_locs(response) == [["query", "k"]], k


# --- friends --------------------------------------------------------------------------


async def _friends(
    client: httpx.AsyncClient, player: str, body: dict[str, Any], **params: Any
) -> dict[str, Any]:
    response = await client.post(
        f"/v1/boards/arena/players/{player}/friends", json=body, params=params or None
    )
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def _friend(i: int, friends_rank: int) -> dict[str, Any]:
    return {**_entry(i), "friends_rank": friends_rank}


async def test_friends_leaderboard(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    body = await _friends(
        client, "p10", {"friends": ["p15", "ghost", "p00", "p19", "p05", "p05", "nobody"]}
    )
    percentile = body["player"].pop("percentile")
    assert percentile == pytest.approx(45.0)
    assert body == {
        **HEAD,
        "total": 20,
        "player": {
            "player_id": "p10",
            "score": 90,
            "rank": 11,
            "competition_rank": 11,
            "achieved_at": _at(10),
            "previous_rank": None,  # one submission each, entered in rank order
            "best_rank": 11,
            "friends_rank": 3,
        },
        "friends_total": 5,
        "entries": [_friend(0, 1), _friend(5, 2), _friend(10, 3), _friend(15, 4), _friend(19, 5)],
    }


async def test_friends_k_window(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    everyone = [(0, 1), (5, 2), (10, 3), (15, 4), (19, 5)]
    for k, shown in [
        (0, [(10, 3)]),
        (1, [(5, 2), (10, 3), (15, 4)]),
        (2, everyone),
        (5000, everyone),
    ]:
        body = await _friends(client, "p10", {"friends": ["p00", "p05", "p15", "p19"], "k": k})
        assert body["friends_total"] == 5
        assert body["player"]["friends_rank"] == 3
        assert body["entries"] == [_friend(i, r) for i, r in shown], k


async def test_friends_of_player_without_entry(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    body = await _friends(client, "newbie", {"friends": ["p07", "p03", "ghost"]})
    assert body == {
        **HEAD,
        "total": 20,
        "player": None,
        "friends_total": 2,
        "entries": [_friend(3, 1), _friend(7, 2)],
    }


async def test_friends_without_any_entries(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    body = await _friends(client, "newbie", {"friends": []})
    assert body == {**HEAD, "total": 20, "player": None, "friends_total": 0, "entries": []}


async def test_friends_on_scoped_daily_leaderboard(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    await submit(client, "arena", "eu1", 50, scopes={"region": "EU"})
    await submit(client, "arena", "eu2", 60, scopes={"region": "EU"})
    body = await _friends(
        client, "eu1", {"friends": ["eu2", "p00"]}, window="daily", scope="region:EU"
    )
    assert {k: body[k] for k in ("window", "period", "scope", "total", "friends_total")} == {
        "window": "daily",
        "period": "2026-11-21",
        "scope": "region:EU",
        "total": 2,
        "friends_total": 2,
    }
    assert [(e["player_id"], e["rank"], e["friends_rank"]) for e in body["entries"]] == [
        ("eu2", 1, 1),
        ("eu1", 2, 2),
    ]


@pytest.mark.edge
async def test_friends_invalid_body_is_422(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    for body in [
        {"friends": [f"f{i}" for i in range(5001)]},
        {"friends": ["bad id"]},
        {"friends": "p01"},
        {"friends": ["p01"], "k": -1},
        {"friends": ["p01"], "k": 5001},
        {"friends": ["p01"], "extra": True},
        {},
    ]:
        response = await client.post("/v1/boards/arena/players/p10/friends", json=body)
        assert_problem(response, 422)


async def test_friends_accepts_5000(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    friends = [f"f{i}" for i in range(4999)] + ["p00"]
    body = await _friends(client, "p10", {"friends": friends})
    assert body["friends_total"] == 2


# --- ranks ----------------------------------------------------------------------------


async def test_ranks_in_rank_order_without_unranked(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    response = await client.post(
        "/v1/boards/arena/ranks", json={"player_ids": ["p15", "ghost", "p00", "p07", "p15"]}
    )
    assert response.status_code == 200
    assert response.json() == {**HEAD, "total": 20, "entries": [_entry(0), _entry(7), _entry(15)]}


async def test_ranks_of_nobody(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    response = await client.post("/v1/boards/arena/ranks", json={"player_ids": ["x", "y"]})
    assert response.json() == {**HEAD, "total": 20, "entries": []}


async def test_ranks_on_a_scope(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    await submit(client, "arena", "p05", 500, match="eu", scopes={"region": "EU"})
    response = await client.post(
        "/v1/boards/arena/ranks", params={"scope": "region:EU"}, json={"player_ids": ["p05", "p06"]}
    )
    assert response.json() == {
        **HEAD,
        "scope": "region:EU",
        "total": 1,
        "entries": [{"rank": 1, "player_id": "p05", "score": 500, "achieved_at": NOW}],
    }


@pytest.mark.edge
async def test_ranks_invalid_body_is_422(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    for body in [{"player_ids": [f"p{i}" for i in range(1001)]}, {"player_ids": ["a b"]}, {}]:
        assert_problem(await client.post("/v1/boards/arena/ranks", json=body), 422)


async def test_ranks_accepts_1000(client: httpx.AsyncClient) -> None:
    await _twenty(client)
    ids = [f"x{i}" for i in range(999)] + ["p19"]
    response = await client.post("/v1/boards/arena/ranks", json={"player_ids": ids})
    assert response.json()["entries"] == [_entry(19)]


# --- window, period and scope ---------------------------------------------------------

READS = [
    ("GET", "/v1/boards/arena/top", None),
    ("GET", "/v1/boards/arena/players/p00", None),
    ("GET", "/v1/boards/arena/players/p00/around", None),
    ("POST", "/v1/boards/arena/players/p00/friends", {"friends": ["p01"]}),
    ("POST", "/v1/boards/arena/ranks", {"player_ids": ["p00"]}),
]
READ_IDS = ["top", "player", "around", "friends", "ranks"]


ALL_TIME = {"window": "all_time", "period": "all", "period_ends_at": None, "closes_at": None}
DAY = {
    "window": "daily",
    "period": "2026-11-21",
    "period_ends_at": "2026-11-22T00:00:00.000Z",
    "closes_at": "2026-11-22T00:05:00.000Z",  # the end plus the default grace of 300 s
}
HEADS: list[tuple[dict[str, str], dict[str, str | None]]] = [
    ({}, {**ALL_TIME, "scope": "global"}),
    ({"window": "daily"}, {**DAY, "scope": "global"}),
    ({"window": "daily", "period": "2026-11-21", "scope": "global"}, {**DAY, "scope": "global"}),
    ({"scope": "region:EU"}, {**ALL_TIME, "scope": "region:EU"}),
    ({"period": "all"}, {**ALL_TIME, "scope": "global"}),
]


@pytest.mark.edge
@pytest.mark.parametrize(("method", "path", "body"), READS, ids=READ_IDS)
async def test_every_read_answers_its_head(
    client: httpx.AsyncClient, method: str, path: str, body: dict[str, Any] | None
) -> None:
    await _twenty(client)
    for player in ("p00", "p01"):
        await submit(client, "arena", player, 1000, match="eu", scopes={"region": "EU"})
    for params, head in HEADS:
        response = await client.request(method, path, params=params, json=body)
        assert response.status_code == 200, response.text
        answer = response.json()
        total = 2 if params.get("scope") == "region:EU" else 20
        assert {k: answer[k] for k in HEAD} | {"total": answer["total"]} == {
            "board": "arena",
            **head,
            "total": total,
            "as_of": NOW,
        }, params


BAD_PARAMS = [
    ({"window": "hourly"}, ["query", "window"]),
    ({"window": "weekly"}, ["query", "window"]),
    ({"window": "season"}, ["query", "window"]),
    ({"window": "daily", "period": "yesterday"}, ["query", "period"]),
    ({"window": "daily", "period": "2026-13-01"}, ["query", "period"]),
    ({"window": "daily", "period": "2026-02-30"}, ["query", "period"]),
    ({"window": "daily", "period": "2026-W47"}, ["query", "period"]),
    ({"window": "daily", "period": "2026-11-21T00:00"}, ["query", "period"]),
    ({"period": "2026-11-21"}, ["query", "period"]),
    ({"period": "current"}, ["query", "period"]),
    ({"scope": "country:FR"}, ["query", "scope"]),
    ({"scope": "region"}, ["query", "scope"]),
    ({"scope": "region:"}, ["query", "scope"]),
    ({"scope": ":EU"}, ["query", "scope"]),
]


@pytest.mark.edge
@pytest.mark.parametrize(("method", "path", "body"), READS, ids=READ_IDS)
async def test_bad_window_period_or_scope_is_422(
    client: httpx.AsyncClient, method: str, path: str, body: dict[str, Any] | None
) -> None:
    await _twenty(client)
    for params, loc in BAD_PARAMS:
        response = await client.request(method, path, params=params, json=body)
        assert error_locs(response) == [loc], params


async def test_explicit_period_reads_a_past_day(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put_board(client, "arena", windows=["all_time", "daily", "weekly"])
    clock.set(utc(2026, 11, 20, 12))
    await submit(client, "arena", "old", 10)
    clock.set(utc(2026, 11, 21, 12))
    await submit(client, "arena", "new", 5)
    assert await ranking(client, "arena", window="daily") == [("new", 5)]
    past = await top(client, "arena", window="daily", period="2026-11-20")
    assert past == {
        **HEAD,
        "window": "daily",
        "period": "2026-11-20",
        "period_ends_at": "2026-11-21T00:00:00.000Z",
        "closes_at": "2026-11-21T00:05:00.000Z",
        "total": 1,
        "entries": [
            {"rank": 1, "player_id": "old", "score": 10, "achieved_at": "2026-11-20T12:00:00.000Z"}
        ],
    }
    body = await get_json(
        client, "/v1/boards/arena/players/old", window="daily", period="2026-11-20"
    )
    assert (body["rank"], body["period"]) == (1, "2026-11-20")
    assert await ranking(client, "arena", window="daily", period="2026-11-19") == []
    assert await ranking(client, "arena", window="weekly", period="2026-W47") == [
        ("old", 10),
        ("new", 5),
    ]
    assert await ranking(client, "arena") == [("old", 10), ("new", 5)]


# --- periods --------------------------------------------------------------------------


async def test_periods_lists_open_and_closed_with_bounds(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"])
    clock.set(utc(2026, 11, 20, 12))
    await submit(client, "arena", "old1", 10)
    await submit(client, "arena", "old2", 20)
    clock.set(utc(2026, 11, 21, 12))
    await submit(client, "arena", "new", 5)
    daily = [
        {
            "window": "daily",
            "period": "2026-11-21",
            "starts_at": "2026-11-21T00:00:00.000Z",
            "ends_at": "2026-11-22T00:00:00.000Z",
            "state": "open",
            "total": 1,
        },
        {
            "window": "daily",
            "period": "2026-11-20",
            "starts_at": "2026-11-20T00:00:00.000Z",
            "ends_at": "2026-11-21T00:00:00.000Z",
            "state": "closed",
            "total": 2,
        },
    ]
    body = await get_json(client, "/v1/boards/arena/periods", window="daily")
    assert body == {"board": "arena", "as_of": NOW, "periods": daily}
    everything = await get_json(client, "/v1/boards/arena/periods")
    all_time = {
        "window": "all_time",
        "period": "all",
        "starts_at": None,
        "ends_at": None,
        "state": "open",
        "total": 3,
    }
    assert everything == {"board": "arena", "as_of": NOW, "periods": [all_time, *daily]}


async def test_periods_of_new_board_shows_current_ones(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", windows=["weekly", "monthly"])
    body = await get_json(client, "/v1/boards/arena/periods")
    assert body["periods"] == [
        {
            "window": "monthly",
            "period": "2026-11",
            "starts_at": "2026-11-01T00:00:00.000Z",
            "ends_at": "2026-12-01T00:00:00.000Z",
            "state": "open",
            "total": 0,
        },
        {
            "window": "weekly",
            "period": "2026-W47",
            "starts_at": "2026-11-16T00:00:00.000Z",
            "ends_at": "2026-11-23T00:00:00.000Z",
            "state": "open",
            "total": 0,
        },
    ]


@pytest.mark.edge
async def test_periods_bad_window_is_422(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"])
    for window in ["hourly", "weekly"]:
        response = await client.get("/v1/boards/arena/periods", params={"window": window})
        assert error_locs(response) == [["query", "window"]], window
