"""The HTTP side of the gRPC bridge (``rankline.grpc.bridge``): an RPC not yet answered
directly, as the HTTP request of the operation it twins, answered in-process by the v1 API's
request wrapper (``rankline.http.api.Api.answer``): no socket, no HTTP parsing, and no second
copy of any rule. The request's fields become the path, the query string and the JSON body;
the call's ``authorization`` metadata becomes the header, its deadline ``Request-Timeout``;
the peer's address is the client's (the rate limits per address)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import quote, urlencode

import grpc
import orjson
from google.protobuf.message import Message
from starlette.types import Message as AsgiMessage
from starlette.types import Scope

from rankline.grpc.bridge import Answer, AnswerViaHttp
from rankline.grpc.calls import client_address, client_millis
from rankline.grpc.messages import to_json
from rankline.http.api import Api
from rankline.http.endpoint import Endpoint
from rankline.http.query_credential import NAME as CREDENTIAL

_JSON = (b"content-type", b"application/json")
_ASYNC = (b"prefer", b"respond-async")


def scope_of(
    endpoint: Endpoint,
    request: Message,
    metadata: Iterable[tuple[str, str | bytes]],
    peer: str,
    time_remaining: float | None = None,
) -> tuple[Scope, dict[str, str], bytes]:
    """The HTTP request an RPC's request stands for: its scope, path parameters and body.
    The call's deadline (``time_remaining``, seconds) becomes ``Request-Timeout``."""
    path_names = [p.name for p in endpoint.params if p.where == "path"]
    params = {name: getattr(request, name) for name in path_names}
    path = endpoint.path.format(**{k: quote(v, safe="") for k, v in params.items()})
    query = [
        (p.name, str(getattr(request, p.name)))
        for p in endpoint.params
        if p.where == "query" and p.name != CREDENTIAL and request.HasField(p.name)
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
    api: Api, endpoint: Endpoint, scope: Scope, params: dict[str, str], body: bytes
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

    response = await api.answer(scope, receive, _unused, endpoint, params)
    return Answer(response.status_code, bytes(response.body), response.headers.get("retry-after"))


async def _unused(message: AsgiMessage) -> None:
    raise RuntimeError("a unary endpoint sends nothing before its answer")


def answer_via_http(api: Api, endpoints: Sequence[Endpoint]) -> AnswerViaHttp:
    """The bridge's callable: each RPC answered by the endpoint that names it (``rpc``)."""
    twins = {e.rpc: e for e in endpoints if e.rpc is not None}

    async def answer(
        name: str, request: Message, context: grpc.aio.ServicerContext[Any, Any]
    ) -> Answer:
        endpoint = twins[name]
        scope, params, body = scope_of(
            endpoint,
            request,
            context.invocation_metadata() or (),
            context.peer(),
            context.time_remaining(),
        )
        return await call(api, endpoint, scope, params, body)

    return answer
