"""The player read RPCs answered directly (``direct``): ``GetProfile``, ``GetHistory``,
``GetFriendList``, ``GetStoredFriends``, ``GetMeFriends`` and ``GetRating``. Each calls the
service method its HTTP operation's handler calls, with the typed request built from the
message's fields (``reads.asked``): the same answers, the same errors at the same places."""

from __future__ import annotations

from rankline.bodies import PLAYER_ID, check_id
from rankline.errors import Forbidden
from rankline.grpc.direct import Call, answered
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.grpc.reads import asked
from rankline.players.requests import HistoryRequest, StoredFriendsRequest
from rankline.ratings.requests import RatingRequest


def _player_id(request: pb.GetProfileRequest | pb.GetFriendListRequest) -> str:
    return check_id(request.player_id, PLAYER_ID, "player_id")


async def get_profile(call: Call, request: pb.GetProfileRequest) -> pb.PlayerProfileOut:
    """``GET /v1/players/{player_id}``."""
    await call.admit()
    answer = await call.direct.service.players.profile(_player_id(request))
    return answered(answer, pb.PlayerProfileOut)


async def get_history(call: Call, request: pb.GetHistoryRequest) -> pb.HistoryOut:
    """``GET /v1/players/{player_id}/history``."""
    await call.admit()
    answer = await call.direct.service.players.history(asked(HistoryRequest, request))
    return answered(answer, pb.HistoryOut)


async def get_friend_list(call: Call, request: pb.GetFriendListRequest) -> pb.FriendListOut:
    """``GET /v1/players/{player_id}/friends``."""
    await call.admit()
    answer = await call.direct.service.players.friends(_player_id(request))
    return answered(answer, pb.FriendListOut)


async def get_stored_friends(call: Call, request: pb.GetStoredFriendsRequest) -> pb.FriendsOut:
    """``GET /v1/boards/{board_id}/players/{player_id}/friends``."""
    await call.admit(request.board_id)
    await call.settled(request.after)
    ask = asked(StoredFriendsRequest, request)
    return answered(await call.direct.service.players.friends_board(ask), pb.FriendsOut)


async def get_me_friends(call: Call, request: pb.GetMeFriendsRequest) -> pb.FriendsOut:
    """``GET /v1/boards/{board_id}/me/friends`` (a player token)."""
    caller = await call.admit(request.board_id)
    await call.settled(request.after)
    if caller.player is None:  # the admission lets only a player call a ``me`` operation
        raise Forbidden("this needs a player token")
    ask = asked(StoredFriendsRequest, request, player_id=caller.player.player_id)
    return answered(await call.direct.service.players.friends_board(ask), pb.FriendsOut)


async def get_rating(call: Call, request: pb.GetRatingRequest) -> pb.PlayerRatingOut:
    """``GET /v1/boards/{board_id}/players/{player_id}/rating``."""
    await call.admit(request.board_id)
    answer = await call.direct.service.matches.player(asked(RatingRequest, request))
    return answered(answer, pb.PlayerRatingOut)
