"""Requests declared once (``rankline.parameters``): a declaration read from raw text, each
wrong value explained where it is, and the same declaration described for the API document."""

from __future__ import annotations

import re

import httpx
import pytest

from helpers_api import AUTH
from rankline.errors import InvalidInput
from rankline.parameters import build, described, query_names
from rankline.players.requests import HistoryRequest
from rankline.reading.requests import AroundRequest, RankOfRequest, TopRequest

PATH = {"board_id": "arena", "player_id": "ada"}


def _refused(kind: type, query: dict[str, str], path: dict[str, str] = PATH) -> tuple[str, list]:
    with pytest.raises(InvalidInput) as refused:
        build(kind, path, query)
    [error] = refused.value.errors or []
    return refused.value.detail, error["loc"]


def test_values_and_defaults() -> None:
    ask = build(AroundRequest, PATH, {"k": "7", "metadata": "TRUE", "window": "", "scope": "g"})
    assert (ask.player_id, ask.board_id, ask.k, ask.metadata) == ("ada", "arena", 7, True)
    assert (ask.window, ask.scope, ask.period) == (None, "g", None)
    assert build(AroundRequest, PATH, {}).k == 5
    assert build(AroundRequest, {"board_id": "arena"}, {}, player_id="own").player_id == "own"
    top = build(TopRequest, {"board_id": "arena"}, {"at": "2026-11-21T10:00:00Z"})
    assert top.at is not None and top.limit == 100 and top.offset == 0


@pytest.mark.parametrize(
    ("kind", "query", "detail", "loc"),
    [
        (AroundRequest, {"k": "x"}, "k must be an integer", ["query", "k"]),
        (AroundRequest, {"k": ""}, "k must be an integer", ["query", "k"]),
        (AroundRequest, {"k": "101"}, "k must be between 0 and 100", ["query", "k"]),
        (
            AroundRequest,
            {"metadata": "yes"},
            "metadata must be true or false",
            ["query", "metadata"],
        ),
        (RankOfRequest, {}, "score is required", ["query", "score"]),
        (RankOfRequest, {"score": ""}, "score is required", ["query", "score"]),
        (RankOfRequest, {"score": "1e3"}, "score must be an integer", ["query", "score"]),
        (
            RankOfRequest,
            {"score": str(2**63)},
            "score is outside the signed 64-bit range",
            ["query", "score"],
        ),
        (TopRequest, {"at": "yesterday"}, None, ["query", "at"]),
        (HistoryRequest, {"board": "Bad!"}, None, ["query", "board"]),
    ],
)
def test_each_wrong_value_is_explained_where_it_is(
    kind: type, query: dict[str, str], detail: str | None, loc: list
) -> None:
    said, where = _refused(kind, query)
    assert where == loc
    if detail is not None:
        assert said == detail


def test_a_path_parameter_is_checked_in_words() -> None:
    said, where = _refused(AroundRequest, {}, {"board_id": "arena", "player_id": "no spaces"})
    assert where == ["path", "player_id"]
    assert said.startswith("'no spaces' is not a valid player_id: 1 to 64 characters")
    said, _ = _refused(HistoryRequest, {"board": "Bad!"})
    assert said.startswith("'Bad!' is not a valid board id: ")


def test_the_first_wrong_field_is_told() -> None:
    _, where = _refused(TopRequest, {"limit": "0", "offset": "-1"}, {"board_id": "arena"})
    assert where == ["query", "limit"]


def test_described_from_the_same_fields() -> None:
    by_name = {d.name: d for d in described(TopRequest)}
    assert list(by_name) == [
        "window", "period", "scope", "after", "metadata", "limit", "offset", "cursor", "tier", "at"
    ]  # fmt: skip
    limit = by_name["limit"]
    assert limit.schema == {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}
    assert limit.description == "1..1000, default 100." and not limit.required
    assert by_name["at"].schema == {"type": "string", "format": "date-time"}
    assert by_name["metadata"].schema == {"type": "boolean", "default": False}
    [score, _] = described(RankOfRequest)[4:]
    assert score.required and score.schema["maximum"] == 2**63 - 1
    assert query_names(AroundRequest) == {"window", "period", "scope", "after", "metadata", "k"}
    assert [d.name for d in described(AroundRequest, "path")] == ["player_id", "board_id"]


def test_a_query_filter_s_pattern_allows_the_blank_that_means_not_given() -> None:
    """``?board=`` is a filter not given: the document's pattern admits it, as the parser
    does, while a path parameter's pattern does not."""
    [board] = [d for d in described(HistoryRequest) if d.name == "board"]
    assert re.search(board.schema["pattern"], "") and re.search(board.schema["pattern"], "arena")
    assert not re.search(board.schema["pattern"], "Not A Board")
    assert build(HistoryRequest, {"player_id": "ada"}, {"board": ""}).board is None
    [path_board] = [d for d in described(TopRequest, "path") if d.name == "board_id"]
    assert not re.search(path_board.schema["pattern"], "")


@pytest.mark.edge
async def test_a_change_tells_a_wrong_path_before_an_unknown_parameter(
    client: httpx.AsyncClient,
) -> None:
    url = "/v1/boards/Bad!/players/ada"
    answer = await client.delete(url, params={"bogus": "1"}, headers=AUTH)
    assert answer.status_code == 422
    assert [e["loc"] for e in answer.json()["errors"]] == [["path", "board_id"]]
    answer = await client.delete("/v1/boards/arena/players/ada?bogus=1", headers=AUTH)
    assert answer.status_code == 422
    assert [e["loc"] for e in answer.json()["errors"]] == [["query", "bogus"]]
