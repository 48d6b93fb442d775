"""Boards in a time zone and cron windows through the API, on every stack: where
submissions land, reads and their countdowns, grace, the periods list, archives and
retention, across a 25-hour day and a cron period that a change of time lengthens."""

from __future__ import annotations

import httpx
import pytest

from helpers_api import AUTH, error_locs, get_json, put_board, ranking, submit, top, utc
from rankline import ManualClock
from rankline.http.app import Application

EVENT = {"id": "friday-event", "cron": "0 18 * * FRI", "timezone": "Europe/Paris"}
WINDOWS = ["all_time", "daily", {"id": "weekly", "timezone": "Europe/Paris"}, EVENT]


def _landed(answer: dict[str, object]) -> dict[str, tuple[str, bool]]:
    standings = answer["standings"]
    assert isinstance(standings, list)
    return {s["window"]: (s["period"], s["applied"]) for s in standings}


async def test_zoned_and_cron_periods_through_every_read(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    shown = await put_board(
        client,
        "live",
        windows=[*WINDOWS[:3], {**EVENT, "retention_days": 1}],
        timezone="America/Los_Angeles",
        tiers=[{"name": "gold", "top_rank": 1}],
    )
    assert shown["timezone"] == "America/Los_Angeles"
    assert shown["windows"][3] == {**EVENT, "retention_days": 1}
    # Friday 2026-10-30, 16:30Z: 17:30 in Paris (an hour after the clocks went back there),
    # 09:30 in Los Angeles; the event's period began last Friday at 18:00 CEST (16:00Z)
    clock.set(utc(2026, 10, 30, 16, 30))
    first = await submit(client, "live", "p1", 10)
    assert _landed(first) == {
        "all_time": ("all", True),
        "daily": ("2026-10-30", True),
        "weekly": ("2026-W44", True),
        "friday-event": ("2026-10-23T16:00:00Z", True),
    }
    clock.set(utc(2026, 10, 30, 17))
    second = await submit(client, "live", "p2", 20)
    assert _landed(second)["friday-event"] == ("2026-10-30T17:00:00Z", True)
    late = await submit(client, "live", "p3", 5, at=utc(2026, 10, 30, 16, 59))  # in grace
    assert _landed(late)["friday-event"] == ("2026-10-23T16:00:00Z", True)

    current = await top(client, "live", window="friday-event")
    assert (current["period"], current["period_ends_at"]) == (
        "2026-10-30T17:00:00Z",
        "2026-11-06T17:00:00.000Z",
    )
    assert [(e["player_id"], e["tier"]) for e in current["entries"]] == [("p2", "gold")]
    previous = await top(client, "live", window="friday-event", period="2026-10-23T16:00:00Z")
    assert [e["player_id"] for e in previous["entries"]] == ["p1", "p3"]
    assert (previous["period_ends_at"], previous["closes_at"]) == (
        "2026-10-30T17:00:00.000Z",  # a week and an hour after it began
        "2026-10-30T17:05:00.000Z",
    )
    player = await get_json(
        client, "/v1/boards/live/players/p3", window="friday-event", period="2026-10-23T16:00:00Z"
    )
    assert (player["rank"], player["score"]) == (2, 5)
    around = await get_json(
        client,
        "/v1/boards/live/players/p1/around",
        window="friday-event",
        period="2026-10-23T16:00:00Z",
        k=1,
    )
    assert [e["player_id"] for e in around["entries"]] == ["p1", "p3"]
    ranks = await client.post(
        "/v1/boards/live/ranks",
        params={"window": "friday-event", "period": "2026-10-23T16:00:00Z"},
        json={"player_ids": ["p3", "p2", "p1"]},
    )
    assert [e["player_id"] for e in ranks.json()["entries"]] == ["p1", "p3"]
    weekly = await top(client, "live", window="weekly")
    assert (weekly["period"], weekly["period_ends_at"]) == ("2026-W44", "2026-11-01T23:00:00.000Z")

    # Sunday 2026-11-01 in Los Angeles lasts 25 hours: 07:00Z to 08:00Z the next day
    clock.set(utc(2026, 11, 2, 7, 30))  # 23:30 PST, still November 1st there
    evening = await submit(client, "live", "p4", 30)
    assert _landed(evening)["daily"] == ("2026-11-01", True)
    daily = await top(client, "live", window="daily")
    assert (daily["period"], daily["period_ends_at"]) == ("2026-11-01", "2026-11-02T08:00:00.000Z")
    listed = await get_json(client, "/v1/boards/live/periods", window="daily")
    assert {p["period"]: (p["starts_at"], p["ends_at"], p["state"]) for p in listed["periods"]} == {
        "2026-11-01": ("2026-11-01T07:00:00.000Z", "2026-11-02T08:00:00.000Z", "open"),
        "2026-10-30": ("2026-10-30T07:00:00.000Z", "2026-10-31T07:00:00.000Z", "closed"),
    }
    too_late = await submit(client, "live", "p5", 50, at=utc(2026, 10, 30, 16, 59))
    assert _landed(too_late)["friday-event"] == ("2026-10-23T16:00:00Z", False)

    # archived at the close; past its one day of retention, read from the archive
    service = app.state.service
    archived = {(a.key.window, a.key.period) for a in await service.archive_periods()}
    assert ("friday-event", "2026-10-23T16:00:00Z") in archived
    assert ("daily", "2026-10-30") in archived
    await service.expire_periods()
    answer = await top(client, "live", window="friday-event", period="2026-10-23T16:00:00Z")
    assert answer["archived"] is True
    assert [(e["player_id"], e["score"]) for e in answer["entries"]] == [("p1", 10), ("p3", 5)]
    events = await get_json(client, "/v1/boards/live/periods", window="friday-event")
    assert [(p["period"], p["state"]) for p in events["periods"]] == [
        ("2026-10-30T17:00:00Z", "open"),
        ("2026-10-23T16:00:00Z", "archived"),
    ]
    assert [p for p, _ in await ranking(client, "live")] == ["p5", "p4", "p2", "p1", "p3"]


@pytest.mark.edge
async def test_zone_and_cron_mistakes_are_422_and_fixed_once_entries_exist(
    client: httpx.AsyncClient,
) -> None:
    for body, loc in (
        ({"windows": ["daily"], "timezone": "Nowhere/Land"}, ["body", "timezone"]),
        ({"windows": [{"id": "event", "cron": "0 18 * *"}]}, ["body", "windows", 0, "cron"]),
    ):
        bad = await client.put("/v1/boards/b", json=body, headers=AUTH)
        assert bad.status_code == 422
        assert error_locs(bad) == [loc]
    await put_board(client, "b", windows=WINDOWS, timezone="Asia/Tokyo")
    await submit(client, "b", "p1", 1)
    moved = await client.put(
        "/v1/boards/b",
        json={"windows": WINDOWS, "timezone": "Europe/Paris"},
        headers=AUTH,
    )
    assert moved.status_code == 409
    not_a_firing = await client.get(
        "/v1/boards/b/top", params={"window": "friday-event", "period": "2026-10-30T18:00:00Z"}
    )
    assert not_a_firing.status_code == 422
    assert error_locs(not_a_firing) == [["query", "period"]]


@pytest.mark.edge
async def test_cohorts_friends_and_rank_of_on_a_cron_window(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put_board(client, "c", windows=[EVENT, "all_time"], cohort_size=2)
    clock.set(utc(2026, 10, 30, 16, 30))
    for player, score in (("a", 30), ("b", 20), ("x", 10)):
        await submit(client, "c", player, score)
    where = {"window": "friday-event"}
    mine = await get_json(client, "/v1/boards/c/players/x", scope="cohort", **where)
    assert (mine["scope"], mine["rank"], mine["period"]) == ("cohort:2", 1, "2026-10-23T16:00:00Z")
    clock.set(utc(2026, 10, 30, 17))  # a new event period: cohorts start again
    fresh = await submit(client, "c", "x", 5, match="m2")
    assert ("friday-event", "2026-10-30T17:00:00Z", "cohort:1") in {
        (s["window"], s["period"], s["scope"]) for s in fresh["standings"]
    }
    rank_of = await get_json(
        client, "/v1/boards/c/rank-of", score=25, period="2026-10-23T16:00:00Z", **where
    )
    assert (rank_of["rank"], rank_of["total"]) == (2, 3)
    friends = await client.post(
        "/v1/boards/c/players/x/friends",
        params={**where, "period": "2026-10-23T16:00:00Z"},
        json={"friends": ["a"]},
    )
    assert [e["player_id"] for e in friends.json()["entries"]] == ["a", "x"]
