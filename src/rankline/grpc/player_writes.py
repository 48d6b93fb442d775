"""The player write RPCs answered directly (``direct``): ``PutProfile``, ``ErasePlayer``,
``PutFriendList``, ``BanPlayer`` and ``UnbanPlayer`` (a server key not limited to boards).
Each calls the service method its HTTP operation's handler calls, in the same order of
checks: the player id, the change's attribution (``Call.attribution``), then the body as the
operation's JSON body would be decoded (``Call.body``): the same answers, the same errors
at the same places."""

from __future__ import annotations

from google.protobuf import empty_pb2

from rankline.audit.reasons import ReasonRequest
from rankline.bodies import PLAYER_ID, check_id
from rankline.grpc.direct import Call, answered
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.grpc.reads import asked
from rankline.players.requests import FriendListIn, ProfileIn

PlayerMessage = (
    pb.PutProfileRequest
    | pb.ErasePlayerRequest
    | pb.PutFriendListRequest
    | pb.BanPlayerRequest
    | pb.UnbanPlayerRequest
)


def _player_id(request: PlayerMessage) -> str:
    return check_id(request.player_id, PLAYER_ID, "player_id")


async def put_profile(call: Call, request: pb.PutProfileRequest) -> pb.PutProfileResponse:
    """``PUT /v1/players/{player_id}``: ``created`` for HTTP's 201."""
    await call.admit()
    player_id = _player_id(request)
    given = call.body(request, ProfileIn)
    body, created = await call.direct.service.players.put_profile(player_id, given)
    return pb.PutProfileResponse(result=answered(body, pb.ProfileOut), created=created)


async def erase_player(call: Call, request: pb.ErasePlayerRequest) -> empty_pb2.Empty:
    """``DELETE /v1/players/{player_id}``."""
    await call.admit()
    player_id = _player_id(request)
    by = call.attribution(asked(ReasonRequest, request))
    await call.direct.service.players.erase(player_id, by)
    return empty_pb2.Empty()


async def put_friend_list(call: Call, request: pb.PutFriendListRequest) -> pb.FriendListOut:
    """``PUT /v1/players/{player_id}/friends``."""
    await call.admit()
    player_id = _player_id(request)
    given = call.body(request, FriendListIn)
    answer = await call.direct.service.players.set_friends(player_id, given.friends)
    return answered(answer, pb.FriendListOut)


async def ban_player(call: Call, request: pb.BanPlayerRequest) -> pb.BanOut:
    """``POST /v1/players/{player_id}/ban``."""
    await call.admit()
    player_id = _player_id(request)
    by = call.attribution(asked(ReasonRequest, request))
    answer = await call.direct.service.players.ban(player_id, by)
    return answered(answer, pb.BanOut)


async def unban_player(call: Call, request: pb.UnbanPlayerRequest) -> pb.BanOut:
    """``DELETE /v1/players/{player_id}/ban``."""
    await call.admit()
    player_id = _player_id(request)
    by = call.attribution(asked(ReasonRequest, request))
    answer = await call.direct.service.players.unban(player_id, by)
    return answered(answer, pb.BanOut)
