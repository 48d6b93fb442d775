"""The load clients of ``rankline bench grpc``: one process's share of a measurement, over
HTTP or gRPC, of a rank read or a batch of 1,000 submissions.

Each process runs ``concurrency`` callers on one event loop for ``seconds`` and reports how
many calls succeeded and the latency of each. The HTTP client is a minimal HTTP/1.1
keep-alive client on asyncio streams (one connection per caller); the gRPC client is grpcio's
asyncio client (one channel per process, HTTP/2 streams multiplexed on it), as a game server
would use them.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from typing import Any

import grpc
import orjson
from grpc_health.v1 import health_pb2

from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.grpc.gen.rankline.v1 import rankline_pb2_grpc

BOARD = "bench"
BATCH = 1000


@dataclass(frozen=True)
class Job:
    """One process's part: ``protocol`` http or grpc, ``kind`` rank, batch or floor (the
    health check: /healthz, grpc.health.v1's Check, what each protocol costs by itself)."""

    protocol: str
    kind: str
    host: str
    http_port: int
    grpc_port: int
    key: str
    players: int
    seconds: float
    concurrency: int
    seed: int


@dataclass
class Outcome:
    calls: int
    failures: int
    latencies: list[float]
    cpu_seconds: float


def player(index: int) -> str:
    return f"p{index}"


def _batch(rng: random.Random, players: int, tag: str) -> list[tuple[str, int, str]]:
    """A batch's (player, score, match id) items."""
    return [
        (player(rng.randrange(players)), rng.randrange(1_000_000), f"{tag}-{i}")
        for i in range(BATCH)
    ]


class _Http:
    """One keep-alive HTTP/1.1 connection: a request, then its whole answer."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def call(self, head: bytes, body: bytes = b"") -> tuple[int, bytes]:
        self.writer.write(head + body)
        status_line = await self.reader.readline()
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        answer = await self.reader.readexactly(length) if length else b""
        return int(status_line.split()[1]), answer


async def _http_caller(job: Job, rng: random.Random, until: float, out: Outcome) -> None:
    reader, writer = await asyncio.open_connection(job.host, job.http_port)
    connection = _Http(reader, writer)
    host = f"Host: {job.host}\r\nAuthorization: Bearer {job.key}\r\n"
    try:
        while time.perf_counter() < until:
            if job.kind in ("rank", "floor"):
                path = f"/v1/boards/{BOARD}/players/{player(rng.randrange(job.players))}"
                if job.kind == "floor":
                    path = "/healthz"
                head, body = f"GET {path} HTTP/1.1\r\n{host}\r\n".encode(), b""
            else:
                tag = f"h{rng.getrandbits(64):x}"
                items = [
                    {"board": BOARD, "player_id": p, "score": score, "match_id": match}
                    for p, score, match in _batch(rng, job.players, tag)
                ]
                body = orjson.dumps({"scores": items})
                head = (
                    f"POST /v1/scores/batch HTTP/1.1\r\n{host}Content-Type: application/json"
                    f"\r\nContent-Length: {len(body)}\r\n\r\n"
                ).encode()
            sent = time.perf_counter()
            status, answer = await connection.call(head, body)
            out.latencies.append(time.perf_counter() - sent)
            out.calls += 1
            # a batch answers 200 with each item's outcome: an item's error is a failure too
            out.failures += status != 200 or b'"error"' in answer
    finally:
        writer.close()


async def _grpc_caller(
    job: Job,
    stub: rankline_pb2_grpc.RanklineStub,
    health: grpc.aio.UnaryUnaryMultiCallable[Any, Any],
    rng: random.Random,
    until: float,
    out: Outcome,
) -> None:
    metadata = (("authorization", f"Bearer {job.key}"),)
    check = health_pb2.HealthCheckRequest()
    while time.perf_counter() < until:
        sent = time.perf_counter()
        try:
            if job.kind == "floor":
                await health(check)
            elif job.kind == "rank":
                request = pb.GetPlayerRequest(
                    board_id=BOARD, player_id=player(rng.randrange(job.players))
                )
                sent = time.perf_counter()
                await stub.GetPlayer(request, metadata=metadata)
            else:
                tag = f"g{rng.getrandbits(64):x}"
                scores = [
                    pb.BatchScoreIn(board=BOARD, player_id=p, score=score, match_id=match)
                    for p, score, match in _batch(rng, job.players, tag)
                ]
                batch = pb.SubmitScoresRequest(body=pb.BatchDoc(scores=scores))
                sent = time.perf_counter()
                answer = await stub.SubmitScores(batch, metadata=metadata)
                if any(r.HasField("error") for r in answer.result.results):
                    out.failures += 1
            out.latencies.append(time.perf_counter() - sent)
            out.calls += 1
        except grpc.aio.AioRpcError:
            out.latencies.append(time.perf_counter() - sent)
            out.calls += 1
            out.failures += 1


async def _run(job: Job) -> Outcome:
    out = Outcome(0, 0, [], 0.0)
    rngs = [random.Random(job.seed * 1000 + i) for i in range(job.concurrency)]
    cpu = time.process_time()
    until = time.perf_counter() + job.seconds
    if job.protocol == "http":
        await asyncio.gather(*(_http_caller(job, rng, until, out) for rng in rngs))
    else:
        async with grpc.aio.insecure_channel(f"{job.host}:{job.grpc_port}") as channel:
            stub = rankline_pb2_grpc.RanklineStub(channel)  # type: ignore[no-untyped-call]
            health = channel.unary_unary(
                "/grpc.health.v1.Health/Check",
                request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
                response_deserializer=health_pb2.HealthCheckResponse.FromString,
            )
            await asyncio.gather(
                *(_grpc_caller(job, stub, health, rng, until, out) for rng in rngs)
            )
    out.cpu_seconds = time.process_time() - cpu
    return out


def run_job(job: Job) -> Outcome:
    """A process's part of a measurement (the entry point of each load process)."""
    return asyncio.run(_run(job))
