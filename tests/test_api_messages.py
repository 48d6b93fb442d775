"""What a client is told when a request is wrong: identifiers explained in words, never as
a regular expression."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from helpers_api import AUTH, assert_problem, error_locs, put_board

PLAYER_WORDS = "1 to 64 characters: letters, digits and _ . : @ -"
BOARD_WORDS = "1 to 64 characters: lowercase letters, digits and _ . -"
MATCH_WORDS = "1 to 128 printable ASCII characters, without spaces"
SCORE = {"player_id": "p1", "score": 10, "match_id": "m1"}


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


async def test_an_invalid_path_identifier_is_explained_in_words(
    client: httpx.AsyncClient,
) -> None:
    await put_board(client, "arena")
    response = await client.get("/v1/boards/arena/players/p%201")
    _assert_in_words(assert_problem(response, 422), PLAYER_WORDS)
    response = await client.get("/v1/boards/Arena/top")
    _assert_in_words(assert_problem(response, 422), BOARD_WORDS)
