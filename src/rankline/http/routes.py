"""The v1 routes. Each parses its input, calls one service method and renders the answer."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from rankline.boards import BOARD_ID_PATTERN, PLAYER_ID_PATTERN, BoardSpec
from rankline.clock import parse_time
from rankline.errors import InvalidInput, RanklineError
from rankline.http import schemas as s
from rankline.http.auth import Keys
from rankline.http.body import (
    ALLOWED,
    batch_items,
    check_id,
    check_metadata,
    located,
    query_int,
    query_str,
    read_body,
    read_json,
)
from rankline.http.responses import JsonBody, etag_matches, json_response
from rankline.reads import Query
from rankline.service import Rankline
from rankline.settings import Settings
from rankline.writer import Submission

T = TypeVar("T")
Handler = Callable[[Request], Awaitable[Response]]
_BOARD = re.compile(BOARD_ID_PATTERN)
_PLAYER = re.compile(PLAYER_ID_PATTERN)


@dataclass(frozen=True)
class Param:
    name: str
    where: str
    description: str
    schema: dict[str, Any] = field(default_factory=lambda: {"type": "string"})
    required: bool = False


@dataclass(frozen=True)
class Endpoint:
    """One operation: its route and what the OpenAPI document says of it."""

    method: str
    path: str
    handler: Handler
    summary: str
    auth: str = "read"
    body: type | None = None
    response: type | None = None
    status: int = 200
    also: tuple[int, ...] = ()
    """Other success statuses with the same body (PUT answers 201 when it creates)."""
    params: tuple[Param, ...] = ()
    tag: str = "leaderboards"
    not_modified: bool = False
    """Answers carry an ETag and honour If-None-Match with 304."""

    @property
    def query_names(self) -> frozenset[str]:
        """The query parameters this operation takes."""
        return frozenset(p.name for p in self.params if p.where == "query")


def _service(request: Request) -> Rankline:
    service: Rankline = request.scope["app"].service  # RanklineApp's attributes
    return service


def _settings(request: Request) -> Settings:
    settings: Settings = request.scope["app"].settings
    return settings


def _keys(request: Request) -> Keys:
    keys: Keys = request.scope["app"].keys
    return keys


def _board_id(request: Request) -> str:
    return check_id(request.path_params["board_id"], _BOARD, "board_id")


def _player_id(request: Request) -> str:
    return check_id(request.path_params["player_id"], _PLAYER, "player_id")


def _query(request: Request) -> Query:
    """The read's board, window, period and scope, as the request gives them."""
    return Query(
        _board_id(request),
        query_str(request, "window"),
        query_str(request, "period"),
        query_str(request, "scope"),
    )


async def _body(request: Request, kind: type[T]) -> T:
    return await read_json(request, kind, _settings(request).max_body_bytes)


# --- boards --------------------------------------------------------------------------


async def list_boards(request: Request) -> Response:
    _keys(request).require_read(request)
    boards = _service(request).boards
    await boards.refresh()
    return json_response({"boards": [b.to_json() for b in boards.boards()]})


async def get_board(request: Request) -> Response:
    _keys(request).require_read(request)
    board = await _service(request).boards.find(_board_id(request))
    return json_response(board.to_json())


async def put_board(request: Request) -> Response:
    _keys(request).require_board(request, request.path_params["board_id"])
    board_id = _board_id(request)
    spec = await _body(request, BoardSpec)
    board, created = await _service(request).board_changes.put(board_id, spec)
    return json_response(board.to_json(), 201 if created else 200)


async def delete_board(request: Request) -> Response:
    _keys(request).require_board(request, request.path_params["board_id"])
    await _service(request).board_changes.delete(_board_id(request))
    return Response(status_code=204)


# --- scores --------------------------------------------------------------------------


async def _prepare(service: Rankline, board_id: str, item: s.ScoreIn) -> Submission:
    at = None
    if item.at is not None:
        try:
            at = parse_time(item.at)
        except ValueError as exc:
            raise InvalidInput.at(["body", "at"], str(exc)) from None
    check_metadata(item.metadata, service.settings.max_metadata_bytes)
    return await service.scores.prepare(
        board_id,
        player=item.player_id,
        match_id=item.match_id,
        score=item.score,
        at=at,
        scopes=item.scopes,
        metadata=item.metadata,
    )


