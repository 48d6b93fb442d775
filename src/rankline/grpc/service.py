"""The handlers of rankline.v1's RPCs: the reads and the hot writes call the service
directly (``direct``: ``DIRECT``); each other one is the HTTP endpoint it twins, called
in-process (``bridge``), its answer rendered as the RPC's message and its problem as a gRPC
status. ``Watch`` runs the live stream's endpoint and passes on its Server-Sent Events as
messages."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import orjson
from google.protobuf import empty_pb2
from google.protobuf.message import Message
from starlette.types import Message as AsgiMessage

from rankline.grpc import (
    board_reads,
    board_writes,
    log_reads,
    player_reads,
    player_writes,
    reads,
    tournament_reads,
    writes,
)
from rankline.grpc.bridge import Answer, call, scope_of
from rankline.grpc.direct import Direct, Method, Rule
from rankline.grpc.direct import unary as direct_unary
from rankline.grpc.gen.rankline.v1 import rankline_pb2
from rankline.grpc.messages import from_json
from rankline.grpc.operations import SERVICE, Operation, operations
from rankline.grpc.status import rich_status
from rankline.http.api import Api

Unary = Callable[[Message, grpc.aio.ServicerContext[Any, Any]], Awaitable[Message]]
Streaming = Callable[[Message, grpc.aio.ServicerContext[Any, Any]], AsyncIterator[Message]]


def render(operation: Operation, answer: Answer) -> Message:
    """The RPC's answer to a successful HTTP answer."""
    if operation.shape == "empty":
        return empty_pb2.Empty()
    body = answer.json()
    if operation.shape == "accepted":
        body = {"accepted" if answer.status == 202 else "result": body}
    elif operation.shape == "created":
        body = {"result": body, "created": answer.status == 201}
    return from_json(body, operation.response)


async def _fail(
    context: grpc.aio.ServicerContext[Any, Any], status: int, body: bytes, retry: str | None
) -> None:
    problem = orjson.loads(body) if body else {}
    code, message, trailers = rich_status(problem, status, retry)
    await context.abort(code, message, trailing_metadata=trailers)


def unary(api: Api, operation: Operation) -> Unary:
    async def handle(request: Message, context: grpc.aio.ServicerContext[Any, Any]) -> Message:
        scope, params, body = scope_of(
            operation,
            request,
            context.invocation_metadata() or (),
            context.peer(),
            context.time_remaining(),
        )
        answer = await call(api, operation, scope, params, body)
        if answer.status >= 400:
            await _fail(context, answer.status, answer.body, answer.retry_after)
        return render(operation, answer)

    handle.__name__ = operation.name
    return handle


_EVENTS: dict[str, tuple[str, type[Message]]] = {
    "top": ("top", rankline_pb2.TopOut),
    "player": ("player", rankline_pb2.PlayerOut),
    "error": ("error", rankline_pb2.Problem),
}


def event_of(frame: str) -> rankline_pb2.WatchEvent | None:
    """The message of one Server-Sent Event (None: a comment, such as a ping)."""
    name, data = "message", []
    for line in frame.split("\n"):
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)
    known = _EVENTS.get(name)
    if known is None or not data:
        return None
    field, kind = known
    event = rankline_pb2.WatchEvent()
    getattr(event, field).CopyFrom(from_json(orjson.loads("\n".join(data)), kind))
    return event


_BACKLOG = 64
"""Messages of the stream's endpoint waiting for the gRPC client: beyond them the endpoint
waits too, and a client that reads nothing for 30 s is cut off as over HTTP."""


