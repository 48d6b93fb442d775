"""Player tokens over gRPC: the token in the ``authorization`` metadata, the same rules as
HTTP (the RPCs are answered by the same request wrapper) and its refusals as gRPC codes:
UNAUTHENTICATED for a token that does not verify, PERMISSION_DENIED for what a player may
not do."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from grpc_status import rpc_status

from helpers_api import AUTH
from helpers_grpc import Rig, as_json, clean, rig, twins
from helpers_idp import (
    REFETCH,
    IdentityProvider,
    SigningKey,
    claims,
    ec_key,
    ed_key,
    mint,
    refused_tokens,
    rsa_key,
    with_key_set,
)
from rankline import ManualClock, Settings
from rankline.access.keysets import KeySet
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb

pytestmark = pytest.mark.edge


def metadata(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


@pytest.fixture(scope="module")
def keys() -> dict[str, SigningKey]:
    return {"rsa": rsa_key(), "ec": ec_key(), "ed": ed_key()}


@pytest.fixture
def idp(keys: dict[str, SigningKey]) -> Iterator[IdentityProvider]:
    provider = IdentityProvider(*keys.values()).start()
    yield provider
    provider.stop()


async def _arena(r: Rig) -> None:
    assert (await r.http.put("/v1/boards/arena", json={}, headers=AUTH)).status_code == 201
    for n, score in enumerate([50, 40, 30, 20, 10], 1):
        body = {"player_id": f"p{n}", "score": score, "match_id": f"m{n}"}
        response = await r.http.post("/v1/boards/arena/scores", json=body, headers=AUTH)
        assert response.status_code == 200, response.text
    friends = {"friends": ["p1", "p5"]}
    assert (await r.http.put("/v1/players/p3/friends", json=friends, headers=AUTH)).is_success


async def _refused(call: Any, code: grpc.StatusCode) -> dict[str, Any]:
    """The call fails with ``code``, carrying the problem HTTP would answer."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    error = caught.value
    assert error.code() == code, (error.code(), error.details())
    status = rpc_status.from_call(error)
    assert status is not None
    problem = pb.Problem()
    assert any(d.Unpack(problem) for d in status.details if d.Is(pb.Problem.DESCRIPTOR))
    body: dict[str, Any] = as_json(problem)
    assert body["detail"] == error.details()
    return body


async def test_a_player_token_reads_me_over_grpc_as_over_http(
    settings: Settings, clock: ManualClock, idp: IdentityProvider, keys: dict[str, SigningKey]
) -> None:
    async with rig(with_key_set(settings, idp), clock) as r:
        await _arena(r)
        for kind, key in keys.items():
            token = mint(key, claims("p3", jti=kind))
            headers = {"Authorization": f"Bearer {token}"}
            calls: list[tuple[str, Message, str]] = [
                ("GetMe", pb.GetMeRequest(board_id="arena"), "/v1/boards/arena/me"),
                (
                    "GetMeAround",
                    pb.GetMeAroundRequest(board_id="arena", k=1),
                    "/v1/boards/arena/me/around?k=1",
                ),
                (
                    "GetMeFriends",
                    pb.GetMeFriendsRequest(board_id="arena"),
                    "/v1/boards/arena/me/friends",
                ),
            ]
            for name, request, url in calls:
                answer = await getattr(r.stub, name)(request, metadata=metadata(token))
                http = await r.http.get(url, headers=headers)
                assert http.status_code == 200, http.text
                assert as_json(answer) == clean(http.json()), (kind, name)
            me = await r.stub.GetMe(pb.GetMeRequest(board_id="arena"), metadata=metadata(token))
            assert (me.player_id, me.rank) == ("p3", 3)
        # without a token, and with a key, GetMe is refused as over HTTP
        problem = await _refused(
            r.stub.GetMe(pb.GetMeRequest(board_id="arena")), grpc.StatusCode.UNAUTHENTICATED
        )
        assert problem["status"] == 401
        await _refused(
            r.stub.GetMe(pb.GetMeRequest(board_id="arena"), metadata=metadata("test-server-key")),
            grpc.StatusCode.PERMISSION_DENIED,
        )