async def post_score(request: Request) -> Response:
    _keys(request).require_board(request, request.path_params["board_id"])
    board_id = _board_id(request)
    item = await _body(request, s.ScoreIn)
    service = _service(request)
    [result] = await service.scores.submit([await _prepare(service, board_id, item)])
    if isinstance(result, RanklineError):
        raise result
    return json_response(result)


async def post_batch(request: Request) -> Response:
    scope = _keys(request).server_scope(request)
    items = batch_items(await read_body(request, _settings(request).max_body_bytes))
    service = _service(request)
    results: list[Any] = [None] * len(items)
    ready: list[tuple[int, Submission]] = []
    for index, item in enumerate(items):
        try:
            if isinstance(item, RanklineError):
                raise item
            if scope is not None and not scope.allows(item.board):
                raise scope.refuse(item.board)
            ready.append((index, await _prepare(service, item.board, item)))
        except RanklineError as exc:
            results[index] = {"index": index, "error": located(exc, index).problem()}
    outcomes = await service.scores.submit([sub for _, sub in ready]) if ready else []
    for (index, _), outcome in zip(ready, outcomes, strict=True):
        if isinstance(outcome, RanklineError):
            results[index] = {"index": index, "error": outcome.problem()}
        else:
            results[index] = {"index": index, **msgspec.structs.asdict(outcome)}
    return json_response({"results": results})


# --- reads ---------------------------------------------------------------------------


async def top(request: Request) -> Response:
    _keys(request).require_read(request)
    query = _query(request)
    limit = query_int(request, "limit", 100, 1, 1000)
    offset = query_int(request, "offset", 0, 0, 2**62)
    body, etag = await _service(request).reads.top(query, offset, limit)
    headers = {"ETag": etag}
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return JsonBody(body, 200, headers)


async def player(request: Request) -> Response:
    _keys(request).require_read(request)
    query, player_id = _query(request), _player_id(request)
    return json_response(await _service(request).reads.player(query, player_id))


async def around(request: Request) -> Response:
    _keys(request).require_read(request)
    query, player_id = _query(request), _player_id(request)
    k = query_int(request, "k", 5, 0, 100)
    return json_response(await _service(request).reads.around(query, player_id, k))


async def friends(request: Request) -> Response:
    _keys(request).require_read(request)
    query, player_id = _query(request), _player_id(request)
    ask = await _body(request, s.FriendsIn)
    body = await _service(request).reads.friends(query, player_id, ask.friends, ask.k)
    return json_response(body)


async def ranks(request: Request) -> Response:
    _keys(request).require_read(request)
    query = _query(request)
    ask = await _body(request, s.RanksIn)
    return json_response(await _service(request).reads.ranks(query, ask.player_ids))


async def periods(request: Request) -> Response:
    _keys(request).require_read(request)
    window = query_str(request, "window")
    return json_response(await _service(request).reads.periods(_board_id(request), window))


async def stream(request: Request) -> Response:
    _keys(request).require_read(request)
    from rankline.http.stream import Stream, respond

    query = _query(request)
    limit = query_int(request, "limit", 10, 1, 100)
    players = [p.strip() for p in (query_str(request, "players") or "").split(",") if p.strip()]
    if len(players) > _STREAM_PLAYERS:
        raise InvalidInput.at(
            ["query", "players"], f"at most {_STREAM_PLAYERS} players can be watched"
        )
    for name in players:
        check_id(name, _PLAYER, "player_id", "query", "players")
    service = _service(request)
    live = Stream(service.reads, service.feed, query, limit, list(dict.fromkeys(players)))
    await live.read_top()  # refuse a bad board, window, period or scope before streaming
    return respond(live, _settings(request).stream_heartbeat_seconds)


_STREAM_PLAYERS = 50


# --- the table -----------------------------------------------------------------------

