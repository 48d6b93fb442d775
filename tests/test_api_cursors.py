"""Stable cursors on top pages and tier pages: ``next`` (absent on the last page) and
``?cursor=``, read from the live index, the SQL standings and the archive; and, against a
model, pages read while other requests change the board (hypothesis). Every test runs on
each backend stack."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette

from helpers_api import AUTH, assert_problem, open_app, open_client, put_board, submit, top, utc
from rankline import ManualClock, Rankline, Settings

DAY = "2026-11-21"


def _at(second: int) -> str:
    return f"2026-11-21T10:{second // 60:02d}:{second % 60:02d}.000Z"


async def _seed(client: httpx.AsyncClient, board: str, count: int, **spec: Any) -> None:
    await put_board(client, board, **spec)
    items = [
        {"board": board, "player_id": f"p{i:02d}", "score": 100 - i // 2, "match_id": "m",
         "at": _at(i)}
        for i in range(count)
    ]  # fmt: skip
    response = await client.post("/v1/scores/batch", json={"scores": items}, headers=AUTH)
    assert response.status_code == 200
    assert all("error" not in r for r in response.json()["results"])


async def _walk(
    client: httpx.AsyncClient, board: str, limit: int, **params: Any
) -> list[dict[str, Any]]:
    """Every page from the first, following ``next``."""
    pages = [await top(client, board, limit=limit, **params)]
    while "next" in pages[-1]:
        assert len(pages) < 100
        pages.append(await top(client, board, limit=limit, cursor=pages[-1]["next"], **params))
    return pages


def _players(pages: list[dict[str, Any]]) -> list[str]:
    return [e["player_id"] for page in pages for e in page["entries"]]


async def test_cursor_pages_walk_the_leaderboard_and_hold_while_it_changes(
    client: httpx.AsyncClient,
) -> None:
    await _seed(client, "arena", 10)
    whole = await top(client, "arena")
    assert "next" not in whole and len(whole["entries"]) == 10
    pages = await _walk(client, "arena", 3)
    assert [len(p["entries"]) for p in pages] == [3, 3, 3, 1]
    assert [e for p in pages for e in p["entries"]] == whole["entries"]
    assert "next" not in pages[-1]
    exact = await _walk(client, "arena", 5)  # the last page full: no next on it
    assert [len(p["entries"]) for p in exact] == [5, 5]

    # Between two pages: a new leader, a player passing the cursor, one added at the end.
    first = await top(client, "arena", limit=4)
    assert _players([first]) == ["p00", "p01", "p02", "p03"]
    await submit(client, "arena", "new", 1000, "m", _at(50))
    await submit(client, "arena", "p08", 99, "m2", _at(51))  # from rank 9 to 5 (behind p03)
    await submit(client, "arena", "last", 1, "m", _at(52))
    second = await top(client, "arena", limit=4, cursor=first["next"])
    assert _players([second]) == ["p08", "p04", "p05", "p06"]
    assert [e["rank"] for e in second["entries"]] == [6, 7, 8, 9]
    rest = await top(client, "arena", limit=4, cursor=second["next"])
    assert _players([rest]) == ["p07", "p09", "last"] and "next" not in rest

    # A cursor whose entry has since moved still continues after its old place.
    await submit(client, "arena", "p03", 200, "m3", _at(53))
    after = await top(client, "arena", limit=2, cursor=first["next"])  # after the old p03
    assert _players([after]) == ["p08", "p04"]

    # The cursor of another board's page, garbage, or a cursor with an offset: 422.
    await put_board(client, "sub", subscore="desc")
    for bad in ("!!", "AAAA", "x" * 200, first["next"]):
        assert_problem(await client.get("/v1/boards/sub/top", params={"cursor": bad}), 422)
    both = {"cursor": first["next"], "offset": 2}
    assert_problem(await client.get("/v1/boards/arena/top", params=both), 422)


async def test_tier_pages_carry_cursors_within_their_tier(client: httpx.AsyncClient) -> None:
    tiers = [{"name": "gold", "top_rank": 3}, {"name": "silver", "top_rank": 8}]
    await _seed(client, "arena", 12, tiers=tiers)
    silver = await _walk(client, "arena", 2, tier="silver")
    assert _players(silver) == [f"p{i:02d}" for i in range(3, 8)]
    assert all(p["tier"] == "silver" and p["tier_total"] == 5 for p in silver)
    assert "next" not in silver[-1]
    gold = await _walk(client, "arena", 2, tier="gold")
    assert _players(gold) == ["p00", "p01", "p02"]


async def test_cursors_seek_across_the_shards_of_a_sharded_board(
    client: httpx.AsyncClient,
) -> None:
    await _seed(client, "split", 13, shards=3)
    whole = await top(client, "split")
    pages = await _walk(client, "split", 4)
    assert [e for p in pages for e in p["entries"]] == whole["entries"]
    await submit(client, "split", "p12", 99, "m2", _at(60))  # past the first page's cursor
    second = await top(client, "split", limit=4, cursor=pages[0]["next"])
    assert _players([second]) == ["p12", "p04", "p05", "p06"]


async def test_cursors_read_the_sql_standings_and_the_archive(
    app: Starlette, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    service: Rankline = app.state.service
    await _seed(client, "arena", 9, windows=["daily"], retention_days={"daily": 0})
    day = {"window": "daily", "period": DAY}
    live = await _walk(client, "arena", 4, **day)
    clock.set(utc(2026, 11, 22, 0, 5))
    assert await service.expire_periods()  # gone from the index: the standings answer
    from_sql = await _walk(client, "arena", 4, **day)
    assert [p["entries"] for p in from_sql] == [p["entries"] for p in live]
    clock.set(utc(2026, 11, 22, 0, 6))
    await service.archive_periods()
    archived = await _walk(client, "arena", 4, **day)
    assert all(p["archived"] for p in archived)
    assert [p["entries"] for p in archived] == [p["entries"] for p in live]
    assert [p.get("next") for p in archived] == [p.get("next") for p in live]


# --- against a model, with writes running beside the reads ---------------------------------

_runs = iter(range(1_000_000))
_writes = st.lists(
    st.tuples(st.integers(0, 29), st.integers(0, 60)), max_size=4, unique_by=lambda w: w[0]
)
"""Each step's writes (player, score), one per player: they run at once."""


