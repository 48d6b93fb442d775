"""Periods from open to archived: at close, the final standings (every scope, final rank) are
archived to SQL by the scheduler; one worker does each period (claims with a lease, taken over
when a worker dies), it catches up after downtime, and `rankline archive` runs it by hand.
Every test runs on each backend stack (see conftest.py), on the manual clock."""

from __future__ import annotations

import asyncio
import random
from datetime import datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import insert

from helpers_api import (
    AUTH,
    iso,
    open_app,
    open_client,
    post_score,
    put_board,
    ranking,
    submit,
    utc,
)
from helpers_lifecycle import archived, live, period_rows, states
from helpers_procs import cli_env, run_cli
from rankline import ManualClock, Rankline, Settings
from rankline.http.app import Application
from rankline.lifecycle.closing import LEASE_SECONDS, Lifecycle
from rankline.runtime.clock import to_micros
from rankline.store import archive as store_archive
from rankline.store import schema as t
from rankline.store.sql import SqlStore

DAY = "2026-11-21"
CLOSES = utc(2026, 11, 22, 0, 5)
"""The daily period 2026-11-21 ends at midnight; + 300 s of grace."""
ARCHIVABLE = CLOSES + timedelta(seconds=10)
"""+ the settling time before the scheduler archives it."""


def _at(hour: int, minute: int, second: int = 0) -> str:
    return iso(utc(2026, 11, 21, hour, minute, second))


async def _ties(client: httpx.AsyncClient) -> None:
    """arena (desc, daily and weekly, by region) and golf (asc), with ties on score and on
    score and time (Zed sorts before abe bytewise)."""
    await put_board(
        client, "arena", windows=["all_time", "daily", "weekly"], scopes=["region", "mode"]
    )
    eu, us = {"region": "EU"}, {"region": "US"}
    await submit(client, "arena", "b", 90, at=_at(10, 1), scopes=eu)
    await submit(client, "arena", "a", 90, at=_at(10, 2), scopes={**us, "mode": "duo"})
    await submit(client, "arena", "Zed", 80, at=_at(10, 3), scopes=eu)
    await submit(client, "arena", "abe", 80, at=_at(10, 3), scopes=eu)
    await submit(client, "arena", "top", 100, at=_at(10, 5))
    await submit(client, "arena", "z", 70, at=_at(10, 0), scopes=us)
    await put_board(client, "golf", windows=["daily"], order="asc")
    for player, score, minute in [("g1", 72, 1), ("g2", 68, 2), ("g3", 68, 1), ("g4", 80, 0)]:
        await submit(client, "golf", player, score, at=_at(9, minute))


ARENA_SCOPES = ["global", "region:EU", "region:US", "mode:duo"]


