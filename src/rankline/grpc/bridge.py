"""An RPC as the HTTP request it twins, answered in-process by the v1 API's request wrapper
(``rankline.http.api.Api.answer``): no socket, no HTTP parsing, and no second copy of any
rule. The request's fields become the path, the query string and the JSON body; the call's
``authorization`` metadata becomes the header, its deadline ``Request-Timeout``; the peer's
address is the client's (the rate limits per address)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, urlencode

import orjson
from google.protobuf.message import Message
from starlette.types import Message as AsgiMessage
from starlette.types import Scope

from rankline.grpc.calls import client_address, client_millis
from rankline.grpc.messages import to_json
from rankline.grpc.operations import Operation
from rankline.http.api import Api

_JSON = (b"content-type", b"application/json")
_ASYNC = (b"prefer", b"respond-async")


class Answer:
    """What the endpoint answered: the status, the Retry-After header and the body."""

    __slots__ = ("body", "retry_after", "status")

    def __init__(self, status: int, body: bytes, retry_after: str | None) -> None:
        self.status = status
        self.body = body
        self.retry_after = retry_after

    def json(self) -> Any:
        return orjson.loads(self.body) if self.body else {}


def scope_of(
    operation: Operation,
    request: Message,
    metadata: Iterable[tuple[str, str | bytes]],
    peer: str,
    time_remaining: float | None = None,
) -> tuple[Scope, dict[str, str], bytes]:
    """The HTTP request an RPC's request stands for: its scope, path parameters and body.
    The call's deadline (``time_remaining``, seconds) becomes ``Request-Timeout``."""
    endpoint = operation.endpoint
    params = {name: getattr(request, name) for name in operation.path_names}
    path = endpoint.path.format(**{k: quote(v, safe="") for k, v in params.items()})
    query = [
        (name, str(getattr(request, name)))
        for name in operation.query_names
        if request.HasField(name)
    ]
    headers = [_JSON]
    for key, value in metadata:
        if key == "authorization":
            text = value if isinstance(value, str) else value.decode("latin-1")
            headers.append((b"authorization", text.encode("latin-1")))
    if getattr(request, "respond_async", False):
        headers.append(_ASYNC)
    millis = client_millis(time_remaining)
    if millis is not None:
        headers.append((b"request-timeout", str(millis).encode()))
    body = b""
    if endpoint.body is not None:
        body = orjson.dumps(to_json(request.body) if request.HasField("body") else {})  # type: ignore[attr-defined]
    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "2",
        "method": endpoint.method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": urlencode(query).encode(),
        "headers": headers,
        "client": (client_address(peer), 0),
        "server": None,
    }
    return scope, params, body


async def call(
    api: Api, operation: Operation, scope: Scope, params: dict[str, str], body: bytes
) -> Answer:
    """The endpoint's answer to the request, whole (a unary RPC's endpoint answers with its
    whole body: its response is read, not sent)."""
    sent = False

    async def receive() -> AsgiMessage:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # a unary answer never waits for a disconnect
        raise AssertionError("unreachable")

    response = await api.answer(scope, receive, _unused, operation.endpoint, params)
    return Answer(response.status_code, bytes(response.body), response.headers.get("retry-after"))


async def _unused(message: AsgiMessage) -> None:
    raise RuntimeError("a unary endpoint sends nothing before its answer")
