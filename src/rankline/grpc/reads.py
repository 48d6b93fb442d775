"""The read RPCs answered directly (``direct``): ``GetPlayer``, ``GetMe``, ``GetAround``,
``GetMeAround`` and ``GetTop``.

Each builds its service call from the message in one function (``player_call``,
``around_call``, ``top_call``), with the checks and defaults of the HTTP operation it
twins: the same answers, and the same errors at the same places (``["query", "limit"]``)."""

from __future__ import annotations

import orjson

from rankline.answers import AroundOut, PlayerOut, TopOut
from rankline.clock import parse_time
from rankline.errors import Forbidden, InvalidInput
from rankline.grpc.direct import Call, answered
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.http.body import check_id, int_param
from rankline.http.endpoint import BOARD_ID, PLAYER_ID
from rankline.http.tournament_routes import player_query
from rankline.reading.query import Query
from rankline.service import Rankline

_AROUND_K = (5, 0, 100)
_TOP_LIMIT = (100, 1, 1000)
_TOP_OFFSET = (0, 0, 2**62)


Read = (
    pb.GetPlayerRequest
    | pb.GetMeRequest
    | pb.GetAroundRequest
    | pb.GetMeAroundRequest
    | pb.GetTopRequest
)


def _query(request: Read) -> Query:
    """The read's board, window, period and scope (an empty field is the default)."""
    return Query(
        check_id(request.board_id, BOARD_ID, "board_id"),
        request.window or None,
        request.period or None,
        request.scope or None,
        request.metadata,
    )


async def player_call(
    service: Rankline, request: pb.GetPlayerRequest | pb.GetMeRequest, player_id: str
) -> PlayerOut:
    """``GET /v1/boards/{board_id}/players/{player_id}`` (and ``/me``) as a service call."""
    query = await player_query(service, _query(request), player_id)  # scope=cohort
    return await service.reads.player(query, player_id)


async def get_player(call: Call, request: pb.GetPlayerRequest) -> pb.PlayerOut:
    await call.admit(request.board_id)
    await call.settled(request.after)
    player_id = check_id(request.player_id, PLAYER_ID, "player_id")
    return answered(await player_call(call.direct.service, request, player_id), pb.PlayerOut)


async def get_me(call: Call, request: pb.GetMeRequest) -> pb.PlayerOut:
    caller = await call.admit(request.board_id)
    await call.settled(request.after)
    if caller.player is None:  # the admission lets only a player call a ``me`` operation
        raise Forbidden("this needs a player token")
    answer = await player_call(call.direct.service, request, caller.player.player_id)
    return answered(answer, pb.PlayerOut)


async def around_call(
    service: Rankline, request: pb.GetAroundRequest | pb.GetMeAroundRequest, player_id: str
) -> AroundOut:
    """``GET /v1/boards/{board_id}/players/{player_id}/around`` (and ``/me/around``) as a
    service call."""
    query = await player_query(service, _query(request), player_id)  # scope=cohort
    k = int_param({"k": str(request.k)}, "k", *_AROUND_K) if request.HasField("k") else 5
    return await service.reads.around(query, player_id, k)


async def get_around(call: Call, request: pb.GetAroundRequest) -> pb.AroundOut:
    await call.admit(request.board_id)
    await call.settled(request.after)
    player_id = check_id(request.player_id, PLAYER_ID, "player_id")
    return answered(await around_call(call.direct.service, request, player_id), pb.AroundOut)


async def get_me_around(call: Call, request: pb.GetMeAroundRequest) -> pb.AroundOut:
    caller = await call.admit(request.board_id)
    await call.settled(request.after)
    if caller.player is None:  # the admission lets only a player call a ``me`` operation
        raise Forbidden("this needs a player token")
    answer = await around_call(call.direct.service, request, caller.player.player_id)
    return answered(answer, pb.AroundOut)


async def top_call(service: Rankline, request: pb.GetTopRequest) -> bytes | TopOut:
    """``GET /v1/boards/{board_id}/top`` as a service call: the page as JSON bytes (from
    the top cache), or a snapshot's top (``at``)."""
    query = _query(request)
    given = {name: str(getattr(request, name)) for name in ("limit", "offset")}
    limit = int_param(given, "limit", *_TOP_LIMIT) if request.HasField("limit") else 100
    offset = int_param(given, "offset", *_TOP_OFFSET) if request.HasField("offset") else 0
    tier, cursor = request.tier or None, request.cursor or None
    if request.at:
        try:
            at = parse_time(request.at)
        except ValueError as exc:
            raise InvalidInput.at(["query", "at"], str(exc)) from None
        if tier is not None or cursor is not None:
            raise InvalidInput.at(["query", "at"], "a snapshot has no tiers or cursors")
        return await service.snapshot_reads.top_at(query, at, offset, limit)
    if cursor is not None and offset:
        raise InvalidInput.at(["query", "cursor"], "give a cursor or an offset, not both")
    body, _ = await service.reads.top(query, offset, limit, tier, cursor)
    return body


async def get_top(call: Call, request: pb.GetTopRequest) -> pb.TopOut:
    await call.admit(request.board_id)
    await call.settled(request.after)
    answer = await top_call(call.direct.service, request)
    if isinstance(answer, bytes):
        return answered(orjson.loads(answer), pb.TopOut)
    return answered(answer, pb.TopOut)
