"""A connection told to come back later: after an overload refusal (429, Retry-After), the
next write on the same HTTP/1.1 connection waits, unread, until that time, and is then taken
as any other that waited as long (its deadline counted from when it came); a write that
waited marks nothing, so the one after it is taken at once. Other connections, refusals that
are not overload (rate limits), connections a proxy stands for, and servers with
``write_hold_early=false`` are not held."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from prometheus_client import REGISTRY

from helpers_api import AUTH, assert_problem, open_app, recorded
from rankline import ManualClock, Settings
from rankline.http.app import Application
from rankline.http.loop_lag import LoopLag
from rankline.writing.admission import Admission
from rankline.writing.holds import Holds


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The server's deadline as served by default, 1 s (the suite's settings give 30 s)."""
    return settings.model_copy(update={"write_deadline_ms": 1000})


def _batch(prefix: str, size: int = 3) -> dict[str, Any]:
    return {
        "scores": [
            {"board": "arena", "player_id": f"{prefix}{i}", "score": i + 1, "match_id": "m"}
            for i in range(size)
        ]
    }


@asynccontextmanager
async def _connection(app: Application, port: int = 40001) -> AsyncIterator[httpx.AsyncClient]:
    """A client whose requests come on one connection (``client`` of the ASGI scope)."""
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", port))
    async with httpx.AsyncClient(transport=transport, base_url="http://rankline.test") as c:
        yield c


class _Marked(Holds):
    """The server's holds, noting when it last marked a connection (the hold counts from
    then, not from when the client read the refusal)."""

    marked = 0.0

    def refused(self, connection: Hashable | None, retry_after: float, waited: float = 0.0) -> None:
        if waited <= 0:
            self.marked = time.monotonic()
        super().refused(connection, retry_after, waited)


async def _ready(app: Application, client: httpx.AsyncClient) -> None:
    answer = await client.put("/v1/boards/arena", json={"title": "arena"}, headers=AUTH)
    assert answer.status_code in (200, 201), answer.text
    await app.api.lag.close()
    app.api.lag = LoopLag(monotonic=lambda: 100.0)  # the loop told as never late


def _marking(app: Application, longest: float) -> _Marked:
    """The app's holds, replaced by ones that note when they mark, holding ``longest``."""
    app.api.holds = holds = _Marked(longest)
    return holds


def _overloaded(app: Application) -> None:
    """Every write refused: the writer's admission on a clock 5 s ahead, so that each
    request's deadline has passed by the time it is admitted, and told to come back in 2 s
    (a write of one item at the half a second the writer took lately: the first batch's
    items are counted as one before it is decoded). Held 2 s, the next write is held even on
    a machine that takes a second to send it."""
    admission = Admission(1.0, monotonic=lambda: time.monotonic() + 5)
    admission.measured(1, 2.0)
    app.state.service.writer.admission = admission


def _recovered(app: Application) -> None:
    app.state.service.writer.admission = Admission(app.api.settings.write_deadline_ms / 1000)


def _held_writes() -> float:
    return REGISTRY.get_sample_value("rankline_held_writes_total") or 0.0


def test_holds_until_the_time_told_at_most_the_longest_and_once() -> None:
    now = [100.0]
    holds = Holds(1.0, most=2, monotonic=lambda: now[0])
    assert holds.wait(("a", 1)) == 0.0
    holds.refused(("a", 1), 3)  # told 3 s: held at most the longest, 1 s
    now[0] = 100.25
    assert holds.wait(("a", 1)) == pytest.approx(0.75)
    assert holds.wait(("a", 1)) == 0.0  # spent
    holds.refused(("a", 1), 1, waited=0.75)  # a write that was held marks nothing
    assert holds.wait(("a", 1)) == 0.0
    holds.refused(None, 1)  # no connection to hold
    assert len(holds) == 0
    holds.refused(("a", 1), 1)
    holds.refused(("b", 2), 1)
    holds.refused(("c", 3), 1)  # beyond ``most``: the oldest mark is forgotten
    assert len(holds) == 2 and holds.wait(("a", 1)) == 0.0 and holds.wait(("c", 3)) > 0
    now[0] = 200.0
    holds.refused(("d", 4), 1)  # the marks that passed are forgotten as new ones come
    assert len(holds) == 1
    assert holds.wait(("b", 2)) == 0.0  # passed


