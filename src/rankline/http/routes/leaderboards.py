"""The v1 board, score and leaderboard routes and their part of the endpoint table. Each
handler parses its input, calls one service method and renders the answer; who may call it
is declared in the table and checked before it runs."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from rankline.answers import SnapshotsOut
from rankline.audit.reasons import ReasonRequest
from rankline.boards import BoardSpec, shown
from rankline.errors import RanklineError
from rankline.http import endpoint as e
from rankline.http import schemas as s
from rankline.http.audited import attribution
from rankline.http.body import (
    batch_items,
    read_body,
)
from rankline.http.responses import JsonBody, etag_matches, json_response
from rankline.http.routes.score_batch import admit, answer_scores, player_score, take_score
from rankline.lifecycle.events import DeliveriesOut
from rankline.lifecycle.requests import DeliveriesRequest
from rankline.reading import requests as r

# --- boards --------------------------------------------------------------------------


async def list_boards(request: Request) -> Response:
    boards = await e.service_of(request).boards.listed()
    return json_response({"boards": [shown(b) for b in boards]})


async def get_board(request: Request) -> Response:
    board = await e.service_of(request).boards.find(e.board_id(request))
    return json_response(shown(board))


async def put_board(request: Request) -> Response:
    board_id = e.board_id(request)
    by = attribution(request)
    spec = await e.body_of(request, BoardSpec)
    board, created = await e.service_of(request).board_changes.put(board_id, spec, by)
    return json_response(shown(board), 201 if created else 200)


async def delete_board(request: Request) -> Response:
    board_id, by = e.board_id(request), attribution(request)
    await e.service_of(request).board_changes.delete(board_id, by=by)
    return Response(status_code=204)


# --- scores --------------------------------------------------------------------------


async def post_score(request: Request) -> Response:
    return await e.held(request, _post_score)


async def _post_score(request: Request) -> Response:
    board_id = e.board_id(request)
    item = await e.body_of(request, s.ScoreIn)
    service = e.service_of(request)
    if (caller := e.player_of(request)) is not None:
        # answered once written (never 202): the board's rules decide before anything is
        deadline = e.write_deadline(request)
        return json_response(await player_score(service, board_id, item, caller, deadline))
    deadline = e.write_deadline(request)
    asynchronous = e.respond_async(request)
    taken = await take_score(service, board_id, item, deadline, asynchronous)
    if isinstance(taken, str):
        return json_response(s.AcceptedOut(accepted=1, token=taken), 202)
    return json_response(taken)


async def _dropped(request: Request, limit: int) -> None:
    """The body received and dropped, up to ``limit`` bytes: a refusal answered before the body
    is read leaves the connection usable (a server closes a connection whose request body was
    left unread, and a client still sending it may lose the answer with it)."""
    seen = 0
    async for chunk in request.stream():
        seen += len(chunk)
        if seen > limit:
            return


async def post_batch(request: Request) -> Response:
    return await e.held(request, _post_batch)


async def _post_batch(request: Request) -> Response:
    service = e.service_of(request)
    sizes = e.batch_sizes(request)
    limit = e.settings_of(request).max_body_bytes
    refused: RanklineError | None = None
    async with e.decoding(request):  # a few large bodies at a time per worker
        # its deadline passed meanwhile, or the queue ahead leaves no room for about as many
        # items as its length holds: refused undecoded
        try:
            admit(request, service, sizes.items(e.content_length(request)))
        except RanklineError as exc:
            refused = exc
        else:
            body = await read_body(request, limit)
            items = batch_items(body)
    if refused is not None:
        # its body dropped after its turn: the next one's turn does not wait for it
        await _dropped(request, limit)
        raise refused
    sizes.decoded(len(body), len(items))
    return await answer_scores(request, items, service)


# --- reads ---------------------------------------------------------------------------


async def top(request: Request) -> Response:
    ask = e.ask(request, r.TopRequest)
    if ask.at is not None:
        return json_response(await e.service_of(request).snapshot_reads.top_at(ask))
    body, etag = await e.service_of(request).reads.top(ask)
    headers = {"ETag": etag}
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return JsonBody(body, 200, headers)


async def snapshots(request: Request) -> Response:
    ask = e.ask(request, r.SnapshotsRequest)
    return json_response(await e.service_of(request).snapshot_reads.listing(ask))


async def player(request: Request) -> Response:
    return await _player(request, e.ask(request, r.PlayerRequest))


async def me(request: Request) -> Response:
    return await _player(request, e.ask(request, r.PlayerRequest, player_id=e.own_id(request)))


async def _player(request: Request, ask: r.PlayerRequest) -> Response:
    return json_response(await e.service_of(request).reads.player(ask))


async def around(request: Request) -> Response:
    return await _around(request, e.ask(request, r.AroundRequest))


async def me_around(request: Request) -> Response:
    return await _around(request, e.ask(request, r.AroundRequest, player_id=e.own_id(request)))


async def _around(request: Request, ask: r.AroundRequest) -> Response:
    return json_response(await e.service_of(request).reads.around(ask))


async def rank_of(request: Request) -> Response:
    ask = e.ask(request, r.RankOfRequest)
    return json_response(await e.service_of(request).reads.rank_of(ask))


async def friends(request: Request) -> Response:
    ask = e.ask(request, r.FriendsRequest)
    given = await e.body_of(request, s.FriendsIn)
    body = await e.service_of(request).reads.friends(ask, given.friends, given.k)
    return json_response(body)


async def ranks(request: Request) -> Response:
    ask = e.ask(request, r.RanksRequest)
    given = await e.body_of(request, s.RanksIn)
    return json_response(await e.service_of(request).reads.ranks(ask, given.player_ids))


async def periods(request: Request) -> Response:
    ask = e.ask(request, r.PeriodsRequest)
    return json_response(await e.service_of(request).reads.periods(ask))


async def deliveries(request: Request) -> Response:
    ask = e.ask(request, DeliveriesRequest)
    return json_response(await e.service_of(request).board_events.deliveries(ask))


async def stream(request: Request) -> Response:
    from rankline.http.stream import respond
    from rankline.reading.live import opened

    service = e.service_of(request)
    live = await opened(service.reads, service.feed, e.ask(request, r.StreamRequest))
    return respond(live, e.settings_of(request).stream_heartbeat_seconds)


# --- the table -----------------------------------------------------------------------

LEADERBOARD_ENDPOINTS: tuple[e.Endpoint, ...] = (
    e.Endpoint(
        "GET",
        "/v1/boards",
        list_boards,
        "List boards",
        response=s.BoardsOut,
        tag="boards",
        rpc="ListBoards",
    ),
    e.Endpoint(
        "PUT",
        "/v1/boards/{board_id}",
        put_board,
        "Create or update a board",
        auth="board",
        body=BoardSpec,
        response=BoardSpec,
        also=(201,),
        request=ReasonRequest,
        params=(e.BOARD,),
        tag="boards",
        rpc="PutBoard",
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}",
        get_board,
        "Get a board",
        response=BoardSpec,
        params=(e.BOARD,),
        tag="boards",
        rpc="GetBoard",
    ),
    e.Endpoint(
        "DELETE",
        "/v1/boards/{board_id}",
        delete_board,
        "Delete a board and all its entries",
        auth="board",
        status=204,
        request=ReasonRequest,
        params=(e.BOARD,),
        tag="boards",
        rpc="DeleteBoard",
    ),
    e.Endpoint(
        "POST",
        "/v1/boards/{board_id}/scores",
        post_score,
        "Submit a score",
        auth="board",
        body=s.ScoreIn,
        response=s.SubmitOut,
        accepted=s.AcceptedOut,
        params=(e.BOARD, e.PREFER, e.REQUEST_TIMEOUT),
        tag="scores",
        for_players=True,
        rpc="SubmitScore",
    ),
    e.Endpoint(
        "POST",
        "/v1/scores/batch",
        post_batch,
        "Submit up to 1,000 scores",
        auth="server",
        body=s.BatchDoc,
        response=s.BatchOut,
        accepted=s.AcceptedOut,
        params=(e.PREFER, e.REQUEST_TIMEOUT),
        tag="scores",
        rpc="SubmitScores",
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/top",
        top,
        "The top of a leaderboard",
        response=s.TopOut,
        request=r.TopRequest,
        params=(
            e.BOARD,
            e.DECLARED,
            e.Param(
                "If-None-Match",
                "header",
                "An ETag of an earlier answer: 304 without a body while the page is unchanged.",
            ),
        ),
        not_modified=True,
        rpc="GetTop",
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/players/{player_id}",
        player,
        "A player's rank",
        response=s.PlayerOut,
        request=r.PlayerRequest,
        params=(e.BOARD, e.PLAYER),
        rpc="GetPlayer",
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/players/{player_id}/around",
        around,
        "The players around a player",
        response=s.AroundOut,
        request=r.AroundRequest,
        params=(e.BOARD, e.PLAYER),
        rpc="GetAround",
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/me",
        me,
        "The calling player's rank (a player token)",
        auth="me",
        response=s.PlayerOut,
        request=r.PlayerRequest,
        params=(e.BOARD,),
        rpc="GetMe",
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/me/around",
        me_around,
        "The players around the calling player (a player token)",
        auth="me",
        response=s.AroundOut,
        request=r.AroundRequest,
        params=(e.BOARD,),
        rpc="GetMeAround",
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/rank-of",
        rank_of,
        "The rank a score would get if it were submitted now",
        response=s.RankOfOut,
        request=r.RankOfRequest,
        params=(e.BOARD,),
        rpc="GetRankOf",
    ),
    e.Endpoint(
        "POST",
        "/v1/boards/{board_id}/players/{player_id}/friends",
        friends,
        "The leaderboard among a player and their friends",
        body=s.FriendsIn,
        response=s.FriendsOut,
        request=r.FriendsRequest,
        params=(e.BOARD, e.PLAYER),
        rpc="GetFriends",
    ),
    e.Endpoint(
        "POST",
        "/v1/boards/{board_id}/ranks",
        ranks,
        "The ranks of up to 1,000 players",
        body=s.RanksIn,
        response=s.RanksOut,
        request=r.RanksRequest,
        params=(e.BOARD,),
        rpc="GetRanks",
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/snapshots",
        snapshots,
        "The top-K snapshots of a leaderboard, newest first",
        response=SnapshotsOut,
        request=r.SnapshotsRequest,
        params=(e.BOARD,),
        rpc="ListSnapshots",
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/periods",
        periods,
        "The known periods of a board",
        response=s.PeriodsOut,
        request=r.PeriodsRequest,
        params=(e.BOARD,),
        rpc="ListPeriods",
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/deliveries",
        deliveries,
        "The board webhook's period-close events and their delivery state, newest first",
        auth="board",
        response=DeliveriesOut,
        request=DeliveriesRequest,
        params=(e.BOARD,),
        tag="boards",
        rpc="ListDeliveries",
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/stream",
        stream,
        "Live top and watched players (Server-Sent Events: `top`, `player`)",
        request=r.StreamRequest,
        params=(e.BOARD,),
        rpc="Watch",
    ),
)
