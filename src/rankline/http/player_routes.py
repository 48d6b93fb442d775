"""The v1 player routes: profiles, history, stored friend lists, bans and erasure. Each parses
its input, calls one ``service.players`` method and renders the answer. ``routes.ENDPOINTS``
includes ``PLAYER_ENDPOINTS``."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from rankline.http import schemas as s
from rankline.http.body import check_id, check_metadata, query, query_int, query_str
from rankline.http.responses import json_response
from rankline.http.routes import (
    _BOARD,
    _INT,
    BOARD,
    PLAYER,
    WHERE,
    Endpoint,
    Param,
    _body,
    _keys,
    _player_id,
    _query,
    _service,
)
from rankline.players import Players, Profile


def _players(request: Request) -> Players:
    return _service(request).players


async def put_player(request: Request) -> Response:
    _keys(request).require_server(request)
    player_id = _player_id(request)
    given = await _body(request, s.ProfileIn)
    check_metadata(given.metadata, _service(request).settings.max_metadata_bytes)
    profile = Profile(
        player_id, given.display_name, given.avatar_url, given.country, given.metadata or {}
    )
    body, created = await _players(request).put_profile(profile)
    return json_response(body, 201 if created else 200)


async def get_player(request: Request) -> Response:
    _keys(request).require_read(request)
    return json_response(await _players(request).profile(_player_id(request)))


async def delete_player(request: Request) -> Response:
    _keys(request).require_server(request)
    await _players(request).erase(_player_id(request))
    return Response(status_code=204)


async def player_history(request: Request) -> Response:
    _keys(request).require_read(request)
    player_id = _player_id(request)
    board = query_str(request, "board")
    if board is not None:
        check_id(board, _BOARD, "board id", "query", "board")
    limit = query_int(request, "limit", 100, 1, 1000)
    cursor = query_str(request, "cursor")
    body = await _players(request).history(player_id, board=board, limit=limit, cursor=cursor)
    return json_response(body)


async def put_friend_list(request: Request) -> Response:
    _keys(request).require_server(request)
    player_id = _player_id(request)
    given = await _body(request, s.FriendListIn)
    return json_response(await _players(request).set_friends(player_id, given.friends))


async def get_friend_list(request: Request) -> Response:
    _keys(request).require_read(request)
    return json_response(await _players(request).friends(_player_id(request)))


async def ban_player(request: Request) -> Response:
    _keys(request).require_server(request)
    return json_response(await _players(request).ban(_player_id(request)))


async def unban_player(request: Request) -> Response:
    _keys(request).require_server(request)
    return json_response(await _players(request).unban(_player_id(request)))


async def stored_friends(request: Request) -> Response:
    _keys(request).require_read(request)
    read, player_id = _query(request), _player_id(request)
    k = None if query(request).get("k") is None else query_int(request, "k", 0, 0, 5000)
    return json_response(await _players(request).friends_board(read, player_id, k=k))


PLAYER_ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint(
        "PUT",
        "/v1/players/{player_id}",
        put_player,
        "Create or replace a player's profile",
        auth="server",
        body=s.ProfileIn,
        response=s.ProfileOut,
        also=(201,),
        params=(PLAYER,),
        tag="players",
    ),
    Endpoint(
        "GET",
        "/v1/players/{player_id}",
        get_player,
        "A player's profile and current standings",
        response=s.PlayerProfileOut,
        params=(PLAYER,),
        tag="players",
    ),
    Endpoint(
        "DELETE",
        "/v1/players/{player_id}",
        delete_player,
        "Erase a player everywhere",
        auth="server",
        status=204,
        params=(PLAYER,),
        tag="players",
    ),
    Endpoint(
        "GET",
        "/v1/players/{player_id}/history",
        player_history,
        "A player's score submissions, newest first",
        response=s.HistoryOut,
        params=(
            PLAYER,
            Param("board", "query", "Only this board."),
            Param("limit", "query", "1..1000, default 100.", _INT),
            Param("cursor", "query", "The next_cursor of the previous page."),
        ),
        tag="players",
    ),
    Endpoint(
        "PUT",
        "/v1/players/{player_id}/friends",
        put_friend_list,
        "Replace a player's stored friend list",
        auth="server",
        body=s.FriendListIn,
        response=s.FriendListOut,
        params=(PLAYER,),
        tag="players",
    ),
    Endpoint(
        "GET",
        "/v1/players/{player_id}/friends",
        get_friend_list,
        "A player's stored friend list",
        response=s.FriendListOut,
        params=(PLAYER,),
        tag="players",
    ),
    Endpoint(
        "POST",
        "/v1/players/{player_id}/ban",
        ban_player,
        "Hide a player from every leaderboard",
        auth="server",
        response=s.BanOut,
        params=(PLAYER,),
        tag="players",
    ),
    Endpoint(
        "DELETE",
        "/v1/players/{player_id}/ban",
        unban_player,
        "Bring a banned player back",
        auth="server",
        response=s.BanOut,
        params=(PLAYER,),
        tag="players",
    ),
    Endpoint(
        "GET",
        "/v1/boards/{board_id}/players/{player_id}/friends",
        stored_friends,
        "The leaderboard among a player and their stored friends",
        response=s.FriendsOut,
        params=(BOARD, PLAYER, *WHERE, Param("k", "query", "0..5000; default all.", _INT)),
    ),
)
