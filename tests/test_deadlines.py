"""Write admission by expected wait, through the app on every backend stack: a write that
would wait past its deadline is refused at once (429, Retry-After, nothing recorded), a
slowed writer refuses sooner, a request whose deadline passed before it was admitted (or
while it queued, or while the worker's event loop ran late before the app saw it) is refused
unprocessed, the client's Request-Timeout applies when smaller, asynchronous submissions are
admitted by the wait for the log, a player's own write carries the same deadline; and nothing
acknowledged is lost or counted twice. The commit rate, the loop's lateness and the monotonic
clock are injected: no timing."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from helpers_api import AUTH, assert_problem, open_app, open_client, put_board, recorded
from helpers_idp import SECRET, claims, mint_hs256
from rankline import ManualClock, Settings
from rankline.http.app import Application
from rankline.http.loop_lag import LoopLag
from rankline.writing.admission import Admission

ASYNC = {**AUTH, "Prefer": "respond-async"}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The server's deadline as served by default, 1 s (the suite's settings give 30 s); a
    connection's next write not held after an overload refusal (test_write_holds), so that
    each write here meets admission at once."""
    return settings.model_copy(update={"write_deadline_ms": 1000, "write_hold_early": False})


def _roomy(settings: Settings) -> Settings:
    """A 10 s deadline, for tests whose figures must not depend on how busy the machine is
    (the seconds a request takes to reach admission here are spent from it)."""
    return settings.model_copy(update={"write_deadline_ms": 10_000})


async def _steady_loop(app: Application) -> None:
    """The loop's lateness told as none (a clock that stands still), whatever the machine."""
    await app.api.lag.close()
    app.api.lag = LoopLag(monotonic=lambda: 100.0)


def _batch(prefix: str, size: int) -> dict[str, Any]:
    return {
        "scores": [
            {"board": "arena", "player_id": f"{prefix}{i}", "score": i + 1, "match_id": "m"}
            for i in range(size)
        ]
    }


def _late_clock(seconds: float) -> Admission:
    """The server's admission on a clock ``seconds`` ahead of the requests' start times: every
    request's deadline (1 s) has passed by the time it is admitted."""
    return Admission(1.0, monotonic=lambda: time.monotonic() + seconds)


async def _while_the_writer_waits(app: Application) -> asyncio.Lock:
    lock = app.state.service.writer.commit_lock
    await lock.acquire()  # a commit that takes as long as the test likes
    return lock


