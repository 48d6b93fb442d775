"""Boards: PUT / GET / list / DELETE, validation, defaults, immutability and frozen boards."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from helpers_api import (
    AUTH,
    assert_problem,
    error_locs,
    get_json,
    post_score,
    put_board,
    submit,
    top,
)

DEFAULTS: dict[str, Any] = {
    "id": "arena",
    "title": "arena",
    "order": "desc",
    "policy": "best",
    "windows": ["all_time"],
    "seasons": [],
    "scopes": [],
    "retention_days": {"daily": 7, "weekly": 30, "monthly": 90, "season": 365},
    "grace_seconds": 300,
    "min_score": None,
    "max_score": None,
    "status": "active",
    "rating": None,
    "metadata": {},
    "shards": 1,
    "tiers": [],
    "subscore": None,
    "dense_rank": False,
}

FULL: dict[str, Any] = {
    "title": "Arena Solo",
    "order": "asc",
    "policy": "latest",
    "windows": ["all_time", "daily", "weekly", "monthly"],
    "seasons": [{"id": "s2026-q4", "start": "2026-10-01T00:00:00Z", "end": "2027-01-01T00:00:00Z"}],
    "scopes": ["region", "country"],
    "retention_days": {"daily": 3},
    "grace_seconds": 60,
    "min_score": -10,
    "max_score": 10_000,
    "metadata": {"game": "arena", "tags": ["solo"]},
    "shards": 3,
    "tiers": [{"name": "gold", "top_percent": 1.5}, {"name": "silver", "top_rank": 1000}],
    "subscore": "asc",
}

S1 = {"id": "s1", "start": "2026-11-01T00:00:00Z", "end": "2026-11-15T00:00:00Z"}
S2 = {"id": "s2", "start": "2026-11-15T00:00:00Z", "end": "2026-12-01T00:00:00Z"}
S1_OUT = {"id": "s1", "start": "2026-11-01T00:00:00.000Z", "end": "2026-11-15T00:00:00.000Z"}
S2_OUT = {"id": "s2", "start": "2026-11-15T00:00:00.000Z", "end": "2026-12-01T00:00:00.000Z"}


async def test_put_creates_with_201_and_defaults(client: httpx.AsyncClient) -> None:
    response = await client.put("/v1/boards/arena", json={}, headers=AUTH)
    assert response.status_code == 201
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == DEFAULTS
    assert await get_json(client, "/v1/boards/arena") == DEFAULTS


async def test_put_full_definition_is_echoed(client: httpx.AsyncClient) -> None:
    body = await put_board(client, "arena", **FULL)
    expected = {
        **FULL,
        "id": "arena",
        "windows": ["all_time", "daily", "weekly", "monthly", "season"],
        "seasons": [
            {
                "id": "s2026-q4",
                "start": "2026-10-01T00:00:00.000Z",
                "end": "2027-01-01T00:00:00.000Z",
            }
        ],
        "retention_days": {"daily": 3, "weekly": 30, "monthly": 90, "season": 365},
        "status": "active",
        "rating": None,
        "dense_rank": False,
    }
    assert body == expected
    assert await get_json(client, "/v1/boards/arena") == expected


@pytest.mark.edge
async def test_put_with_matching_body_id_is_accepted(client: httpx.AsyncClient) -> None:
    body = await put_board(client, "arena", id="arena", title="A")
    assert body["id"] == "arena" and body["title"] == "A"


async def test_put_existing_answers_200(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", title="One")
    body = await put_board(client, "arena", expect=200, title="Two", order="asc")
    assert body == {**DEFAULTS, "title": "Two", "order": "asc"}
    assert (await get_json(client, "/v1/boards/arena"))["title"] == "Two"


async def test_list_boards_sorted_by_id(client: httpx.AsyncClient) -> None:
    assert await get_json(client, "/v1/boards") == {"boards": []}
    await put_board(client, "zeta")
    await put_board(client, "alpha", title="Alpha")
    body = await get_json(client, "/v1/boards")
    assert body == {
        "boards": [
            {**DEFAULTS, "id": "alpha", "title": "Alpha"},
            {**DEFAULTS, "id": "zeta", "title": "zeta"},
        ]
    }


@pytest.mark.edge
async def test_get_unknown_board_404(client: httpx.AsyncClient) -> None:
    assert_problem(await client.get("/v1/boards/nope"), 404)


async def test_delete_answers_204_then_404(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    response = await client.delete("/v1/boards/arena", headers=AUTH)
    assert response.status_code == 204
    assert response.content == b""
    assert_problem(await client.get("/v1/boards/arena"), 404)
    assert_problem(await client.delete("/v1/boards/arena", headers=AUTH), 404)
    assert await get_json(client, "/v1/boards") == {"boards": []}
    assert_problem(await client.get("/v1/boards/arena/top"), 404)


@pytest.mark.edge
async def test_delete_unknown_board_404(client: httpx.AsyncClient) -> None:
    assert_problem(await client.delete("/v1/boards/nope", headers=AUTH), 404)


async def test_delete_removes_entries_and_recreate_is_empty(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"], scopes=["region"])
    await submit(client, "arena", "p1", 10, match="m1", scopes={"region": "EU"})
    await submit(client, "arena", "p2", 20, match="m2")
    assert (await top(client, "arena"))["total"] == 2
    assert (await client.delete("/v1/boards/arena", headers=AUTH)).status_code == 204
    await put_board(client, "arena", windows=["all_time", "daily"], scopes=["region"])
    for params in ({}, {"window": "daily"}, {"scope": "region:EU"}):
        body = await top(client, "arena", **params)
        assert body["total"] == 0 and body["entries"] == []
    assert_problem(await client.get("/v1/boards/arena/players/p1"), 404)
    periods = await get_json(client, "/v1/boards/arena/periods")
    assert all(p["total"] == 0 for p in periods["periods"])
    # the idempotency keys went with the board: the same match counts again
    again = await submit(client, "arena", "p1", 5, match="m1")
    assert again["duplicate"] is False and again["previous_score"] is None
    assert again["score"] == 5


async def test_delete_one_board_keeps_the_others(client: httpx.AsyncClient) -> None:
    await put_board(client, "one")
    await put_board(client, "two")
    await submit(client, "one", "p1", 10)
    await submit(client, "two", "p1", 20)
    assert (await client.delete("/v1/boards/one", headers=AUTH)).status_code == 204
    body = await top(client, "two")
    assert [(e["player_id"], e["score"]) for e in body["entries"]] == [("p1", 20)]


INVALID: list[tuple[str, dict[str, Any], list[str | int]]] = [
    ("order", {"order": "sideways"}, ["body", "order"]),
    ("policy", {"policy": "max"}, ["body", "policy"]),
    ("window_name", {"windows": ["hourly"]}, ["body", "windows", 0]),
    ("windows_type", {"windows": "daily"}, ["body", "windows"]),
    ("no_windows", {"windows": []}, ["body", "windows"]),
    ("windows_twice", {"windows": ["daily", "daily"]}, ["body", "windows"]),
    ("season_window_without_seasons", {"windows": ["season"]}, ["body", "seasons"]),
    ("scope_name", {"scopes": ["Region"]}, ["body", "scopes", 0]),
    ("scopes_twice", {"scopes": ["region", "region"]}, ["body", "scopes"]),
    ("grace_negative", {"grace_seconds": -1}, ["body", "grace_seconds"]),
    ("grace_type", {"grace_seconds": "300"}, ["body", "grace_seconds"]),
    ("min_over_max", {"min_score": 10, "max_score": 5}, ["body", "min_score"]),
    ("min_float", {"min_score": 1.5}, ["body", "min_score"]),
    ("max_out_of_range", {"max_score": 2**63}, ["body", "max_score"]),
    ("status", {"status": "paused"}, ["body", "status"]),
    ("shards_zero", {"shards": 0}, ["body", "shards"]),
    ("shards_over_64", {"shards": 65}, ["body", "shards"]),
    ("shards_type", {"shards": "3"}, ["body", "shards"]),
    ("title_type", {"title": 5}, ["body", "title"]),
    ("title_long", {"title": "x" * 201}, ["body", "title"]),
    ("metadata_type", {"metadata": [1]}, ["body", "metadata"]),
    ("body_id_differs", {"id": "other"}, ["body", "id"]),
    ("season_end_before_start", {"seasons": [{**S1, "end": S1["start"]}]}, ["body", "seasons", 0]),
    ("season_bad_time", {"seasons": [{**S1, "start": "yesterday"}]}, ["body", "seasons", 0]),
    (
        "season_missing_end",
        {"seasons": [{"id": "s1", "start": S1["start"]}]},
        ["body", "seasons", 0],
    ),
    ("season_id", {"seasons": [{**S1, "id": "-bad"}]}, ["body", "seasons", 0, "id"]),
    (
        "seasons_overlap",
        {"seasons": [S1, {**S2, "start": "2026-11-10T00:00:00Z"}]},
        ["body", "seasons"],
    ),
    ("season_ids_twice", {"seasons": [S1, {**S2, "id": "s1"}]}, ["body", "seasons"]),
    ("rating_without_system", {"policy": "rating"}, ["body", "rating", "system"]),
    (
        "rating_unknown_system",
        {"policy": "rating", "rating": {"system": "trueskill"}},
        ["body", "rating", "system"],
    ),
    ("rating_on_best", {"rating": {"system": "elo"}}, ["body", "rating"]),
]


@pytest.mark.edge
@pytest.mark.parametrize(
    ("spec", "loc"), [(s, loc) for _, s, loc in INVALID], ids=[n for n, _, _ in INVALID]
)
async def test_invalid_definition_is_422_with_loc(
    client: httpx.AsyncClient, spec: dict[str, Any], loc: list[str | int]
) -> None:
    response = await client.put("/v1/boards/arena", json=spec, headers=AUTH)
    assert loc in error_locs(response)
    assert_problem(await client.get("/v1/boards/arena"), 404)


@pytest.mark.edge
@pytest.mark.parametrize(
    "retention", [{"daily": -1}, {"hourly": 1}, {"daily": 1.5}, {"weekly": 36501}]
)
async def test_invalid_retention_days_is_422(
    client: httpx.AsyncClient, retention: dict[str, Any]
) -> None:
    response = await client.put(
        "/v1/boards/arena", json={"retention_days": retention}, headers=AUTH
    )
    [loc] = error_locs(response)
    assert loc[:2] == ["body", "retention_days"]
    assert_problem(await client.get("/v1/boards/arena"), 404)


@pytest.mark.edge
async def test_unknown_field_is_422(client: httpx.AsyncClient) -> None:
    response = await client.put("/v1/boards/arena", json={"colour": "red"}, headers=AUTH)
    locs = error_locs(response)
    assert locs and locs[0][0] == "body"
    assert "colour" in response.json()["detail"]


@pytest.mark.edge
@pytest.mark.parametrize("board_id", ["Arena", "-arena", "a" * 65, "ar ena", "arena!"])
async def test_invalid_board_id_is_422(client: httpx.AsyncClient, board_id: str) -> None:
    response = await client.put(f"/v1/boards/{board_id}", json={}, headers=AUTH)
    assert error_locs(response) == [["path", "board_id"]]


async def test_longest_board_id_is_accepted(client: httpx.AsyncClient) -> None:
    board_id = "a" + "b-_.9" * 12 + "zzz"
    assert len(board_id) == 64
    body = await put_board(client, board_id)
    assert body["id"] == board_id


@pytest.mark.edge
async def test_invalid_update_keeps_the_old_definition(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", title="Keep")
    response = await client.put("/v1/boards/arena", json={"order": "up"}, headers=AUTH)
    assert ["body", "order"] in error_locs(response)
    assert await get_json(client, "/v1/boards/arena") == {**DEFAULTS, "title": "Keep"}


async def test_any_field_may_change_before_entries(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", scopes=["region"], seasons=[S1, S2])
    body = await put_board(
        client,
        "arena",
        expect=200,
        order="asc",
        policy="sum",
        windows=["daily"],
        scopes=["country"],
        seasons=[S2],
    )
    assert body == {
        **DEFAULTS,
        "order": "asc",
        "policy": "sum",
        "windows": ["daily", "season"],
        "scopes": ["country"],
        "seasons": [S2_OUT],
    }


BASE: dict[str, Any] = {
    "order": "desc",
    "policy": "best",
    "windows": ["all_time", "daily"],
    "scopes": ["region"],
    "seasons": [S1, S2],
}

IMMUTABLE = [
    ("order", {"order": "asc"}),
    ("policy", {"policy": "sum"}),
    ("windows_added", {"windows": ["all_time", "daily", "weekly"]}),
    ("windows_removed", {"windows": ["all_time"]}),
    ("scopes_added", {"scopes": ["region", "country"]}),
    ("scopes_removed", {"scopes": []}),
    ("shards_added", {"shards": 3}),
    ("season_removed", {"seasons": [S1]}),
    ("season_end_changed", {"seasons": [S1, {**S2, "end": "2026-12-02T00:00:00Z"}]}),
    ("season_start_changed", {"seasons": [{**S1, "start": "2026-10-31T00:00:00Z"}, S2]}),
]


@pytest.mark.cases
@pytest.mark.parametrize("change", [c for _, c in IMMUTABLE], ids=[n for n, _ in IMMUTABLE])
async def test_immutable_field_change_with_entries_is_409(
    client: httpx.AsyncClient, change: dict[str, Any]
) -> None:
    before = await put_board(client, "arena", **BASE)
    await submit(client, "arena", "p1", 10)
    response = await client.put("/v1/boards/arena", json={**BASE, **change}, headers=AUTH)
    assert_problem(response, 409)
    assert await get_json(client, "/v1/boards/arena") == before


MUTABLE = [
    ("title", {"title": "Renamed"}, {"title": "Renamed"}),
    ("status", {"status": "frozen"}, {"status": "frozen"}),
    ("min_score", {"min_score": 0}, {"min_score": 0}),
    ("max_score", {"max_score": 100}, {"max_score": 100}),
    ("metadata", {"metadata": {"k": [1, 2]}}, {"metadata": {"k": [1, 2]}}),
    ("grace_seconds", {"grace_seconds": 0}, {"grace_seconds": 0}),
    (
        "retention_days",
        {"retention_days": {"weekly": 1}},
        {"retention_days": {"daily": 7, "weekly": 1, "monthly": 90, "season": 365}},
    ),
    (
        "season_added",
        {
            "seasons": [
                S1,
                S2,
                {"id": "s3", "start": "2026-12-01T00:00:00Z", "end": "2027-01-01T00:00:00Z"},
            ]
        },
        {
            "seasons": [
                S1_OUT,
                S2_OUT,
                {
                    "id": "s3",
                    "start": "2026-12-01T00:00:00.000Z",
                    "end": "2027-01-01T00:00:00.000Z",
                },
            ]
        },
    ),
]


@pytest.mark.cases
@pytest.mark.parametrize(
    ("change", "shown"), [(c, s) for _, c, s in MUTABLE], ids=[n for n, _, _ in MUTABLE]
)
async def test_mutable_field_change_with_entries_is_200(
    client: httpx.AsyncClient, change: dict[str, Any], shown: dict[str, Any]
) -> None:
    before = await put_board(client, "arena", **BASE)
    await submit(client, "arena", "p1", 10)
    body = await put_board(client, "arena", expect=200, **{**BASE, **change})
    assert body == {**before, **shown}
    assert await get_json(client, "/v1/boards/arena") == body
    assert (await top(client, "arena"))["entries"][0]["score"] == 10


async def test_get_board_round_trips_through_put_with_entries(client: httpx.AsyncClient) -> None:
    """What GET answers may be PUT back unchanged, also once the board has entries."""
    await put_board(client, "arena", **BASE)
    await submit(client, "arena", "p1", 10)
    shown = await get_json(client, "/v1/boards/arena")
    assert await put_board(client, "arena", expect=200, **shown) == shown


async def test_adding_first_season_with_entries_is_allowed(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", windows=["all_time"])
    await submit(client, "arena", "p1", 10)
    body = await put_board(client, "arena", expect=200, windows=["all_time"], seasons=[S2])
    assert body["windows"] == ["all_time", "season"]
    assert body["seasons"] == [S2_OUT]


async def test_frozen_board_refuses_writes_and_serves_reads(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"])
    await submit(client, "arena", "p1", 10, match="m1")
    await put_board(client, "arena", expect=200, windows=["all_time", "daily"], status="frozen")
    response = await post_score(client, "arena", {"player_id": "p1", "score": 99, "match_id": "m2"})
    assert_problem(response, 409)
    batch = await client.post(
        "/v1/scores/batch",
        json={"scores": [{"board": "arena", "player_id": "p2", "score": 5, "match_id": "m3"}]},
        headers=AUTH,
    )
    assert batch.status_code == 200
    [result] = batch.json()["results"]
    assert result["index"] == 0 and result["error"]["status"] == 409
    body = await top(client, "arena")
    assert [(e["player_id"], e["score"]) for e in body["entries"]] == [("p1", 10)]
    assert (await get_json(client, "/v1/boards/arena/players/p1"))["score"] == 10
    assert (await top(client, "arena", window="daily"))["total"] == 1
    assert (await get_json(client, "/v1/boards/arena/periods"))["board"] == "arena"
    ranks = await client.post("/v1/boards/arena/ranks", json={"player_ids": ["p1"]})
    assert ranks.status_code == 200


async def test_unfrozen_board_takes_writes_again(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", status="frozen")
    response = await post_score(client, "arena", {"player_id": "p1", "score": 1, "match_id": "m1"})
    assert_problem(response, 409)
    await put_board(client, "arena", expect=200, status="active")
    answer = await submit(client, "arena", "p1", 1, match="m1")
    assert answer["applied"] is True and answer["duplicate"] is False


async def test_frozen_board_can_be_deleted(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", status="frozen")
    assert (await client.delete("/v1/boards/arena", headers=AUTH)).status_code == 204
