"""The request wrapper of a serving app: every request gets an id (its ``X-Request-ID`` if it
sent a usable one, else a new one), echoed in the answer's ``X-Request-ID`` and, in a
problem+json answer, as its ``request_id`` member; log records made while serving it carry
it; with JSON logs, each request logs one line (method, path, board, status, duration, and
an error's problem type); with traces, each request is a span."""

from __future__ import annotations

import itertools
import json
import logging
import os
import re
import time
from typing import TYPE_CHECKING, Any, Literal

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rankline.observability import logs, tracing

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer, TracerProvider

HEADER = b"x-request-id"
PROBLEM = b"application/problem+json"
_USABLE = re.compile(rb"^[A-Za-z0-9._:/+=@-]{1,128}$")

logger = logging.getLogger("rankline.requests")


def _request_id(scope: Scope) -> str:
    for name, value in scope.get("headers", ()):
        if name == HEADER and _USABLE.match(value):
            return bytes(value).decode("ascii")
    return _new_id()


_counter = itertools.count()
_prefix = os.urandom(8).hex()


def _reseed() -> None:
    global _prefix
    _prefix = os.urandom(8).hex()


os.register_at_fork(after_in_child=_reseed)  # a forked worker gets a prefix of its own


def _new_id() -> str:
    """A random prefix per process and a counter: unique across processes and restarts, and
    far cheaper than a uuid4 per request (measured here: 14 us each)."""
    return f"{_prefix}{next(_counter):08x}"


class Observed:
    """``app`` with request ids, a log line per request when ``log_requests``, and a span per
    request when given a ``tracer`` (``rankline.observability.tracing``)."""

    def __init__(
        self, app: ASGIApp, *, log_requests: bool = False, tracer: Tracer | None = None
    ) -> None:
        self.app = app
        self.log_requests = log_requests
        self.tracer = tracer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan" and self.log_requests:
            logs.adopt_server_loggers()  # the server configured its logging by now
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _request_id(scope)
        token = logs.set_request_id(request_id)
        started = time.perf_counter() if self.log_requests else 0.0
        answer = _Answer(request_id, send)
        try:
            if self.tracer is None:
                await self.app(scope, receive, answer.send)
            else:
                await self._traced(self.tracer, scope, receive, answer)
        finally:
            if self.log_requests:
                self._log(scope, answer, time.perf_counter() - started)
            logs.reset_request_id(token)

    async def _traced(
        self, tracer: Tracer, scope: Scope, receive: Receive, answer: _Answer
    ) -> None:
        from opentelemetry import propagate
        from opentelemetry.trace import SpanKind, Status, StatusCode

        carrier = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        method = scope["method"]
        with tracer.start_as_current_span(
            method,
            context=propagate.extract(carrier),
            kind=SpanKind.SERVER,
            attributes={
                "http.request.method": method,
                "url.path": scope["path"],
                "rankline.request_id": answer.request_id,
            },
        ) as span:
            try:
                await self.app(scope, receive, answer.send)
            finally:
                endpoint = _endpoint(scope)
                span.update_name(f"{method} {endpoint}" if endpoint else method)
                span.set_attribute("http.response.status_code", answer.status)
                if endpoint:
                    span.set_attribute("rankline.endpoint", endpoint)
                board = (scope.get("path_params") or {}).get("board_id")
                if board is not None:
                    span.set_attribute("rankline.board", board)
                if answer.status >= 500:
                    span.set_status(Status(StatusCode.ERROR))

    def _log(self, scope: Scope, answer: _Answer, seconds: float) -> None:
        status = answer.status
        fields: dict[str, Any] = {
            "method": scope["method"],
            "path": scope["path"],
            "status": status,
            "duration_ms": round(seconds * 1000, 3),
        }
        board = (scope.get("path_params") or {}).get("board_id")
        if board is not None:
            fields["board"] = board
        if answer.problem_type is not None:
            fields["problem_type"] = answer.problem_type
        level = logging.ERROR if status >= 500 else logging.INFO
        message = f"{scope['method']} {scope['path']} {status}"
        logger.log(level, message, extra=fields)


def _endpoint(scope: Scope) -> str | None:
    endpoint = scope.get("endpoint")
    return getattr(endpoint, "__name__", None) if endpoint is not None else None


class _Answer:
    """The answer on its way out: the id added to its headers and to a problem+json body."""

    __slots__ = ("_body", "_send", "_start", "problem_type", "request_id", "status")

    def __init__(self, request_id: str, send: Send) -> None:
        self.request_id = request_id
        self.status = 500  # if the app sends nothing
        self.problem_type: str | None = None
        self._send = send
        self._start: Message | None = None
        self._body: list[bytes] = []

    async def send(self, message: Message) -> None:
        if self._start is None and message["type"] != "http.response.start":
            await self._send(message)
            return
        if self._start is not None:
            if message["type"] == "http.response.body":
                self._body.append(message.get("body", b""))
                if not message.get("more_body", False):
                    await self._send_problem()
            else:
                await self._send(message)
            return
        self.status = message["status"]
        problem = given = False
        for name, value in message.get("headers", ()):
            if name == b"content-type":
                problem = value.startswith(PROBLEM)
            elif name == HEADER:
                given = True
        raw = message.get("headers", ())
        mine = (HEADER, self.request_id.encode("ascii"))
        headers = [*(h for h in raw if h[0] != HEADER), mine] if given else [*raw, mine]
        message = {**message, "headers": headers}
        if problem:
            self._start = message  # held until the body is whole
            return
        await self._send(message)

    async def _send_problem(self) -> None:
        assert self._start is not None
        body = b"".join(self._body)
        try:
            problem = json.loads(body)
        except ValueError:
            problem = None
        if isinstance(problem, dict):
            problem["request_id"] = self.request_id
            kind = problem.get("type")
            self.problem_type = kind if isinstance(kind, str) else None
            body = json.dumps(problem, ensure_ascii=False, separators=(",", ":")).encode()
        headers = [(k, v) for k, v in self._start["headers"] if k != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode("ascii")))
        await self._send({**self._start, "headers": headers})
        await self._send({"type": "http.response.body", "body": body})


def observe(
    app: ASGIApp,
    *,
    log_level: str = "info",
    log_format: Literal["text", "json"] = "text",
    tracer_provider: TracerProvider | None = None,
) -> Observed:
    """The serving ``app`` with request ids. With ``log_format="json"``, the process logs
    JSON lines at ``log_level`` from now on, one per request among them. Traces go to
    ``tracer_provider``, else where the ``OTEL_*`` variables say if they ask for traces."""
    if log_format == "json":
        logs.configure_logging(log_level, "json")
    if tracer_provider is not None:
        tracer: Tracer | None = tracing.instrument(tracer_provider)
    else:
        tracer = tracing.tracer_from_env()
    return Observed(app, log_requests=log_format == "json", tracer=tracer)
