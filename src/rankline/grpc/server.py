"""The gRPC server: grpcio's asyncio server in the event loop of the HTTP app it sits beside
(started and stopped by the app's lifespan), with rankline.v1.Rankline (its RPCs' handlers:
``service``), the standard health
service (``grpc.health.v1.Health``: SERVING while reads may use the ranking index, as
``/readyz`` says, changed as the index's health changes) and server reflection."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Mapping

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from rankline.access.admission import Admission, Rule
from rankline.grpc.rpcs import SERVICE
from rankline.grpc.service import handler
from rankline.runtime import tasks
from rankline.service import Rankline

log = logging.getLogger("rankline")
GRACE_SECONDS = 5.0
"""How long a stopping server lets the calls in flight finish (a Watch is cut off)."""
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
"""gRPC's own message limit (the HTTP body limit, RANKLINE_MAX_BODY_BYTES, applies inside)."""


class GrpcServer:
    """A started gRPC server; ``port`` is the one it listens on."""

    def __init__(self, server: grpc.aio.Server, port: int, health: health.aio.HealthServicer):
        self.server = server
        self.port = port
        self.health = health


async def start(
    service: Rankline,
    admission: Admission,
    rules: Mapping[str, Rule],
    host: str,
    port: int,
    waited: Callable[[], float] | None = None,
) -> GrpcServer:
    """Listen on ``host:port`` (0: a free port) in the running event loop, each RPC
    admitted by ``admission`` under its rule in ``rules`` and answered by ``service``
    (``service.handler``; ``waited``: the event loop's recent lateness, spent from a write's
    deadline)."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ]
    )
    server.add_generic_rpc_handlers((handler(service, admission, rules, waited),))
    checks = health.aio.HealthServicer()
    await _set_health(checks, service.health.usable)  # before the first call can ask
    health_pb2_grpc.add_HealthServicer_to_server(checks, server)
    names = (SERVICE, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name)
    reflection.enable_server_reflection((*names, reflection.SERVICE_NAME), server)
    bound = server.add_insecure_port(f"{host}:{port}")
    await server.start()
    return GrpcServer(server, bound, checks)


async def _set_health(checks: health.aio.HealthServicer, usable: bool) -> None:
    status = (
        health_pb2.HealthCheckResponse.SERVING
        if usable
        else health_pb2.HealthCheckResponse.NOT_SERVING
    )
    for name in ("", SERVICE):
        await checks.set(name, status)


async def _follow_health(service: Rankline, checks: health.aio.HealthServicer) -> None:
    """Set the health service's status again each time the index's health says ``usable``
    changed (``/readyz`` answers from the same ``usable``), not on a timer."""
    changed = asyncio.Event()
    stop_following = service.health.follow(lambda usable: changed.set())
    try:
        while True:
            changed.clear()
            await _set_health(checks, service.health.usable)
            await changed.wait()
    finally:
        stop_following()


@contextlib.asynccontextmanager
async def serving(
    service: Rankline,
    admission: Admission,
    rules: Mapping[str, Rule],
    host: str,
    port: int,
    waited: Callable[[], float] | None = None,
) -> AsyncIterator[GrpcServer]:
    """A gRPC server (``start``) for as long as the context lasts; calls in flight are given
    ``GRACE_SECONDS`` as it stops."""
    running = await start(service, admission, rules, host, port, waited)
    log.info("gRPC serving on %s:%d (rankline.v1.Rankline, health, reflection)", host, running.port)
    tracking = asyncio.create_task(_follow_health(service, running.health))
    try:
        yield running
    finally:
        await tasks.stop(tracking)
        await running.health.enter_graceful_shutdown()
        await running.server.stop(GRACE_SECONDS)
