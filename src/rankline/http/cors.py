"""Cross-origin requests from browser games (``RANKLINE_CORS_ORIGINS``).

With listed origins, a page from one of them may call the whole API: preflights are
answered, the request headers the API takes are allowed, and the answer headers a client
reads are exposed. With ``*``, any page may read (GET and HEAD) and nothing else. Never
with credentials: tokens and keys travel in the ``Authorization`` header, not in cookies.
An origin not allowed gets no CORS header at all, and its preflight is refused as
problem+json.

Starlette's ``CORSMiddleware`` was the first choice, but it adds its exposed headers to
the answers of origins it does not allow, refuses a preflight in plain text, and with
``*`` lets any page read the answer of a write: this is the same protocol with those three
rules, in one small ASGI wrapper that only the apps with CORS on are given
(``rankline.http.app.create_app``).
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rankline.errors import OriginNotAllowed
from rankline.http.responses import problem_response

READS = ("GET", "HEAD")
WRITES = ("POST", "PUT", "PATCH", "DELETE")
REQUEST_HEADERS = (
    "authorization",
    "content-type",
    "if-none-match",
    "prefer",
    "x-request-id",
)
"""What a client of the API sends beyond the CORS-safelisted headers (docs/api.md)."""
_TAKEN = frozenset(
    (*REQUEST_HEADERS, "accept", "accept-language", "content-language", "last-event-id")
)
"""What a preflight may ask for: the API's headers, the safelisted ones (which a browser
need not list but may) and EventSource's ``Last-Event-ID``."""
EXPOSED = (
    "ETag",
    "Retry-After",
    "X-Request-ID",
    "Content-Disposition",
    "Allow",
    "WWW-Authenticate",
)
"""The answer headers a client reads, beyond the CORS-safelisted ones."""
MAX_AGE = 600
"""How long a browser may keep a preflight's answer, in seconds."""


class Cors:
    """``app`` answering cross-origin requests from ``origins`` (``["*"]``: any, reads only)."""

    def __init__(self, app: ASGIApp, origins: Sequence[str]) -> None:
        self.app = app
        self.anyone = "*" in origins
        self.origins = frozenset(o.encode("latin-1") for o in origins if o != "*")
        self.methods = frozenset(READS if self.anyone else READS + WRITES)
        self._allow_methods = ", ".join(sorted(self.methods | {"OPTIONS"})).encode()
        self._allow_headers = ", ".join(sorted(_TAKEN)).encode()
        self._exposed = ", ".join(EXPOSED).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        origin = requested = None
        for name, value in scope["headers"]:
            if name == b"origin":
                origin = value
            elif name == b"access-control-request-method":
                requested = value
        method = scope["method"]
        if origin is not None and requested is not None and method == "OPTIONS":
            await self._preflight(scope, origin, requested)(scope, receive, send)
            return
        if origin is None or not self._allows(origin, method):
            await self.app(scope, receive, self._varying(send) if self.origins else send)
            return
        await self.app(scope, receive, self._answering(origin, send))

    def _allows(self, origin: bytes, method: str) -> bool:
        return (self.anyone or origin in self.origins) and method in self.methods

    def _allowed_origin(self, origin: bytes) -> bytes:
        return b"*" if self.anyone else origin

    def _preflight(self, scope: Scope, origin: bytes, requested: bytes) -> ASGIApp:
        method = requested.decode("latin-1").strip().upper()
        wanted = _requested_headers(scope)
        refused = self._refusal(origin, method, wanted)
        if refused is not None:
            return problem_response(OriginNotAllowed(refused))
        headers = {
            "Access-Control-Allow-Origin": self._allowed_origin(origin).decode("latin-1"),
            "Access-Control-Allow-Methods": self._allow_methods.decode(),
            "Access-Control-Allow-Headers": self._allow_headers.decode(),
            "Access-Control-Max-Age": str(MAX_AGE),
        }
        if not self.anyone:
            headers["Vary"] = "Origin"
        return Response(status_code=204, headers=headers)

    def _refusal(self, origin: bytes, method: str, wanted: list[str]) -> str | None:
        if not self.anyone and origin not in self.origins:
            return "this origin may not call the API from a browser (RANKLINE_CORS_ORIGINS)"
        if method not in self.methods:
            if self.anyone:
                return f"any origin may read, but not {method}: list the origins that may"
            return f"{method} is not a method of the API"
        unknown = [h for h in wanted if h not in _TAKEN]
        if unknown:
            return f"the API does not take the header(s) {', '.join(unknown)}"
        return None

    def _varying(self, send: Send) -> Send:
        """``send`` with ``Vary: Origin`` on the answer: with listed origins, whether an
        answer carries CORS headers depends on the Origin, which a cache must know."""

        async def varying(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), (b"vary", b"Origin")]
            await send(message)

        return varying

    def _answering(self, origin: bytes, send: Send) -> Send:
        added = [
            (b"access-control-allow-origin", self._allowed_origin(origin)),
            (b"access-control-expose-headers", self._exposed),
        ]
        if not self.anyone:
            added.append((b"vary", b"Origin"))

        async def answering(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *added]
            await send(message)

        return answering


def _requested_headers(scope: Scope) -> list[str]:
    for name, value in scope["headers"]:
        if name == b"access-control-request-headers":
            text = value.decode("latin-1").lower()
            return [h.strip() for h in text.split(",") if h.strip()]
    return []
