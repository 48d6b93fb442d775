"""The v1 player routes: profiles, history, stored friend lists, bans and erasure. Each parses
its input, calls one ``service.players`` method and renders the answer. ``routes.ENDPOINTS``
includes ``PLAYER_ENDPOINTS``."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from rankline.audit.reasons import ReasonRequest
from rankline.http import endpoint as e
from rankline.http import schemas as s
from rankline.http.audited import attribution
from rankline.http.responses import json_response
from rankline.players.accounts import Players
from rankline.players.requests import HistoryRequest, StoredFriendsRequest


def _players(request: Request) -> Players:
    return e.service_of(request).players


async def put_player(request: Request) -> Response:
    player_id = e.player_id(request)
    given = await e.body_of(request, s.ProfileIn)
    body, created = await _players(request).put_profile(player_id, given)
    return json_response(body, 201 if created else 200)


async def get_player(request: Request) -> Response:
    return json_response(await _players(request).profile(e.player_id(request)))


async def delete_player(request: Request) -> Response:
    await _players(request).erase(e.player_id(request), attribution(request))
    return Response(status_code=204)


async def player_history(request: Request) -> Response:
    ask = e.ask(request, HistoryRequest)
    return json_response(await _players(request).history(ask))


async def put_friend_list(request: Request) -> Response:
    player_id = e.player_id(request)
    given = await e.body_of(request, s.FriendListIn)
    return json_response(await _players(request).set_friends(player_id, given.friends))


async def get_friend_list(request: Request) -> Response:
    return json_response(await _players(request).friends(e.player_id(request)))


async def ban_player(request: Request) -> Response:
    return json_response(await _players(request).ban(e.player_id(request), attribution(request)))


async def unban_player(request: Request) -> Response:
    answer = await _players(request).unban(e.player_id(request), attribution(request))
    return json_response(answer)


async def stored_friends(request: Request) -> Response:
    ask = e.ask(request, StoredFriendsRequest)
    return json_response(await _players(request).friends_board(ask))


async def me_friends(request: Request) -> Response:
    ask = e.ask(request, StoredFriendsRequest, player_id=e.own_id(request))
    return json_response(await _players(request).friends_board(ask))


PLAYER_ENDPOINTS: tuple[e.Endpoint, ...] = (
    e.Endpoint(
        "PUT",
        "/v1/players/{player_id}",
        put_player,
        "Create or replace a player's profile",
        auth="players",
        body=s.ProfileIn,
        response=s.ProfileOut,
        also=(201,),
        params=(e.PLAYER,),
        tag="players",
        rpc="PutProfile",
    ),
    e.Endpoint(
        "GET",
        "/v1/players/{player_id}",
        get_player,
        "A player's profile and current standings",
        response=s.PlayerProfileOut,
        params=(e.PLAYER,),
        tag="players",
        rpc="GetProfile",
    ),
    e.Endpoint(
        "DELETE",
        "/v1/players/{player_id}",
        delete_player,
        "Erase a player everywhere",
        auth="players",
        status=204,
        request=ReasonRequest,
        params=(e.PLAYER,),
        tag="players",
        rpc="ErasePlayer",
    ),
    e.Endpoint(
        "GET",
        "/v1/players/{player_id}/history",
        player_history,
        "A player's score submissions (on a rating board: rating changes), newest first",
        response=s.HistoryOut,
        request=HistoryRequest,
        params=(e.PLAYER,),
        tag="players",
        rpc="GetHistory",
    ),
    e.Endpoint(
        "PUT",
        "/v1/players/{player_id}/friends",
        put_friend_list,
        "Replace a player's stored friend list",
        auth="players",
        body=s.FriendListIn,
        response=s.FriendListOut,
        params=(e.PLAYER,),
        tag="players",
        rpc="PutFriendList",
    ),
    e.Endpoint(
        "GET",
        "/v1/players/{player_id}/friends",
        get_friend_list,
        "A player's stored friend list",
        response=s.FriendListOut,
        params=(e.PLAYER,),
        tag="players",
        rpc="GetFriendList",
    ),
    e.Endpoint(
        "POST",
        "/v1/players/{player_id}/ban",
        ban_player,
        "Hide a player from every leaderboard",
        auth="players",
        response=s.BanOut,
        request=ReasonRequest,
        params=(e.PLAYER,),
        tag="players",
        rpc="BanPlayer",
    ),
    e.Endpoint(
        "DELETE",
        "/v1/players/{player_id}/ban",
        unban_player,
        "Bring a banned player back",
        auth="players",
        response=s.BanOut,
        request=ReasonRequest,
        params=(e.PLAYER,),
        tag="players",
        rpc="UnbanPlayer",
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/players/{player_id}/friends",
        stored_friends,
        "The leaderboard among a player and their stored friends",
        response=s.FriendsOut,
        request=StoredFriendsRequest,
        params=(e.BOARD, e.PLAYER),
        rpc="GetStoredFriends",
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/me/friends",
        me_friends,
        "The leaderboard among the calling player and their stored friends (a player token)",
        auth="me",
        response=s.FriendsOut,
        request=StoredFriendsRequest,
        params=(e.BOARD,),
        rpc="GetMeFriends",
    ),
)
