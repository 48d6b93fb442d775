"""``rankline bench grpc-servers``: grpcio's two servers, the asyncio one rankline serves with
and the threaded one, answering the same RPCs with the same handlers in one server process.

The server process (``serve``, started by ``measure``) builds the embedded stack's app in a
temporary directory, seeds the bench board through it, and runs beside it, in its event
loop's process, both gRPC servers: the asyncio server as ``rankline serve --grpc-port`` runs
it (``rankline.grpc.server``), and a threaded ``grpc.server`` with ``threads`` threads whose
handlers are the same direct handlers (``rankline.grpc.service.handler``), each call handed
to the service's event loop and waited for (``asyncio.run_coroutine_threadsafe``): the
service lives in that loop, so a threaded server can call it no other way. Both have the
standard health service. The load (``grpc_load``, gRPC only) alternates the servers within
each round; a call's server CPU is the server process's CPU time over the run, divided by the
calls (both servers idle but the one measured).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from concurrent import futures
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import grpc
import httpx
from asgi_lifespan import LifespanManager
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from rankline import Settings
from rankline.grpc.server import serving
from rankline.grpc.service import handler
from rankline.http import create_app
from rankline.http.api import Api
from rankline.http.app import GC_THRESHOLDS
from rankline.http.routes import rpc_rules
from rankline_bench.grpc_load import BATCH, BOARD, Job, Outcome, player, run_job
from rankline_bench.grpc_run import Figure, compared, measured
from rankline_bench.servers import HOST, cpu_seconds, free_port

KEY = "bench-grpc-servers-key"
SERVERS = ("asyncio", "threaded")
KINDS = ("floor", "rank")
NAMES = {"floor": "health check", "rank": "rank read"}


@dataclass(frozen=True)
class Options:
    players: int = 100_000
    seconds: float = 5.0
    rounds: int = 3
    processes: int = 2
    concurrency: int = 16
    threads: int = 4


class _Context:
    """A threaded server's call context as the direct handlers use an asyncio server's: the
    same methods, and ``abort`` awaited, its trailing metadata given with it."""

    def __init__(self, context: grpc.ServicerContext) -> None:
        self._context = context

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)

    async def abort(self, code: grpc.StatusCode, details: str, trailing_metadata: Any = ()) -> None:
        self._context.set_trailing_metadata(trailing_metadata)
        self._context.abort(code, details)  # raises: the call ends with this status


def _threaded(
    generic: grpc.GenericRpcHandler, loop: asyncio.AbstractEventLoop
) -> grpc.GenericRpcHandler:
    """``generic``'s unary RPCs for a threaded server: each call's coroutine run in ``loop``
    (the service's), the server's thread waiting for its answer. An error ends the call as
    the handler's ``context.abort`` set it."""

    class Threaded(grpc.GenericRpcHandler):
        def service(
            self, details: grpc.HandlerCallDetails
        ) -> grpc.RpcMethodHandler[Any, Any] | None:
            found = generic.service(details)
            if found is None or found.unary_unary is None:
                return found
            run: Callable[[Any, Any], Any] = found.unary_unary  # an async handler (direct)

            def call(request: Any, context: grpc.ServicerContext) -> Any:
                answer = run(request, _Context(context))
                return asyncio.run_coroutine_threadsafe(answer, loop).result()

            return grpc.unary_unary_rpc_method_handler(
                call,
                request_deserializer=found.request_deserializer,
                response_serializer=found.response_serializer,
            )

    return Threaded()


def _companion(asyncio_port: int, threaded_port: int, threads: int) -> Any:
    table = rpc_rules()  # as rankline serve's

    @contextlib.asynccontextmanager
    async def both(api: Api) -> AsyncIterator[None]:
        async with serving(api.service, api.admission, table, HOST, asyncio_port):
            generic = handler(api.service, api.admission, table)
            server = grpc.server(futures.ThreadPoolExecutor(threads))
            server.add_generic_rpc_handlers((_threaded(generic, asyncio.get_running_loop()),))
            checks = health.HealthServicer()
            checks.set("", health_pb2.HealthCheckResponse.SERVING)
            health_pb2_grpc.add_HealthServicer_to_server(checks, server)
            server.add_insecure_port(f"{HOST}:{threaded_port}")
            server.start()
            try:
                yield
            finally:
                server.stop(1).wait()

    return both


async def _serve(asyncio_port: int, threaded_port: int, threads: int, players: int) -> None:
    import gc

    gc.set_threshold(*GC_THRESHOLDS)  # as a serving process has them
    with tempfile.TemporaryDirectory(prefix="rankline-grpc-servers-") as data:
        settings = Settings(data_dir=data, server_keys=KEY, rate_limits=False)
        app = create_app(settings, companion=_companion(asyncio_port, threaded_port, threads))
        async with LifespanManager(app, startup_timeout=120, shutdown_timeout=60):
            await app.state.service.wait_ready()
            transport = httpx.ASGITransport(app=app)
            auth = {"Authorization": f"Bearer {KEY}"}
            async with httpx.AsyncClient(
                transport=transport, base_url="http://bench", headers=auth, timeout=120
            ) as client:
                (await client.put(f"/v1/boards/{BOARD}", json={})).raise_for_status()
                for start in range(0, players, BATCH):
                    items = [
                        {"board": BOARD, "player_id": player(i), "score": i, "match_id": "seed"}
                        for i in range(start, min(players, start + BATCH))
                    ]
                    answer = await client.post("/v1/scores/batch", json={"scores": items})
                    answer.raise_for_status()
            print("ready", flush=True)
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)


