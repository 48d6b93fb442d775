"""The v1 moderation routes: an entry removed, a period reset, the audit log. Each parses its
input, calls one ``service.moderation`` or ``service.audit`` method and renders the answer;
the actor is the caller's key fingerprint (``Keys.actor``). ``routes.ENDPOINTS`` includes
``MODERATION_ENDPOINTS``."""

from __future__ import annotations

import re
from typing import Annotated

import msgspec
from msgspec import Meta
from starlette.requests import Request
from starlette.responses import Response

from rankline.audit.answers import AuditOut
from rankline.audit.log import MAX_REASON, check_reason
from rankline.boards import MATCH_ID_PATTERN
from rankline.errors import InvalidInput
from rankline.http import endpoint as e
from rankline.http.auth import authorization
from rankline.http.body import check_id, check_query, query_int, query_str
from rankline.http.responses import json_response
from rankline.moderation.answers import DeadLettersOut, RemovedOut, VoidedOut
from rankline.moderation.dead_letters import dead_letters

MATCH_ID = re.compile(MATCH_ID_PATTERN)
Reason = Annotated[str, Meta(max_length=MAX_REASON)]


class ResetIn(msgspec.Struct, forbid_unknown_fields=True):
    """What a reset restarts: the current period of ``window`` (default the board's first),
    on every scope or on ``scope`` only."""

    window: str | None = None
    scope: str | None = None
    reason: Reason | None = None


async def remove_entry(request: Request) -> Response:
    board_id, player_id = e.board_id(request), e.player_id(request)
    check_query(request, _REMOVE_QUERY)
    reason = check_reason(query_str(request, "reason"), ["query", "reason"])
    answer = await e.service_of(request).moderation.remove(
        e.keys_of(request).actor(authorization(request.scope)),
        board_id,
        player_id,
        window=query_str(request, "window"),
        period=query_str(request, "period"),
        scope=query_str(request, "scope"),
        reason=reason,
    )
    return json_response(answer)


async def reset_board(request: Request) -> Response:
    board_id = e.board_id(request)
    check_query(request, frozenset())
    given = await e.body_of(request, ResetIn)
    answer = await e.service_of(request).moderation.reset(
        e.keys_of(request).actor(authorization(request.scope)),
        board_id,
        window=given.window,
        scope=given.scope,
        reason=check_reason(given.reason, ["body", "reason"]),
    )
    return json_response(answer)


class VoidIn(msgspec.Struct, forbid_unknown_fields=True):
    reason: Reason | None = None


async def void_match(request: Request) -> Response:
    board_id = e.board_id(request)
    check_query(request, frozenset())
    match_id = check_id(request.path_params["match_id"], MATCH_ID, "match id")
    given = await e.body_of(request, VoidIn) if await request.body() else VoidIn()
    answer = await e.service_of(request).moderation.void(
        e.keys_of(request).actor(authorization(request.scope)),
        board_id,
        match_id,
        reason=check_reason(given.reason, ["body", "reason"]),
    )
    return json_response(answer)


async def audit_log(request: Request) -> Response:
    check_query(request, _AUDIT_QUERY)
    board = _board_for(request)
    player = query_str(request, "player")
    if player is not None:
        check_id(player, e.PLAYER_ID, "player id", "query", "player")
    answer = await e.service_of(request).audit.page(
        limit=query_int(request, "limit", 100, 1, 1000),
        cursor=query_str(request, "cursor"),
        board=board,
        player=player,
    )
    return json_response(answer)


def _board_for(request: Request) -> str | None:
    """The ``board`` query parameter; a key limited to boards must name one of its own."""
    board = query_str(request, "board")
    if board is not None:
        check_id(board, e.BOARD_ID, "board id", "query", "board")
    scope = e.key_scope(request)
    if scope is not None:
        if board is None:
            raise InvalidInput.at(
                ["query", "board"],
                f"this key is limited to boards {'|'.join(scope.patterns)}: "
                "name one of them with ?board=",
            )
        if not scope.allows(board):
            raise scope.refuse(board)
    return board


async def list_dead_letters(request: Request) -> Response:
    check_query(request, _DEAD_QUERY)
    board = _board_for(request)
    limit = query_int(request, "limit", 50, 1, 1000)
    service = e.service_of(request)
    return json_response(await dead_letters(service.dead_letters, limit, board))


_DEAD_QUERY = frozenset({"board", "limit"})
_REMOVE_QUERY = frozenset({"window", "period", "scope", "reason"})
_AUDIT_QUERY = frozenset({"board", "player", "limit", "cursor"})
_NARROW = (
    e.Param("window", "query", "Only this window's leaderboards (default: every window)."),
    e.Param("period", "query", "Only this period of the window (default: every period)."),
    e.Param("scope", "query", "Only this scope, global or dimension:value (default: every one)."),
)

MODERATION_ENDPOINTS: tuple[e.Endpoint, ...] = (
    e.Endpoint(
        "DELETE",
        "/v1/boards/{board_id}/players/{player_id}",
        remove_entry,
        "Remove a player's entry from a board (every leaderboard, or those named)",
        auth="board",
        response=RemovedOut,
        params=(e.BOARD, e.PLAYER, *_NARROW, e.REASON),
        tag="moderation",
    ),
    e.Endpoint(
        "POST",
        "/v1/boards/{board_id}/reset",
        reset_board,
        "Restart the current period of a board's window",
        auth="board",
        body=ResetIn,
        response=RemovedOut,
        params=(e.BOARD,),
        tag="moderation",
    ),
    e.Endpoint(
        "POST",
        "/v1/boards/{board_id}/matches/{match_id}/void",
        void_match,
        "Void a match: undo every submission under its id, as if never submitted",
        auth="board",
        body=VoidIn,
        response=VoidedOut,
        params=(
            e.BOARD,
            e.Param(
                "match_id",
                "path",
                'The match id. A "/" in it may be sent as it is or percent-encoded (%2F).',
                {"type": "string", "pattern": MATCH_ID_PATTERN},
                True,
                slashes=True,
            ),
        ),
        tag="moderation",
    ),
    e.Endpoint(
        "GET",
        "/v1/audit",
        audit_log,
        "The audit log of changes made by hand, newest first",
        auth="server",
        response=AuditOut,
        params=(
            e.Param("board", "query", "Only this board's entries."),
            e.Param("player", "query", "Only this player's entries."),
            e.Param("limit", "query", "Entries per page, 1..1000, default 100.", e.INT),
            e.Param("cursor", "query", "The `next` of the previous page."),
        ),
        tag="moderation",
    ),
    e.Endpoint(
        "GET",
        "/v1/dead-letters",
        list_dead_letters,
        "Submissions taken asynchronously that could not be applied, newest first",
        auth="server",
        response=DeadLettersOut,
        params=(
            e.Param("board", "query", "Only this board's dead letters."),
            e.Param("limit", "query", "At most this many, 1..1000, default 50.", e.INT),
        ),
        tag="moderation",
    ),
)
