"""Every endpoint's documented auth is what the API enforces: the endpoint table declares
who may call each operation, the OpenAPI document says so, and the one request wrapper
applies it before any handler runs."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.routing import Mount, Route

from helpers_api import SERVER_KEY, open_app, open_client
from rankline import ManualClock, Settings
from rankline.http.api import Api
from rankline.http.endpoint import Endpoint
from rankline.http.openapi import build_openapi
from rankline.http.routes import ENDPOINTS

# The HTTP edge (the endpoint table's auth and methods): one stack is enough.
pytestmark = pytest.mark.edge

READ_KEY = "read-key-1"
SCOPED_KEY = "scoped-key"
KEYS = {
    "none": None,
    "wrong": "not-a-key",
    "read": READ_KEY,
    "scoped": SCOPED_KEY,  # a server key limited to boards other-*
    "server": SERVER_KEY,
}
ALLOWED = {
    "read": {"read", "scoped", "server"},
    "board": {"server"},
    "server": {"scoped", "server"},
    "players": {"server"},
    "me": set(),  # a player token only (tests/test_player_tokens.py)
}
"""Which of ``KEYS`` each kind of auth lets through, for a board outside other-*."""


def _path(endpoint: Endpoint) -> str:
    # A board that does not exist: every call that gets past auth ends in a 4xx of its own
    # (not found, a body missing) and changes nothing, and no stream is opened.
    return endpoint.path.replace("{board_id}", "absent-board").replace("{player_id}", "p1")


def _refused(status: int) -> bool:
    return status in (401, 403)


async def test_every_endpoint_enforces_its_documented_auth(
    settings: Settings, clock: ManualClock
) -> None:
    keyed = settings.model_copy(
        update={
            "read_keys": READ_KEY,
            "server_keys": f"{SERVER_KEY},{SCOPED_KEY}:other-*",
        }
    )
    seen: list[tuple[str, str, str, int]] = []
    async with open_app(keyed, clock) as app, open_client(app) as client:
        for endpoint in ENDPOINTS:
            for name, key in KEYS.items():
                headers = {} if key is None else {"Authorization": f"Bearer {key}"}
                response = await client.request(endpoint.method, _path(endpoint), headers=headers)
                seen.append((endpoint.method, endpoint.path, name, response.status_code))
                allowed = name in ALLOWED[endpoint.auth]
                assert _refused(response.status_code) != allowed, (
                    f"{endpoint.method} {endpoint.path} ({endpoint.auth}) with the {name} key "
                    f"answered {response.status_code}: {response.text}"
                )
                if key is None:
                    assert response.status_code == 401
                    assert response.headers["www-authenticate"].startswith("Bearer")
    assert len(seen) == len(ENDPOINTS) * len(KEYS)


def test_the_openapi_document_says_what_the_table_enforces() -> None:
    paths = build_openapi()["paths"]
    for endpoint in ENDPOINTS:
        security = paths[endpoint.path][endpoint.method.lower()]["security"]
        if endpoint.auth == "read":
            assert security == [{}, {"readKey": []}, {"playerToken": []}]
        elif endpoint.auth == "me":
            assert security == [{"playerToken": []}]
        elif endpoint.for_players:
            assert security == [{"serverKey": []}, {"playerToken": []}]
        else:
            assert security == [{"serverKey": []}]


async def test_the_table_is_the_only_dispatcher_of_the_v1_routes(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(settings, clock) as app:
        site_paths = [r.path for r in app.site.routes if isinstance(r, Route | Mount)]
        assert site_paths and not [p for p in site_paths if p.startswith("/v1")]
        api = app.api
        assert isinstance(api, Api)
        for endpoint in ENDPOINTS:
            found = api.routes.match(endpoint.method, _path(endpoint))
            assert found is not None and found[0] is endpoint


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PATCH", "/v1/boards/arena", "DELETE, GET, PUT"),
        ("DELETE", "/v1/boards/arena/top", "GET"),
        ("GET", "/v1/scores/batch", "POST"),
    ],
)
async def test_a_wrong_method_on_a_v1_path_is_405_with_allow(
    client: Any, method: str, path: str, allow: str
) -> None:
    response = await client.request(method, path)
    assert response.status_code == 405
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["allow"] == allow
    assert (await client.get("/v1/nothing-here")).status_code == 404
