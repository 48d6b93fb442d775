"""``rankline serve`` with RANKLINE_GRPC_PORT, as a real process: the gRPC API and HTTP in one
server, over one state."""

from __future__ import annotations

import time
from pathlib import Path

import grpc
import httpx
from grpc_health.v1 import health_pb2, health_pb2_grpc

from helpers_procs import free_port, serving
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.grpc.gen.rankline.v1 import rankline_pb2_grpc


def test_serve_serves_grpc_beside_http(tmp_path: Path) -> None:
    port = free_port()
    with serving(tmp_path / "data", tmp_path / "serve.log", grpc_port=str(port)) as server:
        assert f"gRPC: 127.0.0.1:{port}" in server.output()
        key = (tmp_path / "data/server-key").read_text().strip()
        auth = (("authorization", f"Bearer {key}"),)
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            deadline = time.monotonic() + 30
            while True:
                status = health.Check(health_pb2.HealthCheckRequest(), timeout=5).status
                if status == health_pb2.HealthCheckResponse.SERVING:
                    break
                assert time.monotonic() < deadline, status
                time.sleep(0.1)
            rl = rankline_pb2_grpc.RanklineStub(channel)
            rl.PutBoard(pb.PutBoardRequest(board_id="arena"), metadata=auth, timeout=10)
            score = pb.ScoreIn(player_id="p:1", score=42, match_id="m1")
            answer = rl.SubmitScore(
                pb.SubmitScoreRequest(board_id="arena", body=score), metadata=auth, timeout=10
            )
            assert answer.result.applied is True
        top = httpx.get(f"{server.url}/v1/boards/arena/top", timeout=10).json()
        assert [(e["player_id"], e["score"]) for e in top["entries"]] == [("p:1", 42)]
