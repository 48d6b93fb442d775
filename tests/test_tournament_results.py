"""The end of a tournament edition on every backend stack: results with rewards, and the
signed webhook delivered to a real receiver on loopback, retried with backoff, once per
edition across a restart and with two workers on one database."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from helpers_api import AUTH, get_json, iso, open_app, open_client, utc
from helpers_webhook_receiver import receiver
from rankline import ManualClock, Rankline, Settings
from rankline.store.sql import SqlStore
from rankline.store.tournaments import TournamentStore
from rankline.tournaments.competition import RewardSpec, reward_for
from rankline.tournaments.webhooks import Webhooks, backoff_seconds, signature

STARTS, ENDS = utc(2026, 11, 21, 12, 10), utc(2026, 11, 21, 12, 20)
FINAL = utc(2026, 11, 21, 12, 21, 10)
"""The end, the 60 s grace and the 10 s of settling passed."""
SECRET = "shared-secret"
REWARDS = [
    {"ranks": [1, 1], "reward": {"gems": 100}},
    {"ranks": [2, 3], "reward": {"gems": 50}},
    {"top_percent": 50, "reward": {"gems": 10}},
]


@pytest.fixture
def quiet(settings: Settings) -> Settings:
    """The stack's settings with the background step left to the test."""
    return settings.model_copy(update={"tournament_check_seconds": 3600.0})


async def _play(client: httpx.AsyncClient, clock: ManualClock, url: str) -> None:
    spec = {
        "starts_at": iso(STARTS),
        "ends_at": iso(ENDS),
        "grace_seconds": 60,
        "rewards": REWARDS,
        "webhook": {"url": url, "secret": SECRET},
    }
    assert (await client.put("/v1/tournaments/cup", json=spec, headers=AUTH)).status_code == 201
    clock.set(utc(2026, 11, 21, 12, 15))
    scores = [("a", 500), ("b", 400), ("c", 400), ("d", 300), ("e", 200), ("f", 100), ("g", 50)]
    for player, value in scores:
        body = {"player_id": player, "score": value, "match_id": "m1"}
        answer = await client.post("/v1/tournaments/cup/scores", json=body, headers=AUTH)
        assert answer.status_code == 200, answer.text
        clock.advance(1)  # b reached 400 before c: b ranks above c


def _expected() -> list[dict[str, Any]]:
    gems = [100, 50, 50, 10, None, None, None]  # top 50% of 7: ranks up to 4
    players = [("a", 500), ("b", 400), ("c", 400), ("d", 300), ("e", 200), ("f", 100), ("g", 50)]
    return [
        {"rank": i + 1, "player_id": p, "score": s, **({"reward": {"gems": g}} if g else {})}
        for i, ((p, s), g) in enumerate(zip(players, gems, strict=True))
    ]


def test_reward_table() -> None:
    bands = [
        RewardSpec(reward={"r": "first"}, ranks=[1, 1]),
        RewardSpec(reward={"r": "top"}, top_percent=10),
    ]
    assert reward_for(bands, 1, 100) == {"r": "first"}  # the first band that holds wins
    assert reward_for(bands, 10, 100) == {"r": "top"}
    assert reward_for(bands, 11, 100) is None
    assert reward_for(bands, 2, 11) == {"r": "top"}  # ceil(11 * 10%) = 2
    assert reward_for(bands, 3, 11) is None
    assert reward_for(bands, 1, 1) == {"r": "first"}
    assert [backoff_seconds(n) for n in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 8.0]
    assert backoff_seconds(30) == 300.0


