"""An HTTP problem (RFC 9457) as a gRPC status: the standard code, the problem's ``detail``
as the message, and a ``google.rpc.Status`` in the ``grpc-status-details-bin`` trailer
(grpcio-status's ``rpc_status.from_call`` reads it) whose details are the problem itself
(``rankline.v1.Problem``, ``errors`` and ``existing`` included) and, for 429 and 503, a
``google.rpc.RetryInfo`` with the Retry-After delay. The delay is also the ``retry-after``
trailer, in seconds."""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import error_details_pb2, status_pb2

from rankline.errors import RanklineError, TooManyRequests, Unavailable
from rankline.grpc.gen.rankline.v1 import rankline_pb2
from rankline.grpc.messages import from_json

DETAILS_KEY = "grpc-status-details-bin"

CODES: dict[int, grpc.StatusCode] = {
    400: grpc.StatusCode.INVALID_ARGUMENT,
    401: grpc.StatusCode.UNAUTHENTICATED,
    403: grpc.StatusCode.PERMISSION_DENIED,
    404: grpc.StatusCode.NOT_FOUND,
    405: grpc.StatusCode.UNIMPLEMENTED,
    409: grpc.StatusCode.FAILED_PRECONDITION,
    413: grpc.StatusCode.INVALID_ARGUMENT,
    415: grpc.StatusCode.INVALID_ARGUMENT,
    422: grpc.StatusCode.INVALID_ARGUMENT,
    429: grpc.StatusCode.RESOURCE_EXHAUSTED,
    503: grpc.StatusCode.UNAVAILABLE,
}
"""HTTP statuses and their gRPC codes; any other is INTERNAL. A 409 is FAILED_PRECONDITION (a
frozen board, a field that can no longer change), except a reused match id: ALREADY_EXISTS."""

REUSED = "https://rankline.dev/problems/match-id-reused"


def code_of(problem: dict[str, Any], status: int) -> grpc.StatusCode:
    if problem.get("type") == REUSED:
        return grpc.StatusCode.ALREADY_EXISTS
    return CODES.get(status, grpc.StatusCode.INTERNAL)


def rich_status(
    problem: dict[str, Any], status: int, retry_after: str | None
) -> tuple[grpc.StatusCode, str, tuple[tuple[str, str | bytes], ...]]:
    """The code, message and trailers of the status standing for ``problem``."""
    code = code_of(problem, status)
    message = str(problem.get("detail") or problem.get("title") or "")
    details = [_packed(from_json(problem, rankline_pb2.Problem))]
    trailers: list[tuple[str, str | bytes]] = []
    if retry_after is not None and retry_after.isdigit():
        delay = duration_pb2.Duration(seconds=int(retry_after))
        details.append(_packed(error_details_pb2.RetryInfo(retry_delay=delay)))
        trailers.append(("retry-after", retry_after))
    value = status_pb2.Status(code=code.value[0], message=message, details=details)
    trailers.append((DETAILS_KEY, value.SerializeToString()))
    return code, message, tuple(trailers)


def _packed(message: Any) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def error_status(
    error: RanklineError,
) -> tuple[grpc.StatusCode, str, tuple[tuple[str, str | bytes], ...]]:
    """``rich_status`` of an error of the tree, as the HTTP API would render it: its
    problem, its status and, for 429 and 503, its Retry-After."""
    retry = None
    if isinstance(error, Unavailable | TooManyRequests):
        retry = str(error.retry_after)
    return rich_status(error.problem(), error.status, retry)
