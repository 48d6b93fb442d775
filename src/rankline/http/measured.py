"""Request metrics: every request counted and timed by route (the endpoint's name;
``unmatched`` for a path no route has) and status.

The v1 API counts its own requests (``rankline.http.api``): it knows the endpoint and the
status without wrapping ``send``. ``Measured`` counts the others.
"""

from __future__ import annotations

import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rankline import metrics

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


def route_name(endpoint: object | None) -> str:
    """How the metrics name a request's route: its endpoint's name."""
    if endpoint is None:
        return "unmatched"
    return getattr(endpoint, "__name__", None) or type(endpoint).__name__


class Measured:
    """``app`` with its requests counted and timed."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            count(route_name(scope.get("endpoint")), status, time.perf_counter() - started)
