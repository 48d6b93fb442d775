"""The v1 API as one ASGI app, dispatched to for every path under ``/v1/`` inside the app's
one middleware stack (``rankline.http.app.Application``).

Inside, the endpoint table is dispatched on a tree of path segments (``route_tree.Routes``)
rather than Starlette's router, which would try each v1 route's regular expression in turn,
and one request wrapper applies what the table declares: the rate limits, the endpoint's
auth, the query parameters it takes; errors rendered as problem+json.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from rankline.access.admission import Admission
from rankline.errors import MethodNotAllowed, NotFound
from rankline.http.auth import authorization
from rankline.http.batch_sizes import BatchSizes
from rankline.http.body import check_query, query
from rankline.http.endpoint import API_SCOPE, KEY_SCOPE, PLAYER_SCOPE, STARTED_SCOPE, Endpoint
from rankline.http.loop_lag import LoopLag
from rankline.http.measured import count, route_name
from rankline.http.player_access import admit
from rankline.http.query_credential import NAME, RAW_NAME, take_query_credential
from rankline.http.responses import error_response
from rankline.http.route_tree import Routes
from rankline.writing.holds import Holds

if TYPE_CHECKING:
    from rankline.access.tokens import PlayerTokens
    from rankline.http.auth import Keys
    from rankline.http.guard import RateLimits
    from rankline.service import Rankline
    from rankline.settings import Settings


DECODING_SLOTS = 2
"""Large bodies read and decoded at once per worker (a score batch's): decoding is CPU work on
the event loop, so more at once only makes each take longer."""


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
        tokens: PlayerTokens | None = None,
    ) -> None:
        self.routes = Routes(endpoints)
        self.service = service
        self.settings = settings
        self.keys = keys
        self.tokens = tokens
        """Player tokens' verifier; None when they are off (every credential is a key)."""
        self.limits = limits
        """Checked once per request before its handler (``rankline.http.guard``)."""
        self.admission = Admission(keys, limits, tokens)
        """Who calls and whether they may: the keys, limits and tokens above, applied alike
        to every edge (``rankline.access.admission``)."""
        self.decoding = asyncio.Semaphore(DECODING_SLOTS)
        """Held while a large body is read and decoded (``endpoint.decoding``)."""
        self.batch_sizes = BatchSizes()
        """How large score batches' items were lately (``endpoint.batch_sizes``)."""
        self.holds = Holds(settings.write_deadline_ms / 1000) if settings.write_hold_early else None
        """The connections told to come back later (``endpoint.held``); None: none held."""
        self.lag = LoopLag()
        """The event loop's recent lateness: how long a request may have waited before the
        app saw it, spent from a write's deadline. Runs with the app's lifespan."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            raise RuntimeError("the v1 API answers HTTP requests only")
        started = time.perf_counter()
        path = scope["path"]
        found = self.routes.match(scope["method"], path)
        if found is not None:
            response = await self.answer(scope, receive, send, *found)
        else:
            allowed = self.routes.allowed(path)
            response = self.method_not_allowed(scope, allowed) if allowed else self.not_found(scope)
        try:
            await response(scope, receive, send)
        finally:
            route = route_name(scope["endpoint"])
            count(route, response.status_code, time.perf_counter() - started)

    async def answer(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        endpoint: Endpoint,
        path_params: dict[str, str],
    ) -> Response:
        """The request wrapper of every v1 endpoint: a credential in the query string where
        the endpoint takes one (``http.query_credential``), the caller's admission (rate
        limits, the endpoint's auth by a key or a player token: ``access.admission``, and
        a player's body: ``player_access``), its query parameters, then the
        handler; errors as problem+json. The answer is counted and timed in the metrics once
        sent (``rankline.http.measured``)."""
        handler = endpoint.handler
        scope.setdefault(STARTED_SCOPE, time.monotonic() - self.lag.waited())
        scope[API_SCOPE] = self
        scope["path_params"] = path_params
        scope["endpoint"] = handler
        request = Request(scope, receive, send)
        try:
            if RAW_NAME in scope["query_string"]:
                take_query_credential(scope, NAME in endpoint.query_names)
            client = scope.get("client")
            caller = await self.admission.caller(
                authorization(scope),
                client[0] if client else "",
                endpoint.auth,
                endpoint.writes,
                path_params.get("board_id"),
            )
            if caller.player is None:
                scope[KEY_SCOPE] = caller.scope
            else:
                scope[PLAYER_SCOPE] = caller.player
                request = await admit(request, endpoint, caller.player)
            if scope["query_string"]:
                known = self.routes.query_names.get(endpoint)
                if known is not None:
                    check_query(request, known)
                    if "after" in known:
                        after = query(request).get("after")
                        if after:
                            await self.service.ingest.settled(after)
            response = await handler(request)
        except Exception as exc:
            response = error_response(exc, scope["method"], scope["path"])
        return response

    def method_not_allowed(self, scope: Scope, allowed: list[str]) -> Response:
        scope["endpoint"] = self.method_not_allowed
        error = MethodNotAllowed(f"{scope['method']} is not allowed here")
        response = error_response(error, scope["method"], scope["path"])
        response.headers["Allow"] = ", ".join(allowed)
        return response

    def not_found(self, scope: Scope) -> Response:
        scope["endpoint"] = self.not_found
        error = NotFound(f"no route {scope['path']}")
        return error_response(error, scope["method"], scope["path"])