async def test_close_archives_every_scope_with_its_final_rank(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    service: Rankline = app.state.service
    await _ties(client)
    at_close = await live(client, "arena", "daily", DAY, ARENA_SCOPES)
    golf_at_close = await live(client, "golf", "daily", DAY, ["global"])
    assert [r[1] for r in at_close["global"]] == ["top", "b", "a", "Zed", "abe", "z"]
    assert [r[1] for r in golf_at_close["global"]] == ["g3", "g2", "g1", "g4"]

    # before the close and the settling time nothing is archived
    clock.set(ARCHIVABLE - timedelta(microseconds=1))
    assert await service.archive_periods() == []
    assert await archived(service, "arena", "daily", DAY) == {}

    clock.set(ARCHIVABLE)
    done = await service.archive_periods()
    assert sorted((a.key, a.total, a.entries, a.scopes) for a in done) == [
        (("arena", "daily", DAY), 6, 6 + 3 + 2 + 1, 4),
        (("golf", "daily", DAY), 4, 4, 1),
    ]
    assert await archived(service, "arena", "daily", DAY) == at_close
    assert await archived(service, "golf", "daily", DAY) == golf_at_close
    rows = await period_rows(service, "arena")
    assert rows[("daily", DAY)] == {
        "state": "archived",
        "total": 6,
        "archived_at": to_micros(ARCHIVABLE),
        "claimed_until": None,
    }
    assert rows[("all_time", "all")]["state"] == "open"  # never closes
    assert rows[("weekly", "2026-W47")]["state"] == "open"  # closes on Monday
    # the live leaderboard stays until its retention ends, and answers as before
    assert await live(client, "arena", "daily", DAY, ARENA_SCOPES) == at_close
    # nothing is archived twice
    assert await service.archive_periods() == []


async def test_periods_go_open_closed_archived(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    service: Rankline = app.state.service
    await _ties(client)
    assert await states(client, "arena", "daily") == {DAY: ("open", 6)}
    clock.set(CLOSES - timedelta(microseconds=1))
    assert (await states(client, "arena", "daily"))[DAY] == ("open", 6)
    clock.set(CLOSES)
    assert await states(client, "arena", "daily") == {
        "2026-11-22": ("open", 0),
        DAY: ("closed", 6),
    }
    clock.set(ARCHIVABLE)
    await service.archive_periods()
    assert await states(client, "arena", "daily") == {
        "2026-11-22": ("open", 0),
        DAY: ("archived", 6),
    }
    assert (await states(client, "arena", "weekly"))["2026-W47"] == ("open", 6)
    clock.set(utc(2026, 11, 23, 0, 5, 10))
    await service.archive_periods()
    assert (await states(client, "arena", "weekly"))["2026-W47"] == ("archived", 6)
    assert (await states(client, "arena", "all_time"))["all"] == ("open", 6)


async def test_a_dead_workers_claim_expires_and_another_takes_over(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    service: Rankline = app.state.service
    await _ties(client)
    at_close = await live(client, "arena", "daily", DAY, ARENA_SCOPES)
    clock.set(ARCHIVABLE)
    now = clock.now()
    key = store_archive.PeriodKey("arena", "daily", DAY)
    # a worker claims the period, writes part of an archive (left over, as if committed by an
    # older version of the period's archive) and dies
    until = now + LEASE_SECONDS * 1_000_000
    assert await store_archive.claim(service.store, key, now, until)
    assert not await store_archive.claim(service.store, key, now, until + 1)
    async with service.store.engine.begin() as conn:
        await conn.execute(
            insert(t.archive),
            [
                {
                    "board_id": "arena",
                    "window": "daily",
                    "period": DAY,
                    "scope": "global",
                    "rank": rank,
                    "player_id": "ghost",
                    "score": 1,
                    "achieved_at": 0,
                }
                for rank in (1, 7)
            ],
        )
    row = (await period_rows(service, "arena"))[("daily", DAY)]
    assert (row["state"], row["claimed_until"]) == ("closed", until)
    assert (await states(client, "arena", "daily"))[DAY] == ("closed", 6)

    # while the claim holds, the others leave the period alone
    clock.set(ARCHIVABLE + timedelta(seconds=LEASE_SECONDS - 1))
    assert [a.key for a in await service.archive_periods()] == [("golf", "daily", DAY)]
    # then one takes it over, replacing what the dead worker left
    clock.set(ARCHIVABLE + timedelta(seconds=LEASE_SECONDS + 1))
    assert [a.key for a in await service.archive_periods()] == [key]
    assert await archived(service, "arena", "daily", DAY) == at_close
    assert (await states(client, "arena", "daily"))[DAY] == ("archived", 6)


async def test_catches_up_on_every_period_after_downtime(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    service: Rankline = app.state.service
    await put_board(
        client,
        "arena",
        windows=["daily", "weekly", "monthly"],
        retention_days={"daily": 1, "weekly": 1, "monthly": 1},
    )
    days = [utc(2026, 11, 27) + timedelta(days=d, hours=12) for d in range(6)]  # Fri..Wed
    for d, day in enumerate(days):
        clock.set(day)
        for i in range(3):
            await submit(client, "arena", f"p{i}", 10 * d + i, match=f"m{d}", at=day)
    expected: dict[tuple[str, str], Any] = {}
    periods = {
        "daily": [day.date().isoformat() for day in days],
        "weekly": ["2026-W48", "2026-W49"],
        "monthly": ["2026-11", "2026-12"],
    }
    for window, names in periods.items():
        for name in names:
            expected[window, name] = await live(client, "arena", window, name, ["global"])
    # the service was down for months: the live leaderboards expired, nothing was archived
    clock.set(utc(2027, 3, 1))
    assert await service.expire_periods()
    done = await service.archive_periods()
    assert sorted(a.key[1:] for a in done) == sorted(expected)
    for (window, name), standings in expected.items():
        assert await archived(service, "arena", window, name) == standings
    for window, names in periods.items():
        listed = await states(client, "arena", window)
        assert all(listed[name][0] == "archived" for name in names), listed
    assert await service.archive_periods() == []


async def test_the_scheduler_archives_by_itself(settings: Settings, clock: ManualClock) -> None:
    fast = settings.model_copy(update={"archive_interval_seconds": 0.05})
    async with open_app(fast, clock) as app, open_client(app) as client:
        await _ties(client)
        at_close = await live(client, "arena", "daily", DAY, ARENA_SCOPES)
        clock.set(ARCHIVABLE)
        for _ in range(400):  # the scheduler archives one board's periods after the other
            arena = (await states(client, "arena", "daily"))[DAY][0]
            if arena == (await states(client, "golf", "daily"))[DAY][0] == "archived":
                break
            await asyncio.sleep(0.025)
        assert (await states(client, "arena", "daily"))[DAY] == ("archived", 6)
        assert await archived(app.state.service, "arena", "daily", DAY) == at_close
        golf = await states(client, "golf", "daily")
        assert golf[DAY] == ("archived", 4)


async def test_rankline_archive_runs_it_by_hand(settings: Settings, clock: ManualClock) -> None:
    # `rankline archive` uses the system clock: these periods closed long ago
    clock.set(utc(2025, 6, 4, 12))
    env = cli_env(
        settings.data_dir,
        **{k: v for k in ("database_url", "redis_url") if (v := getattr(settings, k))},
    )
    async with open_app(settings, clock) as app, open_client(app) as client:
        await put_board(client, "arena", windows=["all_time", "weekly"], scopes=["region"])
        for i in range(5):
            at = utc(2025, 6, 4, 10, i)
            await submit(client, "arena", f"p{i}", 100 - i, at=at, scopes={"region": "EU"})
        at_close = await live(client, "arena", "weekly", "2025-W23", ["global", "region:EU"])
        result = await asyncio.to_thread(run_cli, "archive", env=env)
        output = result.stdout + result.stderr
        assert result.returncode == 0, output
        assert "archived arena weekly 2025-W23: 5 entries" in output, output
        assert "archived 1 periods" in output, output
        assert (await states(client, "arena", "weekly"))["2025-W23"] == ("archived", 5)
        assert await archived(app.state.service, "arena", "weekly", "2025-W23") == at_close
        again = await asyncio.to_thread(run_cli, "archive", env=env)
        assert again.returncode == 0, again.stdout + again.stderr
        assert "nothing to archive" in again.stderr, again.stderr


async def test_concurrent_archivers_archive_each_period_once(
    app: Application, client: httpx.AsyncClient, clock: ManualClock, settings: Settings
) -> None:
    service: Rankline = app.state.service
    for board in ("a1", "a2", "a3"):
        await put_board(client, board, windows=["daily", "weekly"], scopes=["region"])
        for i in range(12):
            region = {"region": "EU" if i % 3 else "US"}
            await submit(client, board, f"p{i}", i % 5, at=_at(10, i), scopes=region)
    clock.set(utc(2026, 11, 23, 0, 5, 10))  # the day and the week are archivable
    expected = {
        (board, window, name): await live(
            client, board, window, name, ["global", "region:EU", "region:US"]
        )
        for board in ("a1", "a2", "a3")
        for window, name in [("daily", DAY), ("weekly", "2026-W47")]
    }
    # three workers: this service and two more processes' worth of store and scheduler
    others = [SqlStore(settings.database) for _ in range(2)]
    try:
        workers = [service.lifecycle] + [Lifecycle(s, clock, service.boards) for s in others]
        results = await asyncio.gather(*(w.step() for w in workers))
    finally:
        for store in others:
            await store.close()
    keys = [a.key for result in results for a in result]
    assert sorted(keys) == sorted(expected), results
    for (board, window, name), standings in expected.items():
        assert await archived(service, board, window, name) == standings
    assert await store_archive.count_archive(service.store) == 6 * (12 + 12)
    assert await service.archive_periods() == []


async def test_banned_players_are_left_out_of_the_archive(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    service: Rankline = app.state.service
    await _ties(client)
    async with service.store.engine.begin() as conn:
        await conn.execute(insert(t.bans).values(player_id="b", banned_at=clock.now()))
    clock.set(ARCHIVABLE)
    await service.archive_periods()
    found = await archived(service, "arena", "daily", DAY)
    assert [(r[0], r[1]) for r in found["global"]] == [
        (1, "top"),
        (2, "a"),
        (3, "Zed"),
        (4, "abe"),
        (5, "z"),
    ]
    assert [(r[0], r[1]) for r in found["region:EU"]] == [(1, "Zed"), (2, "abe")]
    assert (await period_rows(service, "arena"))[("daily", DAY)]["total"] == 5
    # unbanned: archiving the player's periods again brings them back, ranks in place
    async with service.store.engine.begin() as conn:
        await conn.execute(t.bans.delete())
    redone = await service.lifecycle.rearchive_player("b")
    assert sorted(a.key for a in redone) == [("arena", "daily", DAY)]
    found = await archived(service, "arena", "daily", DAY)
    assert [r[1] for r in found["global"]] == ["top", "b", "a", "Zed", "abe", "z"]
    assert [r[1] for r in found["region:EU"]] == ["b", "Zed", "abe"]


async def test_weekly_boundary_with_submissions_in_flight(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    """Sunday 23:59 → Monday 00:01:10 UTC with concurrent POSTs whose `at` is near the
    boundary while the clock moves: what the week counted at its close is what is archived;
    late submissions inside the grace count, later ones answer "closed"."""
    service: Rankline = app.state.service
    rng = random.Random(47)
    await put_board(
        client, "arena", windows=["all_time", "weekly"], scopes=["region"], grace_seconds=60
    )
    week_end = utc(2026, 11, 23)
    close = week_end + timedelta(seconds=60)
    last_w47 = week_end - timedelta(milliseconds=1)
    clock.set(utc(2026, 11, 22, 23, 59))
    scopes = ["global", "region:EU", "region:US"]

    async def send(player: str, score: int, at: datetime, match: str) -> tuple[int, dict[str, Any]]:
        """POST one submission; (clock when sent, the weekly global standing's answer)."""
        sent = clock.now()
        region = {"region": rng.choice(["EU", "US"])}
        response = await post_score(
            client,
            "arena",
            {"player_id": player, "score": score, "match_id": match, "at": iso(at)}
            | {"scopes": region},
        )
        assert response.status_code == 200, response.text
        answer = response.json()
        [weekly] = [
            s for s in answer["standings"] if s["window"] == "weekly" and s["scope"] == "global"
        ]
        [all_time] = [
            s for s in answer["standings"] if s["window"] == "all_time" and s["scope"] == "global"
        ]
        assert all_time["applied"], answer  # every submission counts all-time
        return sent, weekly

    def now_dt() -> datetime:
        return utc(1970, 1, 1) + timedelta(microseconds=clock.now())

    async def move(to: list[datetime], pause: float = 0.003) -> None:
        for when in to:
            clock.set(when)
            await asyncio.sleep(pause)

    # the week before the boundary
    for i in range(8):
        await send(f"early{i}", rng.randrange(1000), now_dt(), "m0")

    # 1. across the week's end, inside the grace: the clock goes 23:59:30 → 00:00:59
    ended = asyncio.Event()

    async def in_grace(i: int) -> tuple[int, dict[str, Any]]:
        if i % 2:
            await ended.wait()
        await asyncio.sleep(rng.random() * 0.03)
        at = min(now_dt(), last_w47) - timedelta(milliseconds=rng.randrange(500))
        return await send(f"grace{i}", rng.randrange(1000), at, "m1")

    async def across_the_end() -> None:
        await move([week_end + timedelta(seconds=s) for s in range(-30, 3, 3)])
        ended.set()
        await move([week_end + timedelta(seconds=s) for s in range(3, 60, 3)])

    _, *answers = await asyncio.gather(across_the_end(), *(in_grace(i) for i in range(24)))
    assert clock.now() < to_micros(close)
    assert all(a["applied"] and a["period"] == "2026-W47" for _, a in answers), answers
    # some were sent after the week ended: they counted in the grace
    assert any(sent >= to_micros(week_end) for sent, _ in answers)

    # 2. across the close: in flight while the clock passes 00:01:00
    first_done, crossed = asyncio.Event(), asyncio.Event()

    async def at_close(i: int) -> tuple[int, int, dict[str, Any]]:
        if i % 2:
            await crossed.wait()
        await asyncio.sleep(rng.random() * 0.02)
        at = last_w47 - timedelta(seconds=rng.randrange(30))
        sent, answer = await send(f"late{i}", rng.randrange(1000), at, "m2")
        first_done.set()
        return sent, clock.now(), answer

    async def cross() -> None:
        await first_done.wait()
        await move([close - timedelta(milliseconds=1), close])
        crossed.set()
        await move([close + timedelta(seconds=s) for s in range(1, 6)])

    _, *late = await asyncio.gather(cross(), *(at_close(i) for i in range(20)))
    applied = {a["period"] for _, _, a in late if a["applied"]}
    assert applied <= {"2026-W47"}
    for sent, answered, answer in late:
        if sent >= to_micros(close):
            assert (answer["applied"], answer["reason"]) == (False, "closed"), answer
        elif answered < to_micros(close):
            assert answer["applied"], answer
        else:  # in flight as the clock passed the close: either, as the commit saw it
            assert answer["applied"] or answer["reason"] == "closed", answer
    assert any(a["applied"] for _, _, a in late)
    assert any(not a["applied"] for _, _, a in late)

    # what the week holds now is final: its live standings at the close
    final = await live(client, "arena", "weekly", "2026-W47", scopes)
    counted = {f"early{i}" for i in range(8)} | {f"grace{i}" for i in range(24)}
    counted |= {f"late{i}" for i, (_, _, a) in enumerate(late) if a["applied"]}
    assert {r[1] for r in final["global"]} == counted

    # 3. well after the close: refused there, counted all-time and in the new week
    for i in range(6):
        _, answer = await send(f"after{i}", 5000 + i, last_w47, "m3")
        assert (answer["applied"], answer["reason"]) == (False, "closed"), answer
        _, now_week = await send(f"after{i}", 6000 + i, now_dt(), "m4")
        assert (now_week["applied"], now_week["period"]) == (True, "2026-W48")
    assert await live(client, "arena", "weekly", "2026-W47", scopes) == final
    assert [p for p, _ in await ranking(client, "arena")][:6] == [
        f"after{i}" for i in range(5, -1, -1)
    ]

    # archived by the scheduler's step once the period has settled
    clock.set(close + timedelta(seconds=10))
    done = await service.archive_periods()
    assert [(a.key, a.total) for a in done] == [(("arena", "weekly", "2026-W47"), len(counted))]
    assert await archived(service, "arena", "weekly", "2026-W47") == final
    assert (await states(client, "arena", "weekly"))["2026-W47"] == ("archived", len(counted))
    assert (await states(client, "arena", "weekly"))["2026-W48"] == ("open", 6)


async def test_deleting_a_board_removes_its_archive(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    service: Rankline = app.state.service
    await _ties(client)
    clock.set(ARCHIVABLE)
    await service.archive_periods()
    assert await store_archive.count_archive(service.store) > 0
    for board in ("arena", "golf"):
        response = await client.delete(f"/v1/boards/{board}", headers=AUTH)
        assert response.status_code == 204
    assert await store_archive.count_archive(service.store) == 0
