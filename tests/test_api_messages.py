"""What a client is told when a request is wrong: identifiers explained in words, never as
a regular expression, and query parameters that no read takes refused by name."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from helpers_api import AUTH, assert_problem, error_locs, put_board, submit
from rankline import ManualClock
from rankline.http.app import Application
from rankline.http.endpoint import Endpoint
from rankline.http.routes import ENDPOINTS

# The HTTP edge (the words of validation messages): one stack is enough.
pytestmark = pytest.mark.edge

PLAYER_WORDS = "1 to 64 characters: letters, digits and _ . : @ -"
BOARD_WORDS = "1 to 64 characters: lowercase letters, digits and _ . -"
MATCH_WORDS = "1 to 128 printable ASCII characters, without spaces"
SCORE = {"player_id": "p1", "score": 10, "match_id": "m1"}
READS = [e for e in ENDPOINTS if e.auth == "read"]
BODIES: dict[str, Any] = {
    "/v1/boards/{board_id}/players/{player_id}/friends": {"friends": ["p1"]},
    "/v1/boards/{board_id}/ranks": {"player_ids": ["p0"]},
}


def _assert_in_words(body: dict[str, Any], words: str) -> None:
    messages = [body["detail"], *(item["msg"] for item in body["errors"])]
    for message in messages:
        assert words in message, body
        assert "regex" not in message and "(?!" not in message and "^[" not in message, body


@pytest.mark.parametrize(
    ("path", "sent", "loc", "words"),
    [
        ("/v1/boards/arena/scores", {**SCORE, "player_id": "p 1"}, "player_id", PLAYER_WORDS),
        ("/v1/boards/arena/scores", {**SCORE, "player_id": "p1\n"}, "player_id", PLAYER_WORDS),
        ("/v1/boards/arena/scores", {**SCORE, "player_id": "p" * 65}, "player_id", PLAYER_WORDS),
        ("/v1/boards/arena/scores", {**SCORE, "match_id": "m 1"}, "match_id", MATCH_WORDS),
        ("/v1/scores/batch", {"scores": [{**SCORE, "board": "Arena"}]}, "board", BOARD_WORDS),
    ],
    ids=["space", "newline", "too-long", "match_id", "batch-board"],
)
async def test_an_invalid_identifier_is_explained_in_words(
    client: httpx.AsyncClient, path: str, sent: dict[str, Any], loc: str, words: str
) -> None:
    await put_board(client, "arena")
    response = await client.post(path, json=sent, headers=AUTH)
    if path == "/v1/scores/batch":  # each item gets its own error
        assert response.status_code == 200, response.text
        problem = response.json()["results"][0]["error"]
        assert problem["status"] == 422 and problem["errors"][0]["loc"][-1] == loc
    else:
        problem = assert_problem(response, 422)
        assert error_locs(response) == [["body", loc]]
    _assert_in_words(problem, words)
    assert problem["detail"].startswith(f"{loc} must be ")


async def test_a_scope_value_is_explained_in_words(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", scopes=["region"])
    sent = {**SCORE, "scopes": {"region": "E U"}}
    problem = assert_problem(
        await client.post("/v1/boards/arena/scores", json=sent, headers=AUTH), 422
    )
    _assert_in_words(problem, PLAYER_WORDS)
    assert problem["detail"].startswith("each value of scopes must be "), problem


async def test_an_invalid_path_identifier_is_explained_in_words(
    client: httpx.AsyncClient,
) -> None:
    await put_board(client, "arena")
    response = await client.get("/v1/boards/arena/players/p%201")
    _assert_in_words(assert_problem(response, 422), PLAYER_WORDS)
    response = await client.get("/v1/boards/Arena/top")
    _assert_in_words(assert_problem(response, 422), BOARD_WORDS)


REQUIRED_QUERY = {"/v1/boards/{board_id}/rank-of": "score=5"}


def _request(endpoint: Endpoint, query: str) -> tuple[str, str, Any]:
    board = "chess" if endpoint.path.endswith("/rating") else "arena"  # a rating board's read
    path = endpoint.path.format(board_id=board, player_id="p0", tournament_id="cup")
    return endpoint.method, f"{path}?{query}" if query else path, BODIES.get(endpoint.path)


async def _ended_tournament(
    client: httpx.AsyncClient, app: Application, clock: ManualClock
) -> None:
    """Tournament ``cup`` whose edition 1 (p0 scored) has ended and has results."""
    spec = {"starts_at": "2026-11-21T11:00:00Z", "ends_at": "2026-11-21T12:30:00Z"}
    assert (await client.put("/v1/tournaments/cup", json=spec, headers=AUTH)).status_code == 201
    score = {"player_id": "p0", "score": 5, "match_id": "m"}
    assert (await client.post("/v1/tournaments/cup/scores", json=score, headers=AUTH)).is_success
    clock.advance(3600)
    await app.state.service.tournaments.finish()


async def test_every_read_refuses_an_unknown_query_parameter(
    client: httpx.AsyncClient, app: Application, clock: ManualClock
) -> None:
    reads = {(e.method, e.path) for e in READS}
    for path in ("top", "players/{player_id}", "players/{player_id}/around", "ranks", "stream"):
        assert ("GET" if path != "ranks" else "POST", f"/v1/boards/{{board_id}}/{path}") in reads
    assert {("GET", "/v1/boards"), ("GET", "/v1/players/{player_id}")} <= reads
    assert ("GET", "/v1/players/{player_id}/history") in reads
    # (with snapshots kept, so that listing them answers)
    await put_board(client, "arena", snapshots={"every_seconds": 60, "k": 10, "keep_days": 1})
    await submit(client, "arena", "p0", 5)
    await put_board(client, "chess", policy="rating", rating={"system": "elo"})
    match = {
        "match_id": "g1",
        "results": [{"player_id": "p0", "place": 1}, {"player_id": "p1", "place": 2}],
    }
    rated = await client.post("/v1/boards/chess/matches", json=match, headers=AUTH)
    assert rated.status_code == 200, rated.text
    await _ended_tournament(client, app, clock)
    for endpoint in READS:
        known = sorted(p.name for p in endpoint.params if p.where == "query")
        chosen = ("window=all_time", "limit=5", "edition=1")
        valid = next((q for q in chosen if q[: q.find("=")] in known), "")
        assert valid or not known, endpoint.path
        if endpoint.path in REQUIRED_QUERY:  # a read that needs a parameter of its own
            valid = f"{valid}&{REQUIRED_QUERY[endpoint.path]}"
        method, url, body = _request(endpoint, "&".join(filter(None, ["limt=5", valid])))
        response = await client.request(method, url, json=body)
        problem = assert_problem(response, 422)
        assert error_locs(response) == [["query", "limt"]], (url, problem)
        assert "'limt'" in problem["detail"], (url, problem)
        if known:  # the known ones are listed
            assert f"takes {', '.join(known)}" in problem["detail"], (url, problem)
        else:
            assert "takes no query parameters" in problem["detail"], (url, problem)
        if endpoint.path.endswith("/stream"):
            continue  # a stream that is accepted goes on; the others answer
        method, url, body = _request(endpoint, valid)
        answered = await client.request(method, url, json=body)
        assert answered.status_code == 200, (url, answered.text)


async def test_unknown_query_parameters_are_all_named(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    response = await client.get("/v1/boards/arena/top?limt=5&ofset=1&limit=5")
    problem = assert_problem(response, 422)
    assert error_locs(response) == [["query", "limt"], ["query", "ofset"]]
    assert problem["detail"].startswith("unknown query parameters 'limt', 'ofset'")


async def test_the_openapi_document_says_what_ids_allow(client: httpx.AsyncClient) -> None:
    document = (await client.get("/openapi.json")).json()
    operation = document["paths"]["/v1/boards/{board_id}/players/{player_id}"]["get"]
    described = {p["name"]: p["description"] for p in operation["parameters"]}
    assert PLAYER_WORDS in described["player_id"]
    assert BOARD_WORDS in described["board_id"]
