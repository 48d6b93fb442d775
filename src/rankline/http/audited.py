"""Who makes a change by hand and why, as a request says it (``attribution``): the caller's
key (``access.attribution``) and the ``reason`` query parameter. Board and tournament
definitions, bans, unbans and erasure hand it to the service, which writes the audit entry
in the transaction of the change (as moderation does)."""

from __future__ import annotations

from starlette.requests import Request

from rankline.access.attribution import attribution as attributed
from rankline.audit.reasons import ReasonRequest
from rankline.http import endpoint as e
from rankline.http.auth import authorization
from rankline.store.audit import Attribution


def attribution(request: Request) -> Attribution:
    """The caller's key and the request's ``?reason=`` (``ReasonRequest``): the one query
    parameter a change made by hand takes (any other is answered 422)."""
    reason = e.ask(request, ReasonRequest).reason
    return attributed(e.keys_of(request), authorization(request.scope), reason)
