"""Entry metadata on reads (``metadata=true`` or a board's ``entry_metadata``): the metadata of
the submission that set each entry, on top, player, around, friends, ranks and stream reads,
on every window and scope, after a restart and a rebuild of the index, and from the archive;
answers without it stay as they were. Every test runs on each backend stack."""

from __future__ import annotations

from typing import Any

import httpx
from starlette.applications import Starlette

from helpers_api import AUTH, get_json, open_app, open_client, put_board, submit, unmoved, utc
from helpers_backends import flush_redis
from rankline import ManualClock, Rankline, Settings
from rankline.http.stream import sse_event
from rankline.reading.live import Stream
from rankline.reading.query import Query

DAY = "2026-11-21"
EXPECTED = {
    "b": {"car": "gold"},  # 70 replaced 60
    "d": {"car": "teal", "wins": [1, 2]},
    "a": {"car": "red"},  # a later 40 kept the 50
    "c": {},  # submitted without metadata
    "e": {"k": 2},  # 25 replaced 20 at the same time; an equal 25 after it changed nothing
}


async def _fill(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"], scopes=["region"])
    eu = {"region": "EU"}
    await submit(client, "arena", "a", 50, "m1", utc(2026, 11, 21, 9), metadata={"car": "red"})
    await submit(client, "arena", "a", 40, "m2", utc(2026, 11, 21, 10), metadata={"car": "blue"})
    await submit(client, "arena", "b", 60, "m1", utc(2026, 11, 21, 9), metadata={"car": "green"})
    await submit(
        client, "arena", "b", 70, "m3", utc(2026, 11, 21, 11), scopes=eu, metadata={"car": "gold"}
    )
    await submit(
        client, "arena", "d", 60, "m1", utc(2026, 11, 21, 9), metadata=EXPECTED["d"], scopes=eu
    )
    await submit(client, "arena", "c", 30, "m1", utc(2026, 11, 21, 9))
    same = utc(2026, 11, 21, 8)
    await submit(client, "arena", "e", 20, "m1", same, metadata={"k": 1})
    await submit(client, "arena", "e", 25, "m2", same, metadata={"k": 2})
    await submit(client, "arena", "e", 25, "m3", same, metadata={"k": 3})


def _without(body: Any) -> Any:
    """``body`` without any ``metadata`` field."""
    if isinstance(body, dict):
        return {k: _without(v) for k, v in body.items() if k != "metadata"}
    if isinstance(body, list):
        return [_without(v) for v in body]
    return body


def _has_metadata(body: Any) -> bool:
    if isinstance(body, dict):
        return "metadata" in body or any(_has_metadata(v) for v in body.values())
    if isinstance(body, list):
        return any(_has_metadata(v) for v in body)
    return False


async def _reads(client: httpx.AsyncClient, **extra: Any) -> dict[str, httpx.Response]:
    """Every leaderboard read that has entries, as raw answers."""
    base = "/v1/boards/arena"
    friends = {"friends": ["c", "b", "nobody", "e"], "k": 5}
    day = {"window": "daily", "period": DAY}
    return {
        "top": await client.get(f"{base}/top", params=extra),
        "top page": await client.get(f"{base}/top", params={"offset": 1, "limit": 2, **extra}),
        "top daily": await client.get(f"{base}/top", params=day | extra),
        "top EU": await client.get(f"{base}/top", params={"scope": "region:EU", **extra}),
        "player": await client.get(f"{base}/players/a", params=extra),
        "player e": await client.get(f"{base}/players/e", params=day | extra),
        "around": await client.get(f"{base}/players/a/around", params={"k": 1, **extra}),
        "friends": await client.post(f"{base}/players/d/friends", params=extra, json=friends),
        "ranks": await client.post(f"{base}/ranks", params=extra, json={"player_ids": ["e", "b"]}),
    }


def _bodies(answers: dict[str, httpx.Response]) -> dict[str, Any]:
    found = {}
    for name, response in answers.items():
        assert response.status_code == 200, (name, response.text)
        body = response.json()
        del body["as_of"]
        found[name] = unmoved(body)
    return found


def _check(bodies: dict[str, Any]) -> None:
    """Each entry and player view carries its submission's metadata."""
    seen = 0
    for name, body in bodies.items():
        views = [body] if "player_id" in body else []
        views += body.get("entries", [])
        if body.get("player"):
            views.append(body["player"])
        for view in views:
            assert view["metadata"] == EXPECTED[view["player_id"]], (name, view)
            seen += 1
    assert seen >= 25


async def test_every_read_carries_the_metadata_of_the_submission_that_set_the_entry(
    app: Starlette, client: httpx.AsyncClient
) -> None:
    await _fill(client)
    plain = await _reads(client)
    asked = _bodies(await _reads(client, metadata="true"))
    assert [e["player_id"] for e in asked["top"]["entries"]] == ["b", "d", "a", "c", "e"]
    _check(asked)
    # Not asked: not a byte more than before, and otherwise the same answers.
    assert not any(_has_metadata(r.json()) for r in plain.values())
    refused = await _reads(client, metadata="false")
    for name, response in plain.items():  # the clock stands still: as_of is the same
        assert response.content == refused[name].content, name
    assert {n: _without(b) for n, b in asked.items()} == _bodies(plain)
    # The top cache keeps both renderings apart, and serves each again.
    again = _bodies(await _reads(client, metadata="1"))
    assert again == asked
    top = (await client.get("/v1/boards/arena/top")).content
    assert top == (await client.get("/v1/boards/arena/top")).content
    assert b"metadata" not in top

    # The stream's events (its top and watched players) read the same way.
    service: Rankline = app.state.service
    stream = Stream(service.reads, service.feed, Query("arena", metadata=True), 3, ["e"])
    first = await stream.read_top()
    assert [e.metadata for e in first.entries] == [EXPECTED[p] for p in ("b", "d", "a")]
    _, player = await stream.changes(first)
    assert '"metadata":{"k":2}' in sse_event(player).data


async def test_a_board_with_entry_metadata_always_carries_it(client: httpx.AsyncClient) -> None:
    await put_board(client, "tally", policy="sum", entry_metadata=True)
    board = await get_json(client, "/v1/boards/tally")
    assert board["entry_metadata"] is True
    at = utc(2026, 11, 21, 9)
    await submit(client, "tally", "p", 5, "m1", at, metadata={"n": 1})
    await submit(client, "tally", "p", 5, "m2", at, metadata={"n": 2})  # the last to set it
    await submit(client, "tally", "q", 3, "m1", utc(2026, 11, 21, 10), metadata={"n": 3})
    top = await get_json(client, "/v1/boards/tally/top")
    assert [(e["player_id"], e["score"], e["metadata"]) for e in top["entries"]] == [
        ("p", 10, {"n": 2}),
        ("q", 3, {"n": 3}),
    ]
    assert (await get_json(client, "/v1/boards/tally/players/q"))["metadata"] == {"n": 3}
    await submit(client, "tally", "q", 1, "m2", utc(2026, 11, 21, 11), metadata={"n": 4})
    assert (await get_json(client, "/v1/boards/tally/players/q"))["metadata"] == {"n": 4}
    # the option may change on a board with entries
    await put_board(client, "tally", 200, policy="sum")
    assert "metadata" not in (await get_json(client, "/v1/boards/tally/players/q"))
    bad = await client.get("/v1/boards/tally/top", params={"metadata": "maybe"})
    assert bad.status_code == 422


async def test_metadata_survives_a_restart_a_rebuild_and_the_archive(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(settings, clock) as app, open_client(app) as client:
        await _fill(client)
        before = _bodies(await _reads(client, metadata="true"))
        _check(before)
    if settings.redis_url:
        flush_redis(settings.redis_url)  # the shared index is rebuilt from SQL
    async with open_app(settings, clock) as app, open_client(app) as client:
        assert _bodies(await _reads(client, metadata="true")) == before
        # the day closes, is archived and leaves the live index: the archive answers
        response = await client.put(
            "/v1/boards/arena",
            json={"windows": ["all_time", "daily"], "scopes": ["region"],
                  "retention_days": {"daily": 0}},
            headers=AUTH,
        )  # fmt: skip
        assert response.status_code == 200, response.text
        clock.set(utc(2026, 11, 22, 0, 6))
        service: Rankline = app.state.service
        await service.archive_periods()
        await service.expire_periods()
        archived = _bodies(await _reads(client, metadata="true"))
        assert archived["top daily"]["archived"] is True
        assert archived["player e"]["archived"] is True
        _check(archived)
        for name in ("top daily", "player e"):
            assert archived[name] == before[name] | {"archived": True}
