"""Request metrics: every request counted and timed by route (the endpoint's name;
``unmatched`` for a path no route has) and status.

The v1 API counts its own requests (``rankline.http.api``): it knows the endpoint and the
status without wrapping ``send``. ``Measured`` counts the others.
"""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rankline import metrics

count = metrics.REQUESTS.count
"""Count a request in the metrics: ``count(route, status, seconds)``."""


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