def _key(score: int, at: str, player: str) -> tuple[int, str, str]:
    return (-score, at, player)


async def _run(
    settings: Settings,
    clock: ManualClock,
    initial: list[int],
    limit: int,
    steps: list[list[tuple[int, int]]],
) -> None:
    """Pages of a ``best`` board walked by cursor while each step's writes run beside each
    page's read. Entries only improve there, so none is seen twice; one whose standing no
    write changed is never skipped; the pages run in rank order."""
    board = f"c{next(_runs)}"
    model: dict[str, tuple[int, str, str]] = {}
    moved: set[str] = set()
    clock_s = iter(range(3000))

    async def write(client: httpx.AsyncClient, player: str, score: int) -> None:
        at = _at(next(clock_s))
        await submit(client, board, player, score, f"m{at}", at)
        key = _key(score, at, player)
        if player not in model or key[0] < model[player][0]:
            if player in model:
                moved.add(player)
            model[player] = key

    async with open_app(settings, clock) as app, open_client(app) as client:
        await put_board(client, board)
        for i, score in enumerate(initial):
            await write(client, f"p{i:02d}", score)
        stayed = set(model)
        seen: list[tuple[int, str, str]] = []
        cursor: dict[str, str] = {}
        pages = 0
        while True:
            writes = steps[pages] if pages < len(steps) else []
            read = top(client, board, limit=limit, **cursor)
            page, *_ = await asyncio.gather(
                read, *(write(client, f"p{p:02d}", s) for p, s in writes)
            )
            pages += 1
            for entry in page["entries"]:
                at = entry["achieved_at"]
                seen.append(_key(entry["score"], at, entry["player_id"]))
            if "next" not in page:
                break
            cursor = {"cursor": page["next"]}
            assert pages < 200
        players = [player for _, _, player in seen]
        assert len(players) == len(set(players)), seen
        assert seen == sorted(seen)
        assert (stayed - moved) <= set(players)
        if pages > len(steps):  # the last page was read with nothing beside it: the end
            assert not [k for k in model.values() if not seen or k > seen[-1]]
        assert (await client.delete(f"/v1/boards/{board}", headers=AUTH)).status_code == 204


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    initial=st.lists(st.integers(0, 60), max_size=20),
    limit=st.integers(1, 5),
    steps=st.lists(_writes, max_size=8),
)
def test_cursor_pages_match_the_model_under_concurrent_writes(
    settings: Settings,
    clock: ManualClock,
    initial: list[int],
    limit: int,
    steps: list[list[tuple[int, int]]],
) -> None:
    """Each example on a board of its own (deleted after), with a service started for it."""
    asyncio.run(_run(settings, clock, initial, limit, steps))


@pytest.mark.edge
async def test_the_openapi_document_describes_cursors_metadata_and_snapshots(
    client: httpx.AsyncClient,
) -> None:
    document = (await client.get("/openapi.json")).json()
    schemas = document["components"]["schemas"]
    assert {"next", "taken_at"} <= schemas["TopOut"]["properties"].keys()
    for name in ("Entry", "FriendEntry", "PlayerOut", "PlayerStanding"):
        assert "metadata" in schemas[name]["properties"], name
    assert {"entry_metadata", "snapshots"} <= schemas["BoardSpec"]["properties"].keys()
    top = document["paths"]["/v1/boards/{board_id}/top"]["get"]
    assert {"cursor", "at", "metadata"} <= {p["name"] for p in top["parameters"]}
    listing = document["paths"]["/v1/boards/{board_id}/snapshots"]["get"]
    assert {"before", "limit"} <= {p["name"] for p in listing["parameters"]}
