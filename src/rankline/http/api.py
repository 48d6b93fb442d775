"""The v1 API as one ASGI app, routed to among the app's other routes (``ApiRoute``: every
path under ``/v1/``), so that every request passes the same middleware stack
(``rankline.http.app.create_app``).

Inside, the endpoint table is dispatched on a tree of path segments (``route_tree.Routes``)
rather than Starlette's router, which would try each v1 route's regular expression in turn,
and one request wrapper applies what the table declares: the rate limits, the endpoint's
auth, the query parameters it takes; errors rendered as problem+json.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from starlette.datastructures import URLPath
from starlette.requests import Request
from starlette.routing import BaseRoute, Match, NoMatchFound
from starlette.types import Receive, Scope, Send

from rankline.errors import MethodNotAllowed, NotFound
from rankline.http.body import check_query
from rankline.http.endpoint import API_SCOPE, KEY_SCOPE, Endpoint
from rankline.http.responses import error_response
from rankline.http.route_tree import Routes

if TYPE_CHECKING:
    from rankline.http.auth import Keys
    from rankline.http.guard import RateLimits
    from rankline.service import Rankline
    from rankline.settings import Settings


class Api:
    """The v1 endpoints. The service, settings and keys are attributes that handlers reach
    through the request (``endpoint.service_of``); the Api puts itself in the scope."""

    def __init__(
        self,
        endpoints: Sequence[Endpoint],
        *,
        service: Rankline,
        settings: Settings,
        keys: Keys,
        limits: RateLimits | None,
    ) -> None:
        self.routes = Routes(endpoints)
        self.service = service
        self.settings = settings
        self.keys = keys
        self.limits = limits
        """Checked once per request before its handler (``rankline.http.guard``)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            raise RuntimeError("the v1 API answers HTTP requests only")
        path = scope["path"]
        found = self.routes.match(scope["method"], path)
        if found is not None:
            await self._answer(scope, receive, send, *found)
            return
        allowed = self.routes.allowed(path)
        if allowed:
            await self.method_not_allowed(scope, receive, send, allowed)
        else:
            await self.not_found(scope, receive, send)

    async def _answer(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        endpoint: Endpoint,
        path_params: dict[str, str],
    ) -> None:
        """The request wrapper of every v1 endpoint: rate limits, the endpoint's auth, its
        query parameters, then the handler; errors as problem+json."""
        handler = endpoint.handler
        scope[API_SCOPE] = self
        scope["path_params"] = path_params
        scope["endpoint"] = handler
        request = Request(scope, receive, send)
        try:
            if self.limits is not None:
                await self.limits.check(scope, endpoint.auth != "read")
            scope[KEY_SCOPE] = self.keys.authorize(request, endpoint.auth)
            if scope["query_string"]:
                known = self.routes.query_names.get(endpoint)
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

    async def method_not_allowed(
        self, scope: Scope, receive: Receive, send: Send, allowed: list[str]
    ) -> None:
        scope["endpoint"] = self.method_not_allowed
        error = MethodNotAllowed(f"{scope['method']} is not allowed here")
        response = error_response(error, scope["method"], scope["path"])
        response.headers["Allow"] = ", ".join(allowed)
        await response(scope, receive, send)

    async def not_found(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["endpoint"] = self.not_found
        error = NotFound(f"no route {scope['path']}")
        await error_response(error, scope["method"], scope["path"])(scope, receive, send)


class ApiRoute(BaseRoute):
    """The route to the v1 API: every path under ``/v1/``, found by a string test rather than
    a ``Mount``'s regular expression and child scope (measured: about half of what the
    framework adds to a read)."""

    def __init__(self, api: Api) -> None:
        self.app = api

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] == "http" and scope["path"].startswith("/v1/"):
            return Match.FULL, {}
        return Match.NONE, {}

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        raise NoMatchFound(name, path_params)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)
