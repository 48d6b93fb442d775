"""Players: profiles, display names in every read, submission history and stored friend
lists (bans and erasure are in test_bans_erase.py)."""

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
    submit,
    top,
    utc,
)
from rankline import ManualClock
from rankline.http.app import Application
from rankline.reading.names import NameDirectory


def _at(minute: int) -> str:
    return f"2026-11-21T10:{minute:02d}:00.000Z"


async def _profile(
    client: httpx.AsyncClient, player: str, expect: int = 201, **fields: Any
) -> dict[str, Any]:
    response = await client.put(f"/v1/players/{player}", json=fields, headers=AUTH)
    assert response.status_code == expect, response.text
    body: dict[str, Any] = response.json()
    return body


async def _five(client: httpx.AsyncClient) -> None:
    """p0..p4 scoring 50..10 on `arena` (all_time, daily; region scope), all in region EU."""
    await put_board(client, "arena", windows=["all_time", "daily"], scopes=["region"])
    for i in range(5):
        await submit(client, "arena", f"p{i}", 50 - 10 * i, at=_at(i), scopes={"region": "EU"})


# --- profiles -------------------------------------------------------------------------


async def test_put_creates_then_replaces_a_profile(client: httpx.AsyncClient) -> None:
    body = await _profile(
        client,
        "p:42",
        display_name="Ada ✨",
        avatar_url="https://img.example/ada.png",
        country="GB",
        metadata={"level": 7},
    )
    assert body == {
        "player_id": "p:42",
        "display_name": "Ada ✨",
        "avatar_url": "https://img.example/ada.png",
        "country": "GB",
        "metadata": {"level": 7},
    }
    assert await get_json(client, "/v1/players/p:42") == {**body, "banned": False, "standings": []}
    # PUT replaces the whole profile: what is left out is cleared
    replaced = await _profile(client, "p:42", 200, display_name="Ada L.")
    assert replaced == {
        "player_id": "p:42",
        "display_name": "Ada L.",
        "avatar_url": None,
        "country": None,
        "metadata": {},
    }
    assert (await get_json(client, "/v1/players/p:42"))["display_name"] == "Ada L."


@pytest.mark.edge
async def test_profile_validation(client: httpx.AsyncClient) -> None:
    longest = {"display_name": "x" * 100, "avatar_url": "u" * 500, "country": "ABCDEFGH"}
    await _profile(client, "p1", **longest)
    for field, value in [
        ("display_name", "x" * 101),
        ("avatar_url", "u" * 501),
        ("country", "ABCDEFGHI"),
        ("display_name", "nul\u0000"),
        ("display_name", 5),
        ("metadata", [1]),
    ]:
        response = await client.put("/v1/players/p1", json={field: value}, headers=AUTH)
        assert error_locs(response) == [["body", field]], (field, value)
    response = await client.put("/v1/players/p1", json={"nick": "x"}, headers=AUTH)
    assert_problem(response, 422)
    response = await client.put("/v1/players/bad%20id", json={}, headers=AUTH)
    assert error_locs(response) == [["path", "player_id"]]
    assert_problem(await client.put("/v1/players/p1", json={}), 401)
    wrong = {"Authorization": "Bearer nope"}
    assert_problem(await client.put("/v1/players/p1", json={}, headers=wrong), 403)
    assert (await get_json(client, "/v1/players/p1"))["display_name"] == "x" * 100


async def test_get_player_404_without_profile_or_entry(client: httpx.AsyncClient) -> None:
    assert_problem(await client.get("/v1/players/ghost"), 404)
    await put_board(client, "arena")
    await submit(client, "arena", "solo", 10, at=_at(0))
    assert await get_json(client, "/v1/players/solo") == {
        "player_id": "solo",
        "display_name": None,
        "avatar_url": None,
        "country": None,
        "metadata": {},
        "banned": False,
        "standings": [
            {
                "board": "arena",
                "window": "all_time",
                "period": "all",
                "scope": "global",
                "score": 10,
                "rank": 1,
            }
        ],
    }


