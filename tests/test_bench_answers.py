"""``rankline bench answers``: its script reaches every operation over both protocols, its
masking hides what varies by itself and nothing else, its comparison finds a changed, a
missing and an added answer, and a short part of it played on real servers answers alike
over HTTP and gRPC."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rankline.grpc.gen.rankline.v1 import rankline_pb2
from rankline.grpc.status import code_of
from rankline_bench import answers
from rankline_bench.answers_script import script


def test_the_masking_hides_times_tokens_and_todays_periods_only() -> None:
    answer = {
        "status": 200,
        "headers": {"etag": 'W/"17649"', "content-type": "application/json"},
        "body": {
            "achieved_at": "2026-11-29T11:45:15.123Z",
            "period": "2026-11-29",
            "week": "2026-W48",
            "month": "2026-11",
            "fixed": "2026-01-02",
            "detail": "closed at 2026-11-29T00:00:00Z for 2026-01-01",
            "next": "abc",
            "cursor": None,
            "score": 20261129,
            "items": [{"token": "t-1", "id": 3}, {"id": "cup/1/1795370400000000"}],
        },
    }
    assert answers.mask(answer) == {
        "status": 200,
        "headers": {"etag": answers.MASK, "content-type": "application/json"},
        "body": {
            "achieved_at": "<time>",
            "period": "<date>",
            "week": "<week>",
            "month": "<month>",
            "fixed": "2026-01-02",
            "detail": "closed at <time> for 2026-01-01",
            "next": answers.MASK,
            "cursor": None,
            "score": 20261129,
            "items": [{"token": answers.MASK, "id": 3}, {"id": "cup/1/<micros>"}],
        },
    }


def _recording(*entries: tuple[str, Any]) -> dict[str, Any]:
    return {
        "calls": len(entries),
        "answers": {"http": [{"call": c, "request": f"GET /{c}", "answer": a} for c, a in entries]},
    }


def test_the_comparison_finds_changed_missing_and_added_answers(tmp_path: Path) -> None:
    before = _recording(("a", {"status": 200}), ("b", {"status": 404}), ("c", {"status": 1}))
    after = _recording(("a", {"status": 200}), ("b", {"status": 422}), ("d", {"status": 1}))
    found = answers.differences(before, after)
    assert len(found) == 3
    assert found[0].startswith("http 'b' (GET /b):")
    assert "not in the second recording" in found[1] and "'c'" in found[1]
    assert "not in the first recording" in found[2] and "'d'" in found[2]
    assert answers.differences(before, json.loads(json.dumps(before))) == []
    one, other = tmp_path / "one.json", tmp_path / "other.json"
    answers.write(before, one)
    answers.write(after, other)
    assert answers.main(None, False, (one, one)) == 0
    assert answers.main(None, False, (one, other)) == 1


def test_the_script_reaches_every_rpc_and_names_each_call_once() -> None:
    calls = script()
    labels = [c.label for c in calls]
    assert len(labels) == len(set(labels)) and len(calls) >= 300
    routes = answers._routes()
    reached = set()
    for call in calls:
        try:
            rpc, message = answers.grpc_request(call, routes)
        except answers.Unsent:
            continue
        reached.add(rpc)
        assert type(message).__name__ == f"{rpc}Request"
    served = {m.name for m in rankline_pb2.DESCRIPTOR.services_by_name["Rankline"].methods}
    assert served - reached == set()


def test_a_call_becomes_its_rpcs_message_or_is_unsent() -> None:
    routes = answers._routes()
    call = answers.Call("x", "GET", "/v1/boards/arena/top", query={"limit": "5"})
    rpc, message = answers.grpc_request(call, routes)
    assert rpc == "GetTop"
    assert message == rankline_pb2.GetTopRequest(board_id="arena", limit=5)
    void = answers.Call("v", "POST", "/v1/boards/arena/matches/round%2F1/void", body={})
    assert answers.grpc_request(void, routes)[1] == rankline_pb2.VoidMatchRequest(
        board_id="arena", match_id="round/1", body=rankline_pb2.VoidIn()
    )
    for unsent in (
        answers.Call("u", "GET", "/v1/boards/arena/top", query={"limits": "5"}),
        answers.Call("u", "GET", "/v1/boards/arena/top", query={"limit": "abc"}),
        answers.Call("u", "GET", "/v1/nothing"),
        answers.Call("u", "POST", "/v1/boards/arena/scores", raw=b"{"),
    ):
        try:
            answers.grpc_request(unsent, routes)
        except answers.Unsent:
            continue
        raise AssertionError(f"{unsent} was sent")


@pytest.mark.slow  # two server processes: the marking hook does not follow the bench's code
def test_a_short_script_answers_alike_over_both_protocols() -> None:
    """The first part of the script on real servers: every call answered over HTTP, and each
    one gRPC can send answered with the code of HTTP's status (``rankline.grpc.status``)."""
    calls = script()[:90]
    recording = answers.record(answers.PROTOCOLS, progress=lambda line: None, calls=calls)
    http, grpc = recording["answers"]["http"], recording["answers"]["grpc"]
    assert [e["call"] for e in http] == [e["call"] for e in grpc] == [c.label for c in calls]
    statuses = {e["call"]: e["answer"]["status"] for e in http}
    assert 200 in statuses.values() and 422 in statuses.values() and 404 in statuses.values()
    sent = [e for e in grpc if "unsent" not in e["answer"]]
    assert len(sent) >= 80
    for entry in sent:
        status, answer = statuses[entry["call"]], entry["answer"]
        problems = answer.get("problems") or [{}]
        expected = "OK" if status < 300 else code_of(problems[0], status).name
        assert answer["code"] == expected, (entry["call"], status, answer)
