"""Rendering: JSON bodies and problem+json errors."""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.responses import Response

from rankline.errors import RanklineError, TooManyRequests, Unavailable

_encoder = msgspec.json.Encoder()


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(_encoder.encode(body), status, headers, media_type="application/json")


def problem_response(error: RanklineError) -> Response:
    headers = {}
    if isinstance(error, Unavailable | TooManyRequests):
        headers["Retry-After"] = str(error.retry_after)
    if error.status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="rankline"'
    return Response(
        _encoder.encode(error.problem()),
        error.status,
        headers,
        media_type="application/problem+json",
    )
