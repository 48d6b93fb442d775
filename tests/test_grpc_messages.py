"""The message plans (``rankline.grpc.messages``) against protobuf's own reading: a message's
JSON holds exactly the fields ``ListFields`` lists, and a JSON answer makes the message that
setting its fields one by one makes (nulls and unknown fields left out)."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import json_format

from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.grpc.messages import from_json, to_json

pytestmark = pytest.mark.edge


def _listed(message: Any) -> set[str]:
    return {field.name for field, _ in message.ListFields()}


def test_to_json_holds_the_fields_list_fields_lists() -> None:
    item = pb.BatchScoreIn(board="arena", player_id="p", score=0, match_id="m")
    item.scopes["region"] = "EU"
    item.metadata.update({"kills": 3, "tags": ["a"], "ratio": 0.5})
    unset = pb.BatchScoreIn()
    empty_struct = pb.ScoreIn(player_id="p")
    empty_struct.metadata.SetInParent()
    batch = pb.SubmitScoresRequest(respond_async=False, body=pb.BatchDoc(scores=[item, unset]))
    for message in (item, unset, empty_struct, batch, pb.GetTopRequest(board_id="a", limit=0)):
        body = to_json(message)
        assert set(body) == _listed(message), message
    assert to_json(item) == {
        "board": "arena",
        "player_id": "p",
        "score": 0,  # set to zero: present
        "match_id": "m",
        "scopes": {"region": "EU"},
        "metadata": {"kills": 3, "tags": ["a"], "ratio": 0.5},
    }
    assert to_json(empty_struct) == {"player_id": "p", "metadata": {}}
    assert to_json(batch) == {"body": {"scores": [to_json(item), {}]}}  # False is not set
    assert to_json(pb.GetTopRequest(board_id="a", limit=0)) == {"board_id": "a", "limit": 0}


def test_from_json_makes_the_message_field_by_field() -> None:
    answer = {
        "board": "arena",
        "total": 2,
        "degraded": False,
        "tier": None,  # null: unset
        "unknown_to_the_proto": 1,  # left out
        "entries": [
            {"rank": 1, "player_id": "a", "score": 2**62, "metadata": {"kills": 3}},
            {"rank": 2, "player_id": "b", "score": -5, "metadata": {}},
        ],
    }
    message = from_json(answer, pb.TopOut)
    expected = pb.TopOut(board="arena", total=2, degraded=False)
    first = expected.entries.add(rank=1, player_id="a", score=2**62)
    json_format.ParseDict({"kills": 3}, first.metadata)
    second = expected.entries.add(rank=2, player_id="b", score=-5)
    second.metadata.SetInParent()
    assert message == expected
    assert not message.HasField("tier") and message.HasField("degraded")
    problem = {"type": "t", "status": 422, "errors": [{"loc": ["body", "scores", 3], "msg": "m"}]}
    assert to_json(from_json(problem, pb.Problem)) == problem
