"""Every bound a request declares (``rankline.parameters``) is the bound the API keeps: for
each integer query parameter of each operation's declaration, the value at each end of its
range is accepted and the value one beyond is refused (422 at ``["query", name]`` over HTTP;
INVALID_ARGUMENT naming it over gRPC, for every RPC whose request message has the field).
The bounds are read from the declarations, and the API document says the same ones."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from helpers_api import AUTH, put_board, submit
from helpers_grpc import METADATA, Rig, rig, twins
from rankline import ManualClock, Settings
from rankline.http.endpoint import Endpoint
from rankline.http.openapi import build_openapi
from rankline.http.routes import ENDPOINTS
from rankline.parameters import bounds

pytestmark = pytest.mark.edge

BOARD, PLAYER = "arena", "ada"
PATH = {"board_id": BOARD, "player_id": PLAYER, "tournament_id": "nowhere"}
STREAMS = {"/v1/boards/{board_id}/stream"}
"""Answered with a stream that does not end: read on a board that does not exist, so that an
accepted request answers 404 (its parameters are read before the board is looked up), as the
tournament reads do (no tournament is defined)."""
COMPANIONS = {"score": 0, "subscore": 0}
"""Values given to the other integer parameters of an operation that needs them (rank-of
needs a score, and a subscore on a board with one)."""


def _declared() -> Iterator[tuple[Endpoint, str, int | None, int | None]]:
    for endpoint in ENDPOINTS:
        if endpoint.request is None or endpoint.auth == "me":
            continue  # a player's own reads take the declarations of the reads of a player
        for name, (low, high) in bounds(endpoint.request).items():
            yield endpoint, name, low, high


CASES = list(_declared())


def _edges(low: int | None, high: int | None) -> tuple[list[int], list[int]]:
    """The values at the ends of a range (accepted) and one beyond each (refused)."""
    at = [v for v in (low, high) if v is not None]
    beyond = [v for v in (None if low is None else low - 1, None if high is None else high + 1)]
    return at, [v for v in beyond if v is not None]


def test_every_operation_with_a_bounded_parameter_is_covered() -> None:
    covered = {(e.method, e.path, name) for e, name, *_ in CASES}
    assert ("GET", "/v1/boards/{board_id}/top", "limit") in covered
    assert ("GET", "/v1/boards/{board_id}/top", "offset") in covered
    assert ("GET", "/v1/boards/{board_id}/rank-of", "score") in covered
    assert ("GET", "/v1/audit", "limit") in covered
    assert len(covered) >= 14


def test_the_document_states_the_declared_bounds() -> None:
    paths = build_openapi()["paths"]
    for endpoint, name, low, high in CASES:
        operation = paths[endpoint.path][endpoint.method.lower()]
        [schema] = [p["schema"] for p in operation["parameters"] if p["name"] == name]
        assert (schema.get("minimum"), schema.get("maximum")) == (low, high), endpoint.path


async def _arena(r: Rig) -> None:
    await put_board(r.http, BOARD, subscore="desc")
    await submit(r.http, BOARD, PLAYER, 10, subscore=1)


def _path(endpoint: Endpoint) -> str:
    board = "nowhere" if endpoint.path in STREAMS else BOARD
    return endpoint.path.format(**(PATH | {"board_id": board}))


def _query(endpoint: Endpoint, name: str, value: int) -> dict[str, Any]:
    assert endpoint.request is not None
    given = {k: v for k, v in COMPANIONS.items() if k in bounds(endpoint.request) and k != name}
    return given | {name: value}


async def _http(r: Rig, endpoint: Endpoint, name: str, value: int) -> tuple[int, Any]:
    response = await r.http.request(
        endpoint.method,
        _path(endpoint),
        params=_query(endpoint, name, value),
        headers=AUTH,
    )
    body = response.json() if response.content else None
    return response.status_code, body


def _located(body: Any, name: str) -> bool:
    errors = body.get("errors") or [] if isinstance(body, dict) else []
    return any(e.get("loc") == ["query", name] for e in errors)


async def test_bounds_over_http(settings: Settings, clock: ManualClock) -> None:
    async with rig(settings, clock) as r:
        await _arena(r)
        for endpoint, name, low, high in CASES:
            accepted, refused = _edges(low, high)
            where = f"{endpoint.method} {endpoint.path} {name}"
            for value in accepted:
                status, body = await _http(r, endpoint, name, value)
                assert status != 422 and not _located(body, name), (where, value, body)
            for value in refused:
                status, body = await _http(r, endpoint, name, value)
                assert status == 422 and _located(body, name), (where, value, body)


def _rpcs() -> Iterator[tuple[str, Any, Endpoint, str, int | None, int | None]]:
    by_endpoint = {}
    for op in twins().values():
        by_endpoint.setdefault(id(op.endpoint), []).append(op)
    for endpoint, name, low, high in CASES:
        for op in by_endpoint.get(id(endpoint), []):
            if name in op.request.DESCRIPTOR.fields_by_name:
                yield op.name, op, endpoint, name, low, high


def _message(op: Any, endpoint: Endpoint, name: str, value: int) -> Any:
    fields = op.request.DESCRIPTOR.fields_by_name
    given: dict[str, Any] = {k: v for k, v in PATH.items() if k in fields}
    if endpoint.path in STREAMS:
        given["board_id"] = "nowhere"
    return op.request(**(given | _query(endpoint, name, value)))


async def _call(r: Rig, op: Any, message: Any) -> tuple[grpc.StatusCode, str]:
    method = getattr(r.stub, op.name)
    try:
        if op.streams:
            async for _ in method(message, metadata=METADATA):
                break
        else:
            await method(message, metadata=METADATA)
    except grpc.aio.AioRpcError as exc:
        return exc.code(), exc.details() or ""
    return grpc.StatusCode.OK, ""


async def test_bounds_over_grpc(settings: Settings, clock: ManualClock) -> None:
    rpcs = list(_rpcs())
    assert {"GetTop", "GetAround", "GetRankOf", "ListAuditEntries"} <= {n for n, *_ in rpcs}
    async with rig(settings, clock) as r:
        await _arena(r)
        for rpc, op, endpoint, name, low, high in rpcs:
            accepted, refused = _edges(low, high)
            for value in accepted:
                code, details = await _call(r, op, _message(op, endpoint, name, value))
                assert code != grpc.StatusCode.INVALID_ARGUMENT, (rpc, name, value, details)
            for value in refused:
                try:
                    message = _message(op, endpoint, name, value)
                except ValueError:
                    # the field's own type cannot carry it: the declared bound is the type's
                    assert value in (-(2**63) - 1, 2**63), (rpc, name, value)
                    continue
                code, details = await _call(r, op, message)
                assert code == grpc.StatusCode.INVALID_ARGUMENT, (rpc, name, value, details)
                assert details.startswith(f"{name} "), (rpc, name, value, details)
