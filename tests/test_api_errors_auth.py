"""Auth (server and read keys), problem+json errors for every kind of bad request, no 500s
on garbage, operations endpoints, the OpenAPI document and the docs page."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from helpers_api import (
    AUTH,
    JSON,
    SERVER_KEY,
    assert_problem,
    assert_time,
    error_locs,
    put_board,
    ranking,
    serve,
    submit,
)
from rankline import ManualClock, Settings
from rankline.errors import Forbidden
from rankline.http.auth import Keys

# The HTTP edge (auth, error rendering, limits, OpenAPI and the docs page): one stack is enough.
pytestmark = pytest.mark.edge

SCORE = {"player_id": "p1", "score": 10, "match_id": "m1"}
WRITES: list[tuple[str, str, Any]] = [
    ("PUT", "/v1/boards/arena", {"title": "x"}),
    ("PUT", "/v1/boards/fresh", {}),
    ("DELETE", "/v1/boards/arena", None),
    ("POST", "/v1/boards/arena/scores", SCORE),
    ("POST", "/v1/scores/batch", {"scores": [{"board": "arena", **SCORE}]}),
]
READS: list[tuple[str, str, Any]] = [
    ("GET", "/v1/boards", None),
    ("GET", "/v1/boards/arena", None),
    ("GET", "/v1/boards/arena/top", None),
    ("GET", "/v1/boards/arena/players/p0", None),
    ("GET", "/v1/boards/arena/players/p0/around", None),
    ("POST", "/v1/boards/arena/players/p0/friends", {"friends": ["p1"]}),
    ("POST", "/v1/boards/arena/ranks", {"player_ids": ["p0"]}),
    ("GET", "/v1/boards/arena/periods", None),
]


async def _seed(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    await submit(client, "arena", "p0", 5, match="m0")


# --- auth -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": ""},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer  "},
        {"Authorization": f"Basic {SERVER_KEY}"},
        {"Authorization": SERVER_KEY},
    ],
    ids=["none", "empty", "no_key", "blank_key", "basic", "bare"],
)
async def test_write_without_bearer_key_is_401(
    client: httpx.AsyncClient, headers: dict[str, str]
) -> None:
    await _seed(client)
    for method, path, body in WRITES:
        response = await client.request(method, path, json=body, headers=headers)
        assert_problem(response, 401)
        assert response.headers["www-authenticate"].lower().startswith("bearer"), path
    await _check_unchanged(client)


async def test_write_with_wrong_key_is_403(client: httpx.AsyncClient) -> None:
    await _seed(client)
    for key in ("wrong", SERVER_KEY + "x", SERVER_KEY[:-1], SERVER_KEY.upper()):
        for method, path, body in WRITES:
            response = await client.request(
                method, path, json=body, headers={"Authorization": f"Bearer {key}"}
            )
            assert_problem(response, 403)
    await _check_unchanged(client)


async def test_auth_is_checked_before_the_body(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/boards/arena/scores", content=b"{not json", headers={**JSON})
    assert_problem(response, 401)
    response = await client.put(
        "/v1/boards/arena", content=b"{not json", headers={**JSON, "Authorization": "Bearer x"}
    )
    assert_problem(response, 403)


async def test_bearer_scheme_is_case_insensitive(client: httpx.AsyncClient) -> None:
    response = await client.put(
        "/v1/boards/arena", json={}, headers={"Authorization": f"bearer {SERVER_KEY}"}
    )
    assert response.status_code == 201


async def test_reads_are_public_without_read_keys(client: httpx.AsyncClient) -> None:
    await _seed(client)
    for method, path, body in READS:
        response = await client.request(method, path, json=body)
        assert response.status_code == 200, (path, response.text)
        wrong = await client.request(
            method, path, json=body, headers={"Authorization": "Bearer whatever"}
        )
        assert wrong.status_code == 200, path


@pytest.fixture
async def keyed(settings: Settings, clock: ManualClock) -> AsyncIterator[httpx.AsyncClient]:
    """A client for an app with two read keys and two server keys configured."""
    keyed_settings = settings.model_copy(
        update={"read_keys": "read-1, read-2", "server_keys": f"{SERVER_KEY},other-server"}
    )
    async with serve(keyed_settings, clock) as client:
        await _seed(client)
        yield client


async def test_read_keys_make_reads_need_a_key(keyed: httpx.AsyncClient) -> None:
    for method, path, body in READS:
        missing = await keyed.request(method, path, json=body)
        assert_problem(missing, 401)
        assert missing.headers["www-authenticate"].lower().startswith("bearer")
        wrong = await keyed.request(method, path, json=body, headers={"Authorization": "Bearer x"})
        assert_problem(wrong, 403)
        for key in ("read-1", "read-2", SERVER_KEY, "other-server"):
            response = await keyed.request(
                method, path, json=body, headers={"Authorization": f"Bearer {key}"}
            )
            assert response.status_code == 200, (path, key, response.text)


async def test_read_key_cannot_write(keyed: httpx.AsyncClient) -> None:
    for method, path, body in WRITES:
        response = await keyed.request(
            method, path, json=body, headers={"Authorization": "Bearer read-1"}
        )
        assert_problem(response, 403)


async def test_every_configured_server_key_writes(keyed: httpx.AsyncClient) -> None:
    headers = {"Authorization": "Bearer other-server"}
    response = await keyed.post("/v1/boards/arena/scores", json=SCORE, headers=headers)
    assert response.status_code == 200 and response.json()["score"] == 10


async def _check_unchanged(client: httpx.AsyncClient) -> None:
    board = await client.get("/v1/boards/arena")
    assert board.status_code == 200 and board.json()["title"] == "arena"
    assert (await client.get("/v1/boards/fresh")).status_code == 404
    assert await ranking(client, "arena") == [("p0", 5)]


# --- problem+json ---------------------------------------------------------------------


async def test_malformed_json_is_400(client: httpx.AsyncClient) -> None:
    await _seed(client)
    for method, path in [
        ("PUT", "/v1/boards/arena"),
        ("POST", "/v1/boards/arena/scores"),
        ("POST", "/v1/scores/batch"),
        ("POST", "/v1/boards/arena/players/p0/friends"),
        ("POST", "/v1/boards/arena/ranks"),
    ]:
        for raw in (b'{"player_id": ', b"{'a': 1}", b"", b"\xff\xfe", b'{"a": 1} trailing'):
            response = await client.request(method, path, content=raw, headers={**AUTH, **JSON})
            assert_problem(response, 400)
    await _check_unchanged(client)


async def test_unknown_route_is_404(client: httpx.AsyncClient) -> None:
    for path in ("/v1/nope", "/v2/boards", "/v1/boards/arena/unknown", "/v1/boards/a/players/"):
        body = assert_problem(await client.get(path, headers=AUTH), 404)
        assert body["detail"]


async def test_wrong_method_is_405(client: httpx.AsyncClient) -> None:
    for method, path in [
        ("DELETE", "/v1/boards"),
        ("POST", "/v1/boards"),
        ("POST", "/v1/boards/arena"),
        ("PATCH", "/v1/boards/arena"),
        ("GET", "/v1/boards/arena/scores"),
        ("GET", "/v1/scores/batch"),
        ("PUT", "/v1/boards/arena/top"),
        ("DELETE", "/v1/boards/arena/ranks"),
        ("POST", "/healthz"),
    ]:
        assert_problem(await client.request(method, path, headers=AUTH), 405)


@pytest.fixture
async def small(settings: Settings, clock: ManualClock) -> AsyncIterator[httpx.AsyncClient]:
    """A client for an app that takes bodies of at most 1,024 bytes."""
    async with serve(settings.model_copy(update={"max_body_bytes": 1024}), clock) as client:
        await _seed(client)
        yield client


def _padded(size: int) -> bytes:
    base = b'{"player_id": "p1", "score": 10, "match_id": "m1", "metadata": {"pad": ""}}'
    return base.replace(b'""', b'"' + b"x" * (size - len(base)) + b'"')


async def test_body_over_the_limit_is_413(small: httpx.AsyncClient) -> None:
    assert len(_padded(1025)) == 1025
    headers = {**AUTH, **JSON}
    response = await small.post("/v1/boards/arena/scores", content=_padded(1025), headers=headers)
    assert_problem(response, 413)

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted while streaming
        body = _padded(4000)
        for start in range(0, len(body), 500):
            yield body[start : start + 500]

    streamed = await small.post("/v1/boards/arena/scores", content=chunks(), headers=headers)
    assert "content-length" not in streamed.request.headers
    assert_problem(streamed, 413)
    board = await small.put(
        "/v1/boards/arena", content=b'{"title": "' + b"t" * 2000 + b'"}', headers=headers
    )
    assert_problem(board, 413)
    assert await ranking(small, "arena") == [("p0", 5)]
    exact = await small.post("/v1/boards/arena/scores", content=_padded(1024), headers=headers)
    assert exact.status_code == 200 and exact.json()["score"] == 10


async def test_wrong_media_type_is_415(client: httpx.AsyncClient) -> None:
    await _seed(client)
    raw = b'{"player_id": "p1", "score": 10, "match_id": "m1"}'
    for content_type in (
        "text/plain",
        "application/xml",
        "application/x-www-form-urlencoded",
        None,
    ):
        headers = dict(AUTH)
        if content_type is not None:
            headers["content-type"] = content_type
        response = await client.post("/v1/boards/arena/scores", content=raw, headers=headers)
        assert_problem(response, 415)
    await _check_unchanged(client)
    charset = {**AUTH, "content-type": "application/json; charset=utf-8"}
    response = await client.post("/v1/boards/arena/scores", content=raw, headers=charset)
    assert response.status_code == 200


async def test_invalid_input_is_422_with_located_errors(client: httpx.AsyncClient) -> None:
    await _seed(client)
    response = await client.post(
        "/v1/boards/arena/scores", json={**SCORE, "score": "ten"}, headers=AUTH
    )
    body = assert_problem(response, 422)
    assert body["errors"] == [{"loc": ["body", "score"], "msg": body["errors"][0]["msg"]}]
    assert error_locs(await client.get("/v1/boards/arena/top?limit=0")) == [["query", "limit"]]


# --- never a 500 ----------------------------------------------------------------------

GARBAGE_BODIES = [
    b"null",
    b"[]",
    b"{}",
    b'"text"',
    b"123",
    b"1e999",
    b'{"player_id": {"$ne": 1}, "score": [], "match_id": null}',
    b'{"player_id": "\\ud800", "score": 1, "match_id": "m"}',
    b'{"player_id": "p", "score": 1, "match_id": "m", "metadata": {"a": NaN}, "at": 5}',
    b'{"player_id": "p", "score": 1, "match_id": "m", "scopes": {"region": null}}',
    b'{"friends": [null], "player_ids": [{}], "scores": [[]], "windows": [1], "seasons": [1]}',
    b'{"seasons": [{"id": "s", "start": "0001-01-01T00:00:00Z", "end": "9999-12-31T23:59:59Z"}]}',
    b'{"scores": [{"board": "arena", "player_id": "p", "score": 1, "match_id": "m", "at": "x"}]}',
    b'{"a": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
    b'{"player_id": "p", "score": 1, "match_id": "m", "metadata": {"a": '
    + b"[" * 50_000
    + b"]" * 50_000
    + b"}}",
    b"[" * 50_000,
    b'{"player_id": "p", "score": NaN, "match_id": "m", "metadata": {"a": '
    + b"[" * 990
    + b"]" * 990
    + b"}}",
    b'{"player_id": "p", "score": NaN, "match_id": "m", "metadata": {"a": '
    + b"[" * 5000
    + b"]" * 5000
    + b"}}",
]


async def test_garbage_bodies_never_cause_a_500(client: httpx.AsyncClient) -> None:
    await _seed(client)
    for method, path in [
        ("PUT", "/v1/boards/garbage"),
        ("POST", "/v1/boards/arena/scores"),
        ("POST", "/v1/scores/batch"),
        ("POST", "/v1/boards/arena/players/p0/friends"),
        ("POST", "/v1/boards/arena/ranks"),
    ]:
        for raw in GARBAGE_BODIES:
            response = await client.request(method, path, content=raw, headers={**AUTH, **JSON})
            assert response.status_code < 500, (path, raw[:60], response.text)
            if response.status_code >= 400:
                assert_problem(response, response.status_code)


GARBAGE_PATHS = [
    "/v1/boards/%00",
    "/v1/boards/" + "a" * 5000,
    "/v1/boards/arena/players/%ff",
    "/v1/boards/arena/players/%00/around",
    "/v1/boards/arena/top?limit=99999999999999999999999",
    "/v1/boards/arena/top?offset=99999999999999999999999",
    "/v1/boards/arena/top?window=%00",
    "/v1/boards/arena/top?scope=%00:%00",
    "/v1/boards/arena/top?window=daily&period=9999-12-31",
    "/v1/boards/arena/top?window=weekly&period=9999-W52",
    "/v1/boards/arena/top?window=monthly&period=9999-12",
    "/v1/boards/arena/top?window=daily&period=0000-01-01",
    "/v1/boards/arena/top?window=weekly&period=0000-W01",
    "/v1/boards/arena/players/p0/around?k=1e2",
    "/v1/boards/arena/periods?window=%FF",
    "/v1//boards",
    "/v1/boards/arena/../../etc/passwd",
    "/docs/static/../../../../etc/passwd",
    "/docs/static/%2e%2e/%2e%2e/settings.py",
]


async def test_garbage_paths_never_cause_a_500(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", windows=["all_time", "daily", "weekly", "monthly"])
    await submit(client, "arena", "p0", 5)
    for path in GARBAGE_PATHS:
        for method in ("GET", "DELETE"):
            response = await client.request(method, path, headers=AUTH)
            assert response.status_code < 500, (method, path, response.text)
            assert b"Traceback" not in response.content
            assert b"root:" not in response.content


async def test_periods_outside_the_calendar_are_422(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", windows=["daily", "weekly", "monthly"])
    for window, period in [
        ("daily", "9999-12-31"),
        ("weekly", "9999-W52"),
        ("monthly", "9999-12"),
        ("daily", "0000-01-01"),
    ]:
        response = await client.get(
            "/v1/boards/arena/top", params={"window": window, "period": period}
        )
        assert error_locs(response) == [["query", "period"]], period


async def test_deeply_nested_body_is_a_client_error(client: httpx.AsyncClient) -> None:
    await _seed(client)
    raw = b'{"player_id": "p1", "score": 9, "match_id": "deep", "metadata": {"a": '
    raw += b"[" * 50_000 + b"]" * 50_000 + b"}}"
    response = await client.post("/v1/boards/arena/scores", content=raw, headers={**AUTH, **JSON})
    assert response.status_code in (400, 422)
    assert_problem(response, response.status_code)
    assert await ranking(client, "arena") == [("p0", 5)]


# --- operations, OpenAPI and docs -----------------------------------------------------


async def test_healthz_and_readyz(client: httpx.AsyncClient) -> None:
    health = await client.get("/healthz")
    assert health.status_code == 200 and health.json() == {"status": "ok"}
    ready = await client.get("/readyz")
    assert ready.status_code == 200
    assert ready.headers["content-type"].startswith("application/json")
    assert ready.json()["ready"] is True
    assert_time(ready.json()["as_of"])


IN_SCOPE = {
    "/v1/boards": {"get"},
    "/v1/boards/{board_id}": {"get", "put", "delete"},
    "/v1/boards/{board_id}/scores": {"post"},
    "/v1/scores/batch": {"post"},
    "/v1/boards/{board_id}/top": {"get"},
    "/v1/boards/{board_id}/players/{player_id}": {"get"},
    "/v1/boards/{board_id}/players/{player_id}/around": {"get"},
    "/v1/boards/{board_id}/players/{player_id}/friends": {"post"},
    "/v1/boards/{board_id}/ranks": {"post"},
    "/v1/boards/{board_id}/periods": {"get"},
}


async def test_openapi_document_lists_every_v1_path(client: httpx.AsyncClient) -> None:
    response = await client.get("/openapi.json")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    doc = response.json()
    assert doc["openapi"].startswith("3.1")
    assert doc["info"]["title"] and doc["info"]["version"]
    for path, methods in IN_SCOPE.items():
        assert path in doc["paths"], path
        assert methods <= set(doc["paths"][path]), path
        for method in methods:
            operation = doc["paths"][path][method]
            assert operation["responses"], (path, method)
            for name in re.findall(r"{(\w+)}", path):
                params = {(p["name"], p["in"]) for p in operation.get("parameters", [])}
                assert (name, "path") in params, (path, method, name)
    schemes = doc["components"]["securitySchemes"]
    assert any(s == {**s, "type": "http", "scheme": "bearer"} for s in schemes.values())
    score_op = doc["paths"]["/v1/boards/{board_id}/scores"]["post"]
    assert "requestBody" in score_op
    assert set(score_op["responses"]) >= {"200", "401", "403", "422"}
    refs = re.findall(r'"\$ref":\s*"#/components/schemas/([^"]+)"', response.text)
    assert refs and set(refs) <= set(doc["components"]["schemas"])
    ids = [op["operationId"] for ops in doc["paths"].values() for op in ops.values()]
    assert len(ids) == len(set(ids)), sorted(ids)  # client generators key on them
    # scores are int64, and generators make an integer without a format 32-bit
    integers = list(_integer_schemas(doc))
    assert integers and all(node.get("format") == "int64" for node in integers), integers


def _integer_schemas(node: object) -> Iterator[dict[str, object]]:
    if isinstance(node, list):
        for item in node:
            yield from _integer_schemas(item)
    elif isinstance(node, dict):
        if node.get("type") == "integer":
            yield node
        for value in node.values():
            yield from _integer_schemas(value)


async def test_docs_page_and_its_assets_load(client: httpx.AsyncClient) -> None:
    response = await client.get("/docs")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    html = response.text
    assets = re.findall(r'(?:src|href)="(/docs/static/[^"]+)"', html)
    initialiser = await client.get("/static/docs.js")  # no inline script (test_cors.py)
    assert '<script src="/static/docs.js">' in html and "/openapi.json" in initialiser.text
    assert any(a.endswith(".js") for a in assets) and any(a.endswith(".css") for a in assets)
    for asset in assets:
        loaded = await client.get(asset)
        assert loaded.status_code == 200, asset
        assert len(loaded.content) > 1000, asset
        kind = "javascript" if asset.endswith(".js") else "css"
        assert kind in loaded.headers["content-type"], asset


def test_helpers_use_the_conftest_server_key() -> None:
    from conftest import SERVER_KEY as CONFTEST_KEY

    assert SERVER_KEY == CONFTEST_KEY


def test_remembered_keys_stay_within_their_role() -> None:
    """Accepted headers are remembered per role: a read key accepted for reads is still
    refused for writes, and a refused key is never remembered."""

    def request(key: str) -> str:
        return f"Bearer {key}"

    keys = Keys(["server-key"], ["read-key"])
    for _ in range(2):  # the second round answers from what was remembered
        keys.require_read(request("read-key"))
        keys.require_read(request("server-key"))
        keys.require_server(request("server-key"))
        with pytest.raises(Forbidden):
            keys.require_server(request("read-key"))
        with pytest.raises(Forbidden):
            keys.require_read(request("wrong-key"))
