"""A rankline app with its gRPC server, as ``rankline serve --grpc-port`` runs them (the same
companion, in the test's event loop), an HTTP client and a real grpcio client of it; each RPC
beside the endpoint that names it (``twins``); and the comparison of an RPC's answer with its
HTTP twin's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import grpc
import httpx
import pytest
from asgi_lifespan import LifespanManager
from google.protobuf.message import Message
from grpc_status import rpc_status

from helpers_procs import free_port
from rankline import ManualClock, Settings
from rankline.cli.serving import companion
from rankline.grpc.gen.rankline.v1 import rankline_pb2, rankline_pb2_grpc
from rankline.grpc.messages import to_json
from rankline.grpc.rpcs import Rpc, rpcs
from rankline.http import create_app
from rankline.http.app import Application
from rankline.http.endpoint import Endpoint
from rankline.http.query_credential import NAME as CREDENTIAL
from rankline.http.routes import ENDPOINTS

SERVER_KEY = "test-server-key"
METADATA = (("authorization", f"Bearer {SERVER_KEY}"),)
AUTH = {"Authorization": f"Bearer {SERVER_KEY}"}


@dataclass
class Rig:
    app: Application
    http: httpx.AsyncClient
    stub: rankline_pb2_grpc.RanklineStub
    channel: grpc.aio.Channel
    port: int


@asynccontextmanager
async def rig(settings: Settings, clock: ManualClock) -> AsyncIterator[Rig]:
    port = free_port()
    settings = settings.model_copy(update={"grpc_port": port})
    app = create_app(settings, clock=clock, companion=companion(settings))
    async with LifespanManager(app, startup_timeout=60, shutdown_timeout=60):
        await app.state.service.wait_ready()
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with (
            httpx.AsyncClient(transport=transport, base_url="http://rankline.test") as http,
            grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel,
        ):
            yield Rig(app, http, rankline_pb2_grpc.RanklineStub(channel), channel, port)


def clean(value: Any) -> Any:
    """A JSON answer without what a proto cannot tell from its absence: null, [] and {}."""
    if isinstance(value, dict):
        kept = {k: clean(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in (None, [], {})}
    if isinstance(value, list):
        return [clean(v) for v in value]
    return value


def as_json(message: Message) -> Any:
    return clean(to_json(message))


async def refusal(call: Any, code: grpc.StatusCode) -> dict[str, Any]:
    """The call fails with ``code``: the problem it carries (in its status details, its
    detail the status message)."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    error = caught.value
    assert error.code() == code, (error.code(), error.details())
    status = rpc_status.from_call(error)
    assert status is not None and status.code == code.value[0]
    problem = rankline_pb2.Problem()
    assert any(d.Unpack(problem) for d in status.details if d.Is(rankline_pb2.Problem.DESCRIPTOR))
    body: dict[str, Any] = as_json(problem)
    assert body["detail"] == error.details()
    return body


@dataclass(frozen=True)
class Twin:
    """An RPC and the endpoint that names it (``Endpoint.rpc``)."""

    rpc: Rpc
    endpoint: Endpoint

    @property
    def name(self) -> str:
        return self.rpc.name

    @property
    def request(self) -> type[Message]:
        return self.rpc.request

    @property
    def streams(self) -> bool:
        return self.rpc.streams

    @property
    def path_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.endpoint.params if p.where == "path")

    @property
    def query_names(self) -> tuple[str, ...]:
        """The operation's query parameters but the credential (a call's is its metadata)."""
        params = self.endpoint.params
        return tuple(p.name for p in params if p.where == "query" and p.name != CREDENTIAL)


def twins() -> dict[str, Twin]:
    """Every RPC, by name, with the endpoint that names it."""
    named = {e.rpc: e for e in ENDPOINTS if e.rpc is not None}
    return {name: Twin(rpc, named[name]) for name, rpc in rpcs().items()}


def renamed(value: Any, names: dict[str, str]) -> Any:
    """``value`` with the HTTP twin's ids (a board, a player) named as the RPC's: each
    string equal to, or quoting, an old name."""
    if isinstance(value, dict):
        return {k: renamed(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [renamed(v, names) for v in value]
    if isinstance(value, str):
        for old, new in names.items():
            value = value.replace(f"'{old}'", f"'{new}'")
        return names.get(value, value)
    return value
