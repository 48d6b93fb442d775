"""What a player token may call, as the endpoint table declares it (``Endpoint.auth`` and
``Endpoint.for_players``): every read, the player's own (``me``) endpoints, and the
operations ``for_players`` as themselves. Everything else (boards, players, moderation,
audit, keys, dead letters, tournaments' writes, batches) is 403 ``NotForPlayers``, before
any handler runs. The rules are ``rankline.access.admission``'s; here they meet a body."""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.requests import Request
from starlette.types import Message, Receive

from rankline.access.admission import own_player_id, player_may
from rankline.callers import Player
from rankline.http.body import read_body
from rankline.http.endpoint import Endpoint, settings_of


async def admit(request: Request, endpoint: Endpoint, player: Player) -> Request:
    """The request as its handler gets it, once ``player`` may call ``endpoint``: a body of
    a ``for_players`` operation names the player (it is read here, and replayed)."""
    if not player_may(endpoint.auth, endpoint.for_players, operation(endpoint)):
        return request
    body = await read_body(request, settings_of(request).max_body_bytes)
    return Request(request.scope, _replay(_as_player(body, player), request.receive))


def _as_player(body: bytes, player: Player) -> bytes:
    """The body with the token's player as its ``player_id``; a body that is not a JSON
    object goes on as it is, for the handler to refuse."""
    try:
        given: Any = msgspec.json.decode(body)
    except (msgspec.DecodeError, RecursionError):
        return body
    if not isinstance(given, dict):
        return body
    named = given.get("player_id")
    given["player_id"] = own_player_id(named, player)
    return body if named is not None else msgspec.json.encode(given)


def operation(endpoint: Endpoint) -> str:
    """How a refusal names the operation: ``POST /v1/scores/batch (submit up to ...)``."""
    return f"{endpoint.method} {endpoint.path} ({endpoint.summary.lower()})"


def _replay(body: bytes, then: Receive) -> Receive:
    """A ``receive`` that gives ``body`` once, then what ``then`` gives (a disconnect)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return await then()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive
