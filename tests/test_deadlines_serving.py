"""Write deadlines where they cross a process or an engine: the gRPC call's deadline is the
client's deadline; the log's intake on NATS JetStream sheds by the wait for the log; and a
real ``rankline serve --workers 2`` on Redis + PostgreSQL, flooded, answers every write 200 or
429 (with Retry-After), loses nothing it acknowledged and counts nothing twice."""

from __future__ import annotations

import asyncio
import shutil
import uuid
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from helpers_api import AUTH, assert_problem, open_app, open_client, put_board
from helpers_backends import REDIS_URL, flush_redis
from helpers_brokers import NATS_URL, drop_nats_log
from helpers_chaos import RanklineServer, cli_env, migrate, pg_database
from helpers_grpc import METADATA, rig
from rankline import ManualClock, Settings
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb

ASYNC = {**AUTH, "Prefer": "respond-async"}


def _items(prefix: str, size: int) -> list[dict[str, Any]]:
    return [
        {"board": "arena", "player_id": f"{prefix}{i}", "score": 1, "match_id": "m"}
        for i in range(size)
    ]


@pytest.mark.edge
async def test_the_grpc_deadline_is_the_clients_deadline(
    settings: Settings, clock: ManualClock
) -> None:
    async with rig(settings, clock) as r:
        await put_board(r.http, "arena")
        writer = r.app.state.service.writer
        writer.admission.measured(100, 1.0)  # 100 a second
        await writer.commit_lock.acquire()
        try:
            ahead = asyncio.create_task(
                r.http.post("/v1/scores/batch", json={"scores": _items("a", 50)}, headers=AUTH)
            )
            async with asyncio.timeout(30):
                while writer._outstanding < 50:  # noqa: ASYNC110 (a request under way)
                    await asyncio.sleep(0.001)
            # 50 ahead + 1: 0.51 s; within the server's 1 s, not within the call's 0.3 s
            write = pb.SubmitScoreRequest(
                board_id="arena", body=pb.ScoreIn(player_id="g", score=5, match_id="m")
            )
            call = r.stub.SubmitScore(write, metadata=METADATA, timeout=0.3)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await call
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            trailers = dict(refused.value.trailing_metadata() or ())
            assert trailers.get("retry-after") == "1"
            admitted = asyncio.ensure_future(r.stub.SubmitScore(write, metadata=METADATA))
            async with asyncio.timeout(30):
                while writer._outstanding < 51:  # noqa: ASYNC110
                    await asyncio.sleep(0.001)
        finally:
            writer.commit_lock.release()
        assert (await ahead).status_code == 200
        assert (await admitted).result.player_id == "g"


async def test_the_log_intake_on_nats_sheds_by_the_wait_for_the_log(
    tmp_path: Path, migrated_template: Path, clock: ManualClock
) -> None:
    name = "t" + uuid.uuid4().hex[:12]
    settings = Settings(
        data_dir=tmp_path / "data",
        server_keys=AUTH["Authorization"].split()[-1],
        log_url=NATS_URL,
        log_name=name,
        log_partitions=4,
        write_hold_early=False,  # the next write taken at once after the refusal (test_write_holds)
    )
    shutil.copytree(migrated_template, settings.data_dir)
    try:
        async with open_app(settings, clock) as app, open_client(app) as client:
            await put_board(client, "arena", policy="sum")
            appends = app.state.service.ingest.appends
            appends.admission.measured(4, 1.0)  # NATS took 4 appends a second lately
            for _ in range(4):  # other requests' appends in flight: 1.25 s with this one
                appends.begin()
            try:
                refused = await client.post(
                    "/v1/scores/batch", json={"scores": _items("a", 10)}, headers=ASYNC
                )
                assert_problem(refused, 429)
                assert refused.headers["retry-after"] == "1"
            finally:
                for _ in range(4):
                    appends.end()
            taken = await client.post(
                "/v1/scores/batch", json={"scores": _items("b", 10)}, headers=ASYNC
            )
            assert taken.status_code == 202, taken.text
            top = await client.get(
                "/v1/boards/arena/top", params={"after": taken.json()["token"], "limit": 100}
            )
            scores = {e["player_id"]: e["score"] for e in top.json()["entries"]}
            assert scores == {f"b{i}": 1 for i in range(10)}  # none of the refused request
    finally:
        await drop_nats_log(name)


@pytest.mark.timeout(240)
async def test_two_workers_on_redis_and_postgresql_flooded_lose_nothing(tmp_path: Path) -> None:
    flush_redis(REDIS_URL)
    key = AUTH["Authorization"].split()[-1]
    with pg_database("rl_deadlines") as url:
        settings = {
            "database_url": url,
            "redis_url": REDIS_URL,
            "server_keys": key,
            "write_deadline_ms": "150",
            "rate_limits": "false",
        }
        migrate(cli_env(tmp_path / "data", **settings))
        server = RanklineServer(tmp_path / "data", tmp_path / "serve.log", workers=2, **settings)
        try:
            server.start()
            server.wait_ready(90)
            async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
                await put_board(client, "arena", policy="sum")
                # a deadline passed before the write was admitted: refused, nothing written
                late = {**AUTH, "Request-Timeout": "1"}
                big = {"scores": _items("late", 1000)}
                refused = await client.post("/v1/scores/batch", json=big, headers=late)
                assert refused.status_code == 429, refused.text
                assert "deadline passed" in refused.json()["detail"]
                assert int(refused.headers["retry-after"]) >= 1

                async def send(n: int) -> httpx.Response:
                    body = {"scores": _items(f"r{n}-", 200)}
                    return await client.post("/v1/scores/batch", json=body, headers=AUTH)

                answers = await asyncio.gather(*(send(n) for n in range(48)))
                statuses = {r.status_code for r in answers}
                assert statuses <= {200, 429}, statuses
                for response in answers:
                    if response.status_code == 429:
                        assert int(response.headers["retry-after"]) >= 1
                expected = {
                    f"r{n}-{i}": 1
                    for n, response in enumerate(answers)
                    if response.status_code == 200
                    for i in range(200)
                }
                scores: dict[str, int] = {}
                for offset in range(0, 48 * 200 + 1000, 1000):
                    page = await client.get(
                        "/v1/boards/arena/top", params={"limit": 1000, "offset": offset}
                    )
                    assert page.status_code == 200, page.text
                    for entry in page.json()["entries"]:
                        assert entry["player_id"] not in scores
                        scores[entry["player_id"]] = entry["score"]
                # a sum board: a submission counted twice would show as 2; and nothing of the
                # request refused for its passed deadline (players late0..late999) is there
                assert scores == expected
        finally:
            server.stop()
            flush_redis(REDIS_URL)
