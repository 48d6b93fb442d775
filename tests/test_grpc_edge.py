"""The gRPC edge with a real grpcio client against the gRPC server of a real app: auth and
key scoping, errors as standard codes with the problem attached (google.rpc.Status), a reused
match id, an async token then a read after it, Watch, rate limits shared with HTTP, degraded
reads and health, reflection; and that every HTTP operation has its RPC."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pb2
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status

from helpers_backends import selected
from helpers_grpc import AUTH, METADATA, Rig, as_json, clean, rig, twins
from rankline import ManualClock, Settings
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.grpc.rpcs import DESCRIPTOR, SERVICE
from rankline.http.openapi import build_openapi
from rankline.http.routes import ENDPOINTS, rpc_rules

pytestmark = pytest.mark.edge


def _with(settings: Settings, **changes: Any) -> Settings:
    return settings.model_copy(update=changes)


async def _refused(call: Any, code: grpc.StatusCode) -> tuple[dict[str, Any], list[Any]]:
    """The call fails with ``code``: the problem it carries, and the other details."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    error = caught.value
    assert error.code() == code, (error.code(), error.details())
    status = rpc_status.from_call(error)
    assert status is not None and status.code == code.value[0]
    problem = pb.Problem()
    others = []
    for detail in status.details:
        if detail.Is(pb.Problem.DESCRIPTOR):
            detail.Unpack(problem)
        else:
            others.append(detail)
    body = as_json(problem)
    assert body["detail"] == error.details()
    return body, others


def _score(player: str, score: int = 10, match: str | None = None) -> pb.ScoreIn:
    return pb.ScoreIn(player_id=player, score=score, match_id=match or f"m-{player}")


async def _board(r: Rig, board: str = "arena") -> None:
    await r.stub.PutBoard(pb.PutBoardRequest(board_id=board), metadata=METADATA)


# --- the endpoint table ------------------------------------------------------------------


def test_every_http_operation_has_an_rpc() -> None:
    """Each operation of the endpoint table (and of the OpenAPI document) names the RPC that
    twins it, or says why it has none; each RPC is named by exactly one operation, and its
    request carries the operation's parameters."""
    table = {(e.method, e.path) for e in ENDPOINTS}
    documented = {
        (method.upper(), path)
        for path, item in build_openapi()["paths"].items()
        for method in item
        if path.startswith("/v1/")
    }
    assert documented == table
    unsaid = sorted((e.method, e.path) for e in ENDPOINTS if (e.rpc is None) == (e.no_rpc is None))
    assert unsaid == [], (
        f"HTTP operations with no RPC and no reason (add one, or say why): {unsaid}"
    )
    named = sorted(e.rpc for e in ENDPOINTS if e.rpc is not None)
    assert named == sorted(m.name for m in DESCRIPTOR.methods)
    assert rpc_rules() == {name: twin.endpoint.rule for name, twin in twins().items()}
    for name, twin in twins().items():
        fields = set(twin.request.DESCRIPTOR.fields_by_name)
        wanted = {*twin.path_names, *twin.query_names}
        if twin.endpoint.body is not None:
            wanted.add("body")
        if twin.endpoint.accepted is not None:
            wanted.add("respond_async")
        assert wanted == fields, name


# --- auth and scoping -------------------------------------------------------------------


