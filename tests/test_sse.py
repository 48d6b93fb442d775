"""The Server-Sent Events response (rankline.http.sse): the event format, the keep-alive
comment while nothing is sent, the events' generator closed however the stream ends, and a
client that takes nothing dropped after the send timeout."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest

from rankline.http.sse import PING, Event, EventStream, with_pings


def test_an_event_is_its_name_and_one_data_line_per_line() -> None:
    assert Event('{"a":1}', event="top").encode() == b'event: top\r\ndata: {"a":1}\r\n\r\n'
    assert Event("one\ntwo").encode() == b"data: one\r\ndata: two\r\n\r\n"
    assert Event("").encode() == b"data: \r\n\r\n"
    with pytest.raises(ValueError, match="one line"):
        Event("x", event="top\r\ndata: forged").encode()


class Source:
    """Events from a queue; records whether its generator was closed."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Event | None] = asyncio.Queue()
        self.closed = asyncio.Event()

    async def events(self) -> AsyncGenerator[Event, None]:
        try:
            while (event := await self.queue.get()) is not None:
                yield event
        finally:
            self.closed.set()


async def test_pings_fill_the_silence_and_events_pass_through_in_order() -> None:
    source = Source()
    stream = with_pings(source.events(), ping=0.01)
    assert await anext(stream) == PING  # nothing to send yet
    source.queue.put_nowait(Event("1", event="top"))
    source.queue.put_nowait(Event("2", event="top"))
    got = [chunk async for chunk in _until_two_events(stream)]
    assert [c for c in got if c != PING] == [Event("1", "top").encode(), Event("2", "top").encode()]
    source.queue.put_nowait(None)  # the events end: so does the stream
    assert [c async for c in stream if c != PING] == []
    assert source.closed.is_set()


async def _until_two_events(stream: AsyncGenerator[bytes, None]) -> AsyncGenerator[bytes, None]:
    seen = 0
    async for chunk in stream:
        yield chunk
        if chunk != PING:
            seen += 1
            if seen == 2:
                return


async def test_closing_the_stream_while_it_waits_closes_the_events() -> None:
    source = Source()
    stream = with_pings(source.events(), ping=0.01)
    assert await anext(stream) == PING  # the generator is waiting on its queue
    await stream.aclose()
    assert source.closed.is_set()


def _scope() -> dict[str, Any]:
    return {"type": "http", "asgi": {"version": "3.0"}, "method": "GET", "headers": []}


async def test_a_client_disconnect_ends_the_response_and_closes_the_events() -> None:
    source = Source()
    response = EventStream(source.events(), ping=30.0, send_timeout=30.0, headers={"X-A": "b"})
    sent: list[dict[str, Any]] = []
    disconnect = asyncio.Event()

    async def receive() -> dict[str, Any]:
        await disconnect.wait()
        return {"type": "http.disconnect"}

    first_event = asyncio.Event()

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if len(sent) == 2:
            first_event.set()

    task = asyncio.create_task(response(_scope(), receive, send))
    source.queue.put_nowait(Event("1", event="top"))
    await asyncio.wait_for(first_event.wait(), 10)
    disconnect.set()
    await asyncio.wait_for(task, 10)
    assert source.closed.is_set()
    start = sent[0]
    headers = {k.decode(): v.decode() for k, v in start["headers"]}
    assert headers["content-type"].startswith("text/event-stream")
    assert headers["cache-control"] == "no-store" and headers["x-accel-buffering"] == "no"
    assert headers["x-a"] == "b"
    assert sent[1]["body"] == Event("1", "top").encode()


async def test_a_client_that_takes_nothing_is_dropped_after_the_send_timeout() -> None:
    source = Source()
    response = EventStream(source.events(), ping=30.0, send_timeout=0.01)
    never = asyncio.Event()
    started: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        await never.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            started.append(message)
            return
        await never.wait()  # the client's socket is full

    source.queue.put_nowait(Event("1"))
    await asyncio.wait_for(response(_scope(), receive, send), 10)
    assert started and source.closed.is_set()
