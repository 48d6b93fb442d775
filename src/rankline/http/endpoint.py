"""What the v1 routes share: the endpoint table's types, the parameters most of them take,
and the request helpers every handler uses.

An ``Endpoint`` names one operation: its method and path, its handler, who may call it
(``auth``, applied before the handler by the request wrapper in ``http.api``) and what the
OpenAPI document says of it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from rankline.access.admission import Rule
from rankline.bodies import BOARD_ID as BOARD_ID  # their one place
from rankline.bodies import PLAYER_ID as PLAYER_ID
from rankline.callers import Player
from rankline.errors import Forbidden, InvalidInput, Overloaded
from rankline.http.auth import BoardScope, Keys
from rankline.http.batch_sizes import BatchSizes
from rankline.http.body import check_id, check_query, query, read_json
from rankline.metrics import HELD_WRITES
from rankline.parameters import build, described, query_names
from rankline.reading.requests import PlayerRequest
from rankline.service import Rankline
from rankline.settings import Settings
from rankline.writing.admission import Deadline
from rankline.writing.holds import Holds

T = TypeVar("T")
S = TypeVar("S", bound=msgspec.Struct)
Handler = Callable[[Request], Awaitable[Response]]
Auth = Literal["read", "board", "server", "players", "me"]
"""Who may call an endpoint:

- ``read``: anyone while no read keys are set, else a read or server key, or a player token;
- ``board``: a server key allowed to write the board in the path;
- ``server``: any server key (a batch then checks each item's board against the key's);
- ``players``: a server key not limited to boards (players belong to every board);
- ``me``: a player token only (the player reads as themselves).

A player token may call ``read`` and ``me`` endpoints, and those that say ``for_players``;
nothing else (``rankline.http.player_access``).
"""
KEY_SCOPE = "rankline.key_scope"
"""Where the request scope keeps the boards the caller's server key is limited to."""
PLAYER_SCOPE = "rankline.player"
"""Where the request scope keeps the player (``rankline.callers.Player``) whose token the
request carries; absent when it carries a key or nothing."""
STARTED_SCOPE = "rankline.started"
"""When the request reached the application (``time.monotonic``), less the worker's recent
event loop lateness (the wait it may have had before the app saw it: ``http.loop_lag``): a
write's deadline counts from then, so that wait, and the time its body took to arrive and
decode, are spent from it."""
API_SCOPE = "rankline.api"
"""Where the v1 API (``rankline.http.api.Api``) puts itself in a request's scope: handlers
reach the service, settings and keys through it."""


@dataclass(frozen=True)
class Param:
    name: str
    where: str
    description: str
    schema: dict[str, Any] = field(default_factory=lambda: {"type": "string"})
    required: bool = False
    slashes: bool = False
    """A path parameter that may hold "/", raw or percent-encoded: it is routed with
    Starlette's ``path`` converter (``Endpoint.route``)."""


DECLARED = Param("", "query", "")
"""Where an endpoint's ``params`` list the query parameters its ``request`` declares."""


def declared(kind: type[msgspec.Struct], *names: str) -> tuple[Param, ...]:
    """The query parameters ``kind`` declares (``rankline.parameters``), as the table's: all
    of them, or those ``names`` in that order."""
    found = {
        d.name: Param(d.name, d.where, d.description, d.schema, d.required) for d in described(kind)
    }
    return tuple(found[n] for n in names) if names else tuple(found.values())