async def test_tokens_that_do_not_verify_are_unauthenticated(
    settings: Settings, clock: ManualClock, idp: IdentityProvider, keys: dict[str, SigningKey]
) -> None:
    async with rig(with_key_set(settings, idp), clock) as r:
        await _arena(r)
        for case, token in refused_tokens(keys["rsa"]).items():
            for call in (
                r.stub.GetMe(pb.GetMeRequest(board_id="arena"), metadata=metadata(token)),
                r.stub.GetTop(pb.GetTopRequest(board_id="arena"), metadata=metadata(token)),
            ):
                problem = await _refused(call, grpc.StatusCode.UNAUTHENTICATED)
                assert problem["type"].endswith("/invalid-token"), case
                assert token not in str(problem), case


async def test_rotation_withdrawal_and_an_outage_over_grpc(
    settings: Settings, clock: ManualClock, idp: IdentityProvider, keys: dict[str, SigningKey]
) -> None:
    old, new = keys["rsa"], rsa_key("rsa-2")
    idp.published = [old]
    me = pb.GetMeRequest(board_id="arena")
    async with rig(with_key_set(settings, idp), clock) as r:
        await _arena(r)
        before = mint(old, claims("p1"))
        assert (await r.stub.GetMe(me, metadata=metadata(before))).rank == 1
        assert idp.count() == 1
        idp.published = [new]
        await asyncio.sleep(REFETCH + 0.1)
        assert (await r.stub.GetMe(me, metadata=metadata(mint(new, claims("p2"))))).rank == 2
        assert idp.count() == 2
        await _refused(r.stub.GetMe(me, metadata=metadata(before)), grpc.StatusCode.UNAUTHENTICATED)

        idp.stop()  # down: the kept keys verify, and the set is not asked for at each forgery
        assert r.app.api.tokens is not None and isinstance(r.app.api.tokens.keys, KeySet)
        key_set = r.app.api.tokens.keys
        fetched, started = key_set.fetches, time.monotonic()
        for n in range(15):
            fresh = mint(new, claims("p2", jti=f"down-{n}"))
            assert (await r.stub.GetMe(me, metadata=metadata(fresh))).rank == 2
            forged = mint(rsa_key(f"unknown-{n}"), claims("p2"))
            await _refused(
                r.stub.GetMe(me, metadata=metadata(forged)), grpc.StatusCode.UNAUTHENTICATED
            )
        tries = key_set.fetches - fetched
        assert tries <= math.ceil((time.monotonic() - started) / REFETCH) + 1, tries


async def test_a_player_token_is_permission_denied_on_every_rpc_a_key_alone_may_call(
    settings: Settings, clock: ManualClock, idp: IdentityProvider, keys: dict[str, SigningKey]
) -> None:
    token = metadata(mint(keys["ec"], claims("p1")))
    denied = 0
    async with rig(with_key_set(settings, idp, rate_limits=False), clock) as r:
        await _arena(r)
        for name, operation in twins().items():
            endpoint = operation.endpoint
            if endpoint.auth in ("read", "me") or endpoint.for_players or name == "Watch":
                continue
            fields = {
                field: "absent-board" if field == "board_id" else "x1"
                for field in operation.path_names
            }
            call = getattr(r.stub, name)(operation.request(**fields), metadata=token)
            problem = await _refused(call, grpc.StatusCode.PERMISSION_DENIED)
            assert problem["type"].endswith("/not-for-players"), name
            denied += 1
        assert denied >= 20
        # a player submits only as themselves; where a board takes no client writes, not at all
        as_another = pb.SubmitScoreRequest(
            board_id="arena", body=pb.ScoreIn(player_id="p2", score=99, match_id="x")
        )
        problem = await _refused(
            r.stub.SubmitScore(as_another, metadata=token), grpc.StatusCode.PERMISSION_DENIED
        )
        assert "own" in problem["detail"]
        own = pb.SubmitScoreRequest(board_id="arena", body=pb.ScoreIn(score=99, match_id="x"))
        problem = await _refused(
            r.stub.SubmitScore(own, metadata=token), grpc.StatusCode.PERMISSION_DENIED
        )
        assert "players" in problem["detail"]
        top = (await r.http.get("/v1/boards/arena/top")).json()["entries"]
        assert [e["score"] for e in top] == [50, 40, 30, 20, 10]