def serve(arguments: list[str]) -> None:
    """The server process: ``asyncio_port threaded_port threads players``; it prints
    ``ready`` once serving and stops when its standard input closes."""
    asyncio_port, threaded_port, threads, players = map(int, arguments)
    asyncio.run(_serve(asyncio_port, threaded_port, threads, players))


def measure(
    options: Options, progress: Callable[[str], None] = print
) -> dict[str, dict[str, list[Figure]]]:
    """Every round's figures, by kind and server."""
    found: dict[str, dict[str, list[Figure]]] = {k: {s: [] for s in SERVERS} for k in KINDS}
    ports = {"asyncio": free_port(), "threaded": free_port()}
    command = [
        sys.executable,
        "-m",
        "rankline_bench.grpc_servers",
        str(ports["asyncio"]),
        str(ports["threaded"]),
        str(options.threads),
        str(options.players),
    ]
    progress(f"seeding {options.players:,} players")
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    spawn = multiprocessing.get_context("spawn")
    try:
        assert server.stdout is not None and server.stdin is not None
        if server.stdout.readline().strip() != "ready":
            raise RuntimeError("the gRPC servers did not start")
        with ProcessPoolExecutor(options.processes, mp_context=spawn) as pool:
            for round_ in range(options.rounds):
                for kind in KINDS:
                    for name in SERVERS:
                        jobs = [
                            Job(
                                "grpc",
                                kind,
                                HOST,
                                0,
                                ports[name],
                                KEY,
                                options.players,
                                options.seconds,
                                options.concurrency,
                                seed=round_ * 100 + i,
                            )
                            for i in range(options.processes)
                        ]
                        time.sleep(0.2)
                        before = cpu_seconds(server.pid)
                        outcomes: list[Outcome] = list(pool.map(run_job, jobs))
                        used = cpu_seconds(server.pid) - before
                        figure = measured(outcomes, options.seconds, used)
                        found[kind][name].append(figure)
                        progress(
                            f"round {round_ + 1} {NAMES[kind]} {name}: {figure.rate:,.0f}/s "
                            f"p99 {figure.p99_ms:.1f} ms server {figure.server_ms:.3f} ms/call "
                            f"failures {figure.failures}"
                        )
    finally:
        for pipe in (server.stdin, server.stdout):
            if pipe is not None:
                pipe.close()
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    return found


def table(found: dict[str, dict[str, list[Figure]]], threads: int) -> str:
    """The medians as a markdown table, the two servers side by side."""
    lines = [
        f"| operation | asyncio calls/s | threaded ({threads}) calls/s | threaded/asyncio "
        "| asyncio p99 | threaded p99 | asyncio server CPU/call | threaded server CPU/call "
        "| failures |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [
        compared(NAMES[kind], found[kind]["asyncio"], found[kind]["threaded"]) for kind in KINDS
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    serve(sys.argv[1:])
