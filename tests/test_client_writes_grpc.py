"""Client writes over gRPC: a board's ``client_writes`` is set and shown by PutBoard and
GetBoard (never the validator's secret), and SubmitScore with a player token in the
``authorization`` metadata follows the same rules as over HTTP, its refusals the standard
codes with the problem (and its ``reason``) attached."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from grpc_status import rpc_status
from pydantic import SecretStr

from helpers_grpc import METADATA, as_json, rig
from helpers_idp import SECRET, claims, mint_hs256
from helpers_procs import free_port
from rankline import ManualClock, Settings
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb


def _as(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {mint_hs256(claims(player))}"),)


async def _refused(call: Any, code: grpc.StatusCode) -> dict[str, Any]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, (caught.value.code(), caught.value.details())
    status = rpc_status.from_call(caught.value)
    assert status is not None
    problem = pb.Problem()
    assert any(d.Unpack(problem) for d in status.details if d.Is(pb.Problem.DESCRIPTOR))
    body: dict[str, Any] = as_json(problem)
    return body


def _score(score: int, match_id: str) -> pb.SubmitScoreRequest:
    body = pb.ScoreIn(score=score, match_id=match_id)
    return pb.SubmitScoreRequest(board_id="arena", body=body)


@pytest.mark.edge
async def test_client_writes_over_grpc(settings: Settings, clock: ManualClock) -> None:
    with_tokens = settings.model_copy(update={"player_jwt_secret": SecretStr(SECRET)})
    nowhere = f"http://127.0.0.1:{free_port()}/check"  # nothing listens there
    async with rig(with_tokens, clock) as r:
        await r.stub.PutBoard(pb.PutBoardRequest(board_id="arena"), metadata=METADATA)
        problem = await _refused(
            r.stub.SubmitScore(_score(100, "m-1"), metadata=_as("ann")),
            grpc.StatusCode.PERMISSION_DENIED,
        )
        assert "does not accept scores from players" in problem["detail"]
        writes = pb.ClientWritesSpec(
            max_per_minute=2,
            max_gain=1000,
            validator=pb.ValidatorSpec(url=nowhere, secret="v-secret"),
        )
        spec = pb.BoardSpec(client_writes=writes)
        put = await r.stub.PutBoard(
            pb.PutBoardRequest(board_id="arena", body=spec), metadata=METADATA
        )
        shown = as_json(put.result)["client_writes"]
        assert shown == {
            "max_per_minute": 2,
            "max_gain": 1000,
            "validator": {"url": nowhere, "timeout_ms": 300, "on_error": "reject"},
        }
        got = await r.stub.GetBoard(pb.GetBoardRequest(board_id="arena"), metadata=METADATA)
        assert as_json(got)["client_writes"] == shown
        # the validator cannot be reached: on_error reject refuses, as UNAVAILABLE
        await _refused(
            r.stub.SubmitScore(_score(100, "m-1"), metadata=_as("ann")),
            grpc.StatusCode.UNAVAILABLE,
        )
        spec = pb.BoardSpec(client_writes=pb.ClientWritesSpec(max_per_minute=2, max_gain=1000))
        await r.stub.PutBoard(pb.PutBoardRequest(board_id="arena", body=spec), metadata=METADATA)
        answer = await r.stub.SubmitScore(_score(1000, "m-1"), metadata=_as("ann"))
        assert (answer.result.player_id, answer.result.score) == ("ann", 1000)
        problem = await _refused(
            r.stub.SubmitScore(_score(2001, "m-2"), metadata=_as("ann")),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
        assert "above max_gain 1000" in problem["reason"]
        await r.stub.SubmitScore(_score(1500, "m-3"), metadata=_as("ann"))
        await _refused(
            r.stub.SubmitScore(_score(1600, "m-4"), metadata=_as("ann")),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
        )
