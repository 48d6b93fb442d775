"""Server-Sent Events on Starlette's ``StreamingResponse``: the ``text/event-stream`` format,
a keep-alive comment when nothing was sent for ``ping`` seconds, a send that a stuck client
does not hold past ``send_timeout``, and an end when the client disconnects (Starlette stops
the body when the client goes: by the disconnect message, or by a send that fails).

    EventStream(events(), ping=15.0, send_timeout=30.0)

where ``events()`` yields ``Event``s; closing the response closes that generator, so its
``finally`` runs whichever way the stream ends.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass

from starlette.responses import StreamingResponse
from starlette.types import Send

from rankline.reading import live

SEP = "\r\n"
PING = f": ping{SEP}{SEP}".encode()
"""A comment: clients ignore it; proxies and load balancers see a live connection."""


@dataclass(frozen=True, slots=True)
class Event:
    """One event: ``data`` (one ``data:`` line per line of it) and its ``event`` name."""

    data: str
    event: str | None = None

    def encode(self) -> bytes:
        lines = [] if self.event is None else [f"event: {_one_line(self.event)}"]
        lines.extend(f"data: {line}" for line in self.data.splitlines() or [""])
        return (SEP.join(lines) + SEP + SEP).encode()


def _one_line(value: str) -> str:
    if "\r" in value or "\n" in value:
        raise ValueError("an event name is one line")
    return value


async def with_pings(
    events: AsyncGenerator[Event, None], ping: float
) -> AsyncGenerator[bytes, None]:
    """The encoded ``events``, with ``PING`` whenever ``ping`` seconds pass without one
    (``rankline.reading.live.with_pings``); closing it closes ``events``."""
    chunks = live.with_pings(events, ping)
    try:
        async for event in chunks:
            yield PING if isinstance(event, live.Ping) else event.encode()
    finally:
        await chunks.aclose()


class EventStream(StreamingResponse):
    """A ``text/event-stream`` response of ``events``, with keep-alive pings."""

    media_type = "text/event-stream"

    def __init__(
        self,
        events: AsyncGenerator[Event, None],
        *,
        ping: float,
        send_timeout: float = live.SEND_TIMEOUT,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self._events = with_pings(events, ping)
        super().__init__(
            self._events,
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no", **(headers or {})},
        )
        self.send_timeout = send_timeout

    async def stream_response(self, send: Send) -> None:
        body = self._events
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": self.status_code,
                    "headers": self.raw_headers,
                }
            )
            async for chunk in body:
                message = {"type": "http.response.body", "body": chunk, "more_body": True}
                if not await live.delivered(send(message), self.send_timeout):
                    return  # a client that takes nothing for that long is gone
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            await body.aclose()
