"""The v1 board, score and leaderboard routes, and the whole endpoint table (with
``player_routes``). Each handler parses its input, calls one service method and renders the
answer; who may call it is declared in the table and checked before it runs."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from rankline.answers import SnapshotsOut
from rankline.boards import BoardSpec, shown
from rankline.clock import parse_time
from rankline.errors import InvalidInput, RanklineError
from rankline.http import endpoint as e
from rankline.http import schemas as s
from rankline.http.audited import attribution
from rankline.http.body import (
    batch_items,
    check_id,
    int_param,
    query_int,
    query_score,
    query_str,
    read_body,
    str_param,
)
from rankline.http.body import query as query_of
from rankline.http.export_routes import EXPORT_ENDPOINTS
from rankline.http.key_routes import KEY_ENDPOINTS
from rankline.http.match_routes import MATCH_ENDPOINTS
from rankline.http.moderation_routes import MODERATION_ENDPOINTS
from rankline.http.player_routes import PLAYER_ENDPOINTS
from rankline.http.responses import JsonBody, etag_matches, json_response
from rankline.http.score_batch import admit, answer_scores, player_score, prepare_score
from rankline.http.tournament_routes import TOURNAMENT_ENDPOINTS, player_query
from rankline.lifecycle.events import DeliveriesOut

# --- boards --------------------------------------------------------------------------


async def list_boards(request: Request) -> Response:
    boards = e.service_of(request).boards
    await boards.refresh()
    return json_response({"boards": [shown(b) for b in boards.boards()]})


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
    board_id = e.board_id(request)
    item = await e.body_of(request, s.ScoreIn)
    service = e.service_of(request)
    if (caller := e.player_of(request)) is not None:
        # answered once written (never 202): the board's rules decide before anything is
        deadline = e.write_deadline(request)
        return json_response(await player_score(service, board_id, item, caller, deadline))
    submission = await prepare_score(service, board_id, item)
    deadline = e.write_deadline(request)
    if e.respond_async(request):
        token = await service.ingest.accept([submission], deadline)
        return json_response(s.AcceptedOut(accepted=1, token=token), 202)
    [result] = await service.scores.submit([submission], deadline)
    if isinstance(result, RanklineError):
        raise result
    return json_response(result)


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
    service = e.service_of(request)
    sizes = e.batch_sizes(request)
    async with e.decoding(request):  # a few large bodies at a time per worker
        # its deadline passed meanwhile, or the queue ahead leaves no room for about as many
        # items as its length holds: refused undecoded
        limit = e.settings_of(request).max_body_bytes
        try:
            admit(request, service, sizes.items(e.content_length(request)))
        except RanklineError:
            await _dropped(request, limit)
            raise
        body = await read_body(request, limit)
        items = batch_items(body)
    sizes.decoded(len(body), len(items))
    return await answer_scores(request, items, service)


# --- reads ---------------------------------------------------------------------------


async def top(request: Request) -> Response:
    query = e.read_query(request)
    params = query_of(request)
    limit = int_param(params, "limit", 100, 1, 1000)
    offset = int_param(params, "offset", 0, 0, 2**62)
    tier = str_param(params, "tier")
    cursor = str_param(params, "cursor")
    at = _instant(request, "at") if "at" in params else None
    if at is not None:
        if tier is not None or cursor is not None:
            raise InvalidInput.at(["query", "at"], "a snapshot has no tiers or cursors")
        reads = e.service_of(request).snapshot_reads
        return json_response(await reads.top_at(query, at, offset, limit))
    if cursor is not None and offset:
        raise InvalidInput.at(["query", "cursor"], "give a cursor or an offset, not both")
    body, etag = await e.service_of(request).reads.top(query, offset, limit, tier, cursor)
    headers = {"ETag": etag}
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return JsonBody(body, 200, headers)


def _instant(request: Request, name: str) -> int | None:
    raw = query_str(request, name)
    if raw is None:
        return None
    try:
        return parse_time(raw)
    except ValueError as exc:
        raise InvalidInput.at(["query", name], str(exc)) from None


async def snapshots(request: Request) -> Response:
    query = e.read_query(request)
    limit = query_int(request, "limit", 100, 1, 1000)
    before = _instant(request, "before")
    return json_response(await e.service_of(request).snapshot_reads.listing(query, before, limit))


async def player(request: Request) -> Response:
    return await _player(request, e.player_id(request))


async def me(request: Request) -> Response:
    return await _player(request, e.own_id(request))


async def _player(request: Request, player_id: str) -> Response:
    service = e.service_of(request)
    query = await player_query(service, e.read_query(request), player_id)  # scope=cohort
    return json_response(await service.reads.player(query, player_id))


async def around(request: Request) -> Response:
    return await _around(request, e.player_id(request))


async def me_around(request: Request) -> Response:
    return await _around(request, e.own_id(request))


async def _around(request: Request, player_id: str) -> Response:
    service = e.service_of(request)
    query = await player_query(service, e.read_query(request), player_id)  # scope=cohort
    k = query_int(request, "k", 5, 0, 100)
    return json_response(await service.reads.around(query, player_id, k))


async def rank_of(request: Request) -> Response:
    query, score = e.read_query(request), query_score(request)
    subscore = query_score(request, "subscore") if query_str(request, "subscore") else None
    return json_response(await e.service_of(request).reads.rank_of(query, score, subscore))


async def friends(request: Request) -> Response:
    query, player_id = e.read_query(request), e.player_id(request)
    ask = await e.body_of(request, s.FriendsIn)
    body = await e.service_of(request).reads.friends(query, player_id, ask.friends, ask.k)
    return json_response(body)


async def ranks(request: Request) -> Response:
    query = e.read_query(request)
    ask = await e.body_of(request, s.RanksIn)
    return json_response(await e.service_of(request).reads.ranks(query, ask.player_ids))


async def periods(request: Request) -> Response:
    window = query_str(request, "window")
    return json_response(await e.service_of(request).reads.periods(e.board_id(request), window))


async def deliveries(request: Request) -> Response:
    events = e.service_of(request).board_events
    answer = await events.deliveries(
        e.board_id(request),
        query_str(request, "window"),
        query_str(request, "period"),
        query_int(request, "limit", 100, 1, 1000),
    )
    return json_response(answer)


async def stream(request: Request) -> Response:
    from rankline.http.stream import Stream, respond

    query = e.read_query(request)
    limit = query_int(request, "limit", 10, 1, 100)
    players = [p.strip() for p in (query_str(request, "players") or "").split(",") if p.strip()]
    if len(players) > _STREAM_PLAYERS:
        raise InvalidInput.at(
            ["query", "players"], f"at most {_STREAM_PLAYERS} players can be watched"
        )
    for name in players:
        check_id(name, e.PLAYER_ID, "player_id", "query", "players")
    service = e.service_of(request)
    live = Stream(service.reads, service.feed, query, limit, list(dict.fromkeys(players)))
    await live.read_top()  # refuse a bad board, window, period or scope before streaming
    return respond(live, e.settings_of(request).stream_heartbeat_seconds)


_STREAM_PLAYERS = 50


# --- the table -----------------------------------------------------------------------

ENDPOINTS: tuple[e.Endpoint, ...] = (
    e.Endpoint("GET", "/v1/boards", list_boards, "List boards", response=s.BoardsOut, tag="boards"),
    e.Endpoint(
        "PUT",
        "/v1/boards/{board_id}",
        put_board,
        "Create or update a board",
        auth="board",
        body=BoardSpec,
        response=BoardSpec,
        also=(201,),
        params=(e.BOARD, e.REASON),
        tag="boards",
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}",
        get_board,
        "Get a board",
        response=BoardSpec,
        params=(e.BOARD,),
        tag="boards",
    ),
    e.Endpoint(
        "DELETE",
        "/v1/boards/{board_id}",
        delete_board,
        "Delete a board and all its entries",
        auth="board",
        status=204,
        params=(e.BOARD, e.REASON),
        tag="boards",
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
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/top",
        top,
        "The top of a leaderboard",
        response=s.TopOut,
        params=(
            e.BOARD,
            *e.WHERE,
            e.METADATA,
            e.Param("limit", "query", "1..1000, default 100.", e.INT),
            e.Param("offset", "query", "Entries to skip, default 0.", e.INT),
            e.Param(
                "cursor",
                "query",
                "The `next` of an earlier page: the entries after that page's last one "
                "(instead of an offset; stable while the board changes).",
            ),
            e.Param("tier", "query", "Only the entries of this tier of the board's `tiers`."),
            e.Param(
                "at",
                "query",
                "An instant (RFC 3339): the top as the latest snapshot taken at or before it "
                "kept it, with `taken_at` (boards with `snapshots`; 404 when none); the period "
                "defaults to the one containing the instant.",
            ),
            e.Param(
                "If-None-Match",
                "header",
                "An ETag of an earlier answer: 304 without a body while the page is unchanged.",
            ),
        ),
        not_modified=True,
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/players/{player_id}",
        player,
        "A player's rank",
        response=s.PlayerOut,
        params=(e.BOARD, e.PLAYER, *e.WHERE, e.METADATA),
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/players/{player_id}/around",
        around,
        "The players around a player",
        response=s.AroundOut,
        params=(
            e.BOARD,
            e.PLAYER,
            *e.WHERE,
            e.METADATA,
            e.Param("k", "query", "0..100, default 5.", e.INT),
        ),
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/me",
        me,
        "The calling player's rank (a player token)",
        auth="me",
        response=s.PlayerOut,
        params=(e.BOARD, *e.WHERE, e.METADATA),
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/me/around",
        me_around,
        "The players around the calling player (a player token)",
        auth="me",
        response=s.AroundOut,
        params=(
            e.BOARD,
            *e.WHERE,
            e.METADATA,
            e.Param("k", "query", "0..100, default 5.", e.INT),
        ),
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/rank-of",
        rank_of,
        "The rank a score would get if it were submitted now",
        response=s.RankOfOut,
        params=(
            e.BOARD,
            *e.WHERE,
            e.Param(
                "score",
                "query",
                "The score: a signed 64-bit integer.",
                {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1},
                True,
            ),
            e.Param(
                "subscore",
                "query",
                "The subscore: a signed 64-bit integer; required on a board with a subscore, "
                "refused on any other.",
                {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1},
            ),
        ),
    ),
    e.Endpoint(
        "POST",
        "/v1/boards/{board_id}/players/{player_id}/friends",
        friends,
        "The leaderboard among a player and their friends",
        body=s.FriendsIn,
        response=s.FriendsOut,
        params=(e.BOARD, e.PLAYER, *e.WHERE, e.METADATA),
    ),
    e.Endpoint(
        "POST",
        "/v1/boards/{board_id}/ranks",
        ranks,
        "The ranks of up to 1,000 players",
        body=s.RanksIn,
        response=s.RanksOut,
        params=(e.BOARD, *e.WHERE, e.METADATA),
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/snapshots",
        snapshots,
        "The top-K snapshots of a leaderboard, newest first",
        response=SnapshotsOut,
        params=(
            e.BOARD,
            *e.WHERE[:3],
            e.Param("limit", "query", "1..1000, default 100.", e.INT),
            e.Param("before", "query", "Only snapshots taken before this instant (RFC 3339)."),
        ),
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/periods",
        periods,
        "The known periods of a board",
        response=s.PeriodsOut,
        params=(e.BOARD, e.Param("window", "query", "Only this window.")),
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/deliveries",
        deliveries,
        "The board webhook's period-close events and their delivery state, newest first",
        auth="board",
        response=DeliveriesOut,
        params=(
            e.BOARD,
            e.Param("window", "query", "Only this window."),
            e.Param("period", "query", "Only this period."),
            e.Param("limit", "query", "At most this many (1..1000, default 100).", e.INT),
        ),
        tag="boards",
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/stream",
        stream,
        "Live top and watched players (Server-Sent Events: `top`, `player`)",
        params=(
            e.BOARD,
            *e.WHERE,
            e.METADATA,
            e.Param("limit", "query", "Entries in each `top` event, 1..100, default 10.", e.INT),
            e.Param("players", "query", "Up to 50 comma-separated player ids to watch."),
            e.Param(
                "access_token",
                "query",
                "The key or player token, for a browser's EventSource, which cannot send "
                "an Authorization header (this endpoint only; never written to a log).",
            ),
        ),
    ),
)

ENDPOINTS += PLAYER_ENDPOINTS + MATCH_ENDPOINTS
ENDPOINTS += TOURNAMENT_ENDPOINTS
ENDPOINTS += MODERATION_ENDPOINTS
ENDPOINTS += EXPORT_ENDPOINTS
ENDPOINTS += KEY_ENDPOINTS
