"""RPCs answered by calling the service directly: the caller admitted as the HTTP API admits
one (``rankline.access.admission``, under the ``Rule`` of the operation the RPC twins), the
service's inputs built from the message's fields, the same service method as the HTTP
handler's called, and the message built from its typed answer. No JSON request, no ASGI
scope. An error of the tree becomes the gRPC status the HTTP problem would
(``status.error_status``); anything else is INTERNAL, logged.

Every unary RPC is one of ``DIRECT``; ``Watch`` is ``STREAMED`` (``streaming``)."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, TypeVar

import grpc
import msgspec
from google.protobuf.message import Message

from rankline.access.admission import Admission, Caller, Rule, player_may
from rankline.access.attribution import attributed
from rankline.audit.reasons import ReasonRequest
from rankline.bodies import given_as
from rankline.errors import PayloadTooLarge, RanklineError
from rankline.grpc.calls import client_address, credential, write_deadline
from rankline.grpc.messages import from_json, to_json
from rankline.grpc.status import error_status
from rankline.reading.live import SEND_TIMEOUT, delivered
from rankline.service import Rankline
from rankline.store.audit import Attribution
from rankline.writing.admission import Deadline

log = logging.getLogger("rankline")
M = TypeVar("M", bound=Message)
B = TypeVar("B")
Context = grpc.aio.ServicerContext[Any, Any]


class Call:
    """One call's admission and deadline: the caller, once admitted (``admit``)."""

    __slots__ = ("context", "direct", "rule", "started")

    def __init__(self, direct: Direct, rule: Rule, context: Context) -> None:
        self.direct = direct
        self.rule = rule
        self.context = context
        now = time.monotonic()
        self.started = now - direct.waited() if rule.writes else now
        """When the call may have reached the worker: for a write, now less the wait the
        worker's event loop may have made it have before the servicer saw it
        (``Direct.waited``, spent from its deadline); a read has no deadline to spend it from."""

    async def admit(self, board_id: str | None = None) -> Caller:
        """The caller, once admitted as the HTTP API admits one: a player token only to the
        operations a player may call (403 ``NotForPlayers`` to the others)."""
        context = self.context
        rule = self.rule
        caller = await self.direct.admission.caller(
            credential(context.invocation_metadata()),
            client_address(context.peer()),
            rule.auth,
            rule.writes,
            board_id,
        )
        if caller.player is not None:
            player_may(rule.auth, rule.for_players, rule.operation)
        return caller

    def given(self, request: Message) -> Any:
        """The request's ``body`` as built-in values, as the operation's JSON body would be
        decoded (``{}`` when it has none), within the body size limit."""
        limit = self.direct.service.settings.max_body_bytes
        if request.ByteSize() > limit:
            raise PayloadTooLarge(f"the body is larger than {limit} bytes")
        return to_json(request.body) if request.HasField("body") else {}  # type: ignore[attr-defined]

    def batch(self, request: Message, items: str) -> Any:
        """A batch's ``body`` as ``given``, its list of ``items`` empty (``[]``) when the body
        is given without any: proto3 cannot tell an empty list from an absent one, and a
        batch sent empty is a batch of nothing, as ``{"scores": []}`` is over HTTP."""
        given = self.given(request)
        if request.HasField("body"):
            given.setdefault(items, [])
        return given

    def body(self, request: Message, kind: type[B]) -> B:
        """The request's ``body`` as the operation's JSON body would be decoded (``given``:
        the same refusals at the same places)."""
        return given_as(self.given(request), kind)

    def actor(self) -> str:
        """The caller, as the audit log names them (once admitted: ``admit``)."""
        keys = self.direct.admission.keys
        return keys.actor(credential(self.context.invocation_metadata()))

    def attribution(self, ask: ReasonRequest) -> Attribution:
        """Who makes a change by hand (the call's key) and why (``ask``: the message's
        ``reason``, as ``reads.asked`` checks it)."""
        keys = self.direct.admission.keys
        return attributed(keys, credential(self.context.invocation_metadata()), ask)

    async def settled(self, after: str) -> None:
        """A read's ``after`` (a 202's token): once the submissions it names are applied."""
        if after:
            await self.direct.service.ingest.settled(after)

    def deadline(self) -> Deadline:
        return write_deadline(self.direct.service.writer.admission, self.context, self.started)


def _no_wait() -> float:
    return 0.0


class Direct:
    """What the direct RPCs call: the service and the admission of this process, and how
    long a call the servicer sees now may have waited for the worker's event loop
    (``waited``: the HTTP app's ``LoopLag.waited``, the same loop; spent from a write's
    deadline as over HTTP)."""

    def __init__(
        self,
        service: Rankline,
        admission: Admission,
        waited: Callable[[], float] | None = None,
    ) -> None:
        self.service = service
        self.admission = admission
        self.waited = waited or _no_wait


Method = Callable[[Call, Any], Awaitable[Message]]
Streamed = Callable[[Call, Any], AsyncGenerator[Message, None]]


def answered(answer: msgspec.Struct | dict[str, Any], kind: type[M]) -> M:
    """The message of a typed answer (its fields as the HTTP API's JSON names them)."""
    body = answer if isinstance(answer, dict) else msgspec.to_builtins(answer)
    return from_json(body, kind)


def unary(direct: Direct, rule: Rule, method: Method, name: str) -> Any:
    """The handler of one direct RPC."""

    async def handle(request: Message, context: Context) -> Message:
        try:
            return await method(Call(direct, rule, context), request)
        except Exception as exc:
            await _abort(context, exc, name)
        raise AssertionError("abort raises")  # pragma: no cover

    handle.__name__ = name
    return handle


async def _abort(context: Context, exc: Exception, name: str) -> None:
    """End the call with the status of ``exc``: an error of the tree's own, anything else
    INTERNAL (logged)."""
    if isinstance(exc, RanklineError):
        error = exc
    else:
        log.error("unhandled error on the RPC %s", name, exc_info=exc)
        error = RanklineError("an unexpected error occurred")
    code, message, trailers = error_status(error)
    await context.abort(code, message, trailing_metadata=trailers)


def streaming(
    direct: Direct, rule: Rule, method: Streamed, name: str, send_timeout: float = SEND_TIMEOUT
) -> Any:
    """The handler of one direct server-streaming RPC: each message written as ``method``
    yields it, the stream ended when the client takes none for ``send_timeout`` seconds
    (``live.SEND_TIMEOUT``, as an HTTP stream's client is dropped), an error as the status
    it stands for."""

    async def handle(request: Message, context: Context) -> None:
        messages = method(Call(direct, rule, context), request)
        try:
            async for message in messages:
                if not await delivered(context.write(message), send_timeout):
                    return  # a client that takes nothing for that long is gone
        except Exception as exc:
            await _abort(context, exc, name)
        finally:
            await messages.aclose()

    handle.__name__ = name
    return handle
