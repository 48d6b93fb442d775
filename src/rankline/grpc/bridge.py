"""The RPCs not yet answered by calling the service directly: each one is answered by the
HTTP operation it twins, in-process, through the callable the server is given for it
(``AnswerViaHttp``: the request's fields become that operation's path, query string and
JSON body, the call's ``authorization`` metadata its header, the call's deadline its
``Request-Timeout``, the peer its client). Its answer is rendered here as the RPC's message,
its problem as a gRPC status (``status.rich_status``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import orjson
from google.protobuf import empty_pb2
from google.protobuf.message import Message

from rankline.grpc.messages import from_json
from rankline.grpc.rpcs import Rpc
from rankline.grpc.status import rich_status

Context = grpc.aio.ServicerContext[Any, Any]


class Answer:
    """What the operation answered: the status, the Retry-After header and the body."""

    __slots__ = ("body", "retry_after", "status")

    def __init__(self, status: int, body: bytes, retry_after: str | None) -> None:
        self.status = status
        self.body = body
        self.retry_after = retry_after

    def json(self) -> Any:
        return orjson.loads(self.body) if self.body else {}


AnswerViaHttp = Callable[[str, Message, Context], Awaitable[Answer]]
"""The answer of the HTTP operation that the named RPC twins, to the RPC's request and call."""


def render(rpc: Rpc, answer: Answer) -> Message:
    """The RPC's message of a successful answer, as its response message is shaped:
    ``Empty`` (204), a ``result``/``accepted`` oneof (202: ``accepted``), the body as
    ``result`` and HTTP's 201 as ``created``, or the body itself."""
    response = rpc.response
    if response is empty_pb2.Empty:
        return empty_pb2.Empty()
    body = answer.json()
    fields = response.DESCRIPTOR.fields_by_name
    accepted = fields.get("accepted")
    if accepted is not None and accepted.containing_oneof is not None:
        body = {"accepted" if answer.status == 202 else "result": body}
    elif "created" in fields and "result" in fields:
        body = {"result": body, "created": answer.status == 201}
    return from_json(body, response)


def unary(answer_via_http: AnswerViaHttp, rpc: Rpc) -> Any:
    """The handler of one RPC answered by the HTTP operation it twins."""

    async def handle(request: Message, context: Context) -> Message:
        answer = await answer_via_http(rpc.name, request, context)
        if answer.status >= 400:
            problem = orjson.loads(answer.body) if answer.body else {}
            code, message, trailers = rich_status(problem, answer.status, answer.retry_after)
            await context.abort(code, message, trailing_metadata=trailers)
        return render(rpc, answer)

    handle.__name__ = rpc.name
    return handle
