"""The hot path of the HTTP edge: the v1 routes dispatched without the framework's layers.

Measured here (DESIGN.md, "The HTTP edge"), Starlette's router and middleware cost as much as
the whole read itself: each request walks every route's regular expression and passes through
three middleware layers. ``RanklineApp`` answers the routes of ``ENDPOINTS`` itself: a table
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
from rankline.errors import RanklineError
from rankline.http.responses import problem_response
from rankline.http.routes import Endpoint, Handler

if TYPE_CHECKING:
    from rankline.http.auth import Keys
    from rankline.service import Rankline
    from rankline.settings import Settings

log = logging.getLogger("rankline")

_Template = tuple[tuple[str | None, ...], tuple[tuple[int, str], ...], Handler]
"""Literal segments (None where a parameter goes), (position, name) of the parameters, handler."""


class Routes:
    """Path templates by (method, number of segments); a lookup compares literal segments."""

    def __init__(self, endpoints: Sequence[Endpoint]) -> None:
        self._table: dict[tuple[str, int], list[_Template]] = {}
        for endpoint in endpoints:
            parts = endpoint.path.strip("/").split("/")
            literals = tuple(None if p.startswith("{") else p for p in parts)
            params = tuple((i, p[1:-1]) for i, p in enumerate(parts) if p.startswith("{"))
            self._table.setdefault((endpoint.method, len(parts)), []).append(
                (literals, params, endpoint.handler)
            )

    def match(self, method: str, path: str) -> tuple[Handler, dict[str, str]] | None:
        parts = path[1:].split("/")
        candidates = self._table.get((method, len(parts)))
        if candidates is None:
            return None
        for literals, params, handler in candidates:
            for given, wanted in zip(parts, literals, strict=True):
                if wanted is not None and given != wanted:
                    break
            else:
                if any(not parts[i] for i, _ in params):
                    continue  # an empty segment is no parameter (Starlette's [^/]+)
                return handler, {name: parts[i] for i, name in params}
        return None


class RanklineApp(Starlette):
    """Starlette, with the v1 routes answered on the short path above. The service, settings
    and keys are plain attributes too (also in ``state``): handlers read them per request."""

    fast_routes: Routes
    service: Rankline
    settings: Settings
    keys: Keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            found = self.fast_routes.match(scope["method"], scope["path"])
            if found is not None:
                await self._answer(scope, receive, send, *found)
                return
        await super().__call__(scope, receive, send)

    async def _answer(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        handler: Handler,
        path_params: dict[str, str],
    ) -> None:
        started = time.perf_counter()
        scope["app"] = self
        scope["path_params"] = path_params
        scope["endpoint"] = handler
        try:
            response = await handler(Request(scope, receive, send))
        except RanklineError as exc:
            response = problem_response(exc)
        except Exception as exc:
            log.exception("unhandled error on %s %s", scope["method"], scope["path"], exc_info=exc)
            response = problem_response(RanklineError("an unexpected error occurred"))
        await response(scope, receive, send)
        _count(handler.__name__, response.status_code, time.perf_counter() - started)


_children: dict[tuple[str, int], tuple[Any, Any]] = {}


def _count(route: str, status: int, seconds: float) -> None:
    """The request metrics, with the labelled children looked up once per route and status."""
    found = _children.get((route, status))
    if found is None:
        label = str(status)
        found = _children[route, status] = (
            metrics.REQUESTS.labels(route, label),
            metrics.LATENCY.labels(route, label),
        )
    found[0].inc()
    found[1].observe(seconds)