async def test_a_slowed_writer_refuses_a_write_that_would_wait_past_its_deadline(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(_roomy(settings), clock) as app, open_client(app) as client:
        await put_board(client, "arena")
        await _steady_loop(app)
        writer = app.state.service.writer
        writer.admission.measured(100, 0.1)  # a fast writer: 1,000 a second
        lock = await _while_the_writer_waits(app)
        try:
            first = asyncio.create_task(
                client.post("/v1/scores/batch", json=_batch("a", 300), headers=AUTH)
            )
            await _until(app, 300)
            # 300 ahead + 500 of its own at 1,000/s: 0.8 s, admitted
            second = asyncio.create_task(
                client.post("/v1/scores/batch", json=_batch("b", 500), headers=AUTH)
            )
            await _until(app, 800)
            for _ in range(5):  # the writer slows down: 350 in 5.1 s lately
                writer.admission.measured(50, 1.0)
            # 800 ahead + 100 of its own at about 70/s: 12 to 13 s, refused at once while the writer
            # still holds the others
            async with asyncio.timeout(30):
                refused = await client.post("/v1/scores/batch", json=_batch("c", 100), headers=AUTH)
            body = assert_problem(refused, 429)
            assert "ahead" in body["detail"] and "nothing was recorded" in body["detail"]
            # the wait it would meet (12 to 13 s) less the 10 s it had, less the moment it
            # took to reach admission, rounded up
            assert int(refused.headers["retry-after"]) in (3, 4, 5)
            assert not first.done() and not second.done()
        finally:
            lock.release()
        assert (await first).status_code == 200
        assert (await second).status_code == 200
        counts = await recorded(client, ["a0", "a299", "b0", "b499", "c0", "c99"])
        assert counts == {"a0": 1, "a299": 1, "b0": 1, "b499": 1, "c0": 0, "c99": 0}


def _outstanding(app: Application) -> int:
    return int(app.state.service.writer._outstanding)


async def _until(app: Application, outstanding: int) -> None:
    """Until the writer holds ``outstanding`` admitted submissions."""
    await _when(lambda: _outstanding(app) >= outstanding)


async def _when(condition: Callable[[], bool]) -> None:
    """Until ``condition`` holds (the requests under way run meanwhile); 30 s at most."""
    async with asyncio.timeout(30):
        for _ in itertools.count():
            if condition():
                return
            await asyncio.sleep(0.001)


async def test_the_clients_request_timeout_applies_when_smaller(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(_roomy(settings), clock) as app, open_client(app) as client:
        await put_board(client, "arena")
        await _steady_loop(app)
        writer = app.state.service.writer
        writer.admission.measured(100, 1.0)  # 100 a second
        lock = await _while_the_writer_waits(app)
        try:
            first = asyncio.create_task(
                client.post("/v1/scores/batch", json=_batch("a", 300), headers=AUTH)
            )
            await _until(app, 300)
            # 300 ahead + 100 of its own: 4 s, within the server's 10 s, not within 2 s
            hurried = {**AUTH, "Request-Timeout": "2000"}
            async with asyncio.timeout(30):
                refused = await client.post(
                    "/v1/scores/batch", json=_batch("b", 100), headers=hurried
                )
            body = assert_problem(refused, 429)
            assert "300 submissions ahead" in body["detail"]
            left = re.search(r"deadline leaves \((\d+) ms\)", body["detail"])
            assert left is not None and int(left.group(1)) <= 2000  # the client's, not 10 s
            assert int(refused.headers["retry-after"]) in (2, 3)  # ceil(4 s - under 2 s)
            patient = {**AUTH, "Request-Timeout": "60000"}  # larger: the server's 10 s applies
            admitted = asyncio.create_task(
                client.post("/v1/scores/batch", json=_batch("c", 100), headers=patient)
            )
            await _until(app, 400)
        finally:
            lock.release()
        assert (await first).status_code == 200
        assert (await admitted).status_code == 200
        assert await recorded(client, ["a0", "b0", "c0"]) == {"a0": 1, "b0": 0, "c0": 1}
        for bad in ("0", "-5", "1.5", "soon", "600001"):
            response = await client.post(
                "/v1/scores/batch", json=_batch("d", 1), headers={**AUTH, "Request-Timeout": bad}
            )
            problem = assert_problem(response, 422)
            assert problem["errors"][0]["loc"] == ["header", "Request-Timeout"]
        assert await recorded(client, ["d0"]) == {"d0": 0}


async def test_a_deadline_passed_before_admission_is_refused_unprocessed(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(settings, clock) as app, open_client(app) as client:
        await put_board(client, "arena")
        service = app.state.service
        service.writer.admission = _late_clock(5.0)
        single = await client.post(
            "/v1/boards/arena/scores",
            json={"player_id": "s1", "score": 3, "match_id": "m"},
            headers=AUTH,
        )
        body = assert_problem(single, 429)
        assert "the server's deadline passed" in body["detail"]
        assert int(single.headers["retry-after"]) >= 1
        batch = await client.post("/v1/scores/batch", json=_batch("b", 20), headers=AUTH)
        assert_problem(batch, 429)
        service.ingest.appends.admission = _late_clock(5.0)
        late_async = await client.post("/v1/scores/batch", json=_batch("q", 5), headers=ASYNC)
        assert_problem(late_async, 429)
        service.writer.admission = Admission(1.0)
        service.ingest.appends.admission = Admission(1.0)
        ok = await client.post("/v1/scores/batch", json=_batch("ok", 2), headers=AUTH)
        assert ok.status_code == 200, ok.text
        counts = await recorded(client, ["s1", "b0", "b19", "q0", "q4", "ok0", "ok1"])
        assert counts == {"s1": 0, "b0": 0, "b19": 0, "q0": 0, "q4": 0, "ok0": 1, "ok1": 1}
        assert service.ingest.applied == 0  # nothing of the refused one reached the log


async def test_a_write_whose_deadline_passes_while_it_queues_is_dropped_unwritten(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(settings, clock) as app, open_client(app) as client:
        await put_board(client, "arena")
        writer = app.state.service.writer
        ahead = {"value": 0.0}
        writer.admission = Admission(1.0, monotonic=lambda: time.monotonic() + ahead["value"])
        lock = await _while_the_writer_waits(app)
        try:
            first = asyncio.create_task(
                client.post("/v1/scores/batch", json=_batch("a", 5), headers=AUTH)
            )
            await _until(app, 5)
            await _when(lambda: writer._queue.empty())  # the writer took it into its batch
            second = asyncio.create_task(
                client.post("/v1/scores/batch", json=_batch("b", 5), headers=AUTH)
            )
            await _until(app, 10)
            ahead["value"] = 5.0  # both deadlines pass while they wait
        finally:
            lock.release()
        answers = [await first, await second]
        # the first was in the batch already when its deadline passed: written and answered
        assert answers[0].status_code == 200, answers[0].text
        body = assert_problem(answers[1], 429)
        assert "waited past its deadline" in body["detail"]
        assert "retry-after" in answers[1].headers
        assert _outstanding(app) == 0
        assert await recorded(client, ["a0", "a4", "b0", "b4"]) == {
            "a0": 1,
            "a4": 1,
            "b0": 0,
            "b4": 0,
        }


async def test_async_submissions_are_admitted_by_the_wait_for_the_log(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(settings, clock) as app, open_client(app) as client:
        await put_board(client, "arena")
        appends = app.state.service.ingest.appends
        appends.admission.measured(4, 1.0)  # the log takes 4 appends a second lately
        for _ in range(4):  # appends of other requests in flight: 1.25 s with this one
            appends.begin()
        try:
            refused = await client.post("/v1/scores/batch", json=_batch("a", 10), headers=ASYNC)
            body = assert_problem(refused, 429)
            assert "ingestion log" in body["detail"]
            assert refused.headers["retry-after"] == "1"
            appends.end()  # two left ahead: 0.75 s with this one, within the deadline
            appends.end()
            taken = await client.post("/v1/scores/batch", json=_batch("b", 10), headers=ASYNC)
            assert taken.status_code == 202, taken.text
        finally:
            while appends.running:
                appends.end()
        top = await client.get(
            "/v1/boards/arena/top", params={"after": taken.json()["token"], "limit": 100}
        )
        players = {e["player_id"] for e in top.json()["entries"]}
        assert players == {f"b{i}" for i in range(10)}


async def test_under_overload_every_answer_is_200_or_429_and_nothing_acknowledged_is_lost(
    settings: Settings, clock: ManualClock
) -> None:
    """Many batches at once behind a held writer measured slow: some are admitted, the rest
    refused at once; afterwards each acknowledged submission is stored exactly once and no
    refused one at all."""
    async with open_app(settings, clock) as app, open_client(app) as client:
        await put_board(client, "arena", policy="sum")
        writer = app.state.service.writer
        writer.admission.measured(100, 1.0)  # 100 a second: ten 10-item requests fit 1 s
        lock = await _while_the_writer_waits(app)
        try:
            sent = [
                asyncio.create_task(
                    client.post("/v1/scores/batch", json=_batch(f"r{n}-", 10), headers=AUTH)
                )
                for n in range(30)
            ]
            pending: set[asyncio.Task[httpx.Response]] = set(sent)
            while len(pending) > 10:  # the refused are answered while the writer is held
                _, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        finally:
            lock.release()
        answers = await asyncio.gather(*sent)
        statuses = [r.status_code for r in answers]
        assert set(statuses) == {200, 429}, statuses
        for response in answers:
            if response.status_code == 429:
                assert int(response.headers["retry-after"]) >= 1
        top = await client.get("/v1/boards/arena/top", params={"limit": 1000})
        scores = {e["player_id"]: e["score"] for e in top.json()["entries"]}
        expected = {
            f"r{n}-{i}": i + 1
            for n, response in enumerate(answers)
            if response.status_code == 200
            for i in range(10)
        }
        assert scores == expected  # a sum board: a submission counted twice would show


async def test_a_batch_is_refused_before_its_items_are_checked(
    settings: Settings, clock: ManualClock
) -> None:
    """A refused batch costs no item checks: one with an item to a board that does not
    exist is refused whole, not answered item by item."""
    async with open_app(settings, clock) as app, open_client(app) as client:
        await put_board(client, "arena")
        writer = app.state.service.writer
        writer.admission.measured(100, 1.0)
        lock = await _while_the_writer_waits(app)
        try:
            first = asyncio.create_task(
                client.post("/v1/scores/batch", json=_batch("a", 90), headers=AUTH)
            )
            await _until(app, 90)
            body = _batch("b", 20)
            body["scores"].append(
                {"board": "nowhere", "player_id": "x", "score": 1, "match_id": "m"}
            )
            async with asyncio.timeout(30):
                refused = await client.post("/v1/scores/batch", json=body, headers=AUTH)
            assert_problem(refused, 429)
        finally:
            lock.release()
        assert (await first).status_code == 200
        assert await recorded(client, ["a0", "b0"]) == {"a0": 1, "b0": 0}


async def test_a_batch_whose_deadline_passes_while_it_waits_to_be_decoded_is_refused_unread(
    settings: Settings, clock: ManualClock
) -> None:
    """Large bodies are decoded a few at a time per worker; the wait for a turn is spent from
    the deadline, and a request that has none left is refused without being read."""
    async with open_app(settings, clock) as app, open_client(app) as client:
        await put_board(client, "arena")
        later = {"value": 0.0}
        app.state.service.writer.admission = Admission(
            1.0, monotonic=lambda: time.monotonic() + later["value"]
        )
        slots = app.api.decoding
        held = 0
        while not slots.locked():  # every turn taken, as by other large bodies
            await slots.acquire()
            held += 1
        try:
            waiting = asyncio.create_task(
                client.post("/v1/scores/batch", json=_batch("w", 10), headers=AUTH)
            )
            await _when(lambda: bool(slots._waiters))  # it waits for a turn
            later["value"] = 5.0  # its deadline passes meanwhile
        finally:
            for _ in range(held):
                slots.release()
        body = assert_problem(await waiting, 429)
        assert "deadline passed" in body["detail"]
        assert await recorded(client, ["w0", "w9"]) == {"w0": 0, "w9": 0}
        later["value"] = 0.0
        ok = await client.post("/v1/scores/batch", json=_batch("k", 3), headers=AUTH)
        assert ok.status_code == 200, ok.text


async def test_time_the_loop_ran_late_before_the_app_is_spent_from_the_deadline(
    settings: Settings, clock: ManualClock
) -> None:
    """A worker whose event loop ran late (here told so: 5 s) counts that wait before the app
    saw a request as spent: a write is refused unread, nothing recorded, while reads are
    answered as ever."""
    async with open_app(settings, clock) as app, open_client(app) as client:
        await put_board(client, "arena")
        ok = await client.post("/v1/scores/batch", json=_batch("ok", 2), headers=AUTH)
        assert ok.status_code == 200, ok.text
        await app.api.lag.close()  # the loop's lateness told, on a clock that stands still
        app.api.lag = LoopLag(monotonic=lambda: 100.0)
        app.api.lag.observe(5.0)  # a tick ran 5 s late: the request after it waited as long
        late = await client.post("/v1/scores/batch", json=_batch("late", 20), headers=AUTH)
        body = assert_problem(late, 429)
        assert "deadline passed before the write was admitted" in body["detail"]
        assert int(late.headers["retry-after"]) >= 1
        single = await client.post(
            "/v1/boards/arena/scores",
            json={"player_id": "s1", "score": 3, "match_id": "m"},
            headers=AUTH,
        )
        assert_problem(single, 429)
        read = await client.get("/v1/boards/arena/players/ok0")
        assert read.status_code == 200, read.text
        counts = await recorded(client, ["ok0", "ok1", "late0", "late19", "s1"])
        assert counts == {"ok0": 1, "ok1": 1, "late0": 0, "late19": 0, "s1": 0}


def _player(player: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_hs256(claims(player))}"}


async def test_a_players_own_write_carries_the_same_deadline(
    settings: Settings, clock: ManualClock
) -> None:
    """A write with a player token is admitted by the same wait as a server's: refused at
    once behind a queue it would not clear in time, or when its deadline has passed, and
    written once the queue is gone; nothing of a refused one recorded."""
    with_tokens = _roomy(settings).model_copy(update={"player_jwt_secret": SecretStr(SECRET)})
    async with open_app(with_tokens, clock) as app, open_client(app) as client:
        await put_board(client, "arena", client_writes={})
        await _steady_loop(app)
        writer = app.state.service.writer
        writer.admission.measured(10, 1.0)  # 10 a second
        lock = await _while_the_writer_waits(app)
        try:
            first = asyncio.create_task(
                client.post("/v1/scores/batch", json=_batch("a", 300), headers=AUTH)
            )
            await _until(app, 300)
            # 300 ahead + its own at 10/s: 30 s, more than its 10 s
            async with asyncio.timeout(30):
                refused = await client.post(
                    "/v1/boards/arena/scores",
                    json={"score": 7, "match_id": "m-1"},
                    headers=_player("ann"),
                )
            body = assert_problem(refused, 429)
            assert "300 submissions ahead" in body["detail"]
            assert int(refused.headers["retry-after"]) >= 1
        finally:
            lock.release()
        assert (await first).status_code == 200
        later = {"value": 0.0}
        writer.admission = Admission(1.0, monotonic=lambda: time.monotonic() + later["value"])
        later["value"] = 5.0  # every deadline passed by the time it is admitted
        late = await client.post(
            "/v1/boards/arena/scores", json={"score": 8, "match_id": "m-2"}, headers=_player("bob")
        )
        assert "deadline passed" in assert_problem(late, 429)["detail"]
        later["value"] = 0.0
        written = await client.post(
            "/v1/boards/arena/scores", json={"score": 9, "match_id": "m-3"}, headers=_player("ann")
        )
        assert written.status_code == 200, written.text
        assert await recorded(client, ["ann", "bob"]) == {"ann": 1, "bob": 0}


async def test_a_batch_is_refused_unread_by_the_items_its_length_holds(
    settings: Settings, clock: ManualClock
) -> None:
    """Once a worker decoded a batch, it knows about how large an item is: a later batch
    whose length holds more items than fit before its deadline is refused before it is read
    (here, a body that decoding would answer 400 is answered 429)."""
    async with open_app(_roomy(settings), clock) as app, open_client(app) as client:
        await put_board(client, "arena")
        await _steady_loop(app)
        ok = await client.post("/v1/scores/batch", json=_batch("k", 100), headers=AUTH)
        assert ok.status_code == 200, ok.text  # decoded: about 80 bytes an item
        writer = app.state.service.writer
        writer.admission = Admission(10.0)  # a deadline of 10 s, and 10 a second:
        writer.admission.measured(10, 1.0)  # figures far from what the machine does
        lock = await _while_the_writer_waits(app)
        try:
            first = asyncio.create_task(
                client.post("/v1/scores/batch", json=_batch("a", 50), headers=AUTH)
            )
            await _until(app, 50)
            # 50 ahead and at least ~150 of its own (half what 300 items' bytes suggest) at
            # 10 a second: 20 s, more than its 10 s. Broken at its end: never decoded.
            broken = json.dumps(_batch("b", 300))[:-1].encode() + b"!!"
            headers = {**AUTH, "Content-Type": "application/json"}
            async with asyncio.timeout(30):
                refused = await client.post("/v1/scores/batch", content=broken, headers=headers)
            body = assert_problem(refused, 429)
            assert "ahead" in body["detail"]
            # a small batch behind the same queue still fits (51 at 10 a second: 5.1 s): the
            # estimate is by length
            small = json.dumps(_batch("c", 2)).encode()[:-1] + b"!!"
            unread = asyncio.create_task(
                client.post("/v1/scores/batch", content=small, headers=headers)
            )
            decoded = await asyncio.wait_for(unread, 30)  # decoded, then refused as it is
            assert_problem(decoded, 400)
        finally:
            lock.release()
        assert (await first).status_code == 200
        assert await recorded(client, ["a0", "b0", "b299", "c0"]) == {
            "a0": 1,
            "b0": 0,
            "b299": 0,
            "c0": 0,
        }


async def test_a_batch_refused_unread_has_its_body_received_and_dropped(
    settings: Settings, clock: ManualClock
) -> None:
    """Refused before it is decoded, a batch's body is still received (and dropped), so that
    the server keeps the connection and the client reads its 429: the app is called here as
    an ASGI server calls it, and every chunk of the body is taken."""
    async with open_app(settings, clock) as app:
        app.state.service.writer.admission = _late_clock(5.0)
        body = json.dumps(_batch("u", 50)).encode()
        chunks = [body[i : i + 1000] for i in range(0, len(body), 1000)]
        taken: list[int] = []
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            taken.append(len(taken))
            n = len(taken) - 1
            return {"type": "http.request", "body": chunks[n], "more_body": n + 1 < len(chunks)}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await app(_batch_scope(body), receive, send)
        assert sent[0]["status"] == 429
        assert any(name == b"retry-after" for name, _ in sent[0]["headers"])
        assert len(taken) == len(chunks) > 1  # every chunk received


async def test_a_refused_batch_drops_its_body_after_its_decoding_turn(
    settings: Settings, clock: ManualClock
) -> None:
    """A batch refused before it is decoded gives its decoding turn back before its body is
    received and dropped: a client still sending a refused body holds no other batch up."""
    async with open_app(settings, clock) as app:
        app.state.service.writer.admission = _late_clock(5.0)
        slots = app.api.decoding
        turns = slots._value
        body = json.dumps(_batch("slow", 50)).encode()
        first, rest = body[:1000], body[1000:]
        more = asyncio.Event()
        asked: list[int] = []
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            asked.append(len(asked))
            if len(asked) == 1:
                return {"type": "http.request", "body": first, "more_body": True}
            await more.wait()  # the rest of the body comes late
            return {"type": "http.request", "body": rest, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        call = asyncio.create_task(app(_batch_scope(body), receive, send))
        await _when(lambda: len(asked) >= 2)  # refused, its body being dropped
        assert slots._value == turns  # every decoding turn free meanwhile
        more.set()
        await asyncio.wait_for(call, 30)
        assert sent[0]["status"] == 429


def _batch_scope(body: bytes) -> dict[str, Any]:
    """The ASGI scope of a score batch of ``body``, as a server hands it to the app."""
    return {
        "type": "http",
        "method": "POST",
        "path": "/v1/scores/batch",
        "raw_path": b"/v1/scores/batch",
        "query_string": b"",
        "headers": [
            (b"authorization", AUTH["Authorization"].encode()),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "http_version": "1.1",
        "scheme": "http",
        "server": ("rankline.test", 80),
        "client": ("127.0.0.1", 5000),
        "root_path": "",
    }