async def test_keys_kinds_and_board_scoping(settings: Settings, clock: ManualClock) -> None:
    keyed = _with(settings, server_keys="test-server-key,scoped:game-a-*", read_keys="reader")
    async with rig(keyed, clock) as r:
        await _board(r, "game-a-1")
        await _board(r, "game-b-1")
        read = pb.GetTopRequest(board_id="game-a-1")
        problem, _ = await _refused(r.stub.GetTop(read), grpc.StatusCode.UNAUTHENTICATED)
        assert problem["status"] == 401
        wrong = (("authorization", "Bearer nope"),)
        await _refused(r.stub.GetTop(read, metadata=wrong), grpc.StatusCode.PERMISSION_DENIED)
        reader = (("authorization", "Bearer reader"),)
        assert (await r.stub.GetTop(read, metadata=reader)).board == "game-a-1"
        write = pb.SubmitScoreRequest(board_id="game-a-1", body=_score("p"))
        await _refused(r.stub.SubmitScore(write), grpc.StatusCode.UNAUTHENTICATED)
        await _refused(
            r.stub.SubmitScore(write, metadata=reader), grpc.StatusCode.PERMISSION_DENIED
        )
        # A key limited to game-a-*: its boards only, and no player changes.
        scoped = (("authorization", "Bearer scoped"),)
        answer = await r.stub.SubmitScore(write, metadata=scoped)
        assert answer.result.applied is True
        other = pb.SubmitScoreRequest(board_id="game-b-1", body=_score("p"))
        problem, _ = await _refused(
            r.stub.SubmitScore(other, metadata=scoped), grpc.StatusCode.PERMISSION_DENIED
        )
        http = await r.http.post(
            "/v1/boards/game-b-1/scores",
            json={"player_id": "p", "score": 10, "match_id": "m-p"},
            headers={"Authorization": "Bearer scoped"},
        )
        assert problem == clean(http.json())
        items = [
            pb.BatchScoreIn(board=b, player_id="q", score=1, match_id="b")
            for b in ("game-a-1", "game-b-1")
        ]
        batch = await r.stub.SubmitScores(
            pb.SubmitScoresRequest(body=pb.BatchDoc(scores=items)), metadata=scoped
        )
        first, second = batch.result.results
        assert first.applied and second.error.status == 403
        await _refused(
            r.stub.BanPlayer(pb.BanPlayerRequest(player_id="p"), metadata=scoped),
            grpc.StatusCode.PERMISSION_DENIED,
        )
        # Moderation: a limited key acts on its boards only, and names one of them to read
        # the audit log and the dead letters.
        removal = pb.RemoveEntryRequest(board_id="game-b-1", player_id="p")
        await _refused(
            r.stub.RemoveEntry(removal, metadata=scoped), grpc.StatusCode.PERMISSION_DENIED
        )
        await _refused(
            r.stub.RemoveEntry(removal, metadata=reader), grpc.StatusCode.PERMISSION_DENIED
        )
        reset = pb.ResetBoardRequest(board_id="game-a-1")
        await _refused(r.stub.ResetBoard(reset), grpc.StatusCode.UNAUTHENTICATED)
        void = pb.VoidMatchRequest(board_id="game-a-1", match_id="m-p")
        assert list((await r.stub.VoidMatch(void, metadata=scoped)).players) == ["p"]
        problem, _ = await _refused(  # voided already
            r.stub.VoidMatch(void, metadata=scoped), grpc.StatusCode.FAILED_PRECONDITION
        )
        http = await r.http.post(
            "/v1/boards/game-a-1/matches/m-p/void", headers={"Authorization": "Bearer scoped"}
        )
        assert http.status_code == 409 and problem == clean(http.json())
        await _refused(
            r.stub.ListAuditEntries(pb.ListAuditEntriesRequest(), metadata=scoped),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
        await _refused(
            r.stub.ListDeadLetters(pb.ListDeadLettersRequest(board="game-b-1"), metadata=scoped),
            grpc.StatusCode.PERMISSION_DENIED,
        )
        mine = await r.stub.ListAuditEntries(
            pb.ListAuditEntriesRequest(board="game-a-1"), metadata=scoped
        )
        assert [i.action for i in mine.items] == ["match.void", "board.create"]


# --- errors -----------------------------------------------------------------------------


async def test_invalid_input_carries_the_problem_of_http(
    settings: Settings, clock: ManualClock
) -> None:
    async with rig(settings, clock) as r:
        await _board(r)
        bad = pb.SubmitScoreRequest(board_id="arena", body=_score("no spaces"))
        problem, _ = await _refused(
            r.stub.SubmitScore(bad, metadata=METADATA), grpc.StatusCode.INVALID_ARGUMENT
        )
        http = await r.http.post(
            "/v1/boards/arena/scores",
            json={"player_id": "no spaces", "score": 10, "match_id": "m-no spaces"},
            headers=AUTH,
        )
        assert http.status_code == 422
        assert problem == clean(http.json())
        assert problem["errors"][0]["loc"] == ["body", "player_id"]
        await _refused(
            r.stub.GetTop(pb.GetTopRequest(board_id="arena", limit=5000)),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
        await _refused(
            r.stub.GetPlayer(pb.GetPlayerRequest(board_id="arena", player_id="ghost")),
            grpc.StatusCode.NOT_FOUND,
        )
        await _refused(
            r.stub.GetTop(pb.GetTopRequest(board_id="Bad Id")), grpc.StatusCode.INVALID_ARGUMENT
        )
        # A reason too long, on a moderation call and on an audited write (then not made).
        long = "x" * 1001
        removal = pb.RemoveEntryRequest(board_id="arena", player_id="p", reason=long)
        problem, _ = await _refused(
            r.stub.RemoveEntry(removal, metadata=METADATA), grpc.StatusCode.INVALID_ARGUMENT
        )
        assert problem["errors"][0]["loc"] == ["query", "reason"]
        reset = pb.ResetBoardRequest(board_id="arena", body=pb.ResetIn(reason=long))
        problem, _ = await _refused(
            r.stub.ResetBoard(reset, metadata=METADATA), grpc.StatusCode.INVALID_ARGUMENT
        )
        assert problem["errors"][0]["loc"] == ["body", "reason"]
        await _refused(
            r.stub.DeleteBoard(
                pb.DeleteBoardRequest(board_id="arena", reason=long), metadata=METADATA
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
        assert (await r.stub.GetBoard(pb.GetBoardRequest(board_id="arena"))).id == "arena"
        await _refused(
            r.stub.VoidMatch(
                pb.VoidMatchRequest(board_id="arena", match_id="no spaces"), metadata=METADATA
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
        )


async def test_a_reused_match_id_is_already_exists_with_the_stored_one(
    settings: Settings, clock: ManualClock
) -> None:
    async with rig(settings, clock) as r:
        await _board(r)
        first = pb.SubmitScoreRequest(board_id="arena", body=_score("p", 10, "m1"))
        assert (await r.stub.SubmitScore(first, metadata=METADATA)).result.duplicate is False
        again = await r.stub.SubmitScore(first, metadata=METADATA)
        assert again.result.duplicate is True  # a retry: the same answer, nothing recorded
        reused = pb.SubmitScoreRequest(board_id="arena", body=_score("p", 99, "m1"))
        problem, _ = await _refused(
            r.stub.SubmitScore(reused, metadata=METADATA), grpc.StatusCode.ALREADY_EXISTS
        )
        assert problem["status"] == 409
        assert problem["existing"]["score"] == 10 and problem["existing"]["match_id"] == "m1"
        # Any other conflict is FAILED_PRECONDITION: a frozen board.
        frozen = pb.PutBoardRequest(board_id="arena", body=pb.BoardSpec(status="frozen"))
        await r.stub.PutBoard(frozen, metadata=METADATA)
        late = pb.SubmitScoreRequest(board_id="arena", body=_score("z"))
        await _refused(
            r.stub.SubmitScore(late, metadata=METADATA), grpc.StatusCode.FAILED_PRECONDITION
        )


# --- asynchronous answers and Watch -----------------------------------------------------


async def test_an_async_token_then_a_read_after_it(settings: Settings, clock: ManualClock) -> None:
    async with rig(settings, clock) as r:
        await _board(r)
        request = pb.SubmitScoreRequest(board_id="arena", body=_score("p", 7), respond_async=True)
        answer = await r.stub.SubmitScore(request, metadata=METADATA)
        assert answer.WhichOneof("answer") == "accepted"
        assert answer.accepted.accepted == 1 and answer.accepted.token
        top = await r.stub.GetTop(pb.GetTopRequest(board_id="arena", after=answer.accepted.token))
        assert [(e.player_id, e.score) for e in top.entries] == [("p", 7)]
        items = [
            pb.BatchScoreIn(board="arena", player_id=f"b{i}", score=i, match_id="x")
            for i in range(3)
        ]
        batch = await r.stub.SubmitScores(
            pb.SubmitScoresRequest(body=pb.BatchDoc(scores=items), respond_async=True),
            metadata=METADATA,
        )
        assert batch.accepted.accepted == 3
        read = pb.GetPlayerRequest(board_id="arena", player_id="b2", after=batch.accepted.token)
        assert (await r.stub.GetPlayer(read)).score == 2


async def _next(events: AsyncIterator[pb.WatchEvent]) -> pb.WatchEvent:
    return await asyncio.wait_for(anext(events), 10)


async def test_watch_carries_the_live_stream(settings: Settings, clock: ManualClock) -> None:
    async with rig(settings, clock) as r:
        await _board(r)
        for player, score in (("a", 10), ("b", 20)):
            request = pb.SubmitScoreRequest(board_id="arena", body=_score(player, score))
            await r.stub.SubmitScore(request, metadata=METADATA)
        call = r.stub.Watch(pb.WatchRequest(board_id="arena", limit=2, players="a"))
        events = aiter(call)
        first = await _next(events)
        assert first.WhichOneof("event") == "top"
        http_top = (await r.http.get("/v1/boards/arena/top", params={"limit": 2})).json()
        assert as_json(first.top) == clean(http_top)
        watched = await _next(events)
        assert (watched.WhichOneof("event"), watched.player.player_id) == ("player", "a")
        request = pb.SubmitScoreRequest(board_id="arena", body=_score("c", 30))
        await r.stub.SubmitScore(request, metadata=METADATA)
        changed = await _next(events)
        assert [e.player_id for e in changed.top.entries] == ["c", "b"]
        moved = await _next(events)
        assert (moved.player.player_id, moved.player.rank) == ("a", 3)
        call.cancel()
        refused = r.stub.Watch(pb.WatchRequest(board_id="nope"))
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await anext(aiter(refused))
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND


# --- limits, degraded mode, health and reflection ---------------------------------------


async def test_rate_limits_are_shared_with_http_and_say_when_to_retry(
    settings: Settings, clock: ManualClock
) -> None:
    limited = _with(settings, rate_limit_key_writes="3/hour", rate_limit_address_reads="2/hour")
    async with rig(limited, clock) as r:
        await _board(r)  # the first write
        score = {"player_id": "h", "score": 1, "match_id": "m-h"}
        assert (
            await r.http.post("/v1/boards/arena/scores", json=score, headers=AUTH)
        ).status_code == 200
        request = pb.SubmitScoreRequest(board_id="arena", body=_score("g"))
        await r.stub.SubmitScore(request, metadata=METADATA)  # the third
        problem, others = await _refused(
            r.stub.SubmitScore(
                pb.SubmitScoreRequest(board_id="arena", body=_score("x")), metadata=METADATA
            ),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
        )
        assert problem["status"] == 429 and "per key" in problem["detail"]
        [packed] = others
        retry = error_details_pb2.RetryInfo()
        assert packed.Unpack(retry) and 1 <= retry.retry_delay.seconds <= 3600
        # per address: the gRPC peer's address
        for _ in range(2):
            await r.stub.GetTop(pb.GetTopRequest(board_id="arena"))
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await r.stub.GetTop(pb.GetTopRequest(board_id="arena"))
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        trailers = dict(caught.value.trailing_metadata() or ())
        assert int(trailers["retry-after"]) >= 1


async def _health(r: Rig, service: str) -> int:
    stub = health_pb2_grpc.HealthStub(r.channel)
    answer = await stub.Check(health_pb2.HealthCheckRequest(service=service))
    status: int = answer.status
    return status


async def _until_health(r: Rig, service: str, status: int) -> None:
    """The health service says ``status`` within a few of its updates."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while await _health(r, service) != status:
        assert loop.time() < deadline, f"health of {service!r} never became {status}"
        await asyncio.sleep(0.05)


async def test_degraded_reads_and_health(settings: Settings, clock: ManualClock) -> None:
    # A shared index's keeper would find Redis well and end the degrade within its check
    # interval, maybe before the health service's next update: it does not look here.
    async with rig(_with(settings, index_check_seconds=3600), clock) as r:
        serving = health_pb2.HealthCheckResponse.SERVING
        await _until_health(r, "", serving)  # once the index is built (not before)
        await _until_health(r, SERVICE, serving)
        await _board(r)
        request = pb.SubmitScoreRequest(board_id="arena", body=_score("p", 5))
        await r.stub.SubmitScore(request, metadata=METADATA)
        app_service = r.app.state.service
        app_service.health.degrade("told to by the test")
        top = await r.stub.GetTop(pb.GetTopRequest(board_id="arena"))
        assert top.degraded is True
        http = await r.http.get("/v1/boards/arena/top")
        assert as_json(top) == clean(http.json())
        await _until_health(r, SERVICE, health_pb2.HealthCheckResponse.NOT_SERVING)


async def _readyz(r: Rig) -> tuple[int, bool]:
    answer = await r.http.get("/readyz")
    ready: bool = answer.json()["ready"]
    return answer.status_code, ready


@pytest.mark.parametrize("stack", selected(), indirect=True)  # each index says when it is usable
async def test_health_changes_with_readyz_as_it_changes(
    settings: Settings, clock: ManualClock
) -> None:
    # Degraded as the gateway and the keeper degrade it when Redis fails; the keeper must not
    # end the degrades below by itself (a shared index's would, finding Redis well).
    async with rig(_with(settings, index_check_seconds=3600), clock) as r:
        serving = health_pb2.HealthCheckResponse.SERVING
        not_serving = health_pb2.HealthCheckResponse.NOT_SERVING
        stub = health_pb2_grpc.HealthStub(r.channel)
        app_health = r.app.state.service.health
        watches = {
            name: stub.Watch(health_pb2.HealthCheckRequest(service=name)) for name in ("", SERVICE)
        }
        streams = {name: aiter(call) for name, call in watches.items()}

        async def next_status(name: str) -> int:
            answer = await asyncio.wait_for(anext(streams[name]), 30)
            status: int = answer.status
            return status

        for name in streams:  # ready before the rig yields, so from the first answer on
            assert await next_status(name) == serving
        assert await _readyz(r) == (200, True)
        for turn in range(3):
            app_health.degrade(f"told to by the test ({turn})")
            # /readyz answers from the same state, and a Check asked after it agrees
            assert await _readyz(r) == (503, False)
            assert await _health(r, "") == await _health(r, SERVICE) == not_serving
            for name in streams:
                assert await next_status(name) == not_serving
            app_health.recovered()
            assert await _readyz(r) == (200, True)
            assert await _health(r, "") == await _health(r, SERVICE) == serving
            for name in streams:
                assert await next_status(name) == serving
        for call in watches.values():
            call.cancel()


async def test_reflection_lists_and_describes_the_service(
    settings: Settings, clock: ManualClock
) -> None:
    async with rig(settings, clock) as r:
        stub = reflection_pb2_grpc.ServerReflectionStub(r.channel)
        asks = [
            reflection_pb2.ServerReflectionRequest(list_services=""),
            reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE),
        ]
        answers = [a async for a in stub.ServerReflectionInfo(iter(asks))]
        names = {s.name for s in answers[0].list_services_response.service}
        assert {SERVICE, "grpc.health.v1.Health"} <= names
        files = answers[1].file_descriptor_response.file_descriptor_proto
        described = [descriptor_pb2.FileDescriptorProto.FromString(f) for f in files]
        [found] = [f for f in described if f.name == "rankline/v1/rankline.proto"]
        assert "GetTop" in {m.name for m in found.service[0].method}


# --- cursors, entry metadata and snapshots ---------------------------------------------


@pytest.mark.edge
async def test_cursors_metadata_and_snapshots_over_grpc(
    settings: Settings, clock: ManualClock
) -> None:
    settings = settings.model_copy(update={"snapshot_check_seconds": 0})
    async with rig(settings, clock) as r:
        spec = pb.BoardSpec(snapshots=pb.SnapshotSpec(every_seconds=10, k=2))
        await r.stub.PutBoard(pb.PutBoardRequest(board_id="arena", body=spec), metadata=METADATA)
        for i in range(3):
            body = _score(f"p{i}", 10 - i)
            body.metadata.update({"car": f"c{i}"})
            await r.stub.SubmitScore(
                pb.SubmitScoreRequest(board_id="arena", body=body), metadata=METADATA
            )
        first = await r.stub.GetTop(pb.GetTopRequest(board_id="arena", limit=2, metadata=True))
        assert [as_json(e)["metadata"] for e in first.entries] == [{"car": "c0"}, {"car": "c1"}]
        rest = await r.stub.GetTop(pb.GetTopRequest(board_id="arena", cursor=first.next))
        assert [e.player_id for e in rest.entries] == ["p2"] and not rest.HasField("next")
        await r.app.state.service.snapshots.take_due()
        listed = await r.stub.ListSnapshots(pb.ListSnapshotsRequest(board_id="arena"))
        [snapshot] = listed.snapshots
        then = await r.stub.GetTop(pb.GetTopRequest(board_id="arena", at=snapshot.taken_at))
        assert then.taken_at == snapshot.taken_at and len(then.entries) == 2
