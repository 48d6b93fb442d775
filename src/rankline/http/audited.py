"""Who makes a change by hand and why, as a request says it (``attribution``): the caller's
key fingerprint (``Keys.actor``) and the ``reason`` query parameter. Board and tournament
definitions, bans, unbans and erasure hand it to the service, which writes the audit entry
in the transaction of the change (as moderation does)."""

from __future__ import annotations

from starlette.requests import Request

from rankline.audit.log import check_reason
from rankline.http import endpoint as e
from rankline.http.auth import authorization
from rankline.http.body import check_query, query_str
from rankline.store.audit import Attribution

_REASON = frozenset({"reason"})


def attribution(request: Request) -> Attribution:
    """The caller's key fingerprint and the request's ``?reason=`` (checked): the one query
    parameter a change made by hand takes (any other is answered 422)."""
    check_query(request, _REASON)
    return _attributed(request)


def _attributed(request: Request) -> Attribution:
    reason = check_reason(query_str(request, "reason"), ["query", "reason"])
    return Attribution(e.keys_of(request).actor(authorization(request.scope)), reason)
