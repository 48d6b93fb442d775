"""Windows and periods through the API, on the manual clock: daily/weekly/monthly periods,
ISO weeks across the year boundary, grace_seconds, seasons and retention."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from helpers_api import (
    error_locs,
    get_json,
    put_board,
    ranking,
    submit,
    top,
    utc,
)
from rankline import ManualClock
from rankline.http.app import Application
from rankline.types import LeaderboardId

ALL = ["all_time", "daily", "weekly", "monthly"]


def _periods(answer: dict[str, Any]) -> list[tuple[str, str, bool]]:
    return [(s["window"], s["period"], s["applied"]) for s in answer["standings"]]


def _closed(
    window: str, period: str, score: int | None = None, rank: int | None = None
) -> dict[str, Any]:
    return {
        "window": window,
        "period": period,
        "scope": "global",
        "score": score,
        "rank": rank,
        "applied": False,
        "reason": "closed",
    }


# --- periods from `at` ----------------------------------------------------------------


async def test_periods_follow_at_not_the_receive_time(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", windows=ALL)
    answer = await submit(client, "arena", "p1", 10, at=utc(2026, 11, 21, 0, 0, 0))
    assert _periods(answer) == [
        ("all_time", "all", True),
        ("daily", "2026-11-21", True),
        ("weekly", "2026-W47", True),
        ("monthly", "2026-11", True),
    ]
    monday = await submit(client, "arena", "p2", 20, at=utc(2026, 11, 16, 0, 0, 0))
    assert _periods(monday) == [
        ("all_time", "all", True),
        ("daily", "2026-11-16", False),
        ("weekly", "2026-W47", True),
        ("monthly", "2026-11", True),
    ]
    sunday = await submit(client, "arena", "p3", 30, at=utc(2026, 11, 15, 23, 59, 59))
    assert _periods(sunday) == [
        ("all_time", "all", True),
        ("daily", "2026-11-15", False),
        ("weekly", "2026-W46", False),
        ("monthly", "2026-11", True),
    ]
    october = await submit(client, "arena", "p4", 40, at=utc(2026, 10, 31, 23, 59, 59))
    assert [p for _, p, _ in _periods(october)] == ["all", "2026-10-31", "2026-W44", "2026-10"]
    assert await ranking(client, "arena", window="daily") == [("p1", 10)]
    assert await ranking(client, "arena", window="weekly") == [("p2", 20), ("p1", 10)]
    assert await ranking(client, "arena", window="monthly") == [("p3", 30), ("p2", 20), ("p1", 10)]
    assert len(await ranking(client, "arena")) == 4


async def test_default_period_moves_with_the_clock(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put_board(client, "arena", windows=ALL)
    await submit(client, "arena", "p1", 10)
    clock.set(utc(2026, 11, 23, 0, 0, 1))
    for window, period in [("daily", "2026-11-23"), ("weekly", "2026-W48"), ("monthly", "2026-11")]:
        body = await top(client, "arena", window=window)
        assert (body["period"], body["as_of"]) == (period, "2026-11-23T00:00:01.000Z")
    assert await ranking(client, "arena", window="daily") == []
    assert await ranking(client, "arena", window="weekly") == []
    assert await ranking(client, "arena", window="monthly") == [("p1", 10)]
    assert await ranking(client, "arena", window="daily", period="2026-11-21") == [("p1", 10)]


async def test_iso_week_across_the_year_boundary(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put_board(client, "arena", windows=ALL)
    clock.set(utc(2027, 1, 1, 12))
    thursday = await submit(client, "arena", "thu", 1, at=utc(2026, 12, 31, 12))
    assert [p for _, p, _ in _periods(thursday)] == ["all", "2026-12-31", "2026-W53", "2026-12"]
    friday = await submit(client, "arena", "fri", 2, at=utc(2027, 1, 1, 6))
    assert _periods(friday) == [
        ("all_time", "all", True),
        ("daily", "2027-01-01", True),
        ("weekly", "2026-W53", True),
        ("monthly", "2027-01", True),
    ]
    clock.set(utc(2027, 1, 4, 12))
    monday = await submit(client, "arena", "mon", 3, at=utc(2027, 1, 4, 1))
    assert [p for _, p, _ in _periods(monday)] == ["all", "2027-01-04", "2027-W01", "2027-01"]
    sunday = await submit(client, "arena", "sun", 4, at=utc(2027, 1, 3, 23, 59, 59))
    assert (sunday["standings"][2]["period"], sunday["standings"][2]["applied"]) == (
        "2026-W53",
        False,
    )
    assert await ranking(client, "arena", window="weekly") == [("mon", 3)]
    assert await ranking(client, "arena", window="weekly", period="2026-W53") == [
        ("fri", 2),
        ("thu", 1),
    ]
    periods = await get_json(client, "/v1/boards/arena/periods", window="weekly")
    assert [
        (p["period"], p["starts_at"], p["ends_at"], p["state"]) for p in periods["periods"]
    ] == [
        ("2027-W01", "2027-01-04T00:00:00.000Z", "2027-01-11T00:00:00.000Z", "open"),
        ("2026-W53", "2026-12-28T00:00:00.000Z", "2027-01-04T00:00:00.000Z", "closed"),
    ]


@pytest.mark.edge
async def test_week_names_that_do_not_exist_are_422(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", windows=["weekly", "monthly"])
    assert (await top(client, "arena", window="weekly", period="2026-W53"))["total"] == 0
    for window, period in [
        ("weekly", "2027-W53"),
        ("weekly", "2026-W00"),
        ("weekly", "2026-W1"),
        ("monthly", "2026-13"),
        ("monthly", "2026-00"),
    ]:
        response = await client.get(
            "/v1/boards/arena/top", params={"window": window, "period": period}
        )
        assert error_locs(response) == [["query", "period"]], period


# --- grace ----------------------------------------------------------------------------


async def test_submission_within_grace_counts_for_the_old_day(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"])
    clock.set(utc(2026, 11, 22, 0, 4, 59, 999000))
    answer = await submit(client, "arena", "p1", 10, at=utc(2026, 11, 21, 23, 59, 59))
    assert answer["applied"] is True
    assert _periods(answer) == [("all_time", "all", True), ("daily", "2026-11-21", True)]
    assert await ranking(client, "arena", window="daily") == []
    assert await ranking(client, "arena", window="daily", period="2026-11-21") == [("p1", 10)]


async def test_submission_beyond_grace_is_closed_there_but_counts_all_time(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put_board(client, "arena", windows=["all_time", "daily", "weekly"])
    clock.set(utc(2026, 11, 22, 0, 5, 0))
    answer = await submit(client, "arena", "p1", 10, at=utc(2026, 11, 21, 23, 59, 59))
    assert answer == {
        "player_id": "p1",
        "match_id": "m-p1-10",
        "applied": True,
        "duplicate": False,
        "previous_score": None,
        "score": 10,
        "standings": [
            {
                "window": "all_time",
                "period": "all",
                "scope": "global",
                "score": 10,
                "rank": 1,
                "applied": True,
            },
            _closed("daily", "2026-11-21"),
            {
                "window": "weekly",
                "period": "2026-W47",
                "scope": "global",
                "score": 10,
                "rank": 1,
                "applied": True,
            },
        ],
    }
    assert await ranking(client, "arena", window="daily", period="2026-11-21") == []
    assert await ranking(client, "arena") == [("p1", 10)]


async def test_closed_period_keeps_the_existing_entry(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"], scopes=["region"])
    clock.set(utc(2026, 11, 21, 23))
    await submit(client, "arena", "p1", 10, match="m1", scopes={"region": "EU"})
    clock.set(utc(2026, 11, 22, 1))
    answer = await submit(
        client, "arena", "p1", 50, match="m2", at=utc(2026, 11, 21, 23, 30), scopes={"region": "EU"}
    )
    assert answer["standings"][2:] == [
        _closed("daily", "2026-11-21", 10, 1),
        {**_closed("daily", "2026-11-21", 10, 1), "scope": "region:EU"},
    ]
    assert (answer["previous_score"], answer["score"]) == (10, 50)
    assert await ranking(client, "arena", window="daily", period="2026-11-21") == [("p1", 10)]


async def test_grace_seconds_is_per_board(client: httpx.AsyncClient, clock: ManualClock) -> None:
    await put_board(client, "strict", windows=["daily"], grace_seconds=0)
    await put_board(client, "lenient", windows=["daily"], grace_seconds=3600)
    clock.set(utc(2026, 11, 22, 0, 59, 59))
    late = utc(2026, 11, 21, 23, 59, 59)
    strict = await submit(client, "strict", "p1", 1, at=late)
    assert (strict["applied"], strict["standings"][0]["reason"]) == (False, "closed")
    assert strict["score"] is None and strict["previous_score"] is None
    assert (await submit(client, "lenient", "p1", 1, at=late))["applied"] is True
    clock.set(utc(2026, 11, 22, 1))
    again = await submit(client, "lenient", "p2", 1, at=late)
    assert (again["applied"], again["standings"][0]["reason"]) == (False, "closed")


# --- seasons --------------------------------------------------------------------------

SEASONS = [
    {"id": "s1", "start": "2026-11-01T00:00:00Z", "end": "2026-11-15T00:00:00Z"},
    {"id": "s2", "start": "2026-11-20T00:00:00Z", "end": "2026-12-01T00:00:00Z"},
]


async def test_seasons_collect_submissions_inside_them(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    board = await put_board(client, "arena", seasons=SEASONS)
    assert board["windows"] == ["all_time", "season"]
    clock.set(utc(2026, 11, 10))
    s1 = await submit(client, "arena", "early", 5)
    assert _periods(s1) == [("all_time", "all", True), ("season", "s1", True)]
    clock.set(utc(2026, 11, 21, 12))
    between = await submit(client, "arena", "gap", 7, at=utc(2026, 11, 17, 12))
    assert _periods(between) == [("all_time", "all", True)]
    now = await submit(client, "arena", "now", 3)
    assert _periods(now) == [("all_time", "all", True), ("season", "s2", True)]
    late = await submit(client, "arena", "late", 9, at=utc(2026, 11, 14, 23))
    assert _periods(late) == [("all_time", "all", True), ("season", "s1", False)]
    body = await top(client, "arena", window="season")
    assert (body["period"], body["total"]) == ("s2", 1)
    assert await ranking(client, "arena", window="season") == [("now", 3)]
    assert await ranking(client, "arena", window="season", period="s1") == [("early", 5)]
    assert await ranking(client, "arena") == [("late", 9), ("gap", 7), ("early", 5), ("now", 3)]
    response = await client.get("/v1/boards/arena/top", params={"window": "season", "period": "s9"})
    assert error_locs(response) == [["query", "period"]]


async def test_default_season_between_and_before_seasons(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put_board(client, "arena", windows=["season"], seasons=SEASONS)
    for when, season in [
        (utc(2026, 10, 1), "s1"),
        (utc(2026, 11, 1), "s1"),
        (utc(2026, 11, 17), "s1"),
        (utc(2026, 11, 20), "s2"),
        (utc(2027, 2, 1), "s2"),
    ]:
        clock.set(when)
        assert (await top(client, "arena"))["period"] == season, when


async def test_season_periods_listed_with_bounds(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put_board(client, "arena", windows=["season"], seasons=SEASONS)
    clock.set(utc(2026, 11, 10))
    await submit(client, "arena", "p1", 5)
    clock.set(utc(2026, 11, 21, 12))
    await submit(client, "arena", "p1", 6, match="m2")
    body = await get_json(client, "/v1/boards/arena/periods", window="season")
    assert body["periods"] == [
        {
            "window": "season",
            "period": "s2",
            "starts_at": "2026-11-20T00:00:00.000Z",
            "ends_at": "2026-12-01T00:00:00.000Z",
            "state": "open",
            "total": 1,
        },
        {
            "window": "season",
            "period": "s1",
            "starts_at": "2026-11-01T00:00:00.000Z",
            "ends_at": "2026-11-15T00:00:00.000Z",
            "state": "closed",
            "total": 1,
        },
    ]


# --- retention ------------------------------------------------------------------------


async def test_expired_periods_leave_the_index(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put_board(
        client,
        "arena",
        windows=["all_time", "daily", "weekly"],
        scopes=["region"],
        retention_days={"daily": 1, "weekly": 2},
    )
    await submit(client, "arena", "p1", 10, scopes={"region": "EU"})
    service = app.state.service

    def lb(window: str, period: str, scope: str = "global") -> LeaderboardId:
        return LeaderboardId("arena", window, period, scope)

    async def live() -> set[LeaderboardId]:
        return set(await service.index.leaderboards("arena"))

    everything = {
        lb(w, p, s)
        for w, p in [("all_time", "all"), ("daily", "2026-11-21"), ("weekly", "2026-W47")]
        for s in ("global", "region:EU")
    }
    assert await live() == everything
    # the daily period ended 2026-11-22T00:00; + 300 s grace + 1 day of retention
    clock.set(utc(2026, 11, 23, 0, 4, 59, 999000))
    assert await service.expire_periods() == []
    clock.set(utc(2026, 11, 23, 0, 5))
    daily = {lb("daily", "2026-11-21"), lb("daily", "2026-11-21", "region:EU")}
    assert set(await service.expire_periods()) == daily
    assert await live() == everything - daily
    assert await service.expire_periods() == []
    # the week ended 2026-11-23T00:00; + grace + 2 days
    clock.set(utc(2026, 11, 25, 0, 5))
    weekly = {lb("weekly", "2026-W47"), lb("weekly", "2026-W47", "region:EU")}
    assert set(await service.expire_periods()) == weekly
    assert await live() == {lb("all_time", "all"), lb("all_time", "all", "region:EU")}
    clock.set(utc(2030, 1, 1))
    assert await service.expire_periods() == []
    assert await ranking(client, "arena") == [("p1", 10)]
    assert await ranking(client, "arena", scope="region:EU") == [("p1", 10)]
    # the closed periods' standings stay in the durable store
    periods = await get_json(client, "/v1/boards/arena/periods", window="daily")
    old = [p for p in periods["periods"] if p["period"] == "2026-11-21"]
    assert [(p["state"], p["total"]) for p in old] == [("closed", 1)]


async def test_open_periods_never_expire(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put_board(client, "arena", windows=["daily"], retention_days={"daily": 0})
    await submit(client, "arena", "p1", 10)
    clock.set(utc(2026, 11, 22, 0, 4, 59))
    assert await app.state.service.expire_periods() == []
    assert await ranking(client, "arena", period="2026-11-21") == [("p1", 10)]
    clock.set(utc(2026, 11, 22, 0, 5))
    dropped = await app.state.service.expire_periods()
    assert dropped == [LeaderboardId("arena", "daily", "2026-11-21", "global")]