def watch(api: Api, operation: Operation) -> Streaming:
    async def handle(
        request: Message, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[Message]:
        scope, params, body = scope_of(
            operation, request, context.invocation_metadata() or (), context.peer()
        )
        sent: asyncio.Queue[AsgiMessage | None] = asyncio.Queue(_BACKLOG)
        gone = asyncio.Event()
        started = False

        async def receive() -> AsgiMessage:
            nonlocal started
            if not started:
                started = True
                return {"type": "http.request", "body": body, "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def stream() -> None:
            response = await api.answer(scope, receive, sent.put, operation.endpoint, params)
            await response(scope, receive, sent.put)

        task = asyncio.create_task(stream())

        def finished(_: object) -> None:
            with contextlib.suppress(asyncio.QueueFull):  # then seen as done when drained
                sent.put_nowait(None)

        async def next_message() -> AsgiMessage | None:
            if sent.empty() and task.done():
                return None
            return await sent.get()

        task.add_done_callback(finished)
        try:
            start = await next_message()
            if start is None or start["type"] != "http.response.start":
                raise RuntimeError("the stream's endpoint did not answer")
            status = start["status"]
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in start["headers"]}
            pending = ""
            refused = b""
            while (message := await next_message()) is not None:
                if message["type"] != "http.response.body":
                    continue
                chunk = message.get("body", b"")
                if status != 200:
                    refused += chunk
                else:
                    pending += chunk.decode().replace("\r\n", "\n")
                    while "\n\n" in pending:
                        frame, pending = pending.split("\n\n", 1)
                        event = event_of(frame)
                        if event is not None:
                            yield event
                if not message.get("more_body", False):
                    break
            if status != 200:
                await _fail(context, status, refused, headers.get("retry-after"))
        finally:
            gone.set()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    handle.__name__ = operation.name
    return handle


DIRECT: dict[str, Method] = {
    "GetPlayer": reads.get_player,
    "GetMe": reads.get_me,
    "GetAround": reads.get_around,
    "GetMeAround": reads.get_me_around,
    "GetTop": reads.get_top,
    "ListBoards": board_reads.list_boards,
    "GetBoard": board_reads.get_board,
    "GetRankOf": board_reads.get_rank_of,
    "GetFriends": board_reads.get_friends,
    "GetRanks": board_reads.get_ranks,
    "ListPeriods": board_reads.list_periods,
    "ListSnapshots": board_reads.list_snapshots,
    "ListDeliveries": board_reads.list_deliveries,
    "GetProfile": player_reads.get_profile,
    "GetHistory": player_reads.get_history,
    "GetFriendList": player_reads.get_friend_list,
    "GetStoredFriends": player_reads.get_stored_friends,
    "GetMeFriends": player_reads.get_me_friends,
    "GetRating": player_reads.get_rating,
    "ListTournaments": tournament_reads.list_tournaments,
    "GetTournament": tournament_reads.get_tournament,
    "GetTournamentTop": tournament_reads.get_tournament_top,
    "GetTournamentPlayer": tournament_reads.get_tournament_player,
    "GetTournamentAround": tournament_reads.get_tournament_around,
    "GetTournamentResults": tournament_reads.get_tournament_results,
    "ListAuditEntries": log_reads.list_audit_entries,
    "ListDeadLetters": log_reads.list_dead_letters,
    "SubmitScore": writes.submit_score,
    "SubmitScores": writes.submit_scores,
    "PutBoard": board_writes.put_board,
    "DeleteBoard": board_writes.delete_board,
    "RemoveEntry": board_writes.remove_entry,
    "ResetBoard": board_writes.reset_board,
    "VoidMatch": board_writes.void_match,
    "PutProfile": player_writes.put_profile,
    "ErasePlayer": player_writes.erase_player,
    "PutFriendList": player_writes.put_friend_list,
    "BanPlayer": player_writes.ban_player,
    "UnbanPlayer": player_writes.unban_player,
}
"""The RPCs that call the service directly, and how."""


def handler(api: Api) -> grpc.GenericRpcHandler:
    """Every RPC of rankline.v1.Rankline, answered through ``api`` (its service and
    admission for the direct ones)."""
    methods: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
    direct = Direct(api.service, api.admission)
    for name, operation in operations().items():
        parse = operation.request.FromString
        method = DIRECT.get(name)
        if method is not None:
            methods[name] = grpc.unary_unary_rpc_method_handler(
                direct_unary(direct, Rule.of(operation.endpoint), method, name),
                request_deserializer=parse,
                response_serializer=_serialize,
            )
        elif operation.shape == "stream":
            methods[name] = grpc.unary_stream_rpc_method_handler(
                watch(api, operation),
                request_deserializer=parse,
                response_serializer=_serialize,
            )
        else:
            methods[name] = grpc.unary_unary_rpc_method_handler(
                unary(api, operation),
                request_deserializer=parse,
                response_serializer=_serialize,
            )
    return grpc.method_handlers_generic_handler(SERVICE, methods)


def _serialize(message: Message) -> bytes:
    return message.SerializeToString()
