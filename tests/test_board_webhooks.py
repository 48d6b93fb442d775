"""Period-close events on every stack: a board's webhook receives each closed leaderboard
(window, period, scope) once, signed, with its final top as archived, retried with backoff;
``GET …/deliveries`` lists them. Across kill -9 of a server process: sent once, not twice."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers_api import AUTH, get_json, iso, open_app, open_client, put_board, submit, utc
from helpers_procs import Server
from helpers_webhook_receiver import receiver
from rankline import ManualClock, Settings
from rankline.lifecycle.closing import Lifecycle
from rankline.lifecycle.events import BoardEvents
from rankline.lifecycle.webhooks import LEASE_SECONDS
from rankline.store.deliveries import BoardDeliveries
from rankline.store.sql import SqlStore

SECRET = "board-secret"
CLOSED = utc(2026, 11, 22, 0, 1, 10)
"""The end of 2026-11-21, its 60 s of grace and the 10 s of settling passed."""


@pytest.fixture
def quiet(settings: Settings) -> Settings:
    """The stack's settings with the background steps left to the test."""
    return settings.model_copy(
        update={"tournament_check_seconds": 3600.0, "archive_interval_seconds": 3600.0}
    )


def _signed(headers: dict[str, str], body: bytes) -> bool:
    expected = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    return headers["x-rankline-signature"] == f"sha256={expected}"


async def _deliveries(client: httpx.AsyncClient, **params: str) -> dict[str, Any]:
    answer = await client.get("/v1/boards/arena/deliveries", params=params, headers=AUTH)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


async def test_each_closed_leaderboard_is_posted_once_with_its_final_top(
    quiet: Settings, clock: ManualClock
) -> None:
    with receiver(failures=1) as (url, got):
        async with open_app(quiet, clock) as app, open_client(app) as client:
            service = app.state.service
            shown = await put_board(
                client,
                "arena",
                windows=["all_time", "daily"],
                scopes=["region"],
                grace_seconds=60,
                webhook={"url": url, "secret": SECRET, "top": 2},
            )
            assert shown["webhook"] == {"url": url, "top": 2}  # never the secret
            for player, score, region in [("a", 500, "EU"), ("b", 400, "US"), ("c", 300, "EU")]:
                await submit(client, "arena", player, score, scopes={"region": region})
                clock.advance(1)
            clock.set(utc(2026, 11, 22, 0, 1, 5))  # closed, still settling: not archived
            assert await service.archive_periods() == []
            clock.set(CLOSED)
            [archived] = await service.archive_periods()
            assert (archived.key.window, archived.key.period) == ("daily", "2026-11-21")
            listed = await _deliveries(client)
            assert [(d["scope"], d["state"]) for d in listed["deliveries"]] == [
                ("global", "pending"),
                ("region:EU", "pending"),
                ("region:US", "pending"),
            ]
            first = await service.send_board_events()
            assert sorted(sent for _, sent in first) == [False, True, True]  # one 500
            assert await service.send_board_events() == []  # backoff: 1 s
            clock.advance(1)
            [(label, sent)] = await service.send_board_events()
            assert sent and label.startswith("arena/daily/2026-11-21/")
            clock.advance(3600)
            assert await service.archive_periods() == []
            assert await service.send_board_events() == []  # acknowledged: never again
            after = await _deliveries(client, window="daily")
            unauthorized = await client.get("/v1/boards/arena/deliveries")
        assert {d["state"] for d in after["deliveries"]} == {"delivered"}
        assert sorted(d["attempts"] for d in after["deliveries"]) == [1, 1, 2]
        assert unauthorized.status_code == 401
    assert len(got.requests) == 4
    assert all(_signed(headers, body) for headers, body, _ in got.requests)
    bodies = {json.loads(body)["scope"]: json.loads(body) for body in got.acknowledged()}
    assert len(got.acknowledged()) == 3
    failed = next(json.loads(b) for _, b, status in got.requests if status == 500)
    assert failed == bodies[failed["scope"]]  # the retry carries the same event
    assert {d["id"] for d in after["deliveries"]} == {b["id"] for b in bodies.values()}
    assert bodies["global"] == {
        "id": bodies["global"]["id"],
        "board": "arena",
        "window": "daily",
        "period": "2026-11-21",
        "scope": "global",
        "starts_at": "2026-11-21T00:00:00.000Z",
        "ends_at": "2026-11-22T00:00:00.000Z",
        "total": 3,
        "entries": [
            {"rank": 1, "player_id": "a", "score": 500, "achieved_at": "2026-11-21T12:00:00.000Z"},
            {"rank": 2, "player_id": "b", "score": 400, "achieved_at": "2026-11-21T12:00:01.000Z"},
        ],
    }
    assert [(e["player_id"], e["rank"]) for e in bodies["region:EU"]["entries"]] == [
        ("a", 1),
        ("c", 2),
    ]
    assert (bodies["region:EU"]["total"], bodies["region:US"]["total"]) == (2, 1)


