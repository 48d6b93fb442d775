"""A credential in the query string, for the one endpoint that cannot send headers.

A browser's ``EventSource`` cannot set ``Authorization``, so the live stream takes the key
or token as ``?access_token=``. The request wrapper (``rankline.http.api``) moves it into the
request's ``Authorization`` header before anything else reads the request (rate limits, the
key check, a player token's), and out of the query string, so that nothing later sees it
there: not the query parsing and its cache, not a log line, not a trace. Every other
endpoint refuses it: a credential in a URL ends up in proxies' and browsers' histories.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode

from starlette.types import Scope

from rankline.errors import BadRequest, InvalidInput

NAME = "access_token"
RAW_NAME = b"access"
"""Looked for in the raw query string first, so that a request without it pays a substring
test; only the start of the name, which a client may percent-encode (``access%5Ftoken``)."""


def take_query_credential(scope: Scope, allowed: bool) -> None:
    """Move ``access_token`` from the query into the ``Authorization`` header when the
    endpoint takes it (``allowed``); refuse it (422) otherwise, and refuse a request that
    carries both (400)."""
    pairs = parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True)
    tokens = [value for name, value in pairs if name == NAME]
    if not tokens:
        return
    if not allowed:
        raise InvalidInput.at(
            ["query", NAME],
            f"{NAME} is taken by the live stream only; send the key or token in an "
            "`Authorization: Bearer <token>` header",
        )
    headers = scope["headers"]
    if len(tokens) > 1 or any(name == b"authorization" for name, _ in headers):
        raise BadRequest(f"send one credential: the Authorization header or one {NAME}")
    scope["query_string"] = urlencode([p for p in pairs if p[0] != NAME]).encode("latin-1")
    bearer = b"Bearer " + tokens[0].encode("latin-1")
    scope["headers"] = [*headers, (b"authorization", bearer)]
