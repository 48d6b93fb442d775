"""Rendering: JSON bodies and problem+json errors."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import msgspec
from starlette.responses import Response

from rankline.errors import RanklineError, TooManyRequests, Unauthorized, Unavailable

_encoder = msgspec.json.Encoder()
log = logging.getLogger("rankline")


_JSON = (b"content-type", b"application/json")


class JsonBody(Response):
    """A JSON answer with its raw headers made directly (``init_headers``, the hook Starlette's
    ``Response.__init__`` calls): Starlette's own walks, lowercases and encodes them for every
    response, a measurable share of a fast read."""

    media_type = "application/json"

    def __init__(
        self, body: bytes, status: int = 200, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(body, status, headers)

    def init_headers(self, headers: Mapping[str, str] | None = None) -> None:
        raw = [(b"content-length", b"%d" % len(self.body)), _JSON]
        if headers:
            raw += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
        self.raw_headers = raw


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return JsonBody(_encoder.encode(body), status, headers)


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """Whether an If-None-Match header names ``etag`` (weak comparison, RFC 9110 13.1.2)."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    opaque = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == opaque for tag in if_none_match.split(","))


def error_response(exc: Exception, method: str, path: str) -> Response:
    """Any error of a request as problem+json: a ``RanklineError`` as itself, anything else
    as a 500 without its details (logged with its traceback)."""
    if isinstance(exc, RanklineError):
        return problem_response(exc)
    log.error("unhandled error on %s %s", method, path, exc_info=exc)
    return problem_response(RanklineError("an unexpected error occurred"))


def problem_response(error: RanklineError) -> Response:
    headers = {}
    if isinstance(error, Unavailable | TooManyRequests):
        headers["Retry-After"] = str(error.retry_after)
    if isinstance(error, Unauthorized):
        headers["WWW-Authenticate"] = error.challenge
    elif error.status == 401:
        headers["WWW-Authenticate"] = Unauthorized.challenge
    return Response(
        _encoder.encode(error.problem()),
        error.status,
        headers,
        media_type="application/problem+json",
    )
