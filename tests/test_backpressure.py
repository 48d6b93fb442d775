"""Backpressure: the bounded write queue and the rate limits per key and per client address
answer 429 with Retry-After, record nothing, and are counted in the metrics."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from prometheus_client import REGISTRY

from helpers_api import AUTH, assert_problem, open_app, open_client, put_board
from rankline import ManualClock, Settings
from rankline.errors import TooManyRequests
from rankline.http.guard import RateLimits


def _throttled(reason: str) -> float:
    return REGISTRY.get_sample_value("rankline_throttled_total", {"reason": reason}) or 0.0


def _with(settings: Settings, **changes: Any) -> Settings:
    return settings.model_copy(update=changes)


def _score(player: str, score: int = 10, **extra: Any) -> dict[str, Any]:
    return {"player_id": player, "score": score, "match_id": f"m-{player}", **extra}


async def test_overload_answers_429_and_loses_nothing_acknowledged(
    settings: Settings, clock: ManualClock
) -> None:
    bound, sent = 5, 30
    async with (
        open_app(_with(settings, write_queue_max=bound), clock) as app,
        open_client(app) as client,
    ):
        await put_board(client, "arena")
        before = _throttled("queue")
        writer = app.state.service.writer
        await writer.commit_lock.acquire()  # a commit that takes as long as we like
        try:
            tasks = [
                asyncio.create_task(
                    client.post("/v1/boards/arena/scores", json=_score(f"p{i}"), headers=AUTH)
                )
                for i in range(sent)
            ]
            # At most the bound waits in the queue and one batch waits for the lock:
            # every other request is answered now, while the commit is still held.
            pending: set[asyncio.Task[httpx.Response]] = set(tasks)
            while len(pending) > bound + 1:
                _, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            assert pending  # the queued ones wait for the commit
        finally:
            writer.commit_lock.release()
        answers = await asyncio.gather(*tasks)
        statuses = [r.status_code for r in answers]
        assert set(statuses) == {200, 429}, statuses
        acknowledged = {f"p{i}" for i, r in enumerate(answers) if r.status_code == 200}
        assert bound <= len(acknowledged) <= bound + 1
        for response in answers:
            if response.status_code == 429:
                body = assert_problem(response, 429)
                assert "queue" in body["detail"]
                assert int(response.headers["retry-after"]) >= 1
        assert _throttled("queue") - before == sent - len(acknowledged)
        top = (await client.get("/v1/boards/arena/top", params={"limit": 1000})).json()
        assert {e["player_id"] for e in top["entries"]} == acknowledged
        for i, response in enumerate(answers):  # a refused one was not recorded
            history = await client.get(f"/v1/players/p{i}/history")
            items = history.json()["items"] if history.status_code == 200 else []
            assert len(items) == (1 if response.status_code == 200 else 0)
        # with the queue drained, writes are taken again
        retry = await client.post("/v1/boards/arena/scores", json=_score("late"), headers=AUTH)
        assert retry.status_code == 200, retry.text


@pytest.mark.edge
async def test_rate_limit_per_key_for_writes(settings: Settings, clock: ManualClock) -> None:
    limited = _with(
        settings, rate_limit_key_writes="3/hour", server_keys=f"{settings.server_keys},other"
    )
    async with open_app(limited, clock) as app, open_client(app) as client:
        before = _throttled("key")
        await put_board(client, "arena")
        for i in range(2):
            response = await client.post(
                "/v1/boards/arena/scores", json=_score(f"p{i}"), headers=AUTH
            )
            assert response.status_code == 200, response.text
        refused = await client.post("/v1/boards/arena/scores", json=_score("p9"), headers=AUTH)
        body = assert_problem(refused, 429)
        assert "per key" in body["detail"]
        assert 1 <= int(refused.headers["retry-after"]) <= 3600
        assert _throttled("key") - before == 1
        # another key has its own count; reads are not writes
        other = {"Authorization": "Bearer other"}
        response = await client.post("/v1/boards/arena/scores", json=_score("p8"), headers=other)
        assert response.status_code == 200, response.text
        top = await client.get("/v1/boards/arena/top", headers=AUTH)
        assert top.status_code == 200
        assert {e["player_id"] for e in top.json()["entries"]} == {"p0", "p1", "p8"}


@pytest.mark.edge
async def test_rate_limit_per_address_for_reads(settings: Settings, clock: ManualClock) -> None:
    limited = _with(settings, rate_limit_address_reads="2/hour")
    async with open_app(limited, clock) as app:
        async with open_client(app) as client:
            before = _throttled("address")
            await put_board(client, "arena")  # a write: not counted against reads
            for _ in range(2):
                assert (await client.get("/v1/boards/arena/top")).status_code == 200
            refused = await client.get("/v1/boards/arena/top")
            assert_problem(refused, 429)
            assert "per address" in refused.json()["detail"]
            assert int(refused.headers["retry-after"]) >= 1
            assert _throttled("address") - before == 1
        # another client address has its own count
        transport = httpx.ASGITransport(app=app, client=("10.0.0.2", 5000))
        async with httpx.AsyncClient(transport=transport, base_url="http://rankline.test") as c:
            assert (await c.get("/v1/boards/arena/top")).status_code == 200


@pytest.mark.edge
async def test_rate_limits_can_be_turned_off(settings: Settings, clock: ManualClock) -> None:
    off = _with(settings, rate_limits=False, rate_limit_address_reads="1/hour")
    async with open_app(off, clock) as app, open_client(app) as client:
        for _ in range(3):
            assert (await client.get("/v1/boards")).status_code == 200


def test_rate_limit_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="rate limit"):
        Settings(rate_limit_key_reads="lots")
    assert Settings(rate_limit_key_reads="").rate_limit_key_reads == ""


async def test_a_large_limit_is_counted_in_chunks_and_still_holds() -> None:
    """1,000 an hour goes to the library ten requests at a time: a client gets at most a
    chunk less one past the limit, then is refused until the window resets."""
    limits = RateLimits(address_reads="1000/hour")
    client = "10.0.0.1"
    passed = 0
    with pytest.raises(TooManyRequests) as refused:
        for _ in range(2_000):
            await limits.check(client, None, False)
            passed += 1
    assert 1_000 <= passed < 1_010
    assert 3_000 < refused.value.retry_after <= 3_600
    for _ in range(50):  # refused from then on
        with pytest.raises(TooManyRequests):
            await limits.check(client, None, False)
    await limits.check("10.0.0.2", None, False)  # others are not
    await limits.check(client, None, True)  # nor are its writes


async def test_reads_and_writes_count_apart_under_equal_limits() -> None:
    """Equal limits for reads and writes are still two counts: a client's reads do not use
    up its writes."""
    limits = RateLimits(address_reads="2/hour", address_writes="2/hour")
    client = "10.0.0.3"
    for _ in range(2):
        await limits.check(client, None, False)
    with pytest.raises(TooManyRequests):
        await limits.check(client, None, False)
    for _ in range(2):
        await limits.check(client, None, True)
    with pytest.raises(TooManyRequests):
        await limits.check(client, None, True)


async def test_counting_starts_no_thread_and_expired_counters_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The library's thread-based in-memory storage would start a timer thread every 10 ms
    under load (each start stalls the event loop); the limits count on a storage that drops
    expired counters as it is called instead, with neither a thread nor a task."""
    import threading

    import rankline.http.limit_storage as memory

    limits = RateLimits(address_reads="10/second")
    before = threading.active_count()
    for n in range(200):
        await limits.check(f"10.0.1.{n}", None, False)
    assert threading.active_count() == before
    later = time.time() + 2
    monkeypatch.setattr(memory.time, "time", lambda: later)
    await limits.check("10.0.2.1", None, False)
    assert not asyncio.all_tasks() - {asyncio.current_task()}
    # only the new client's counter is left (``reset`` answers how many it held)
    assert await limits.storage.reset() == 1
    assert threading.active_count() == before
