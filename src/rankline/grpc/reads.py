"""The read RPCs answered directly (``direct``): ``GetPlayer``, ``GetMe``, ``GetAround``,
``GetMeAround`` and ``GetTop``.

Each builds its service call from the message in one function (``player_call``,
``around_call``, ``top_call``), with the checks and defaults of the HTTP operation it
twins: the same answers, and the same errors at the same places (``["query", "limit"]``)."""

from __future__ import annotations

from typing import TypeVar

import msgspec
import orjson
from google.protobuf.message import Message

from rankline.answers import AroundOut, PlayerOut, TopOut
from rankline.errors import Forbidden
from rankline.grpc.direct import Call, answered
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.parameters import build, query_names
from rankline.reading.requests import AroundRequest, PlayerRequest, TopRequest
from rankline.service import Rankline

R = TypeVar("R", bound=msgspec.Struct)
_PATH = ("board_id", "player_id", "tournament_id")


def asked(kind: type[R], request: Message, **given: str) -> R:
    """The typed request (``rankline.parameters``) an RPC's message stands for: its path
    fields and the query fields it sets, as the text the HTTP edge would have received, so
    that the checks, defaults and errors are the declaration's, as over HTTP (an empty string
    or an unset optional field is a parameter not given)."""
    path: dict[str, str] = {}
    query: dict[str, str] = {}
    names = query_names(kind)
    for field, value in request.ListFields():
        name = field.name
        if name in _PATH:
            path[name] = value
        elif name in names:
            query[name] = _text(value)
    for name in _PATH:  # an empty path field is checked, and refused, as a path
        if name not in path and name not in given and name in kind.__struct_fields__:
            path[name] = ""
    return build(kind, path, query, **given)


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


async def player_call(
    service: Rankline, request: pb.GetPlayerRequest | pb.GetMeRequest, **given: str
) -> PlayerOut:
    """``GET /v1/boards/{board_id}/players/{player_id}`` (and ``/me``) as a service call."""
    return await service.reads.player(asked(PlayerRequest, request, **given))


async def get_player(call: Call, request: pb.GetPlayerRequest) -> pb.PlayerOut:
    await call.admit(request.board_id)
    await call.settled(request.after)
    return answered(await player_call(call.direct.service, request), pb.PlayerOut)


async def get_me(call: Call, request: pb.GetMeRequest) -> pb.PlayerOut:
    caller = await call.admit(request.board_id)
    await call.settled(request.after)
    if caller.player is None:  # the admission lets only a player call a ``me`` operation
        raise Forbidden("this needs a player token")
    answer = await player_call(call.direct.service, request, player_id=caller.player.player_id)
    return answered(answer, pb.PlayerOut)


async def around_call(
    service: Rankline, request: pb.GetAroundRequest | pb.GetMeAroundRequest, **given: str
) -> AroundOut:
    """``GET /v1/boards/{board_id}/players/{player_id}/around`` (and ``/me/around``) as a
    service call."""
    return await service.reads.around(asked(AroundRequest, request, **given))


async def get_around(call: Call, request: pb.GetAroundRequest) -> pb.AroundOut:
    await call.admit(request.board_id)
    await call.settled(request.after)
    return answered(await around_call(call.direct.service, request), pb.AroundOut)


async def get_me_around(call: Call, request: pb.GetMeAroundRequest) -> pb.AroundOut:
    caller = await call.admit(request.board_id)
    await call.settled(request.after)
    if caller.player is None:  # the admission lets only a player call a ``me`` operation
        raise Forbidden("this needs a player token")
    answer = await around_call(call.direct.service, request, player_id=caller.player.player_id)
    return answered(answer, pb.AroundOut)


async def top_call(service: Rankline, request: pb.GetTopRequest) -> bytes | TopOut:
    """``GET /v1/boards/{board_id}/top`` as a service call: the page as JSON bytes (from
    the top cache), or a snapshot's top (``at``)."""
    ask = asked(TopRequest, request)
    if ask.at is not None:
        return await service.snapshot_reads.top_at(ask)
    body, _ = await service.reads.top(ask)
    return body


async def get_top(call: Call, request: pb.GetTopRequest) -> pb.TopOut:
    await call.admit(request.board_id)
    await call.settled(request.after)
    answer = await top_call(call.direct.service, request)
    if isinstance(answer, bytes):
        return answered(orjson.loads(answer), pb.TopOut)
    return answered(answer, pb.TopOut)
