"""A match id may hold "/" (any printable ASCII): ``POST /v1/boards/{board_id}/matches/
{match_id}/void`` routes it whole, sent raw or percent-encoded (%2F), through the ASGI app,
through a real ``rankline serve``, from the Python client and over gRPC; the OpenAPI document
keeps the plain template."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers_api import AUTH, SERVER_KEY, assert_problem, open_app, open_client, ranking, submit
from helpers_grpc import METADATA, rig
from helpers_procs import serving
from rankline import ManualClock, Settings
from rankline.client import ApiError, AsyncClient
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.http.openapi import build_openapi

pytestmark = pytest.mark.edge

MATCHES = ["round/1", "a/b/c", "x/void", "q%2Fr"]
"""Match ids with slashes (one ends like the route; one holds an encoded slash as text)."""


def _encoded(match_id: str) -> str:
    return match_id.replace("%", "%25").replace("/", "%2F")


async def _setup(client: httpx.AsyncClient) -> None:
    response = await client.put("/v1/boards/arena", json={}, headers=AUTH)
    assert response.status_code == 201, response.text
    for i, match in enumerate(MATCHES):
        await submit(client, "arena", f"p{i}", 10 + i, match)


async def _void(client: httpx.AsyncClient, path: str) -> httpx.Response:
    return await client.post(path, json={"reason": "bad server"}, headers=AUTH)


async def test_a_match_id_with_slashes_is_voided_raw_or_encoded(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(settings, clock) as app, open_client(app) as client:
        await _setup(client)
        raw = await _void(client, "/v1/boards/arena/matches/round/1/void")
        assert raw.status_code == 200, raw.text
        assert raw.json() == {"board": "arena", "match_id": "round/1", "players": ["p0"]}
        encoded = await _void(client, f"/v1/boards/arena/matches/{_encoded('a/b/c')}/void")
        assert encoded.status_code == 200, encoded.text
        assert encoded.json()["match_id"] == "a/b/c"
        raw = await _void(client, "/v1/boards/arena/matches/x/void/void")
        assert raw.status_code == 200 and raw.json()["match_id"] == "x/void", raw.text
        assert await ranking(client, "arena") == [("p3", 13)]
        # voided already, either way it is spelled
        assert_problem(await _void(client, "/v1/boards/arena/matches/a/b/c/void"), 409)
        assert_problem(await _void(client, "/v1/boards/arena/matches/round%2F1/void"), 409)
        assert_problem(await _void(client, "/v1/boards/arena/matches/round/9/void"), 404)
        assert_problem(await _void(client, "/v1/boards/arena/matches//void"), 422)
        assert_problem(await client.get("/v1/boards/arena/matches/a/b/void"), 405)
        log = (await client.get("/v1/audit", headers=AUTH)).json()["items"]
        voided = [i["match_id"] for i in log if i["action"] == "match.void"]
        assert voided == ["x/void", "a/b/c", "round/1"]


async def test_the_python_client_encodes_the_match_id(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_app(settings, clock) as app:
        transport = httpx.ASGITransport(app=app)
        async with AsyncClient("http://t", server_key=SERVER_KEY, transport=transport) as rl:
            await rl.put_board("arena")
            for i, match in enumerate(MATCHES):
                await rl.submit("arena", f"p{i}", 10 + i, match_id=match)
            for i, match in enumerate(MATCHES):
                voided = await rl.void_match("arena", match, reason="bad server")
                assert voided == {"board": "arena", "match_id": match, "players": [f"p{i}"]}
            with pytest.raises(ApiError) as refused:
                await rl.void_match("arena", "round/1")
            assert refused.value.status == 409
            assert (await rl.top("arena"))["entries"] == []


async def test_grpc_voids_a_match_id_with_slashes(settings: Settings, clock: ManualClock) -> None:
    async with rig(settings, clock) as r:
        await _setup(r.http)
        request = pb.VoidMatchRequest(board_id="arena", match_id="a/b/c")
        assert list((await r.stub.VoidMatch(request, metadata=METADATA)).players) == ["p1"]
        assert await ranking(r.http, "arena") == [("p3", 13), ("p2", 12), ("p0", 10)]


def test_the_openapi_document_keeps_the_plain_template() -> None:
    paths: dict[str, Any] = build_openapi()["paths"]
    assert not [path for path in paths if ":" in path]
    void = paths["/v1/boards/{board_id}/matches/{match_id}/void"]["post"]
    [match_id] = [p for p in void["parameters"] if p["name"] == "match_id"]
    assert match_id["in"] == "path" and "%2F" in match_id["description"]


def test_a_real_server_routes_raw_and_encoded_slashes(tmp_path: Path) -> None:
    with (
        serving(tmp_path / "data", tmp_path / "log", server_keys=SERVER_KEY) as server,
        httpx.Client(base_url=server.url, headers=AUTH, timeout=30) as client,
    ):
        assert client.put("/v1/boards/arena", json={}).status_code == 201
        for i, match in enumerate(MATCHES):
            body = {"player_id": f"p{i}", "score": 10 + i, "match_id": match}
            response = client.post("/v1/boards/arena/scores", json=body)
            assert response.status_code == 200, response.text
        raw = client.post("/v1/boards/arena/matches/round/1/void")
        assert raw.status_code == 200 and raw.json()["match_id"] == "round/1", raw.text
        encoded = client.post(f"/v1/boards/arena/matches/{_encoded('a/b/c')}/void")
        assert encoded.status_code == 200 and encoded.json()["match_id"] == "a/b/c", encoded.text
        text = client.post(f"/v1/boards/arena/matches/{_encoded('q%2Fr')}/void")
        assert text.status_code == 200 and text.json()["match_id"] == "q%2Fr", text.text
        again = client.post("/v1/boards/arena/matches/a%2Fb%2Fc/void")
        assert again.status_code == 409, again.text
        top = client.get("/v1/boards/arena/top").json()
        assert [e["player_id"] for e in top["entries"]] == ["p2"]