@dataclass(frozen=True, eq=False)
class Endpoint:
    """One operation: its route, who may call it, and what the OpenAPI document says of it
    (compared and hashed by identity: each is one row of the table)."""

    method: str
    path: str
    handler: Handler
    summary: str
    auth: Auth = "read"
    body: type | None = None
    response: type | None = None
    status: int = 200
    also: tuple[int, ...] = ()
    """Other success statuses with the same body (PUT answers 201 when it creates)."""
    accepted: type | None = None
    """The 202 body of a ``Prefer: respond-async`` request, where the operation takes one."""
    params: tuple[Param, ...] = ()
    tag: str = "leaderboards"
    not_modified: bool = False
    """Answers carry an ETag and honour If-None-Match with 304."""
    download: tuple[str, ...] = ()
    """The content types of a success that is a file rather than JSON (one per format)."""
    for_players: bool = False
    """A player token may call it too, as themselves: a body's ``player_id`` is then the
    token's player (403 if it names another; set from the token if it names none), and the
    handler decides what the player may do (``player_of``)."""
    rpc: str | None = None
    """The RPC of rankline.v1.Rankline that twins it: the same operation over gRPC, under
    the same ``rule`` (its request carries the path and query parameters as fields of the
    same names, the body as ``body``)."""
    no_rpc: str | None = None
    """Why it has no RPC, where it has none."""
    request: type[msgspec.Struct] | None = None
    """What the operation takes in its path and query, declared once: its handler builds it
    (``ask``), and its query parameters are listed in ``params`` where ``DECLARED`` stands
    (else after the others), but for those ``params`` list themselves (``declared``)."""

    def __post_init__(self) -> None:
        if self.request is None:
            return
        listed = {(p.name, p.where) for p in self.params}
        query_params = [p for p in declared(self.request) if (p.name, p.where) not in listed]
        params = self.params if DECLARED in self.params else (*self.params, DECLARED)
        expanded: list[Param] = []
        for param in params:
            expanded.extend(query_params if param is DECLARED else (param,))
        object.__setattr__(self, "params", tuple(expanded))

    @property
    def writes(self) -> bool:
        """Whether it counts against the write rate limits (rather than the read ones)."""
        return self.auth not in ("read", "me")

    @property
    def rule(self) -> Rule:
        """Who may call it, as every edge admits a caller (``access.admission``)."""
        named = f"{self.method} {self.path} ({self.summary.lower()})"
        return Rule(self.auth, self.writes, self.for_players, named)

    @property
    def route(self) -> str:
        """The path as the router matches it: ``path``, with each parameter that may hold
        "/" given Starlette's ``path`` converter (``{match_id:path}``)."""
        route = self.path
        for param in self.params:
            if param.where == "path" and param.slashes:
                route = route.replace(f"{{{param.name}}}", f"{{{param.name}:path}}")
        return route

    @property
    def query_names(self) -> frozenset[str]:
        """The query parameters this operation takes."""
        return frozenset(p.name for p in self.params if p.where == "query")


def service_of(request: Request) -> Rankline:
    service: Rankline = request.scope[API_SCOPE].service
    return service


def decoding(request: Request) -> asyncio.Semaphore:
    """Held while a large body is read and decoded: a few at a time per worker, so that
    requests arriving together do not all decode at once, each slowing the others and the
    reads; the time one waits for it is spent from its deadline."""
    slots: asyncio.Semaphore = request.scope[API_SCOPE].decoding
    return slots


def batch_sizes(request: Request) -> BatchSizes:
    """What this worker learned of a score batch item's size (``http.batch_sizes``)."""
    sizes: BatchSizes = request.scope[API_SCOPE].batch_sizes
    return sizes


def content_length(request: Request) -> int | None:
    """The body's declared length in bytes, if it declares a valid one."""
    raw = request.headers.get("content-length")
    return int(raw) if raw is not None and raw.isdigit() else None


async def held(request: Request, handle: Callable[[Request], Awaitable[Response]]) -> Response:
    """A write's answer by ``handle``, once the wait its connection was told to come back
    after has passed (``rankline.writing.holds``); an overload refusal tells it so. A
    connection is an HTTP/1.x one the server sees directly: one a proxy's
    ``X-Forwarded-For`` stands for (its port unknown, 0) and HTTP/2's streams are not
    held."""
    holds: Holds | None = request.scope[API_SCOPE].holds
    if holds is None:
        return await handle(request)
    connection = _connection(request.scope)
    wait = holds.wait(connection)
    if wait > 0:
        HELD_WRITES.inc()
        await asyncio.sleep(wait)
    try:
        return await handle(request)
    except Overloaded as exc:
        holds.refused(connection, exc.retry_after, waited=wait)
        raise


