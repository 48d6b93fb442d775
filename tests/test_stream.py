"""Live streams (GET /v1/boards/{board}/stream, Server-Sent Events): the first events, new
events after writes, coalescing, heartbeats, cleanup on disconnect, and (on Redis) a write
through one instance waking a stream on another (the streams driven by ``helpers_sse``)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from helpers_api import SERVER_KEY, assert_problem, open_app, open_client, put_board, submit, top
from helpers_backends import ALL, selected
from helpers_idp import SECRET, claims, mint_hs256
from helpers_sse import SSE
from rankline import ManualClock, Settings
from rankline.http.app import Application
from rankline.reading.live import MIN_INTERVAL

SHARED = [name for name in selected() if ALL[name].redis_url]


async def _player(client: httpx.AsyncClient, player: str) -> dict[str, Any]:
    response = await client.get(f"/v1/boards/arena/players/{player}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def _seed(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    for player, score in (("a", 10), ("b", 20), ("c", 5)):
        await submit(client, "arena", player, score)


async def _until(check: Any, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.02)


async def test_first_events_are_the_top_and_the_watched_players(
    app: Application, client: httpx.AsyncClient
) -> None:
    await _seed(client)
    async with SSE(app, "arena", limit=2, players="c,a,nobody") as sse:
        assert sse.status == 200
        assert sse.headers["content-type"].startswith("text/event-stream")
        assert await sse.next() == ("top", await top(client, "arena", limit=2))
        assert await sse.next() == ("player", await _player(client, "c"))
        assert await sse.next() == ("player", await _player(client, "a"))
        assert await sse.quiet(3 * MIN_INTERVAL) == []  # nothing changed, nothing re-sent


async def test_writes_send_new_top_and_player_events(
    app: Application, client: httpx.AsyncClient
) -> None:
    await _seed(client)
    async with SSE(app, "arena", limit=2, players="a,c") as sse:
        assert [name for name, _ in [await sse.next() for _ in range(3)]] == [
            "top",
            "player",
            "player",
        ]
        # Into the top: a new top, and the watched a and c drop a rank.
        await submit(client, "arena", "d", 30)
        name, body = await sse.next()
        assert name == "top"
        assert [e["player_id"] for e in body["entries"]] == ["d", "b"]
        assert body == await top(client, "arena", limit=2)
        name, body = await sse.next()
        assert (name, body["player_id"], body["rank"]) == ("player", "a", 3)
        name, body = await sse.next()
        assert (name, body["player_id"], body["rank"]) == ("player", "c", 4)
        # Below the top and below every watched player: nothing to send.
        await submit(client, "arena", "e", 1)
        assert await sse.quiet(3 * MIN_INTERVAL) == []
        # A watched player outside the top moves: only a player event.
        await submit(client, "arena", "c", 7)
        name, body = await sse.next()
        assert (name, body["player_id"], body["score"], body["rank"]) == ("player", "c", 7, 4)
        assert await sse.quiet(3 * MIN_INTERVAL) == []


async def test_many_quick_writes_are_coalesced(app: Application, client: httpx.AsyncClient) -> None:
    await _seed(client)
    async with SSE(app, "arena", limit=3) as sse:
        assert (await sse.next())[0] == "top"
        started = time.monotonic()
        writes = 40
        for i in range(writes):
            await submit(client, "arena", f"fast{i}", 100 + i)
            await asyncio.sleep(0.01)
        elapsed = time.monotonic() - started
        got = await sse.quiet(1.5)
        assert got and all(name == "top" for name, _ in got)
        # At most one read per MIN_INTERVAL, plus the first and a trailing one.
        assert len(got) <= elapsed / MIN_INTERVAL + 2, (len(got), elapsed)
        assert len(got) < writes
        # The last event is the final state.
        assert got[-1][1] == await top(client, "arena", limit=3)


async def test_disconnected_streams_are_cleaned_up(
    app: Application, client: httpx.AsyncClient
) -> None:
    await _seed(client)
    feed = app.state.service.feed
    assert feed.subscribers == 0
    async with SSE(app, "arena") as one, SSE(app, "arena", window="all_time", players="a") as two:
        await one.next()
        assert [name for name, _ in await two.quiet(3 * MIN_INTERVAL)] == ["top", "player"]
        await _until(lambda: feed.subscribers == 2)
        await one.close()
        await _until(lambda: feed.subscribers == 1)
        await submit(client, "arena", "a", 50)  # the open one still gets its events
        assert (await two.next())[0] == "top"
    await _until(lambda: feed.subscribers == 0)


@pytest.mark.edge
async def test_bad_requests_are_refused_before_streaming(
    app: Application, client: httpx.AsyncClient
) -> None:
    await _seed(client)
    assert_problem(await client.get("/v1/boards/nope/stream"), 404)
    assert_problem(await client.get("/v1/boards/arena/stream", params={"limit": 101}), 422)
    assert_problem(await client.get("/v1/boards/arena/stream", params={"limit": 0}), 422)
    assert_problem(await client.get("/v1/boards/arena/stream", params={"window": "x"}), 422)
    many = ",".join(f"p{i}" for i in range(51))
    assert_problem(await client.get("/v1/boards/arena/stream", params={"players": many}), 422)
    bad = {"players": "a,b c"}
    assert_problem(await client.get("/v1/boards/arena/stream", params=bad), 422)


async def test_heartbeats_and_read_keys(settings: Settings, clock: ManualClock) -> None:
    quick = settings.model_copy(update={"stream_heartbeat_seconds": 0.2, "read_keys": "rk"})
    async with open_app(quick, clock) as app, open_client(app) as client:
        await _seed(client)
        assert_problem(await client.get("/v1/boards/arena/stream"), 401)
        async with SSE(app, "arena") as sse:
            assert sse.status == 401
        async with SSE(app, "arena", headers={"Authorization": "Bearer rk"}) as sse:
            assert sse.status == 200
            assert (await sse.next())[0] == "top"
    opened = settings.model_copy(update={"stream_heartbeat_seconds": 0.2})
    # The same database: the board is there already.
    async with open_app(opened, clock) as app, SSE(app, "arena") as sse:
        assert (await sse.next())[0] == "top"
        await asyncio.sleep(0.7)
        assert sse.comments >= 2
        assert sse.events.empty()  # a heartbeat re-read of an unchanged top sends nothing


async def test_the_stream_takes_its_credential_as_access_token(
    settings: Settings, clock: ManualClock
) -> None:
    """EventSource cannot send headers: the stream (and only it) takes the key as
    ``?access_token=``, checked as the Authorization header would be."""
    keyed = settings.model_copy(update={"read_keys": "rk"})
    async with open_app(keyed, clock) as app, open_client(app) as client:
        await _seed(client)
        async with SSE(app, "arena", access_token="rk", limit=3) as sse:
            assert sse.status == 200
            name, body = await sse.next()
            assert name == "top" and len(body["entries"]) == 3
        async with SSE(app, "arena", access_token=SERVER_KEY) as sse:
            assert sse.status == 200
        stream = "/v1/boards/arena/stream"
        assert_problem(await client.get(stream, params={"access_token": "wrong"}), 403)
        assert_problem(await client.get(stream, params={"access_token": ""}), 401)
        both = {"params": {"access_token": "rk"}, "headers": {"Authorization": "Bearer rk"}}
        assert_problem(await client.get(stream, **both), 400)
        twice = "/v1/boards/arena/stream?access_token=rk&access_token=rk"
        assert_problem(await client.get(twice), 400)
        encoded = "/v1/boards/arena/stream?access%5Ftoken=wrong"  # the name percent-encoded
        assert_problem(await client.get(encoded), 403)


async def test_the_stream_takes_a_player_token_as_access_token(
    settings: Settings, clock: ManualClock
) -> None:
    tokens = settings.model_copy(update={"player_jwt_secret": SecretStr(SECRET), "read_keys": "rk"})
    async with open_app(tokens, clock) as app, open_client(app) as client:
        await _seed(client)
        async with SSE(app, "arena", access_token=mint_hs256(claims("a"))) as sse:
            assert sse.status == 200
            assert (await sse.next())[0] == "top"
        expired = mint_hs256(claims("a", ttl=-3600))
        refused = await client.get("/v1/boards/arena/stream", params={"access_token": expired})
        assert_problem(refused, 401)["type"].endswith("/invalid-token")
        assert expired not in refused.text


async def test_other_endpoints_refuse_access_token(
    app: Application, client: httpx.AsyncClient
) -> None:
    await _seed(client)
    before = await top(client, "arena")
    refusals = [
        await client.get("/v1/boards/arena/top", params={"access_token": "x"}),
        await client.get("/v1/boards/arena/players/p1", params={"access_token": SERVER_KEY}),
        await client.post(
            "/v1/boards/arena/scores",
            params={"access_token": SERVER_KEY},
            json={"player_id": "p9", "score": 10**6, "match_id": "m9"},
        ),
        await client.get("/v1/audit", params={"access_token": SERVER_KEY}),
        await client.get(f"/v1/boards/arena/top?access%5Ftoken={SERVER_KEY}"),
    ]
    for refused in refusals:
        body = assert_problem(refused, 422)
        assert "Authorization" in body["detail"]
        assert body["errors"][0]["loc"] == ["query", "access_token"]
        assert SERVER_KEY not in refused.text
    assert await top(client, "arena") == before  # the write was not made


# The in-process index serves one process only, so this runs on the Redis stacks.
@pytest.mark.parametrize("stack", [ALL[n] for n in SHARED], ids=SHARED)
async def test_redis_a_write_on_one_instance_wakes_a_stream_on_another(
    settings: Settings, clock: ManualClock, app: Application, client: httpx.AsyncClient
) -> None:
    assert settings.redis_url is not None
    await _seed(client)
    async with open_app(settings, clock) as other, open_client(other) as other_client:
        await app.state.service.feed.wait_ready()
        await other.state.service.feed.wait_ready()
        async with SSE(app, "arena", limit=2, players="c") as sse:
            assert (await sse.next())[0] == "top"
            assert (await sse.next())[0] == "player"
            await submit(other_client, "arena", "z", 99)
            await submit(other_client, "arena", "c", 15)
            seen: dict[str, Any] = {}
            while (
                "top" not in seen
                or seen["top"]["entries"][0]["player_id"] != "z"
                or (seen.get("player", {}).get("score") != 15)
            ):
                # Well before the 15 s heartbeat re-read: woken by Redis pub/sub.
                name, body = await sse.next(within=3)
                seen[name] = body
            assert seen["top"] == await top(client, "arena", limit=2)
