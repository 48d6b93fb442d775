"""What a replay asks the store (``rankline.store.replay``), on every store: the score events
come back as named ``LoggedEvent``s in id order, a page at a time; a board's standings are
emptied a chunk at a time without touching another board's; the periods recorded are only
those missing."""

from __future__ import annotations

import httpx

from helpers_api import put_board, submit
from rankline.http.app import Application
from rankline.service import Rankline
from rankline.store import replay as store_replay
from rankline.types import LeaderboardId


def _service(app: Application) -> Rankline:
    service: Rankline = app.state.service
    return service


async def _seed(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"], scopes=["region"])
    await put_board(client, "other")
    for i in range(5):
        await submit(client, "arena", f"p{i}", 10 + i, f"m{i}", scopes={"region": "EU"})
    await submit(client, "other", "p0", 3, "o0")


async def test_events_come_back_named_in_id_order_a_page_at_a_time(
    app: Application, client: httpx.AsyncClient
) -> None:
    await _seed(client)
    store = _service(app).store
    last, count = await store_replay.event_range(store, ["arena"])
    assert count == 5
    first = await store_replay.events_after(store, ["arena"], 0, last, 3)
    rest = await store_replay.events_after(store, ["arena"], first[-1].id, last, 3)
    events = first + rest
    assert len(first) == 3 and len(events) == 5
    assert [e.id for e in events] == sorted(e.id for e in events)
    assert events[-1].id == last
    assert {e.board_id for e in events} == {"arena"}
    assert [(e.player_id, e.score, e.match_id) for e in events] == [
        (f"p{i}", 10 + i, f"m{i}") for i in range(5)
    ]
    assert all(e.applied and e.subscore is None and "EU" in e.scopes for e in events)
    mine = await store_replay.player_events(store, "arena", ["p1", "p3"])
    assert [e.player_id for e in mine] == ["p1", "p3"]


async def test_emptying_a_board_goes_a_chunk_at_a_time_and_leaves_the_others(
    app: Application, client: httpx.AsyncClient
) -> None:
    await _seed(client)
    store = _service(app).store
    held = await store_replay.count_standings(store, ["arena"])
    # Five players on two windows, each globally and in their region.
    assert held == 20
    assert await store_replay.empty_standings(store, "arena", 3) == held
    assert await store_replay.count_standings(store, ["arena"]) == 0
    assert await store_replay.count_standings(store, ["other"]) == 1


async def test_only_the_missing_periods_are_recorded(
    app: Application, client: httpx.AsyncClient
) -> None:
    await _seed(client)
    service = _service(app)
    store = service.store
    known = await store.list_periods("arena")
    assert known, "a write records its periods"
    periods = {("arena", p.window, p.period): (p.starts_at, p.ends_at) for p in known}
    assert await store_replay.add_missing_periods(store, periods) == 0
    periods["arena", "daily", "2001-01-01"] = (978307200_000000, 978393600_000000)
    assert await store_replay.add_missing_periods(store, periods) == 1
    found = {(p.window, p.period) for p in await store.list_periods("arena")}
    assert ("daily", "2001-01-01") in found
    assert len(found) == len(known) + 1
    assert await store_replay.add_missing_periods(store, periods) == 0
    leaderboard = LeaderboardId("arena", "daily", "2001-01-01", "global")
    assert await store.count_leaderboard(leaderboard) == 0
