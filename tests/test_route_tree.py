"""The short path's route tree (``rankline.http.route_tree.Routes``) finds what Starlette's router
finds: the same handler and path parameters, and nothing where Starlette has no match."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match, Route, Router

from rankline.http.endpoint import Endpoint, Param
from rankline.http.route_tree import Routes
from rankline.http.routes import ENDPOINTS

_SEGMENT = (
    st.sampled_from(
        ["v1", "boards", "players", "scores", "batch", "top", "around", "friends", "ban", "b", ""]
    )
    | st.sampled_from(["matches", "void"])
    | st.text(alphabet="abc:-_.0", min_size=0, max_size=4)
)
_METHODS = st.sampled_from(["GET", "PUT", "POST", "DELETE", "PATCH"])


def _starlette(endpoints: tuple[Endpoint, ...], method: str, path: str) -> Any:
    router = Router([Route(e.route, e.handler, methods=[e.method]) for e in endpoints])
    for route in router.routes:
        scope = {"type": "http", "method": method, "path": path, "root_path": ""}
        match, child = route.matches(scope)
        if match is Match.FULL:
            return route.endpoint, child["path_params"]
    return None


def _handler(routes: Routes, method: str, path: str) -> Any:
    """What the tree finds, as Starlette names it: the handler and the path parameters."""
    found = routes.match(method, path)
    return None if found is None else (found[0].handler, found[1])


@given(_METHODS, st.lists(_SEGMENT, min_size=1, max_size=8))
def test_the_tree_finds_what_starlette_finds(method: str, segments: list[str]) -> None:
    path = "/" + "/".join(segments)
    routes = Routes(ENDPOINTS)
    assert _handler(routes, method, path) == _starlette(ENDPOINTS, method, path)
    methods = {
        m for m in ("GET", "PUT", "POST", "DELETE", "PATCH") if _starlette(ENDPOINTS, m, path)
    }
    assert set(routes.allowed(path)) == methods


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: f"{e.method} {e.path}")
def test_every_v1_route_is_found_with_its_parameters(endpoint: Endpoint) -> None:
    values = (
        ("board_id", "b-1"),
        ("player_id", "p:7"),
        ("tournament_id", "t-1"),
        ("match_id", "m-3"),
        ("key_id", "key_1"),
    )
    path = endpoint.path
    for name, value in values:
        path = path.replace("{" + name + "}", value)
    found = Routes(ENDPOINTS).match(endpoint.method, path)
    assert found is not None
    found_endpoint, params = found
    assert found_endpoint is endpoint
    assert params == {name: value for name, value in values if "{" + name + "}" in endpoint.path}


async def _a(request: Request) -> Response:
    return Response()


async def _b(request: Request) -> Response:
    return Response()


def test_a_literal_segment_that_leads_nowhere_falls_back_to_the_parameter() -> None:
    endpoints = (
        Endpoint("GET", "/x/{name}/c", _a, "a"),
        Endpoint("GET", "/x/b/d", _b, "b"),
    )
    routes = Routes(endpoints)
    assert _handler(routes, "GET", "/x/b/c") == (_a, {"name": "b"})
    assert _handler(routes, "GET", "/x/b/d") == (_b, {})
    assert _handler(routes, "GET", "/x/q/c") == (_a, {"name": "q"})
    assert routes.match("GET", "/x//c") is None  # an empty segment is no parameter
    assert routes.match("POST", "/x/b/d") is None  # Starlette answers 405 for it


def test_a_method_only_a_parameter_route_has_is_found_there() -> None:
    """Starlette tries the routes in turn: a literal path that lacks the method does not
    hide a parameter path that has it."""
    endpoints = (
        Endpoint("POST", "/x/b/c", _b, "b"),
        Endpoint("GET", "/x/{name}/c", _a, "a"),
    )
    routes = Routes(endpoints)
    assert _handler(routes, "GET", "/x/b/c") == (_a, {"name": "b"})
    assert _handler(routes, "POST", "/x/b/c") == (_b, {})
    assert routes.match("DELETE", "/x/b/c") is None
    for method in ("GET", "POST", "DELETE"):
        assert _handler(routes, method, "/x/b/c") == _starlette(endpoints, method, "/x/b/c")


@pytest.mark.parametrize(
    "match_id", ["m/1", "a/b/c", "m/void", "/m", "m/", "void", "m//1", "matches/m/void"]
)
def test_a_match_id_with_slashes_is_routed_whole(match_id: str) -> None:
    """The void route's match id takes Starlette's path converter: every segment up to the
    last ``/void``, as Starlette finds it."""
    path = f"/v1/boards/b-1/matches/{match_id}/void"
    found = _handler(Routes(ENDPOINTS), "POST", path)
    assert found is not None and found[1] == {"board_id": "b-1", "match_id": match_id}
    assert found == _starlette(ENDPOINTS, "POST", path)
    assert Routes(ENDPOINTS).allowed(path) == ["POST"]


def test_a_path_parameter_is_empty_or_holds_segments_as_starlettes_converter() -> None:
    endpoints = (
        Endpoint(
            "GET",
            "/x/{rest}/c",
            _a,
            "a",
            params=(Param("rest", "path", "", slashes=True),),
        ),
        Endpoint("GET", "/x/{name}/d", _b, "b"),
    )
    routes = Routes(endpoints)
    for path in ("/x//c", "/x/b/c", "/x/b/c/c", "/x/c/d/c", "/x/c", "/x/b/d", "/x/b/d/d"):
        assert _handler(routes, "GET", path) == _starlette(endpoints, "GET", path), path
    assert _handler(routes, "GET", "/x//c") == (_a, {"rest": ""})
    assert _handler(routes, "GET", "/x/b/c/c") == (_a, {"rest": "b/c"})