async def test_two_workers_archive_and_send_each_event_once(
    quiet: Settings, clock: ManualClock
) -> None:
    with receiver() as (url, got):
        async with open_app(quiet, clock) as app, open_client(app) as client:
            service = app.state.service
            hook = {"url": url, "secret": SECRET}
            await put_board(client, "arena", windows=["daily"], scopes=["region"], webhook=hook)
            for i in range(6):
                await submit(client, "arena", f"p{i}", i, scopes={"region": f"r{i % 2}"})
            clock.set(utc(2026, 11, 22, 0, 5, 10))  # the default grace of 300 s and settling
            other = SqlStore(quiet.database)
            await other.start()
            try:
                second = Lifecycle(other, clock, service.boards)
                archived = await asyncio.gather(service.lifecycle.step(), second.step())
                events = BoardEvents(BoardDeliveries(other), service.boards, clock)
                sent = await asyncio.gather(
                    *(w.deliver() for w in [service.board_events, events] * 3)
                )
            finally:
                await other.close()
    assert sorted(len(a) for a in archived) == [0, 1]  # one worker archived the period
    assert sorted(label for attempt in sent for label, ok in attempt if ok) == [
        "arena/daily/2026-11-21/global",
        "arena/daily/2026-11-21/region:r0",
        "arena/daily/2026-11-21/region:r1",
    ]
    assert len(got.requests) == 3


@pytest.mark.edge
async def test_a_webhook_needs_a_secret_and_its_top_is_bounded(client: httpx.AsyncClient) -> None:
    for hook, loc in (
        ({"url": "http://127.0.0.1:9/x"}, ["body", "webhook", "secret"]),
        ({"url": "http://127.0.0.1:9/x", "secret": "s", "top": 1001}, None),
        ({"url": "ftp://example/x", "secret": "s"}, None),
    ):
        answer = await client.put("/v1/boards/b", json={"webhook": hook}, headers=AUTH)
        assert answer.status_code == 422, hook
        if loc is not None:
            assert [e["loc"] for e in answer.json()["errors"]] == [loc]
    await put_board(client, "b", webhook={"url": "http://127.0.0.1:9/x", "secret": "s"})
    board = await get_json(client, "/v1/boards/b")
    assert board["webhook"] == {"url": "http://127.0.0.1:9/x", "top": 100}
    listed = await get_json(client, "/v1/boards")
    assert "secret" not in json.dumps(listed)
    assert (await client.get("/v1/boards/nope/deliveries", headers=AUTH)).status_code == 404


# --- across kill -9 of a server process ------------------------------------------------


def _wait(check: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_events_pending_at_a_kill_9_are_sent_once_after_the_restart(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    settings = {
        "server_keys": "test-server-key",
        "archive_interval_seconds": "0.2",
        "tournament_check_seconds": "0.1",
    }
    first = Server(data_dir, tmp_path / "first.log", **settings)
    second = Server(data_dir, tmp_path / "second.log", **settings)
    with receiver(failures=10**9) as (url, got):  # refuses every event until told otherwise
        try:
            first.start()
            first.wait_ready()
            now = time.time()
            season = {
                "id": "s1",
                "start": iso(utc(2026, 1, 1)),
                "end": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now + 2)),
            }
            board = {
                "windows": ["all_time"],
                "seasons": [season],
                "scopes": ["region"],
                "grace_seconds": 0,
                "webhook": {"url": url, "secret": SECRET},
            }
            with httpx.Client(base_url=first.url, headers=AUTH, timeout=10) as c:
                assert c.put("/v1/boards/cup", json=board).status_code == 201
                for player, region in (("a", "EU"), ("b", "US")):
                    body = {
                        "player_id": player,
                        "score": 1,
                        "match_id": "m",
                        "scopes": {"region": region},
                    }
                    assert c.post("/v1/boards/cup/scores", json=body).status_code == 200
            # the season ends, settles (10 s), is archived and its events are tried
            _wait(lambda: len(got.requests) >= 3, 40, "the first attempts")
            first.kill9()
            with got.lock:
                got.failures = 0  # the receiver accepts from now on
            second.start()
            second.wait_ready()
            # an event the killed server had claimed waits for its lease to run out
            after = LEASE_SECONDS + 20
            _wait(lambda: len(got.acknowledged()) >= 3, after, "the events after the restart")
            time.sleep(1.0)  # ten more delivery steps: none may send again
            with httpx.Client(base_url=second.url, headers=AUTH, timeout=10) as c:
                listed = c.get("/v1/boards/cup/deliveries").json()["deliveries"]
        finally:
            first.stop()
            second.stop()
    acknowledged = [json.loads(body) for body in got.acknowledged()]
    assert sorted(e["scope"] for e in acknowledged) == ["global", "region:EU", "region:US"]
    assert len({e["id"] for e in acknowledged}) == 3
    assert {d["id"]: d["state"] for d in listed} == {e["id"]: "delivered" for e in acknowledged}
    assert all(e["period"] == "s1" and e["window"] == "season" for e in acknowledged)
