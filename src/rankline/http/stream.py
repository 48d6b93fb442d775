"""Live streams over HTTP: a stream's events (``rankline.reading.live``) as Server-Sent
Events, named ``top``, ``player`` and ``error``, their data the JSON an answer would carry,
with a keep-alive comment for each ``PING``."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import msgspec

from rankline.http.sse import Event, EventStream
from rankline.reading.live import Ended, LiveEvent, PlayerChanged, Stream, TopChanged

_encoder = msgspec.json.Encoder()


def sse_event(event: LiveEvent) -> Event:
    """The Server-Sent Event of one of a stream's events."""
    if isinstance(event, TopChanged):
        return Event(_encoder.encode(event.top).decode(), event="top")
    if isinstance(event, PlayerChanged):
        return Event(_encoder.encode(event.player).decode(), event="player")
    if isinstance(event, Ended):
        return Event(_encoder.encode(event.problem).decode(), event="error")
    raise TypeError(f"not a stream's event: {event!r}")


async def _events(stream: Stream, heartbeat: float) -> AsyncGenerator[Event, None]:
    events = stream.events(heartbeat)
    try:
        async for event in events:
            yield sse_event(event)
    finally:
        await events.aclose()


def respond(stream: Stream, heartbeat: float) -> EventStream:
    return EventStream(
        _events(stream, heartbeat),
        ping=heartbeat,
        headers={"Cache-Control": "no-cache"},
    )
