"""The handlers of rankline.v1's RPCs: the reads and the hot writes call the service
directly (``direct``: ``DIRECT``); each other one is the HTTP endpoint it twins, called
in-process (``bridge``), its answer rendered as the RPC's message and its problem as a gRPC
status. ``Watch`` streams the live stream's events directly (``watch``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import orjson
from google.protobuf import empty_pb2
from google.protobuf.message import Message

from rankline.grpc import (
    board_reads,
    log_reads,
    player_reads,
    reads,
    tournament_reads,
    watch,
    writes,
)
from rankline.grpc.bridge import Answer, call, scope_of
from rankline.grpc.direct import Direct, Method, Rule, Streamed, streaming
from rankline.grpc.direct import unary as direct_unary
from rankline.grpc.messages import from_json
from rankline.grpc.operations import SERVICE, Operation, operations
from rankline.grpc.status import rich_status
from rankline.http.api import Api

Unary = Callable[[Message, grpc.aio.ServicerContext[Any, Any]], Awaitable[Message]]


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
}
"""The RPCs that call the service directly, and how."""

STREAMED: dict[str, Streamed] = {"Watch": watch.watch}
"""The server-streaming RPCs, which call the service directly too."""


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
        elif name in STREAMED:
            methods[name] = grpc.unary_stream_rpc_method_handler(
                streaming(direct, Rule.of(operation.endpoint), STREAMED[name], name),
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
