"""The v1 moderation routes: an entry removed, a period reset, the audit log. Each parses its
input, calls one ``service.moderation`` or ``service.audit`` method and renders the answer;
the actor is the caller's key fingerprint (``Keys.actor``). ``routes.ENDPOINTS`` includes
``MODERATION_ENDPOINTS``."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from rankline.access.scopes import board_named
from rankline.audit.answers import AuditOut
from rankline.audit.requests import AuditRequest
from rankline.boards import MATCH_ID_PATTERN
from rankline.bodies import MATCH_ID
from rankline.http import endpoint as e
from rankline.http.auth import authorization
from rankline.http.body import check_id, check_query
from rankline.http.responses import json_response
from rankline.moderation.answers import DeadLettersOut, RemovedOut, VoidedOut
from rankline.moderation.dead_letters import dead_letters
from rankline.moderation.requests import DeadLettersRequest, RemoveRequest, ResetIn, VoidIn


async def remove_entry(request: Request) -> Response:
    ask = e.ask(request, RemoveRequest)
    answer = await e.service_of(request).moderation.remove(
        e.keys_of(request).actor(authorization(request.scope)), ask
    )
    return json_response(answer)


async def reset_board(request: Request) -> Response:
    board_id = e.board_id(request)
    check_query(request, frozenset())
    given = await e.body_of(request, ResetIn)
    answer = await e.service_of(request).moderation.reset(
        e.keys_of(request).actor(authorization(request.scope)), board_id, given
    )
    return json_response(answer)


async def void_match(request: Request) -> Response:
    board_id = e.board_id(request)
    check_query(request, frozenset())
    match_id = check_id(request.path_params["match_id"], MATCH_ID, "match id")
    given = await e.body_of(request, VoidIn) if await request.body() else VoidIn()
    answer = await e.service_of(request).moderation.void(
        e.keys_of(request).actor(authorization(request.scope)), board_id, match_id, given
    )
    return json_response(answer)


async def audit_log(request: Request) -> Response:
    ask = e.ask(request, AuditRequest)
    _board_for(request, ask.board)
    return json_response(await e.service_of(request).audit.page(ask))


def _board_for(request: Request, board: str | None) -> None:
    """A key limited to boards must name one of its own with ``?board=``."""
    board_named(e.key_scope(request), board)


async def list_dead_letters(request: Request) -> Response:
    ask = e.ask(request, DeadLettersRequest)
    _board_for(request, ask.board)
    return json_response(await dead_letters(e.service_of(request).dead_letters, ask))


MODERATION_ENDPOINTS: tuple[e.Endpoint, ...] = (
    e.Endpoint(
        "DELETE",
        "/v1/boards/{board_id}/players/{player_id}",
        remove_entry,
        "Remove a player's entry from a board (every leaderboard, or those named)",
        auth="board",
        response=RemovedOut,
        request=RemoveRequest,
        params=(e.BOARD, e.PLAYER),
        tag="moderation",
        rpc="RemoveEntry",
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
        rpc="ResetBoard",
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
        rpc="VoidMatch",
    ),
    e.Endpoint(
        "GET",
        "/v1/audit",
        audit_log,
        "The audit log of changes made by hand, newest first",
        auth="server",
        response=AuditOut,
        request=AuditRequest,
        tag="moderation",
        rpc="ListAuditEntries",
    ),
    e.Endpoint(
        "GET",
        "/v1/dead-letters",
        list_dead_letters,
        "Submissions taken asynchronously that could not be applied, newest first",
        auth="server",
        response=DeadLettersOut,
        request=DeadLettersRequest,
        tag="moderation",
        rpc="ListDeadLetters",
    ),
)