async def test_get_player_lists_current_standings_on_every_board(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await _five(client)
    await put_board(client, "sprint", order="asc", windows=["weekly"])
    await submit(client, "sprint", "p3", 7, at=_at(0))
    await submit(client, "sprint", "p9", 5, at=_at(0))
    await _profile(client, "p3", display_name="Three")
    body = await get_json(client, "/v1/players/p3")
    assert body["display_name"] == "Three"
    assert body["standings"] == [
        {"board": "arena", "window": w, "period": p, "scope": s, "score": 20, "rank": 4}
        for w, p in [("all_time", "all"), ("daily", "2026-11-21")]
        for s in ("global", "region:EU")
    ] + [
        {
            "board": "sprint",
            "window": "weekly",
            "period": "2026-W47",
            "scope": "global",
            "score": 7,
            "rank": 2,
        }
    ]
    # a day later: yesterday's daily standing is no longer current
    clock.set(utc(2026, 11, 22, 12))
    body = await get_json(client, "/v1/players/p3")
    assert [(s["board"], s["window"], s["period"]) for s in body["standings"]] == [
        ("arena", "all_time", "all"),
        ("arena", "all_time", "all"),
        ("sprint", "weekly", "2026-W47"),
    ]


# --- display names in reads -----------------------------------------------------------


async def test_display_names_join_every_read(client: httpx.AsyncClient) -> None:
    await _five(client)
    await _profile(client, "p0", display_name="Zero")
    await _profile(client, "p2", display_name="Two")
    await _profile(client, "p3", country="FR")  # a profile without a name adds nothing
    names = {"p0": "Zero", "p2": "Two"}

    def check(entries: list[dict[str, Any]]) -> None:
        for entry in entries:
            if entry["player_id"] in names:
                assert entry["display_name"] == names[entry["player_id"]], entry
            else:
                assert "display_name" not in entry, entry

    for params in ({}, {"window": "daily"}, {"scope": "region:EU"}):
        body = await top(client, "arena", **params)
        assert len(body["entries"]) == 5
        check(body["entries"])
    body = await get_json(client, "/v1/boards/arena/players/p1/around", k=2)
    check([body["player"], *body["entries"]])
    assert "display_name" not in body["player"]
    body = await get_json(client, "/v1/boards/arena/players/p2/around", k=1)
    assert body["player"]["display_name"] == "Two"
    check(body["entries"])
    body = await get_json(client, "/v1/boards/arena/players/p2")
    assert body["display_name"] == "Two"
    assert "display_name" not in await get_json(client, "/v1/boards/arena/players/p4")
    response = await client.post(
        "/v1/boards/arena/players/p2/friends", json={"friends": ["p0", "p4", "p3"]}
    )
    body = response.json()
    assert body["player"]["display_name"] == "Two"
    assert [e["player_id"] for e in body["entries"]] == ["p0", "p2", "p3", "p4"]
    check(body["entries"])
    response = await client.post("/v1/boards/arena/ranks", json={"player_ids": ["p4", "p0"]})
    body = response.json()
    assert [e.get("display_name") for e in body["entries"]] == ["Zero", None]
    # a new name shows at once on this worker (its cache is updated with the write)
    await _profile(client, "p4", display_name="Four")
    assert [e.get("display_name") for e in (await top(client, "arena"))["entries"]] == [
        "Zero",
        None,
        "Two",
        None,
        "Four",
    ]


async def test_display_names_cost_one_lookup_per_read_at_most(
    app: Application, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    await put_board(client, "arena")
    items = [
        {"board": "arena", "player_id": f"p{i:03d}", "score": i, "match_id": "m"}
        for i in range(300)
    ]
    assert (await client.post("/v1/scores/batch", json={"scores": items}, headers=AUTH)).is_success
    for i in range(0, 300, 7):
        await _profile(client, f"p{i:03d}", display_name=f"Player {i}")
    store = app.state.service.players.store
    lookups: list[int] = []
    original = store.display_names

    async def counted(players: list[str]) -> dict[str, str | None]:
        lookups.append(len(players))
        found: dict[str, str | None] = await original(players)
        return found

    monkeypatch.setattr(store, "display_names", counted)
    expected = {f"p{i:03d}": f"Player {i}" for i in range(0, 300, 7)}

    async def named() -> dict[str, str]:
        body = await top(client, "arena", limit=1000)
        return {e["player_id"]: e["display_name"] for e in body["entries"] if "display_name" in e}

    # Few names: all of them are held in memory (rankline.reading.names), no read asks SQL.
    assert await named() == expected
    assert lookups == []

    # Beyond RANKLINE_NAMES_IN_MEMORY: one batched lookup for the names not cached yet.
    service = app.state.service
    directory = NameDirectory(store, limit=10)
    service.players._names = service.reads._names = directory
    await directory.sync()
    service.tops.clear()
    assert await named() == expected
    assert lookups == [300]
    service.tops.clear()
    assert await named() == expected  # every name (or its absence) is cached now
    assert lookups == [300]


# --- history --------------------------------------------------------------------------


async def test_history_newest_first_with_pages(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    await put_board(client, "sprint", policy="latest")
    sent = []
    for i in range(7):
        board = "arena" if i % 3 else "sprint"
        answer = await submit(client, board, "p:1", 100 - i, f"m{i}", at=_at(i))
        sent.append((board, f"m{i}", 100 - i, _at(i), answer["applied"]))
    await submit(client, "arena", "p:2", 5, "other", at=_at(9))
    newest_first = list(reversed(sent))

    items: list[tuple[Any, ...]] = []
    cursor = None
    pages = 0
    while True:
        params: dict[str, Any] = {"limit": 3} | ({"cursor": cursor} if cursor else {})
        body = await get_json(client, "/v1/players/p:1/history", **params)
        assert body["player_id"] == "p:1"
        assert len(body["items"]) <= 3
        for item in body["items"]:
            assert item["received_at"] == NOW
            items.append(
                (item["board"], item["match_id"], item["score"], item["at"], item["applied"])
            )
        pages += 1
        cursor = body["next_cursor"]
        if cursor is None:
            break
        assert isinstance(cursor, str)
    assert pages == 3
    assert items == newest_first
    # the arena-only history, and every item at once
    body = await get_json(client, "/v1/players/p:1/history", board="arena")
    assert [i["match_id"] for i in body["items"]] == [
        m for b, m, *_ in newest_first if b == "arena"
    ]
    assert body["next_cursor"] is None
    body = await get_json(client, "/v1/players/p:1/history")
    assert len(body["items"]) == 7 and body["next_cursor"] is None
    # a lower score on a best board is recorded with applied: false
    await submit(client, "arena", "p:1", 1, "low")
    body = await get_json(client, "/v1/players/p:1/history", limit=1)
    assert [(i["match_id"], i["applied"]) for i in body["items"]] == [("low", False)]
    assert body["next_cursor"] is not None
    assert await get_json(client, "/v1/players/nobody/history") == {
        "player_id": "nobody",
        "items": [],
        "next_cursor": None,
    }


@pytest.mark.edge
async def test_history_bad_parameters(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    await submit(client, "arena", "p1", 1)
    for params, loc in [
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
        ({"limit": "x"}, "limit"),
        ({"cursor": "not-a-cursor"}, "cursor"),
        ({"cursor": "aDE6MA"}, "cursor"),  # "h1:0"
        ({"cursor": "aDE6LTU"}, "cursor"),  # "h1:-5"
        ({"board": "Bad Board"}, "board"),
    ]:
        response = await client.get("/v1/players/p1/history", params=params)
        assert error_locs(response) == [["query", loc]], params
    assert_problem(await client.get("/v1/players/p1/history", params={"board": "ghost"}), 404)


# --- stored friend lists --------------------------------------------------------------


async def test_stored_friends_answer_like_the_posted_list(client: httpx.AsyncClient) -> None:
    await _five(client)
    friends = ["p4", "p0", "ghost", "p0", "p2"]
    response = await client.put("/v1/players/p2/friends", json={"friends": friends}, headers=AUTH)
    assert response.status_code == 200, response.text
    assert response.json() == {"player_id": "p2", "friends": ["ghost", "p0", "p4"]}
    assert await get_json(client, "/v1/players/p2/friends") == response.json()
    for params in ({}, {"k": 0}, {"window": "daily", "scope": "region:EU"}):
        posted = await client.post(
            "/v1/boards/arena/players/p2/friends",
            json={"friends": friends, **({"k": params["k"]} if "k" in params else {})},
            params={k: v for k, v in params.items() if k != "k"},
        )
        stored = await get_json(client, "/v1/boards/arena/players/p2/friends", **params)
        assert stored == posted.json(), params
    body = await get_json(client, "/v1/boards/arena/players/p2/friends")
    assert [(e["player_id"], e["friends_rank"]) for e in body["entries"]] == [
        ("p0", 1),
        ("p2", 2),
        ("p4", 3),
    ]
    # replacing the list; a player without one sees only themselves
    await client.put("/v1/players/p2/friends", json={"friends": ["p1"]}, headers=AUTH)
    body = await get_json(client, "/v1/boards/arena/players/p2/friends")
    assert [e["player_id"] for e in body["entries"]] == ["p1", "p2"]
    body = await get_json(client, "/v1/boards/arena/players/p3/friends")
    assert [e["player_id"] for e in body["entries"]] == ["p3"]
    assert await get_json(client, "/v1/players/p3/friends") == {"player_id": "p3", "friends": []}


@pytest.mark.edge
async def test_stored_friends_validation(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    url = "/v1/players/p1/friends"
    response = await client.put(url, json={"friends": ["ok", "not ok"]}, headers=AUTH)
    assert error_locs(response) == [["body", "friends", 1]]
    many = [f"f{i}" for i in range(5001)]
    assert_problem(await client.put(url, json={"friends": many}, headers=AUTH), 422)
    response = await client.put(url, json={"friends": many[:5000]}, headers=AUTH)
    assert response.status_code == 200 and len(response.json()["friends"]) == 5000
    assert_problem(await client.put(url, json={"friends": []}), 401)
    response = await client.get("/v1/boards/arena/players/p1/friends", params={"k": 5001})
    assert error_locs(response) == [["query", "k"]]
    assert_problem(await client.get("/v1/boards/ghost/players/p1/friends"), 404)


@pytest.mark.edge
async def test_openapi_documents_the_player_endpoints(client: httpx.AsyncClient) -> None:
    paths = (await get_json(client, "/openapi.json"))["paths"]
    assert set(paths["/v1/players/{player_id}"]) == {"put", "get", "delete"}
    assert set(paths["/v1/players/{player_id}/ban"]) == {"post", "delete"}
    assert set(paths["/v1/players/{player_id}/friends"]) == {"put", "get"}
    assert "get" in paths["/v1/players/{player_id}/history"]
    assert set(paths["/v1/boards/{board_id}/players/{player_id}/friends"]) == {"get", "post"}