async def test_results_are_signed_retried_with_backoff_and_sent_once(
    quiet: Settings, clock: ManualClock
) -> None:
    with receiver(failures=2) as (url, got):
        async with _serve(quiet, clock) as (service, client):
            await _play(client, clock, url)
            clock.set(utc(2026, 11, 21, 12, 21, 5))  # within the settle time: not yet
            assert await service.finish_tournaments() == []
            clock.set(FINAL)
            assert await service.finish_tournaments() == [("cup", "1", False)]
            assert await service.finish_tournaments() == []  # backoff: 1 s
            clock.advance(1)
            assert await service.finish_tournaments() == [("cup", "1", False)]
            clock.advance(1)
            assert await service.finish_tournaments() == []  # backoff: 2 s
            clock.advance(1)
            assert await service.finish_tournaments() == [("cup", "1", True)]
            clock.advance(3600)
            assert await service.finish_tournaments() == []  # acknowledged: never again
            results = await client.get("/v1/tournaments/cup/results", params={"edition": "1"})
            assert results.status_code == 200
        assert len(got.requests) == 3
        bodies = {body for _, body, _ in got.requests}
        assert len(bodies) == 1  # every attempt carries the same bytes
        [body] = bodies
        assert results.content == body
        for headers, sent, _ in got.requests:
            expected = hmac.new(SECRET.encode(), sent, hashlib.sha256).hexdigest()
            assert headers["x-rankline-signature"] == f"sha256={expected}"
            assert headers["x-rankline-signature"] != signature("another secret", sent)
        payload = json.loads(body)
        assert payload["tournament"] == "cup" and payload["edition"] == "1"
        assert payload["id"] and payload["total"] == 7
        assert payload["results"] == _expected()


async def test_a_restart_never_sends_twice(quiet: Settings, clock: ManualClock) -> None:
    with receiver() as (url, got):
        async with _serve(quiet, clock) as (service, client):
            await _play(client, clock, url)
            clock.set(FINAL)
            assert await service.finish_tournaments() == [("cup", "1", True)]
        async with _serve(quiet, clock) as (service, client):
            clock.advance(3600)
            assert await service.finish_tournaments() == []
            again = await get_json(client, "/v1/tournaments/cup/results")
        assert got.acknowledged() == [json.dumps(again, separators=(",", ":")).encode()]
        assert len(got.requests) == 1


async def test_a_claim_left_by_a_dead_worker_is_taken_over_after_its_lease(
    quiet: Settings, clock: ManualClock
) -> None:
    with receiver() as (url, got):
        async with _serve(quiet, clock) as (service, client):
            await _play(client, clock, url)
            clock.set(FINAL)
            await service.tournaments.finish()
            async with _store(quiet) as dead:  # claims the delivery, then never sends it
                [claimed] = await dead.claim_due("dead-worker", clock.now(), 60_000_000)
                assert claimed.edition == "1"
            assert await service.finish_tournaments() == []  # its lease holds
            clock.advance(61)
            assert await service.finish_tournaments() == [("cup", "1", True)]
        assert len(got.requests) == 1


async def test_two_workers_on_one_database_send_once(quiet: Settings, clock: ManualClock) -> None:
    with receiver() as (url, got):
        async with _serve(quiet, clock) as (service, client):
            await _play(client, clock, url)
            clock.set(FINAL)
            # Two processes' results steps at once: one records the edition.
            recorded = await asyncio.gather(
                service.tournaments.finish(), service.tournaments.finish()
            )
            assert sorted(recorded, key=len) == [[], [("cup", "1")]]
            async with _store(quiet) as one, _store(quiet) as two:
                workers = [Webhooks(s, service.tournaments.secret_of, clock) for s in (one, two)]
                sent = await asyncio.gather(*(w.deliver() for w in workers * 5))
        assert sorted(x for attempt in sent for x in attempt) == [("cup", "1", True)]
        assert len(got.requests) == 1


@asynccontextmanager
async def _store(settings: Settings) -> AsyncIterator[TournamentStore]:
    """The tournament tables through a connection pool of its own: another worker's."""
    sql = SqlStore(settings.database)
    await sql.start()
    try:
        yield TournamentStore(sql)
    finally:
        await sql.close()


@asynccontextmanager
async def _serve(
    settings: Settings, clock: ManualClock
) -> AsyncIterator[tuple[Rankline, httpx.AsyncClient]]:
    async with open_app(settings, clock) as app, open_client(app) as client:
        yield app.state.service, client
