"""The ASGI application, composed in one place: the v1 API dispatched to beside the page,
docs, health and metrics, every request through one middleware stack; lifespan and the one
error handler."""

from __future__ import annotations

import functools
import gc
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from rankline import metrics
from rankline.access.credentials import check_settings, tokens_on
from rankline.errors import IndexDamaged, MethodNotAllowed, NotFound, RanklineError
from rankline.http.api import Api
from rankline.http.auth import Keys
from rankline.http.cors import Cors
from rankline.http.guard import RateLimits
from rankline.http.measured import Measured
from rankline.http.openapi import DOCS_HTML, build_openapi
from rankline.http.pages import Secured
from rankline.http.responses import error_response, json_response, problem_response
from rankline.http.routes import ENDPOINTS
from rankline.observability import logs, observe
from rankline.service import Rankline
from rankline.settings import Settings
from rankline.types import Clock

if TYPE_CHECKING:
    from rankline.access.tokens import PlayerTokens

log = logging.getLogger("rankline")
_MAX_ENTRY_GAUGES = 1000

STATIC_DIR = Path(__file__).resolve().parents[1] / "static"
"""The live page: index.html, app.js and app.css, shipped inside the package (no CDN)."""
DOCS_STATIC_DIR = STATIC_DIR / "swagger"
"""Swagger UI 5 (it renders OpenAPI 3.1): its bundle and stylesheet from swagger-ui-dist,
shipped inside the package (no CDN; scripts/refresh-swagger-ui.sh, NOTICE)."""


def _player_tokens(settings: Settings) -> PlayerTokens | None:
    """The player token verifier, None when tokens are off; PyJWT (the ``tokens`` extra) is
    imported only when they are on."""
    if not tokens_on(settings):
        check_settings(settings)
        return None
    from rankline.access.tokens import PlayerTokens

    return PlayerTokens.from_settings(settings)


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


@functools.cache
def _openapi_body() -> bytes:
    """The OpenAPI document, built once per process on first request (it is the same for
    every app; building it takes tens of milliseconds)."""
    return msgspec.json.encode(build_openapi())


async def _openapi(request: Request) -> Response:
    return Response(_openapi_body(), media_type="application/json")


async def _docs(request: Request) -> Response:
    return HTMLResponse(DOCS_HTML)


async def _home(request: Request) -> Response:
    return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})


async def _console(request: Request) -> Response:
    return FileResponse(STATIC_DIR / "console.html", headers={"Cache-Control": "no-cache"})


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


class Application:
    """rankline's ASGI app: one middleware stack (the middleware given to ``create_app``)
    around one dispatch, which sends every path under ``/v1/`` to the API and the rest (the
    page, docs, health, metrics, and the lifespan) to ``site``, a Starlette app. Both count
    their requests in the metrics (``rankline.http.measured``).

    So every request passes the same middleware, and a v1 request takes no layer it does not
    need: the API renders its own errors, and a framework's router, error and exception
    middleware cost about a fifth of a rank read (measured with ``rankline bench probe
    reads``)."""

    def __init__(self, api: Api, site: Starlette, middleware: Sequence[Middleware] = ()) -> None:
        self.api = api
        self.site = site
        self.state = site.state
        """Shared with ``site``: the service."""
        self._site = Measured(site)
        app: ASGIApp = self._dispatch
        for cls, args, kwargs in reversed(middleware):
            app = cls(app, *args, **kwargs)
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._app(scope, receive, send)

    def running(self) -> AbstractAsyncContextManager[Any]:
        """The app's lifespan without a server: the service started, then closed."""
        return self.site.router.lifespan_context(self.site)

    def _dispatch(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # Not a coroutine itself: the request goes on to the API's or the site's, with no
        # layer of its own.
        if scope["type"] == "http" and scope["path"].startswith("/v1/"):
            scope["app"] = self
            return self.api(scope, receive, send)
        return self._site(scope, receive, send)


Companion = Callable[[Api], AbstractAsyncContextManager[object]]
"""Something served beside the HTTP app through the same v1 API, in the same event loop, for
as long as the app runs (the gRPC server: ``rankline.cli.serving``)."""


def create_app(
    settings: Settings | None = None,
    *,
    service: Rankline | None = None,
    clock: Clock | None = None,
    middleware: Sequence[Middleware] = (),
    companion: Companion | None = None,
) -> Application:
    """The rankline ASGI app. The service starts and stops with the app's lifespan, and
    ``companion`` (given the v1 API) runs between the two. ``middleware`` wraps every
    request, the v1 API's as much as any other, inside CORS when ``settings`` list origins
    (``rankline.http.cors``)."""
    settings = settings or (service.settings if service else Settings())
    service = service or Rankline(settings, clock=clock)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await service.start()
        api.lag.start()
        try:
            if companion is None:
                yield
            else:
                async with companion(api):
                    yield
        finally:
            await api.lag.close()
            await service.close()

    api = Api(
        ENDPOINTS,
        service=service,
        settings=settings,
        keys=Keys.from_settings(settings, service.runtime_keys),
        limits=RateLimits.from_settings(settings),
        tokens=_player_tokens(settings),
    )
    routes: list[BaseRoute] = [
        Route("/", _home, methods=["GET"]),
        Route("/console", _console, methods=["GET"]),
        Route("/healthz", _healthz, methods=["GET"]),
        Route("/readyz", _readyz, methods=["GET"]),
        Route("/metrics", _metrics, methods=["GET"]),
        Route("/openapi.json", _openapi, methods=["GET"]),
        Route("/docs", _docs, methods=["GET"]),
        Mount("/docs/static", StaticFiles(directory=DOCS_STATIC_DIR), name="docs-static"),
        Mount("/static", StaticFiles(directory=str(STATIC_DIR)), name="static"),
    ]
    site = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(Secured)],
        exception_handlers={
            RanklineError: _on_error,
            HTTPException: _on_error,
            Exception: _on_error,
        },
    )
    site.state.service = service
    if settings.cors_origin_list:
        middleware = [Middleware(Cors, settings.cors_origin_list), *middleware]
    return Application(api, site, middleware)


GC_THRESHOLDS = (50_000, 20, 100)
"""Garbage-collection thresholds of a serving process. Requests allocate many short-lived
objects; at Python's default (700) the collections measured ~20 µs per submission."""


def configure_logging(level: str) -> None:
    """rankline's log lines on stderr at ``level`` (once per process), credentials
    redacted (``rankline.observability.logs``)."""
    logs.configure_logging(level)


def app_from_env(companion: Companion | None = None) -> ASGIApp:
    """The app of a worker process the server started (uvicorn's workers, granian's):
    each builds its own from the environment, and logs as ``rankline serve`` does."""
    settings = Settings()
    configure_logging(settings.log_level)
    return observed_app(settings, companion)


def serving_app(settings: Settings, companion: Companion | None = None) -> Application:
    """The app of a serving process: garbage collection tuned for it (see GC_THRESHOLDS)."""
    gc.set_threshold(*GC_THRESHOLDS)
    service = Rankline(settings, freeze_gc=True)
    return create_app(settings, service=service, companion=companion)


def observed_app(settings: Settings, companion: Companion | None = None) -> ASGIApp:
    """``serving_app`` with request ids, the log format and traces (rankline.observability):
    what a server serves."""
    app = serving_app(settings, companion)
    return observe(app, log_level=settings.log_level, log_format=settings.log_format)