_INT = {"type": "integer"}
BOARD = Param(
    "board_id",
    "path",
    f"The board id: {ALLOWED[BOARD_ID_PATTERN]}",
    {"type": "string", "pattern": BOARD_ID_PATTERN},
    True,
)
PLAYER = Param(
    "player_id",
    "path",
    f"The player id: {ALLOWED[PLAYER_ID_PATTERN]}",
    {"type": "string", "pattern": PLAYER_ID_PATTERN},
    True,
)
WHERE = (
    Param("window", "query", "all_time (default), daily, weekly, monthly or season."),
    Param("period", "query", "The period name, e.g. 2026-11-21 or 2026-W47; default current."),
    Param("scope", "query", "global (default) or dimension:value, e.g. region:EU."),
)

ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("GET", "/v1/boards", list_boards, "List boards", response=s.BoardsOut, tag="boards"),
    Endpoint(
        "PUT",
        "/v1/boards/{board_id}",
        put_board,
        "Create or update a board",
        auth="server",
        body=BoardSpec,
        response=BoardSpec,
        also=(201,),
        params=(BOARD,),
        tag="boards",
    ),
    Endpoint(
        "GET",
        "/v1/boards/{board_id}",
        get_board,
        "Get a board",
        response=BoardSpec,
        params=(BOARD,),
        tag="boards",
    ),
    Endpoint(
        "DELETE",
        "/v1/boards/{board_id}",
        delete_board,
        "Delete a board and all its entries",
        auth="server",
        status=204,
        params=(BOARD,),
        tag="boards",
    ),
    Endpoint(
        "POST",
        "/v1/boards/{board_id}/scores",
        post_score,
        "Submit a score",
        auth="server",
        body=s.ScoreIn,
        response=s.SubmitOut,
        params=(BOARD,),
        tag="scores",
    ),
    Endpoint(
        "POST",
        "/v1/scores/batch",
        post_batch,
        "Submit up to 1,000 scores",
        auth="server",
        body=s.BatchDoc,
        response=s.BatchOut,
        tag="scores",
    ),
    Endpoint(
        "GET",
        "/v1/boards/{board_id}/top",
        top,
        "The top of a leaderboard",
        response=s.TopOut,
        params=(
            BOARD,
            *WHERE,
            Param("limit", "query", "1..1000, default 100.", _INT),
            Param("offset", "query", "Entries to skip, default 0.", _INT),
            Param(
                "If-None-Match",
                "header",
                "An ETag of an earlier answer: 304 without a body while the page is unchanged.",
            ),
        ),
        not_modified=True,
    ),
    Endpoint(
        "GET",
        "/v1/boards/{board_id}/players/{player_id}",
        player,
        "A player's rank",
        response=s.PlayerOut,
        params=(BOARD, PLAYER, *WHERE),
    ),
    Endpoint(
        "GET",
        "/v1/boards/{board_id}/players/{player_id}/around",
        around,
        "The players around a player",
        response=s.AroundOut,
        params=(BOARD, PLAYER, *WHERE, Param("k", "query", "0..100, default 5.", _INT)),
    ),
    Endpoint(
        "POST",
        "/v1/boards/{board_id}/players/{player_id}/friends",
        friends,
        "The leaderboard among a player and their friends",
        body=s.FriendsIn,
        response=s.FriendsOut,
        params=(BOARD, PLAYER, *WHERE),
    ),
    Endpoint(
        "POST",
        "/v1/boards/{board_id}/ranks",
        ranks,
        "The ranks of up to 1,000 players",
        body=s.RanksIn,
        response=s.RanksOut,
        params=(BOARD, *WHERE),
    ),
    Endpoint(
        "GET",
        "/v1/boards/{board_id}/periods",
        periods,
        "The known periods of a board",
        response=s.PeriodsOut,
        params=(BOARD, Param("window", "query", "Only this window.")),
    ),
    Endpoint(
        "GET",
        "/v1/boards/{board_id}/stream",
        stream,
        "Live top and watched players (Server-Sent Events: `top`, `player`)",
        params=(
            BOARD,
            *WHERE,
            Param("limit", "query", "Entries in each `top` event, 1..100, default 10.", _INT),
            Param("players", "query", "Up to 50 comma-separated player ids to watch."),
        ),
    ),
)

# The player routes use the helpers above, so they are imported last.
from rankline.http.player_routes import PLAYER_ENDPOINTS  # noqa: E402

ENDPOINTS += PLAYER_ENDPOINTS
