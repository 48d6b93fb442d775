"""``rankline bench grpc-servers``: the threaded server it measures answers as the asyncio one
rankline serves with (the same answers, the same refusals, from the same handlers), and a
short run measures both servers' calls without a failure."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from asgi_lifespan import LifespanManager
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from helpers_procs import free_port
from rankline import Settings
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.grpc.gen.rankline.v1 import rankline_pb2_grpc
from rankline.http import create_app
from rankline_bench import grpc_servers

AUTH = (("authorization", f"Bearer {grpc_servers.KEY}"),)


async def test_the_threaded_server_answers_as_the_asyncio_one(tmp_path: Path) -> None:
    ports = {"asyncio": free_port(), "threaded": free_port()}
    settings = Settings(data_dir=tmp_path, server_keys=grpc_servers.KEY, rate_limits=False)
    companion = grpc_servers._companion(ports["asyncio"], ports["threaded"], 2)
    app = create_app(settings, companion=companion)
    async with LifespanManager(app, startup_timeout=60, shutdown_timeout=60):
        await app.state.service.wait_ready()
        answers: dict[str, list[object]] = {}
        for name, port in ports.items():
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = rankline_pb2_grpc.RanklineStub(channel)
                board = pb.PutBoardRequest(board_id=f"b-{name}", body=pb.BoardSpec())
                await stub.PutBoard(board, metadata=AUTH)
                score = pb.ScoreIn(player_id="ann", score=7, match_id="m1")
                request = pb.SubmitScoreRequest(board_id=f"b-{name}", body=score)
                await stub.SubmitScore(request, metadata=AUTH)
                found = await stub.GetPlayer(
                    pb.GetPlayerRequest(board_id=f"b-{name}", player_id="ann"), metadata=AUTH
                )
                with pytest.raises(grpc.aio.AioRpcError) as missing:
                    await stub.GetPlayer(
                        pb.GetPlayerRequest(board_id=f"b-{name}", player_id="bob"), metadata=AUTH
                    )
                with pytest.raises(grpc.aio.AioRpcError) as keyless:
                    await stub.PutBoard(pb.PutBoardRequest(board_id="x", body=pb.BoardSpec()))
                checked = await health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest()
                )
                answers[name] = [
                    (found.player_id, found.score, found.rank),
                    _refusal(missing.value),
                    _refusal(keyless.value),
                    checked.status,
                ]
    assert answers["asyncio"] == answers["threaded"]
    assert answers["asyncio"][0] == ("ann", 7, 1)
    assert answers["asyncio"][1][:2] == (grpc.StatusCode.NOT_FOUND, 404)
    assert answers["asyncio"][2][:2] == (grpc.StatusCode.UNAUTHENTICATED, 401)
    assert answers["asyncio"][3] == health_pb2.HealthCheckResponse.SERVING


def _refusal(error: grpc.aio.AioRpcError) -> tuple[object, ...]:
    """A refusal's code, the problem in its status details (its type and status), and its
    message."""
    status = rpc_status.from_call(error)
    assert status is not None
    problem = pb.Problem()
    [detail] = status.details
    assert detail.Unpack(problem)
    return error.code(), problem.status, problem.type, error.details()


def test_a_short_run_measures_both_servers() -> None:
    options = grpc_servers.Options(players=500, seconds=0.5, rounds=1, processes=1, threads=2)
    found = grpc_servers.measure(options, progress=lambda line: None)
    for kind in grpc_servers.KINDS:
        for name in grpc_servers.SERVERS:
            [figure] = found[kind][name]
            assert figure.rate > 0 and figure.failures == 0, (kind, name, figure)
            assert figure.server_ms > 0 and figure.p99_ms > 0
    table = grpc_servers.table(found, options.threads)
    assert table.count("\n") == 1 + len(grpc_servers.KINDS)
    assert "threaded (2) calls/s" in table and "| rank read |" in table
