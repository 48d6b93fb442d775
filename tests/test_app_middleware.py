"""One middleware stack for every request: a middleware given to ``create_app`` sees the v1
API's reads, writes and errors exactly as it sees the page, health and unknown paths."""

from __future__ import annotations

from typing import Any

import pytest
from asgi_lifespan import LifespanManager
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from helpers_api import AUTH, open_client, put_board
from rankline import ManualClock, Settings
from rankline.http import create_app

pytestmark = pytest.mark.edge  # the middleware stack is the HTTP edge's, whatever the stack


class _Recorder:
    """Records each HTTP request it passes on: (method, path, status)."""

    def __init__(self, app: ASGIApp, seen: list[tuple[str, str, int]]) -> None:
        self.app = app
        self.seen = seen

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.seen.append((scope["method"], scope["path"], message["status"]))
            await send(message)

        await self.app(scope, receive, sending)


async def test_a_middleware_sees_every_request_v1_or_not(
    settings: Settings, clock: ManualClock
) -> None:
    seen: list[tuple[str, str, int]] = []
    app = create_app(settings, clock=clock, middleware=[Middleware(_Recorder, seen=seen)])
    async with LifespanManager(app, startup_timeout=60, shutdown_timeout=60):
        await app.state.service.wait_ready()
        async with open_client(app) as client:
            await put_board(client, "arena")
            score: dict[str, Any] = {"player_id": "p1", "score": 5, "match_id": "m1"}
            requests: list[tuple[str, str, dict[str, Any], int]] = [
                ("POST", "/v1/boards/arena/scores", {"json": score, "headers": AUTH}, 200),
                ("GET", "/v1/boards/arena/top", {}, 200),
                ("GET", "/v1/boards/arena/players/p1", {}, 200),
                ("POST", "/v1/boards/arena/scores", {"json": score}, 401),
                ("GET", "/v1/boards/arena/top", {"params": {"limit": "x"}}, 422),
                ("GET", "/v1/boards/nowhere/top", {}, 404),
                ("DELETE", "/v1/boards/arena/top", {}, 405),
                ("GET", "/v1/no-such-path", {}, 404),
                ("GET", "/healthz", {}, 200),
                ("GET", "/openapi.json", {}, 200),
                ("GET", "/no-such-page", {}, 404),
            ]
            for method, path, options, status in requests:
                response = await client.request(method, path, **options)
                assert response.status_code == status, (method, path, response.text)
    expected = [("PUT", "/v1/boards/arena", 201)] + [(m, p, s) for m, p, _, s in requests]
    assert seen == expected
