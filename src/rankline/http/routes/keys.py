"""The v1 key routes: server and read keys created, listed and revoked at runtime. Each parses
its input, calls one ``service.runtime_keys`` method and renders the answer; only a server key
without board limits may call them. ``routes.ENDPOINTS`` includes ``KEY_ENDPOINTS``."""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import Response

from rankline.access.answers import KeyOut, KeysOut, NewKeyOut
from rankline.access.keys import NewKey
from rankline.audit.reasons import ReasonRequest
from rankline.http import endpoint as e
from rankline.http.audited import attribution
from rankline.http.body import check_id, check_query
from rankline.http.responses import json_response

KEY_ID_PATTERN = r"^[A-Za-z0-9_]{1,32}$"
KEY_ID = re.compile(KEY_ID_PATTERN)


async def create_key(request: Request) -> Response:
    by = attribution(request)
    new = await e.body_of(request, NewKey)
    return json_response(await e.service_of(request).runtime_keys.create(new, by), 201)


async def list_keys(request: Request) -> Response:
    check_query(request, frozenset())
    return json_response(await e.service_of(request).runtime_keys.listed())


async def revoke_key(request: Request) -> Response:
    key_id = check_id(request.path_params["key_id"], KEY_ID, "key id")
    by = attribution(request)
    return json_response(await e.service_of(request).runtime_keys.revoke(key_id, by))


NO_RPC = (
    "keys are an operator's business, not a game server's: they are managed over HTTP "
    "(/v1/keys), from the console or with `rankline keys`"
)
"""Why the key operations have no RPC."""


KEY_ENDPOINTS: tuple[e.Endpoint, ...] = (
    e.Endpoint(
        "POST",
        "/v1/keys",
        create_key,
        "Create a server or read key (its secret is in this answer only)",
        auth="players",
        body=NewKey,
        response=NewKeyOut,
        status=201,
        request=ReasonRequest,
        tag="keys",
        no_rpc=NO_RPC,
    ),
    e.Endpoint(
        "GET",
        "/v1/keys",
        list_keys,
        "List the keys made at runtime, without their secrets",
        auth="players",
        response=KeysOut,
        tag="keys",
        no_rpc=NO_RPC,
    ),
    e.Endpoint(
        "DELETE",
        "/v1/keys/{key_id}",
        revoke_key,
        "Revoke a key: every server refuses it within a second",
        auth="players",
        response=KeyOut,
        params=(
            e.Param(
                "key_id",
                "path",
                "The key's id (the `id` of its creation's answer).",
                {"type": "string", "pattern": KEY_ID_PATTERN},
                True,
            ),
        ),
        request=ReasonRequest,
        tag="keys",
        no_rpc=NO_RPC,
    ),
)
