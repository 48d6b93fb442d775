"""Who makes a change by hand and why, as a request says it (``attribution``): the caller's
key fingerprint (``Keys.actor``) and the ``reason`` query parameter. Board definitions, bans,
unbans and erasure hand it to the service, which writes the audit entry in the transaction
of the change (as moderation does). A tournament's changes are recorded here instead, once
the handler succeeds (``record_call``, for an endpoint naming an ``audit`` action)."""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import Response

from rankline.errors import RanklineError
from rankline.http import endpoint as e
from rankline.http.body import check_query, query_str
from rankline.moderation.audit import check_reason
from rankline.store.audit import Attribution

log = logging.getLogger("rankline.audit")


_REASON = frozenset({"reason"})


def attribution(request: Request) -> Attribution:
    """The caller's key fingerprint and the request's ``?reason=`` (checked): the one query
    parameter a change made by hand takes (any other is answered 422)."""
    check_query(request, _REASON)
    return _attributed(request)


def _attributed(request: Request) -> Attribution:
    reason = check_reason(query_str(request, "reason"), ["query", "reason"])
    return Attribution(e.keys_of(request).actor(request), reason)


async def record_call(
    request: Request, action: str, handler: e.Handler, known: frozenset[str]
) -> Response:
    """Run ``handler``; when it succeeds, record ``action`` in the audit log. Query
    parameters other than ``known`` are refused first."""
    if request.scope["query_string"]:
        check_query(request, known)
    by = _attributed(request)
    response = await handler(request)
    if response.status_code >= 300:
        return response
    if action == "tournament.put":
        action = "tournament.create" if response.status_code == 201 else "tournament.change"
    audit = e.service_of(request).audit
    entry = audit.entry(
        by.actor, action, board=request.path_params.get("tournament_id"), reason=by.reason
    )
    try:
        await audit.record(entry)
    except RanklineError as exc:
        # The change is made; its record could not be written. Say so loudly.
        log.error("the audit entry of %s was not recorded: %s", action, exc.detail)
    return response