async def test_the_next_write_on_a_refused_connection_waits_its_retry_after(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(settings, clock) as app, _connection(app) as client:
        await _ready(app, client)
        holds = _marking(app, longest=2.0)  # (the server's would be its 1 s deadline)
        _overloaded(app)
        first = await client.post("/v1/scores/batch", json=_batch("a"), headers=AUTH)
        assert_problem(first, 429)
        told = int(first.headers["retry-after"])
        assert len(app.api.holds) == 1
        _recovered(app)
        held_before = _held_writes()
        second = await client.post(
            "/v1/scores/batch", json=_batch("b"), headers={**AUTH, "Request-Timeout": "500"}
        )
        answered = time.monotonic()
        # held until the time it was told, then taken with what was left of its deadline,
        # counted from when it came: its own 0.5 s had passed
        assert told == 2
        assert answered - holds.marked >= 2.0 - 0.01, answered - holds.marked
        body = assert_problem(second, 429)
        assert "the request's deadline passed before the write was admitted" in body["detail"]
        assert "retry-after" in second.headers
        assert len(app.api.holds) == 0  # a write that waited marks nothing
        assert _held_writes() == held_before + 1
        third = await client.post("/v1/scores/batch", json=_batch("c"), headers=AUTH)
        assert third.status_code == 200, third.text
        single = await client.post(
            "/v1/boards/arena/scores",
            json={"player_id": "s", "score": 1, "match_id": "m"},
            headers=AUTH,
        )
        assert single.status_code == 200, single.text
        assert await recorded(client, ["a0", "b0", "b2", "c0", "c2", "s"]) == {
            "a0": 0,
            "b0": 0,
            "b2": 0,
            "c0": 1,
            "c2": 1,
            "s": 1,
        }


async def test_a_held_write_is_taken_when_its_deadline_leaves_room(
    settings: Settings, clock: ManualClock
) -> None:
    roomy = settings.model_copy(update={"write_deadline_ms": 10_000})
    async with open_app(roomy, clock) as app, _connection(app) as client:
        await _ready(app, client)
        holds = _marking(app, longest=10.0)  # the deadline
        _overloaded(app)
        single = await client.post(
            "/v1/boards/arena/scores",
            json={"player_id": "a", "score": 1, "match_id": "m"},
            headers=AUTH,
        )
        assert_problem(single, 429)
        assert single.headers["retry-after"] == "2"
        _recovered(app)
        held_before = _held_writes()
        held = await client.post(
            "/v1/boards/arena/scores",
            json={"player_id": "b", "score": 1, "match_id": "m"},
            headers=AUTH,
        )
        assert time.monotonic() - holds.marked >= 2.0 - 0.01
        assert held.status_code == 200, held.text
        assert _held_writes() == held_before + 1
        assert await recorded(client, ["a", "b"]) == {"a": 0, "b": 1}


async def test_other_connections_and_other_refusals_are_not_held(
    settings: Settings, clock: ManualClock
) -> None:
    limited = settings.model_copy(update={"rate_limits": True, "rate_limit_key_writes": "4/minute"})
    async with (
        open_app(limited, clock) as app,
        _connection(app, 40001) as one,
        _connection(app, 40002) as other,
        _connection(app, 0) as proxied,
    ):
        await _ready(app, one)  # the rate limit counts each write request: 1 of 4
        _overloaded(app)
        assert_problem(await one.post("/v1/scores/batch", json=_batch("a"), headers=AUTH), 429)
        # a connection a proxy's X-Forwarded-For stands for (port 0): never marked
        assert_problem(await proxied.post("/v1/scores/batch", json=_batch("p"), headers=AUTH), 429)
        assert len(app.api.holds) == 1
        _recovered(app)
        # another connection is taken at once, and the first's mark stays
        ok = await other.post("/v1/scores/batch", json=_batch("o"), headers=AUTH)
        assert ok.status_code == 200, ok.text
        assert len(app.api.holds) == 1
        # a rate limit's 429 is not an overload: nothing marked
        limit = await other.post("/v1/scores/batch", json=_batch("r"), headers=AUTH)
        assert_problem(limit, 429)
        assert len(app.api.holds) == 1


async def test_write_hold_early_false_answers_every_write_at_once(
    settings: Settings, clock: ManualClock
) -> None:
    off = settings.model_copy(update={"write_hold_early": False})
    async with open_app(off, clock) as app, _connection(app) as client:
        await _ready(app, client)
        assert app.api.holds is None
        _overloaded(app)
        assert_problem(await client.post("/v1/scores/batch", json=_batch("a"), headers=AUTH), 429)
        _recovered(app)
        answer = await client.post("/v1/scores/batch", json=_batch("b"), headers=AUTH)
        assert answer.status_code == 200, answer.text
