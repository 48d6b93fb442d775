"""``Watch`` against the HTTP stream it twins: for the same changes, the same events in the
same order (each ``WatchEvent`` the Server-Sent Event's data as a message), the same end when
the board goes away, and the same refusals (an unknown board, a bad query, no credential);
and a client that takes nothing is dropped, its stream closed, as an HTTP stream's is."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import orjson
import pytest

from helpers_grpc import METADATA, Rig, as_json, clean, refusal, rig
from helpers_sse import SSE
from rankline import ManualClock, Settings
from rankline.access.admission import Rule
from rankline.grpc.direct import Call, Direct, streaming
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb

pytestmark = pytest.mark.edge


def _score(player: str, score: int) -> pb.SubmitScoreRequest:
    body = pb.ScoreIn(player_id=player, score=score, match_id=f"m-{player}-{score}")
    return pb.SubmitScoreRequest(board_id="arena", body=body)


async def _grpc_event(events: AsyncIterator[pb.WatchEvent]) -> tuple[str, Any]:
    event = await asyncio.wait_for(anext(events), 10)
    name = event.WhichOneof("event")
    assert name is not None
    return name, as_json(getattr(event, name))


async def _both(sse: SSE, events: AsyncIterator[pb.WatchEvent], count: int) -> list[Any]:
    """The next ``count`` events of each stream, which must be the same."""
    over_http = [await sse.next(within=10) for _ in range(count)]
    over_grpc = [await _grpc_event(events) for _ in range(count)]
    assert over_grpc == [(name, clean(data)) for name, data in over_http]
    return over_http


async def test_watch_sends_what_the_http_stream_sends(
    settings: Settings, clock: ManualClock
) -> None:
    fast = settings.model_copy(update={"stream_heartbeat_seconds": 0.5})
    async with rig(fast, clock) as r:
        await r.stub.PutBoard(pb.PutBoardRequest(board_id="arena"), metadata=METADATA)
        for player, score in (("a", 10), ("b", 20)):
            await r.stub.SubmitScore(_score(player, score), metadata=METADATA)
        request = pb.WatchRequest(board_id="arena", limit=2, players="a,c", metadata=True)
        call = r.stub.Watch(request)
        events = aiter(call)
        async with SSE(r.app, "arena", limit=2, players="a,c", metadata="true") as sse:
            first = await _both(sse, events, 2)
            assert [name for name, _ in first] == ["top", "player"]
            await r.stub.SubmitScore(_score("c", 30), metadata=METADATA)
            changed = await _both(sse, events, 3)
            assert [name for name, _ in changed] == ["top", "player", "player"]
            assert {data["player_id"]: data["rank"] for _, data in changed[1:]} == {
                "a": 3,
                "c": 1,
            }
            await r.stub.SubmitScore(_score("b", 5), metadata=METADATA)  # b keeps its best
            await r.stub.SubmitScore(_score("d", 1), metadata=METADATA)  # below the top two
            assert await sse.quiet(1.5) == []
            await r.stub.DeleteBoard(pb.DeleteBoardRequest(board_id="arena"), metadata=METADATA)
            [(name, problem)] = await _both(sse, events, 1)
            assert name == "error" and problem["status"] == 404
        with pytest.raises(StopAsyncIteration):  # the error is the last event
            await asyncio.wait_for(anext(events), 10)
        assert await call.code() == grpc.StatusCode.OK


async def _first(call: Any) -> Any:
    return await anext(aiter(call))


async def _http_refusal(r: Rig, expect: int, **params: Any) -> Any:
    async with SSE(r.app, params.pop("board", "arena"), **params) as sse:
        await asyncio.wait_for(sse.close(), 10)
        assert sse.status == expect
        return clean(orjson.loads(sse.body))


async def test_watch_is_refused_as_the_http_stream_is(
    settings: Settings, clock: ManualClock
) -> None:
    keyed = settings.model_copy(update={"read_keys": "reader"})
    reader = (("authorization", "Bearer reader"),)
    async with rig(keyed, clock) as r:
        await r.stub.PutBoard(pb.PutBoardRequest(board_id="arena"), metadata=METADATA)
        cases: list[tuple[pb.WatchRequest, Any, grpc.StatusCode, int, dict[str, Any]]] = [
            (pb.WatchRequest(board_id="nope"), reader, grpc.StatusCode.NOT_FOUND, 404, {}),
            (
                pb.WatchRequest(board_id="arena", limit=0),
                reader,
                grpc.StatusCode.INVALID_ARGUMENT,
                422,
                {"limit": 0},
            ),
            (
                pb.WatchRequest(board_id="arena", players="a,not a player"),
                reader,
                grpc.StatusCode.INVALID_ARGUMENT,
                422,
                {"players": "a,not a player"},
            ),
            (
                pb.WatchRequest(board_id="arena", players=",".join(f"p{n}" for n in range(51))),
                reader,
                grpc.StatusCode.INVALID_ARGUMENT,
                422,
                {"players": ",".join(f"p{n}" for n in range(51))},
            ),
            (pb.WatchRequest(board_id="arena"), (), grpc.StatusCode.UNAUTHENTICATED, 401, {}),
        ]
        for request, metadata, code, status, params in cases:
            problem = await refusal(_first(r.stub.Watch(request, metadata=metadata)), code)
            headers = {"Authorization": "Bearer reader"} if metadata else {}
            board = request.board_id
            expected = await _http_refusal(r, status, board=board, headers=headers, **params)
            assert problem == expected, request


class _FullSocket:
    """A stream's context whose client takes nothing: every write waits for ever."""

    def __init__(self) -> None:
        self.writes = 0

    async def write(self, message: Any) -> None:
        self.writes += 1
        await asyncio.Event().wait()


async def test_a_client_that_takes_nothing_is_dropped_after_the_send_timeout() -> None:
    closed = asyncio.Event()
    yielded: list[int] = []

    async def method(call: Call, request: Any) -> Any:
        try:
            for n in range(1_000):
                yielded.append(n)
                yield pb.WatchEvent()
        finally:
            closed.set()

    rule = Rule("board", False, True, "GET /v1/boards/{board_id}/stream")
    handle = streaming(Direct(None, None), rule, method, "Watch", send_timeout=0.05)  # type: ignore[arg-type]
    context = _FullSocket()
    await asyncio.wait_for(handle(pb.WatchRequest(board_id="arena"), context), 10)
    # The first message was never taken: the stream ended there and its source was closed.
    assert (context.writes, yielded) == (1, [0])
    assert closed.is_set()
