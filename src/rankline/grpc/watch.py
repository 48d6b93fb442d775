"""``Watch``, answered directly (``direct``): the live stream of ``rankline.reading.live``,
each of its events a ``WatchEvent`` message. It is refused as ``GET
/v1/boards/{board_id}/stream`` is (the caller, then the parameters, then a first read of the
board, before any message), and ends as that stream ends: with its ``error`` event, or when
the client takes nothing for ``live.SEND_TIMEOUT`` seconds (``direct.streaming``). Its
pings are not sent: a gRPC connection keeps itself alive with HTTP/2 pings of its own."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from google.protobuf.message import Message

from rankline.grpc.direct import Call, answered
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.grpc.messages import from_json
from rankline.grpc.reads import asked
from rankline.reading.live import Ended, LiveEvent, PlayerChanged, TopChanged, opened
from rankline.reading.requests import StreamRequest


def watch_event(event: LiveEvent) -> pb.WatchEvent:
    """The message of one of a stream's events."""
    if isinstance(event, TopChanged):
        return pb.WatchEvent(top=answered(event.top, pb.TopOut))
    if isinstance(event, PlayerChanged):
        return pb.WatchEvent(player=answered(event.player, pb.PlayerOut))
    if isinstance(event, Ended):
        return pb.WatchEvent(error=from_json(event.problem, pb.Problem))
    raise TypeError(f"not a stream's event: {event!r}")


async def watch(call: Call, request: pb.WatchRequest) -> AsyncGenerator[Message, None]:
    """``GET /v1/boards/{board_id}/stream``: the top, then the watched players, then what
    changes."""
    await call.admit(request.board_id)
    await call.settled(request.after)
    service = call.direct.service
    stream = await opened(service.reads, service.feed, asked(StreamRequest, request))
    events = stream.events(service.settings.stream_heartbeat_seconds)
    try:
        async for event in events:
            yield watch_event(event)
    finally:
        await events.aclose()