def _connection(scope: Scope) -> tuple[str, int] | None:
    client = scope.get("client")
    if not client or not client[1] or not scope.get("http_version", "").startswith("1"):
        return None
    return client[0], client[1]


def settings_of(request: Request) -> Settings:
    settings: Settings = request.scope[API_SCOPE].settings
    return settings


def keys_of(request: Request) -> Keys:
    keys: Keys = request.scope[API_SCOPE].keys
    return keys


def player_of(request: Request) -> Player | None:
    """The player calling as themselves, as the wrapper found them (None: not a player)."""
    player: Player | None = request.scope.get(PLAYER_SCOPE)
    return player


def own_id(request: Request) -> str:
    """The calling player's id, on a player's own (``me``) endpoint."""
    player = player_of(request)
    if player is None:  # the wrapper lets only a player call a ``me`` endpoint
        raise Forbidden("this needs a player token")
    return player.player_id


def board_id(request: Request) -> str:
    return check_id(request.path_params["board_id"], BOARD_ID, "board_id")


def player_id(request: Request) -> str:
    return check_id(request.path_params["player_id"], PLAYER_ID, "player_id")


def ask(request: Request, kind: type[S], **given: object) -> S:
    """The operation's request (``Endpoint.request``) from the path and query, or the
    422 that says what is wrong with them (``rankline.parameters.build``); ``given`` are
    values the edge knows valid, such as a player token's own id. A query parameter it does
    not declare is refused (``check_query``) once the path is known good."""
    params, path = query(request), request.scope["path_params"]
    if params:
        known = query_names(kind)
        if not params.keys() <= known:
            build(kind, path, {}, **given)  # the path's errors are told first
            check_query(request, known)
    return build(kind, path, params, **given)


async def body_of(request: Request, kind: type[T]) -> T:
    return await read_json(request, kind, settings_of(request).max_body_bytes)


def key_scope(request: Request) -> BoardScope | None:
    """The boards the caller's server key may write (None: all), as the wrapper found it."""
    scope: BoardScope | None = request.scope.get(KEY_SCOPE)
    return scope


INT = {"type": "integer"}


def path_param(kind: type[msgspec.Struct], name: str) -> Param:
    """The path parameter ``name`` that ``kind`` declares, as the table's."""
    [found] = [d for d in described(kind, "path") if d.name == name]
    return Param(found.name, found.where, found.description, found.schema, True)


BOARD = path_param(PlayerRequest, "board_id")
PLAYER = path_param(PlayerRequest, "player_id")
PREFER = Param(
    "Prefer",
    "header",
    "respond-async: answer 202 as soon as the submissions are durable, with a token for "
    "reads' after=, instead of once they are applied.",
)


def respond_async(request: Request) -> bool:
    """Whether the request asks for an asynchronous answer (RFC 7240 ``respond-async``)."""
    prefer = request.headers.get("prefer")
    return prefer is not None and "respond-async" in prefer.lower()


REQUEST_TIMEOUT = Param(
    "Request-Timeout",
    "header",
    "Milliseconds the client waits for the answer (1 to 600000): a write that would not be "
    "answered within it, or within the server's RANKLINE_WRITE_DEADLINE_MS if that is "
    "smaller, answers 429 with Retry-After at once and records nothing.",
    INT,
)
_MAX_TIMEOUT_MS = 600_000


def write_deadline(request: Request) -> Deadline:
    """The deadline of a write request: the server's, or the client's ``Request-Timeout``
    (milliseconds) when that is sooner, counted from when the request reached the
    application (``STARTED_SCOPE``)."""
    raw = request.headers.get("request-timeout")
    client: float | None = None
    if raw is not None:
        text = raw.strip()
        if not text.isdigit() or not 1 <= int(text) <= _MAX_TIMEOUT_MS:
            raise InvalidInput.at(
                ["header", "Request-Timeout"],
                f"Request-Timeout must be whole milliseconds from 1 to {_MAX_TIMEOUT_MS}",
            )
        client = int(text) / 1000
    started = request.scope.get(STARTED_SCOPE)
    if started is None:
        started = time.monotonic()
    return service_of(request).writer.admission.deadline(started, client)
