"""The ASGI application: routes, lifespan and the one error handler."""

from __future__ import annotations

import gc
import logging
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.resources import files
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rankline import metrics
from rankline.errors import IndexDamaged, MethodNotAllowed, NotFound, RanklineError
from rankline.http.auth import Keys
from rankline.http.fast import RanklineApp, Routes, count
from rankline.http.guard import RateLimits
from rankline.http.openapi import DOCS_HTML, build_openapi
from rankline.http.responses import error_response, json_response, problem_response
from rankline.http.routes import ENDPOINTS
from rankline.observability import observe
from rankline.service import Rankline
from rankline.settings import Settings
from rankline.types import Clock

log = logging.getLogger("rankline")
_MAX_ENTRY_GAUGES = 1000

STATIC_DIR = Path(__file__).resolve().parents[1] / "static"
"""The live page: index.html, app.js and app.css, shipped inside the package (no CDN)."""
DOCS_STATIC_DIR = str(files("swagger_ui").joinpath("static"))
"""Swagger UI 5 (it renders OpenAPI 3.1), shipped as package data by swagger-ui-py (no CDN)."""


async def _healthz(request: Request) -> Response:
    return json_response({"status": "ok"})


async def _readyz(request: Request) -> Response:
    service: Rankline = request.app.state.service
    body = service.health.state() | {"worker": os.getpid()}  # which worker process answered
    if body["ready"]:
        return json_response(body)
    return json_response(body, 503, {"Retry-After": "1"})


async def _metrics(request: Request) -> Response:
    service: Rankline = request.app.state.service
    if service.health.usable:
        await _count_entries(service)
    body, content_type = metrics.render()
    return Response(body, media_type=content_type)


async def _count_entries(service: Rankline) -> None:
    seen = 0
    for board in service.boards.boards():
        for leaderboard in await service.index.leaderboards(board.id):
            try:
                total = await service.index.total(leaderboard)
            except IndexDamaged:
                continue  # being repaired: its gauge shows the last total until then
            metrics.ENTRIES.labels(*leaderboard).set(total)
            seen += 1
            if seen >= _MAX_ENTRY_GAUGES:
                return


class _Measured:
    """Counts requests and times them by route (the endpoint's name) and status, as the v1
    request wrapper does (``rankline.http.fast.count``)."""

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
            endpoint = scope.get("endpoint")
            route = getattr(endpoint, "__name__", None) or type(endpoint).__name__
            count(route, status, time.perf_counter() - started)


async def _openapi(request: Request) -> Response:
    return json_response(request.app.state.openapi)


async def _docs(request: Request) -> Response:
    return HTMLResponse(DOCS_HTML)


async def _home(request: Request) -> Response:
    return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})


async def _on_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, HTTPException):
        if exc.status_code == 404:
            return problem_response(NotFound(f"no route {request.url.path}"))
        if exc.status_code == 405:
            return problem_response(MethodNotAllowed(f"{request.method} is not allowed here"))
        error = RanklineError(str(exc.detail))
        error.status = exc.status_code
        return problem_response(error)
    return error_response(exc, request.method, request.url.path)


def create_app(
    settings: Settings | None = None,
    *,
    service: Rankline | None = None,
    clock: Clock | None = None,
) -> Starlette:
    """The rankline ASGI app. The service starts and stops with the app's lifespan."""
    settings = settings or (service.settings if service else Settings())
    service = service or Rankline(settings, clock=clock)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.close()

    # The v1 routes are answered by ``app.fast_routes`` (one dispatcher, one request wrapper);
    # Starlette answers the rest.
    routes: list[Route | Mount] = [
        Route("/", _home, methods=["GET"]),
        Route("/healthz", _healthz, methods=["GET"]),
        Route("/readyz", _readyz, methods=["GET"]),
        Route("/metrics", _metrics, methods=["GET"]),
        Route("/openapi.json", _openapi, methods=["GET"]),
        Route("/docs", _docs, methods=["GET"]),
        Mount("/docs/static", StaticFiles(directory=DOCS_STATIC_DIR), name="docs-static"),
        Mount("/static", StaticFiles(directory=str(STATIC_DIR)), name="static"),
    ]
    app = RanklineApp(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(_Measured)],
        exception_handlers={
            RanklineError: _on_error,
            HTTPException: _on_error,
            Exception: _on_error,
        },
    )
    app.fast_routes = Routes(ENDPOINTS)
    app.service = app.state.service = service
    app.settings = app.state.settings = settings
    app.keys = app.state.keys = Keys.from_settings(settings)
    app.limits = RateLimits.from_settings(settings)
    app.state.openapi = build_openapi()
    return app


GC_THRESHOLDS = (50_000, 20, 100)
"""Garbage-collection thresholds of a serving process. Requests allocate many short-lived
objects; at Python's default (700) the collections measured ~20 µs per submission."""


def configure_logging(level: str) -> None:
    """rankline's log lines on stderr at ``level`` (once per process)."""
    logging.basicConfig(
        level=level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )


def app_from_env() -> ASGIApp:
    """The app of a worker process the server started (uvicorn's workers, granian's):
    each builds its own from the environment, and logs as ``rankline serve`` does."""
    settings = Settings()
    configure_logging(settings.log_level)
    return observed_app(settings)


def serving_app(settings: Settings) -> Starlette:
    """The app of a serving process: garbage collection tuned for it (see GC_THRESHOLDS)."""
    gc.set_threshold(*GC_THRESHOLDS)
    return create_app(settings, service=Rankline(settings, freeze_gc=True))


def observed_app(settings: Settings) -> ASGIApp:
    """``serving_app`` with request ids, the log format and traces (rankline.observability):
    what a server serves."""
    app = serving_app(settings)
    return observe(app, log_level=settings.log_level, log_format=settings.log_format)
