"""The hot path of the HTTP edge: the v1 routes dispatched without the framework's layers.

Measured here (DESIGN.md, "The HTTP edge"), Starlette's router and middleware cost as much as
the whole read itself: each request walks every route's regular expression and passes through
three middleware layers. ``RanklineApp`` answers the routes of ``ENDPOINTS`` itself: a tree
lookup on the path's segments, then the same handler Starlette would call, with the same
``Request``, errors rendered as problem+json and the request counted in the metrics. Anything
else (the page, docs, metrics, health, a wrong method, an unknown path, lifespan) goes to
Starlette unchanged, so its answers (404, 405, static files) stay as they were.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from rankline import metrics
from rankline.errors import MethodNotAllowed
from rankline.http.body import check_query
from rankline.http.endpoint import KEY_SCOPE, Endpoint
from rankline.http.responses import error_response

if TYPE_CHECKING:
    from rankline.http.auth import Keys
    from rankline.http.guard import RateLimits
    from rankline.service import Rankline
    from rankline.settings import Settings

log = logging.getLogger("rankline")


class _Node:
    """One path segment of the route tree: literal children, the parameter child (at most
    one: a ``{name}`` segment), and the handlers of the paths ending here, by method."""

    __slots__ = ("handlers", "literals", "param")

    def __init__(self) -> None:
        self.literals: dict[str, _Node] = {}
        self.param: _Node | None = None
        self.handlers: dict[str, tuple[Endpoint, tuple[str, ...]]] = {}


class Routes:
    """The path templates as a tree of segments: a lookup is one dict lookup per segment
    (a literal segment first, then a parameter), not a scan of every template."""

    def __init__(self, endpoints: Sequence[Endpoint]) -> None:
        self._root = _Node()
        for endpoint in endpoints:
            node, names = self._root, []
            for part in endpoint.path.strip("/").split("/"):
                if part.startswith("{"):
                    names.append(part[1:-1])
                    if node.param is None:
                        node.param = _Node()
                    node = node.param
                else:
                    node = node.literals.setdefault(part, _Node())
            node.handlers[endpoint.method] = (endpoint, tuple(names))
        self.query_names: dict[Endpoint, frozenset[str]] = {
            e: e.query_names for e in endpoints if e.auth == "read"
        }
        """The query parameters each read takes: any other is answered 422."""

    def allowed(self, path: str) -> list[str]:
        """The methods of the v1 path ``path`` (none: no such path)."""
        parts = path[1:].split("/")
        return sorted({m for m in _METHODS if _find(self._root, m, parts, 0, []) is not None})

    def match(self, method: str, path: str) -> tuple[Endpoint, dict[str, str]] | None:
        parts = path[1:].split("/")
        values: list[str] = []
        node: _Node | None = self._root
        walked = self._root
        for part in parts:  # literal first, no turning back: every v1 path is found so
            child = walked.literals.get(part)
            if child is not None:
                walked = child
            elif walked.param is not None and part:
                values.append(part)
                walked = walked.param
            else:
                node = None
                break
        else:
            node = walked
        if node is None or method not in node.handlers:  # only a step back could find it
            values = []
            node = _find(self._root, method, parts, 0, values)
            if node is None:
                return None  # Starlette answers: 404, or 405 with the methods the path has
        endpoint, names = node.handlers[method]
        return endpoint, dict(zip(names, values, strict=True))


_METHODS = ("DELETE", "GET", "PATCH", "POST", "PUT")


def _find(node: _Node, method: str, parts: list[str], at: int, values: list[str]) -> _Node | None:
    """The node whose path is ``parts[at:]`` below ``node`` and that has ``method``,
    parameters appended to ``values``; an empty segment is no parameter (Starlette's
    ``[^/]+``)."""
    if at == len(parts):
        return node if method in node.handlers else None
    part = parts[at]
    child = node.literals.get(part)
    if child is not None:
        found = _find(child, method, parts, at + 1, values)
        if found is not None:
            return found
    if node.param is not None and part:
        values.append(part)
        found = _find(node.param, method, parts, at + 1, values)
        if found is not None:
            return found
        values.pop()
    return None


class RanklineApp(Starlette):
    """Starlette, with the v1 routes answered on the short path above: the one dispatcher
    of the v1 API. The service, settings and keys are plain attributes too (also in
    ``state``): handlers read them per request."""

    fast_routes: Routes
    service: Rankline
    settings: Settings
    keys: Keys
    limits: RateLimits | None = None
    """Checked once per v1 request before its handler (``rankline.http.guard``)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path = scope["path"]
            found = self.fast_routes.match(scope["method"], path)
            if found is not None:
                await self._answer(scope, receive, send, *found)
                return
            if path.startswith("/v1/"):
                allowed = self.fast_routes.allowed(path)
                if allowed:
                    await self._refuse_method(scope, receive, send, allowed)
                    return
        await super().__call__(scope, receive, send)

    async def _answer(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        endpoint: Endpoint,
        path_params: dict[str, str],
    ) -> None:
        """The request wrapper of every v1 endpoint: rate limits, the endpoint's auth, its
        query parameters, then the handler; errors as problem+json; the request counted."""
        started = time.perf_counter()
        handler = endpoint.handler
        scope["app"] = self
        scope["path_params"] = path_params
        scope["endpoint"] = handler
        request = Request(scope, receive, send)
        try:
            if self.limits is not None:
                await self.limits.check(scope, endpoint.auth != "read")
            scope[KEY_SCOPE] = self.keys.authorize(request, endpoint.auth)
            if scope["query_string"]:
                known = self.fast_routes.query_names.get(endpoint)
                if known is not None:
                    check_query(request, known)
                    if "after" in known:
                        after = request.query_params.get("after")
                        if after:
                            await self.service.ingest.settled(after)
            response = await handler(request)
        except Exception as exc:
            response = error_response(exc, scope["method"], scope["path"])
        await response(scope, receive, send)
        count(handler.__name__, response.status_code, time.perf_counter() - started)

    async def _refuse_method(
        self, scope: Scope, receive: Receive, send: Send, allowed: list[str]
    ) -> None:
        started = time.perf_counter()
        error = MethodNotAllowed(f"{scope['method']} is not allowed here")
        response = error_response(error, scope["method"], scope["path"])
        response.headers["Allow"] = ", ".join(allowed)
        await response(scope, receive, send)
        count("method_not_allowed", response.status_code, time.perf_counter() - started)


_children: dict[tuple[str, int], tuple[Any, Any]] = {}


def count(route: str, status: int, seconds: float) -> None:
    """Count a request in the metrics (by route and status), with the labelled children
    looked up once per route and status."""
    found = _children.get((route, status))
    if found is None:
        label = str(status)
        found = _children[route, status] = (
            metrics.REQUESTS.labels(route, label),
            metrics.LATENCY.labels(route, label),
        )
    found[0].inc()
    found[1].observe(seconds)
