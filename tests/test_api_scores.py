"""Score submissions: response shape, policies, idempotency, exact 64-bit scores, rejections,
scope fan-out, the batch endpoint and concurrent writers (group commit)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import pytest

from helpers_api import (
    AUTH,
    JSON,
    NOW,
    assert_problem,
    error_locs,
    get_json,
    post_score,
    put_board,
    ranking,
    submit,
    top,
    utc,
)
from rankline import ManualClock
from rankline.http.app import Application

MAX = 2**63 - 1
MIN = -(2**63)


def _standing(
    window: str,
    period: str,
    scope: str,
    score: int | None,
    rank: int | None,
    applied: bool,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "window": window,
        "period": period,
        "scope": scope,
        "score": score,
        "rank": rank,
        "applied": applied,
        **extra,
    }


async def _player(
    client: httpx.AsyncClient, board: str, player: str, **params: Any
) -> dict[str, Any]:
    return await get_json(client, f"/v1/boards/{board}/players/{player}", **params)


# --- the response ---------------------------------------------------------------------


async def test_first_submission_response_shape(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"], scopes=["region"])
    response = await post_score(
        client,
        "arena",
        {
            "player_id": "p:42",
            "score": 4500,
            "match_id": "m:9981",
            "scopes": {"region": "EU"},
            "metadata": {"kills": 7},
        },
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == {
        "player_id": "p:42",
        "match_id": "m:9981",
        "applied": True,
        "duplicate": False,
        "previous_score": None,
        "score": 4500,
        "standings": [
            _standing("all_time", "all", "global", 4500, 1, True),
            _standing("all_time", "all", "region:EU", 4500, 1, True),
            _standing("daily", "2026-11-21", "global", 4500, 1, True),
            _standing("daily", "2026-11-21", "region:EU", 4500, 1, True),
        ],
    }


async def test_improvement_reports_previous_score_and_ranks(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    await submit(client, "arena", "a", 300)
    await submit(client, "arena", "b", 200)
    first = await submit(client, "arena", "p:42", 100, match="m1")
    assert first["standings"] == [_standing("all_time", "all", "global", 100, 3, True)]
    answer = await submit(client, "arena", "p:42", 250, match="m2")
    assert answer == {
        "player_id": "p:42",
        "match_id": "m2",
        "applied": True,
        "duplicate": False,
        "previous_score": 100,
        "score": 250,
        "standings": [_standing("all_time", "all", "global", 250, 2, True)],
    }


async def test_at_defaults_to_receive_time(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    await submit(client, "arena", "p1", 1)
    assert (await _player(client, "arena", "p1"))["achieved_at"] == NOW


async def test_at_is_kept_with_millisecond_precision(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    await submit(client, "arena", "p1", 1, at="2026-11-21T10:15:30.123456Z")
    await submit(client, "arena", "p2", 1, at="2026-11-21T11:15:30+01:00")
    entries = (await top(client, "arena"))["entries"]
    assert [(e["player_id"], e["achieved_at"]) for e in entries] == [
        ("p2", "2026-11-21T10:15:30.000Z"),
        ("p1", "2026-11-21T10:15:30.123Z"),
    ]


async def test_board_without_all_time_reports_first_window(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", windows=["weekly", "daily"])
    await submit(client, "arena", "p1", 10, match="m1")
    answer = await submit(client, "arena", "p1", 20, match="m2")
    assert answer["previous_score"] == 10 and answer["score"] == 20
    assert answer["standings"] == [
        _standing("weekly", "2026-W47", "global", 20, 1, True),
        _standing("daily", "2026-11-21", "global", 20, 1, True),
    ]


# --- policies -------------------------------------------------------------------------


async def test_best_desc_keeps_highest(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", order="desc", policy="best")
    await submit(client, "arena", "p1", 100, match="m1", at=utc(2026, 11, 21, 10))
    lower = await submit(client, "arena", "p1", 50, match="m2", at=utc(2026, 11, 21, 11))
    assert lower["applied"] is False and lower["duplicate"] is False
    assert lower["previous_score"] == 100 and lower["score"] == 100
    assert lower["standings"] == [
        _standing("all_time", "all", "global", 100, 1, False, reason="policy")
    ]
    equal = await submit(client, "arena", "p1", 100, match="m3", at=utc(2026, 11, 21, 11, 30))
    assert equal["applied"] is False and equal["score"] == 100
    assert (await _player(client, "arena", "p1"))["achieved_at"] == "2026-11-21T10:00:00.000Z"
    higher = await submit(client, "arena", "p1", 150, match="m4", at=utc(2026, 11, 21, 11, 45))
    assert higher["applied"] is True and (higher["previous_score"], higher["score"]) == (100, 150)
    me = await _player(client, "arena", "p1")
    assert (me["score"], me["achieved_at"]) == (150, "2026-11-21T11:45:00.000Z")


async def test_best_asc_keeps_lowest(client: httpx.AsyncClient) -> None:
    await put_board(client, "speedrun", order="asc", policy="best")
    await submit(client, "speedrun", "p1", 100, match="m1")
    worse = await submit(client, "speedrun", "p1", 150, match="m2")
    assert (worse["applied"], worse["score"]) == (False, 100)
    better = await submit(client, "speedrun", "p1", 50, match="m3")
    assert (better["applied"], better["previous_score"], better["score"]) == (True, 100, 50)
    await submit(client, "speedrun", "p2", 70, match="m4")
    assert await ranking(client, "speedrun") == [("p1", 50), ("p2", 70)]


async def test_latest_ignores_late_older_event(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", policy="latest")
    await submit(client, "arena", "p1", 10, match="m1", at=utc(2026, 11, 21, 10))
    late = await submit(client, "arena", "p1", 20, match="m0", at=utc(2026, 11, 21, 9))
    assert (late["applied"], late["previous_score"], late["score"]) == (False, 10, 10)
    same = await submit(client, "arena", "p1", 30, match="m1b", at=utc(2026, 11, 21, 10))
    assert (same["applied"], same["score"]) == (False, 10)
    newer = await submit(client, "arena", "p1", 5, match="m2", at=utc(2026, 11, 21, 11))
    assert (newer["applied"], newer["previous_score"], newer["score"]) == (True, 10, 5)
    me = await _player(client, "arena", "p1")
    assert (me["score"], me["achieved_at"]) == (5, "2026-11-21T11:00:00.000Z")


async def test_latest_late_event_still_counts_on_its_own_day(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", policy="latest", windows=["all_time", "daily"])
    await submit(client, "arena", "p1", 10, match="m1", at=utc(2026, 11, 21, 10))
    # the clock is at 12:00 on the 21st; the 20th closed at 00:05, so use an earlier hour today
    late = await submit(client, "arena", "p1", 20, match="m0", at=utc(2026, 11, 21, 0, 30))
    assert late["standings"] == [
        _standing("all_time", "all", "global", 10, 1, False, reason="policy"),
        _standing("daily", "2026-11-21", "global", 10, 1, False, reason="policy"),
    ]


async def test_sum_adds_up_and_moves_achieved_at(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", policy="sum")
    await submit(client, "arena", "p1", 10, match="m1", at=utc(2026, 11, 21, 9))
    second = await submit(client, "arena", "p1", 20, match="m2", at=utc(2026, 11, 21, 10))
    assert (second["applied"], second["previous_score"], second["score"]) == (True, 10, 30)
    third = await submit(client, "arena", "p1", -5, match="m3", at=utc(2026, 11, 21, 8))
    assert (third["previous_score"], third["score"]) == (30, 25)
    me = await _player(client, "arena", "p1")
    assert (me["score"], me["achieved_at"]) == (25, "2026-11-21T08:00:00.000Z")


async def test_sum_overflow_is_422_and_records_nothing(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", policy="sum")
    await submit(client, "arena", "p1", MAX - 1, match="m1")
    response = await post_score(client, "arena", {"player_id": "p1", "score": 2, "match_id": "m2"})
    assert error_locs(response) == [["body", "score"]]
    assert (await _player(client, "arena", "p1"))["score"] == MAX - 1
    exact = await submit(client, "arena", "p1", 1, match="m2")
    assert (exact["duplicate"], exact["score"]) == (False, MAX)


async def test_first_keeps_the_first_submission(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", policy="first")
    first = await submit(client, "arena", "p1", 10, match="m1", at=utc(2026, 11, 21, 10))
    assert (first["applied"], first["score"]) == (True, 10)
    for i, (score, hour) in enumerate([(20, 11), (5, 9), (10, 8)]):
        later = await submit(
            client, "arena", "p1", score, match=f"n{i}", at=utc(2026, 11, 21, hour)
        )
        assert (later["applied"], later["previous_score"], later["score"]) == (False, 10, 10)
    me = await _player(client, "arena", "p1")
    assert (me["score"], me["achieved_at"]) == (10, "2026-11-21T10:00:00.000Z")


# --- idempotency ----------------------------------------------------------------------


async def test_same_match_is_a_duplicate_and_changes_nothing(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"])
    await submit(client, "arena", "p1", 100, match="m1")
    await submit(client, "arena", "p2", 50, match="m1")
    before = await top(client, "arena")
    again = await submit(client, "arena", "p1", 100, match="m1")
    assert again == {
        "player_id": "p1",
        "match_id": "m1",
        "applied": False,
        "duplicate": True,
        "previous_score": 100,
        "score": 100,
        "standings": [
            _standing("all_time", "all", "global", 100, 1, False, reason="duplicate"),
            _standing("daily", "2026-11-21", "global", 100, 1, False, reason="duplicate"),
        ],
    }
    assert await top(client, "arena") == before


FIRST: dict[str, Any] = {
    "player_id": "p1",
    "score": 10,
    "match_id": "m1",
    "at": "2026-11-21T10:00:00.000Z",
    "scopes": {"region": "EU"},
    "metadata": {"kills": 7, "map": "dust"},
}
STORED = {"board": "arena", **FIRST}


# Each case changes another field of the payload; the stored submission they are compared
# with (`existing`) is the same one, read back from the stack's store in every case.
@pytest.mark.cases
@pytest.mark.parametrize(
    "change",
    [
        {"score": 999},
        {"score": -3},
        {"at": "2026-11-21T10:00:00.001Z"},
        {"scopes": {"region": "NA"}},
        {"scopes": {}},
        {"metadata": {"kills": 8, "map": "dust"}},
        {"metadata": {}},
    ],
)
async def test_same_match_with_other_payload_is_409_and_records_nothing(
    client: httpx.AsyncClient, change: dict[str, Any]
) -> None:
    await put_board(client, "arena", policy="sum", scopes=["region"])
    assert (await post_score(client, "arena", FIRST)).status_code == 200
    before = await _player(client, "arena", "p1")
    problem = assert_problem(await post_score(client, "arena", FIRST | change), 409)
    assert problem["type"] == "https://rankline.dev/problems/match-id-reused"
    assert "'m1'" in problem["detail"] and "'p1'" in problem["detail"]
    assert problem["existing"] == STORED
    assert await ranking(client, "arena") == [("p1", 10)]
    assert await _player(client, "arena", "p1") == before


async def test_identical_retries_stay_duplicates(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", policy="sum", scopes=["region"])
    await post_score(client, "arena", FIRST)
    retries = [
        FIRST,
        {**FIRST, "metadata": {"map": "dust", "kills": 7}},  # key order is not the payload
        {k: v for k, v in FIRST.items() if k != "at"},  # no `at`: the stored one stands
    ]
    for retry in retries:
        response = await post_score(client, "arena", retry)
        assert response.status_code == 200, response.text
        assert (response.json()["duplicate"], response.json()["score"]) == (True, 10)
    bare = {"player_id": "p2", "score": 5, "match_id": "m1"}
    await post_score(client, "arena", bare)
    for retry in (bare, {**bare, "scopes": {}, "metadata": {}}):
        assert (await post_score(client, "arena", retry)).json()["duplicate"] is True
    assert await ranking(client, "arena") == [("p1", 10), ("p2", 5)]


async def test_retry_without_at_is_a_retry_later_too(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    """A submission without `at` took the receive time, which no retry repeats."""
    await put_board(client, "arena", policy="sum")
    body = {"player_id": "p1", "score": 10, "match_id": "m1"}
    await post_score(client, "arena", body)
    clock.advance(5)
    again = await post_score(client, "arena", body)
    assert (again.json()["duplicate"], again.json()["score"]) == (True, 10)
    stored = {"board": "arena", **body, "at": NOW, "scopes": {}, "metadata": {}}
    earlier = {**body, "at": "2026-11-21T11:00:00.000Z"}
    elsewhen = assert_problem(await post_score(client, "arena", earlier), 409)
    assert elsewhen["existing"] == stored
    same = await post_score(client, "arena", {**body, "at": NOW})
    assert same.json()["duplicate"] is True
    assert await ranking(client, "arena") == [("p1", 10)]


async def test_match_id_is_per_player_and_per_board(client: httpx.AsyncClient) -> None:
    await put_board(client, "one")
    await put_board(client, "two")
    assert (await submit(client, "one", "p1", 1, match="m"))["duplicate"] is False
    assert (await submit(client, "one", "p2", 1, match="m"))["duplicate"] is False
    assert (await submit(client, "two", "p1", 1, match="m"))["duplicate"] is False
    assert (await submit(client, "one", "p1", 1, match="m"))["duplicate"] is True


# --- exact 64-bit scores --------------------------------------------------------------


async def test_scores_above_2_53_stay_exact_and_ordered(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    a = await submit(client, "arena", "a", 2**53)
    b = await submit(client, "arena", "b", 2**53 + 1)
    assert a["score"] == 2**53 and b["score"] == 2**53 + 1
    assert b["standings"][0]["rank"] == 1
    response = await client.get("/v1/boards/arena/top")
    assert b'"score":9007199254740993' in response.content
    assert b'"score":9007199254740992' in response.content
    assert await ranking(client, "arena") == [("b", 2**53 + 1), ("a", 2**53)]
    assert (await _player(client, "arena", "a"))["rank"] == 2


async def test_int64_extremes_accepted_and_ordered(client: httpx.AsyncClient) -> None:
    await put_board(client, "desc", order="desc")
    await put_board(client, "asc", order="asc")
    for board in ("desc", "asc"):
        for player, score in [
            ("min", MIN),
            ("max", MAX),
            ("zero", 0),
            ("max1", MAX - 1),
            ("min1", MIN + 1),
        ]:
            assert (await submit(client, board, player, score))["score"] == score
    expected = [("max", MAX), ("max1", MAX - 1), ("zero", 0), ("min1", MIN + 1), ("min", MIN)]
    assert await ranking(client, "desc") == expected
    assert await ranking(client, "asc") == expected[::-1]
    response = await client.get("/v1/boards/desc/top")
    assert b'"score":9223372036854775807' in response.content
    assert b'"score":-9223372036854775808' in response.content


# --- rejections -----------------------------------------------------------------------

OK = {"player_id": "p1", "score": 7, "match_id": "bad"}

REJECTED_JSON: list[tuple[str, bytes, list[str | int]]] = [
    ("fraction", b'{"player_id": "p1", "score": 1.5, "match_id": "bad"}', ["body", "score"]),
    (
        "exponent_fraction",
        b'{"player_id": "p1", "score": 1.5e0, "match_id": "bad"}',
        ["body", "score"],
    ),
    ("nan", b'{"player_id": "p1", "score": NaN, "match_id": "bad"}', ["body", "score"]),
    ("infinity", b'{"player_id": "p1", "score": Infinity, "match_id": "bad"}', ["body", "score"]),
    (
        "minus_infinity",
        b'{"player_id": "p1", "score": -Infinity, "match_id": "bad"}',
        ["body", "score"],
    ),
    ("string", b'{"player_id": "p1", "score": "7", "match_id": "bad"}', ["body", "score"]),
    ("true", b'{"player_id": "p1", "score": true, "match_id": "bad"}', ["body", "score"]),
    ("null", b'{"player_id": "p1", "score": null, "match_id": "bad"}', ["body", "score"]),
    (
        "2**63",
        b'{"player_id": "p1", "score": 9223372036854775808, "match_id": "bad"}',
        ["body", "score"],
    ),
    (
        "-2**63-1",
        b'{"player_id": "p1", "score": -9223372036854775809, "match_id": "bad"}',
        ["body", "score"],
    ),
    (
        "2**64",
        b'{"player_id": "p1", "score": 18446744073709551616, "match_id": "bad"}',
        ["body", "score"],
    ),
    ("huge", b'{"player_id": "p1", "score": 1e400, "match_id": "bad"}', ["body", "score"]),
    ("missing_score", b'{"player_id": "p1", "match_id": "bad"}', ["body"]),
    ("missing_player", b'{"score": 7, "match_id": "bad"}', ["body"]),
    ("missing_match", b'{"player_id": "p1", "score": 7}', ["body"]),
    ("unknown_field", b'{"player_id": "p1", "score": 7, "match_id": "bad", "x": 1}', ["body"]),
    (
        "scopes_type",
        b'{"player_id": "p1", "score": 7, "match_id": "bad", "scopes": ["EU"]}',
        ["body", "scopes"],
    ),
    (
        "metadata_type",
        b'{"player_id": "p1", "score": 7, "match_id": "bad", "metadata": 3}',
        ["body", "metadata"],
    ),
    (
        "at_type",
        b'{"player_id": "p1", "score": 7, "match_id": "bad", "at": 1700000000}',
        ["body", "at"],
    ),
    ("array_body", b"[1, 2]", ["body"]),
]


@pytest.mark.edge
@pytest.mark.parametrize(
    ("raw", "loc"), [(r, loc) for _, r, loc in REJECTED_JSON], ids=[n for n, _, _ in REJECTED_JSON]
)
async def test_invalid_body_is_422_and_records_nothing(
    client: httpx.AsyncClient, raw: bytes, loc: list[str | int]
) -> None:
    await put_board(client, "arena", scopes=["region"], min_score=-100, max_score=100)
    await submit(client, "arena", "p1", 5, match="m0")
    response = await client.post("/v1/boards/arena/scores", content=raw, headers={**AUTH, **JSON})
    assert loc in error_locs(response)
    await _assert_nothing_recorded(client)


REJECTED: list[tuple[str, dict[str, Any], list[str | int]]] = [
    ("below_min", {"score": -101}, ["body", "score"]),
    ("above_max", {"score": 101}, ["body", "score"]),
    ("undeclared_scope", {"scopes": {"country": "FR"}}, ["body", "scopes", "country"]),
    ("scope_value", {"scopes": {"region": "E U"}}, ["body", "scopes"]),
    ("at_future", {"at": "2026-11-21T12:00:31.000Z"}, ["body", "at"]),
    ("at_far_future", {"at": "2027-01-01T00:00:00.000Z"}, ["body", "at"]),
    ("at_garbage", {"at": "yesterday"}, ["body", "at"]),
    ("at_no_offset", {"at": "2026-11-21T11:00:00"}, ["body", "at"]),
    ("at_bad_date", {"at": "2026-02-30T11:00:00Z"}, ["body", "at"]),
    ("player_space", {"player_id": "p 1"}, ["body", "player_id"]),
    ("player_empty", {"player_id": ""}, ["body", "player_id"]),
    ("player_long", {"player_id": "p" * 65}, ["body", "player_id"]),
    ("player_slash", {"player_id": "p/1"}, ["body", "player_id"]),
    ("player_type", {"player_id": 42}, ["body", "player_id"]),
    ("match_space", {"match_id": "bad match"}, ["body", "match_id"]),
    ("match_empty", {"match_id": ""}, ["body", "match_id"]),
    ("match_long", {"match_id": "m" * 129}, ["body", "match_id"]),
    ("match_non_ascii", {"match_id": "bad\u00e9"}, ["body", "match_id"]),
    ("match_control", {"match_id": "bad\t"}, ["body", "match_id"]),
]


@pytest.mark.edge
@pytest.mark.parametrize(
    ("change", "loc"), [(c, loc) for _, c, loc in REJECTED], ids=[n for n, _, _ in REJECTED]
)
async def test_invalid_submission_is_422_and_records_nothing(
    client: httpx.AsyncClient, change: dict[str, Any], loc: list[str | int]
) -> None:
    await put_board(client, "arena", scopes=["region"], min_score=-100, max_score=100)
    await submit(client, "arena", "p1", 5, match="m0")
    response = await post_score(client, "arena", {**OK, **change})
    [found] = error_locs(response)
    assert found[: len(loc)] == loc
    await _assert_nothing_recorded(client)


async def _assert_nothing_recorded(client: httpx.AsyncClient) -> None:
    assert await ranking(client, "arena") == [("p1", 5)]
    me = await _player(client, "arena", "p1")
    assert (me["score"], me["achieved_at"]) == (5, NOW)
    # the rejected match_id was not recorded: submitting it for real is not a duplicate
    answer = await submit(client, "arena", "p1", 7, match="bad")
    assert (answer["duplicate"], answer["applied"], answer["score"]) == (False, True, 7)


async def test_boundary_values_are_accepted(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", min_score=-100, max_score=100)
    assert (await submit(client, "arena", "lo", -100))["score"] == -100
    assert (await submit(client, "arena", "hi", 100))["score"] == 100
    assert (await submit(client, "arena", "p" * 64, 1, match="m" * 128))["applied"] is True
    assert (await submit(client, "arena", "A_z.9:@-", 1, match="!~#$%^&*()"))["applied"] is True
    skew = await submit(client, "arena", "skew", 2, at="2026-11-21T12:00:30.000Z")
    assert skew["applied"] is True
    assert (await _player(client, "arena", "skew"))["achieved_at"] == "2026-11-21T12:00:30.000Z"


@pytest.mark.edge
async def test_unknown_board_is_404(client: httpx.AsyncClient) -> None:
    response = await post_score(client, "nope", OK)
    assert_problem(response, 404)


# --- scopes ---------------------------------------------------------------------------


async def test_scoped_submission_fans_out_on_every_window(client: httpx.AsyncClient) -> None:
    await put_board(
        client,
        "arena",
        windows=["all_time", "daily", "weekly", "monthly"],
        scopes=["region", "country"],
    )
    answer = await submit(client, "arena", "p1", 10, scopes={"region": "EU", "country": "FR"})
    assert answer["standings"] == [
        _standing(window, period, scope, 10, 1, True)
        for window, period in [
            ("all_time", "all"),
            ("daily", "2026-11-21"),
            ("weekly", "2026-W47"),
            ("monthly", "2026-11"),
        ]
        for scope in ("global", "region:EU", "country:FR")
    ]
    await submit(client, "arena", "p2", 20, scopes={"region": "NA"})
    await submit(client, "arena", "p3", 5)
    for window in ("all_time", "daily", "weekly", "monthly"):
        assert await ranking(client, "arena", window=window) == [("p2", 20), ("p1", 10), ("p3", 5)]
        assert await ranking(client, "arena", window=window, scope="region:EU") == [("p1", 10)]
        assert await ranking(client, "arena", window=window, scope="region:NA") == [("p2", 20)]
        assert await ranking(client, "arena", window=window, scope="country:FR") == [("p1", 10)]
        assert await ranking(client, "arena", window=window, scope="region:SA") == []


async def test_scope_of_later_submission_counts_there(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", scopes=["region"])
    await submit(client, "arena", "p1", 10, match="m1", scopes={"region": "EU"})
    answer = await submit(client, "arena", "p1", 5, match="m2", scopes={"region": "NA"})
    assert answer["applied"] is False
    assert answer["standings"] == [
        _standing("all_time", "all", "global", 10, 1, False, reason="policy"),
        _standing("all_time", "all", "region:NA", 5, 1, True),
    ]
    assert await ranking(client, "arena", scope="region:EU") == [("p1", 10)]
    assert await ranking(client, "arena", scope="region:NA") == [("p1", 5)]


# --- batch ----------------------------------------------------------------------------


async def _batch(client: httpx.AsyncClient, items: list[Any]) -> list[dict[str, Any]]:
    response = await client.post("/v1/scores/batch", json={"scores": items}, headers=AUTH)
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    assert [r["index"] for r in results] == list(range(len(items)))
    return results


async def test_batch_mixes_ok_invalid_and_unknown_board(client: httpx.AsyncClient) -> None:
    await put_board(client, "one")
    await put_board(client, "two", order="asc", max_score=1000)
    results = await _batch(
        client,
        [
            {"board": "one", "player_id": "p1", "score": 10, "match_id": "m1"},
            {"board": "two", "player_id": "p1", "score": 1.5, "match_id": "m1"},
            {"board": "ghost", "player_id": "p1", "score": 10, "match_id": "m1"},
            {"board": "two", "player_id": "p2", "score": 3, "match_id": "m1"},
            {"board": "two", "player_id": "p2", "score": 5000, "match_id": "m2"},
            {"player_id": "p2", "score": 3, "match_id": "m3"},
            "not an object",
        ],
    )
    assert results[0] == {
        "index": 0,
        "player_id": "p1",
        "match_id": "m1",
        "applied": True,
        "duplicate": False,
        "previous_score": None,
        "score": 10,
        "standings": [_standing("all_time", "all", "global", 10, 1, True)],
    }
    assert results[1]["error"]["status"] == 422
    assert results[1]["error"]["errors"][0]["loc"] == ["body", "scores", 1, "score"]
    assert results[2]["error"]["status"] == 404
    assert results[3]["score"] == 3 and results[3]["applied"] is True
    assert results[4]["error"]["status"] == 422
    assert results[4]["error"]["errors"][0]["loc"] == ["body", "scores", 4, "score"]
    assert results[5]["error"]["status"] == 422
    assert results[6]["error"]["status"] == 422
    for failed in (1, 2, 4, 5, 6):
        assert set(results[failed]) == {"index", "error"}
        assert {"type", "title", "status", "detail"} <= results[failed]["error"].keys()
    assert await ranking(client, "one") == [("p1", 10)]
    assert await ranking(client, "two") == [("p2", 3)]


async def test_batch_duplicates_inside_one_batch(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", policy="sum")
    item = {"board": "arena", "player_id": "p1", "score": 10, "match_id": "m1"}
    results = await _batch(client, [item, {**item, "match_id": "m2"}, item])
    assert [(r["duplicate"], r["applied"], r["score"]) for r in results] == [
        (False, True, 10),
        (False, True, 20),
        (True, False, 20),
    ]
    assert await ranking(client, "arena") == [("p1", 20)]
    again = await _batch(client, [item])
    assert (again[0]["duplicate"], again[0]["score"]) == (True, 20)


async def test_batch_item_reusing_a_key_gets_409_and_the_others_succeed(
    client: httpx.AsyncClient,
) -> None:
    await put_board(client, "arena", policy="sum")
    item = {"board": "arena", "player_id": "p1", "score": 10, "match_id": "m1", "at": NOW}
    stored = {**item, "scopes": {}, "metadata": {}}
    # Within one batch the first of a key wins; a later item with another payload is the 409.
    results = await _batch(client, [item, {**item, "score": 99}, {**item, "match_id": "m2"}])
    assert results[0]["applied"] is True and results[2]["score"] == 20
    assert set(results[1]) == {"index", "error"}
    assert results[1]["error"]["status"] == 409
    assert results[1]["error"]["existing"] == stored
    # Against the stored submission, in a later batch.
    results = await _batch(
        client,
        [{**item, "metadata": {"kills": 1}}, {**item, "match_id": "m3"}, item],
    )
    assert results[0]["error"]["status"] == 409
    assert results[0]["error"]["existing"] == stored
    assert (results[1]["duplicate"], results[1]["score"]) == (False, 30)
    assert (results[2]["duplicate"], results[2]["score"]) == (True, 30)
    assert await ranking(client, "arena") == [("p1", 30)]


async def test_batch_of_1000_is_accepted(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    items = [
        {"board": "arena", "player_id": f"p{i:04d}", "score": i, "match_id": "m"}
        for i in range(1000)
    ]
    results = await _batch(client, items)
    assert all(r["applied"] is True for r in results)
    assert (await top(client, "arena", limit=1))["total"] == 1000


@pytest.mark.edge
async def test_batch_over_1000_is_422_and_records_nothing(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    items = [
        {"board": "arena", "player_id": f"p{i}", "score": i, "match_id": "m"} for i in range(1001)
    ]
    response = await client.post("/v1/scores/batch", json={"scores": items}, headers=AUTH)
    assert ["body", "scores"] in error_locs(response)
    assert (await top(client, "arena"))["total"] == 0


@pytest.mark.edge
@pytest.mark.parametrize("body", [{}, {"scores": "x"}, {"scores": [], "extra": 1}, [1]])
async def test_batch_with_bad_envelope_is_422(client: httpx.AsyncClient, body: Any) -> None:
    response = await client.post("/v1/scores/batch", json=body, headers=AUTH)
    assert_problem(response, 422)


@pytest.mark.edge
async def test_empty_batch_answers_no_results(client: httpx.AsyncClient) -> None:
    assert await _batch(client, []) == []


# --- concurrency ----------------------------------------------------------------------


async def test_concurrent_submissions_match_a_naive_model(
    app: Application, client: httpx.AsyncClient
) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"])
    rng = random.Random(7)
    scores = rng.sample(range(-5000, 5000), 200)
    players = [f"p{rng.randrange(40):02d}" for _ in range(200)]
    bodies = [
        {
            "player_id": p,
            "score": s,
            "match_id": f"m{i}",
            "at": f"2026-11-21T11:{i // 60:02d}:{i % 60:02d}.000Z",
        }
        for i, (p, s) in enumerate(zip(players, scores, strict=True))
    ]
    writer = app.state.service.writer
    batches = writer.batches
    responses = await asyncio.gather(*(post_score(client, "arena", b) for b in bodies))
    assert [r.status_code for r in responses] == [200] * 200
    assert all(r.json()["duplicate"] is False for r in responses)
    assert writer.batches - batches < 200
    best: dict[str, tuple[int, str]] = {}
    for body in bodies:
        old = best.get(body["player_id"])
        if old is None or body["score"] > old[0]:
            best[body["player_id"]] = (body["score"], body["at"])
    model = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[1][1], kv[0]))
    for window in ("all_time", "daily"):
        entries = (await top(client, "arena", window=window, limit=1000))["entries"]
        assert [(e["rank"], e["player_id"], e["score"], e["achieved_at"]) for e in entries] == [
            (i + 1, player, score, at) for i, (player, (score, at)) in enumerate(model)
        ]


async def test_concurrent_sum_submissions_lose_nothing(
    app: Application, client: httpx.AsyncClient
) -> None:
    await put_board(client, "arena", policy="sum")
    responses = await asyncio.gather(
        *(
            post_score(client, "arena", {"player_id": f"p{i % 3}", "score": i, "match_id": f"m{i}"})
            for i in range(150)
        )
    )
    assert all(r.status_code == 200 for r in responses)
    expected = {f"p{k}": sum(i for i in range(150) if i % 3 == k) for k in range(3)}
    assert dict(await ranking(client, "arena")) == expected
