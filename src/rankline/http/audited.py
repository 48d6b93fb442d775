"""The audit log's entries for hand-made changes that are not moderation: board definitions
(create, change, freeze, unfreeze, delete), tournaments, bans, unbans and erasure. An
endpoint naming an ``audit`` action is recorded here once its handler succeeds, with the
caller's key fingerprint (``Keys.actor``), the board and player of its path and the
``reason`` query parameter. (Moderation records its own entries in the transaction that
makes the change: ``rankline.moderation``.)"""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from rankline.errors import RanklineError
from rankline.http import endpoint as e
from rankline.http.body import check_query, query_str
from rankline.moderation.audit import check_reason

log = logging.getLogger("rankline.audit")
_unjson = msgspec.json.Decoder()


async def record_call(
    request: Request, action: str, handler: e.Handler, known: frozenset[str]
) -> Response:
    """Run ``handler``; when it succeeds, record ``action`` in the audit log. Query
    parameters other than ``known`` are refused first."""
    if request.scope["query_string"]:
        check_query(request, known)
    reason = check_reason(query_str(request, "reason"), ["query", "reason"])
    actor = e.keys_of(request).actor(request)
    service = e.service_of(request)
    params = request.path_params
    board_id = params.get("board_id") or params.get("tournament_id")
    before = _status_of(service.boards.boards(), board_id)
    response = await handler(request)
    if response.status_code >= 300:
        return response
    detail: dict[str, Any] = {}
    if action == "board.put":
        answer = _unjson.decode(bytes(response.body)) if response.body else {}
        status = answer.get("status") if isinstance(answer, dict) else None
        detail = {"definition": answer}
        if response.status_code == 201:
            action = "board.create"
        elif status == "frozen" and before != "frozen":
            action = "board.freeze"
        elif status == "active" and before == "frozen":
            action = "board.unfreeze"
        else:
            action = "board.change"
    elif action == "tournament.put":
        action = "tournament.create" if response.status_code == 201 else "tournament.change"
    audit = service.audit
    entry = audit.entry(
        actor,
        action,
        board=board_id,
        player=params.get("player_id"),
        reason=reason,
        detail=detail,
    )
    try:
        await audit.record(entry)
    except RanklineError as exc:
        # The change is made; its record could not be written. Say so loudly.
        log.error("the audit entry of %s on %s was not recorded: %s", action, board_id, exc.detail)
    return response


def _status_of(boards: list[Any], board_id: str | None) -> str | None:
    for board in boards:
        if board.id == board_id:
            status: str = board.spec.status
            return status
    return None
