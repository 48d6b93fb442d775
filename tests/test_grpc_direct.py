"""The RPCs that call the service directly (GetPlayer, GetMe, GetAround, GetMeAround, GetTop,
SubmitScore, SubmitScores) answer what their HTTP twins answer: the same players, ranks and
pages, the same refusals (the same problem, at the same places, as the same status code),
the same admission (keys, board scopes, rate limits counted with HTTP's, player tokens) and
the call's deadline as the write's, with a real grpcio client against a real app."""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from helpers_grpc import AUTH, METADATA, Rig, as_json, clean, refusal, renamed, rig, twins
from helpers_idp import IdentityProvider, claims, mint, rsa_key, with_key_set
from rankline import ManualClock, Settings
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.grpc.service import DIRECT, STREAMED
from rankline.http.loop_lag import LoopLag

pytestmark = pytest.mark.edge


def _with(settings: Settings, **changes: Any) -> Settings:
    return settings.model_copy(update=changes)


async def _http(r: Rig, method: str, url: str, status: int, **kwargs: Any) -> Any:
    response = await r.http.request(method, url, headers=AUTH, **kwargs)
    assert response.status_code == status, response.text
    return clean(response.json())


async def _arena(r: Rig) -> None:
    spec = {"scopes": ["region"], "tiers": [{"name": "gold", "top_rank": 2}]}
    await _http(r, "PUT", "/v1/boards/arena", 201, json=spec)
    for n, score in enumerate([50, 40, 40, 20, 10], 1):
        body = {
            "player_id": f"p{n}",
            "score": score,
            "match_id": f"m{n}",
            "scopes": {"region": "EU" if n % 2 else "NA"},
            "metadata": {"n": n},
        }
        await _http(r, "POST", "/v1/boards/arena/scores", 200, json=body)


def _param(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def test_every_rpc_calls_the_service_directly() -> None:
    """Every unary RPC has a direct handler and ``Watch`` a streaming one: none is answered
    through the HTTP endpoint it twins."""
    names = set(twins())
    assert set(DIRECT) | set(STREAMED) == names
    assert set(STREAMED) == {"Watch"} and not set(DIRECT) & set(STREAMED)


async def test_reads_answer_as_http(settings: Settings, clock: ManualClock) -> None:
    async with rig(settings, clock) as r:
        await _arena(r)
        players = [
            ({"player_id": "p3"}, {}),
            ({"player_id": "p2", "scope": "region:NA", "metadata": True}, {}),
            ({"player_id": "p1", "window": "all_time", "period": "", "scope": ""}, {}),
        ]
        for fields, _ in players:
            answer = await r.stub.GetPlayer(pb.GetPlayerRequest(board_id="arena", **fields))
            params = {k: _param(v) for k, v in fields.items() if k != "player_id" and v}
            url = f"/v1/boards/arena/players/{fields['player_id']}"
            assert as_json(answer) == await _http(r, "GET", url, 200, params=params), fields
        tops: list[dict[str, Any]] = [
            {},
            {"limit": 2, "offset": 1},
            {"tier": "gold"},
            {"scope": "region:EU", "metadata": True},
            {"limit": 2},
        ]
        for fields in tops:
            answer = await r.stub.GetTop(pb.GetTopRequest(board_id="arena", **fields))
            params = {k: _param(v) for k, v in fields.items()}
            assert as_json(answer) == await _http(
                r, "GET", "/v1/boards/arena/top", 200, params=params
            )
        arounds: list[dict[str, Any]] = [{}, {"k": 1}, {"k": 0, "scope": "region:EU"}]
        for fields in arounds:
            answer = await r.stub.GetAround(
                pb.GetAroundRequest(board_id="arena", player_id="p3", **fields)
            )
            params = {k: _param(v) for k, v in fields.items()}
            url = "/v1/boards/arena/players/p3/around"
            assert as_json(answer) == await _http(r, "GET", url, 200, params=params), fields
        page = await r.stub.GetTop(pb.GetTopRequest(board_id="arena", limit=2))
        after = await r.stub.GetTop(pb.GetTopRequest(board_id="arena", limit=2, cursor=page.next))
        http = await _http(
            r, "GET", "/v1/boards/arena/top", 200, params={"limit": 2, "cursor": page.next}
        )
        assert as_json(after) == http
        assert [e.player_id for e in after.entries] == ["p3", "p4"]


async def test_read_refusals_are_https_problems_as_codes(
    settings: Settings, clock: ManualClock
) -> None:
    async with rig(settings, clock) as r:
        await _arena(r)
        refusals: list[tuple[Any, str, dict[str, Any], grpc.StatusCode, int]] = [
            (
                pb.GetTopRequest(board_id="arena", limit=5000),
                "/top",
                {"limit": 5000},
                grpc.StatusCode.INVALID_ARGUMENT,
                422,
            ),
            (
                pb.GetTopRequest(board_id="arena", limit=0),
                "/top",
                {"limit": 0},
                grpc.StatusCode.INVALID_ARGUMENT,
                422,
            ),
            (
                pb.GetTopRequest(board_id="arena", offset=-1),
                "/top",
                {"offset": -1},
                grpc.StatusCode.INVALID_ARGUMENT,
                422,
            ),
            (
                pb.GetTopRequest(board_id="arena", tier="silver"),
                "/top",
                {"tier": "silver"},
                grpc.StatusCode.INVALID_ARGUMENT,
                422,
            ),
            (
                pb.GetTopRequest(board_id="arena", cursor="x", offset=1),
                "/top",
                {"cursor": "x", "offset": 1},
                grpc.StatusCode.INVALID_ARGUMENT,
                422,
            ),
            (
                pb.GetTopRequest(board_id="arena", at="yesterday"),
                "/top",
                {"at": "yesterday"},
                grpc.StatusCode.INVALID_ARGUMENT,
                422,
            ),
            (
                pb.GetTopRequest(board_id="arena", window="hourly"),
                "/top",
                {"window": "hourly"},
                grpc.StatusCode.INVALID_ARGUMENT,
                422,
            ),
            (
                pb.GetPlayerRequest(board_id="arena", player_id="ghost"),
                "/players/ghost",
                {},
                grpc.StatusCode.NOT_FOUND,
                404,
            ),
            (
                pb.GetPlayerRequest(board_id="arena", player_id="no spaces"),
                "/players/no%20spaces",
                {},
                grpc.StatusCode.INVALID_ARGUMENT,
                422,
            ),
        ]
        refusals += [
            (
                pb.GetAroundRequest(board_id="arena", player_id="p1", k=101),
                "/players/p1/around",
                {"k": 101},
                grpc.StatusCode.INVALID_ARGUMENT,
                422,
            ),
            (
                pb.GetAroundRequest(board_id="arena", player_id="ghost"),
                "/players/ghost/around",
                {},
                grpc.StatusCode.NOT_FOUND,
                404,
            ),
        ]
        rpcs = {
            pb.GetTopRequest: r.stub.GetTop,
            pb.GetPlayerRequest: r.stub.GetPlayer,
            pb.GetAroundRequest: r.stub.GetAround,
        }
        for request, path, params, code, status in refusals:
            rpc = rpcs[type(request)]
            problem = await refusal(rpc(request), code)
            http = await _http(r, "GET", f"/v1/boards/arena{path}", status, params=params)
            assert problem == http, (request, problem, http)
        for rpc, request in (
            (r.stub.GetTop, pb.GetTopRequest(board_id="nope")),
            (r.stub.GetPlayer, pb.GetPlayerRequest(board_id="nope", player_id="p1")),
        ):
            problem = await refusal(rpc(request), grpc.StatusCode.NOT_FOUND)
            assert problem == await _http(r, "GET", "/v1/boards/nope/top", 404) | {
                "detail": problem["detail"]
            }
        problem = await refusal(
            r.stub.GetTop(pb.GetTopRequest(board_id="Bad Id")), grpc.StatusCode.INVALID_ARGUMENT
        )
        assert problem["errors"][0]["loc"] == ["path", "board_id"]


def _item(board: str, player: str, score: Any = 10, **extra: Any) -> dict[str, Any]:
    return {"board": board, "player_id": player, "score": score, "match_id": "m", **extra}


async def test_writes_answer_as_http(settings: Settings, clock: ManualClock) -> None:
    """A write over gRPC and the same write over HTTP on a twin board give the same answer;
    a batch's refused items are refused alike, each at its own place."""
    async with rig(_with(settings, max_metadata_bytes=100), clock) as r:
        for board in ("grpc", "http"):
            await _http(r, "PUT", f"/v1/boards/{board}", 201, json={"scopes": ["region"]})
        one = {"player_id": "a", "score": 7, "match_id": "m1", "scopes": {"region": "EU"}}
        answer = await r.stub.SubmitScore(
            pb.SubmitScoreRequest(board_id="grpc", body=pb.ScoreIn(**one)), metadata=METADATA
        )
        http = await _http(r, "POST", "/v1/boards/http/scores", 200, json=one)
        assert as_json(answer.result) == http
        big = {"note": "x" * 100}
        items = [
            ("b", 5, {}),
            ("c", 2**62, {"metadata": {"kills": 3}}),
            ("no spaces", 1, {}),  # an invalid player id
            ("d", 1, {"metadata": big}),  # over the metadata cap
            ("e", 1, {"at": "soon"}),  # not a time
            ("f", 1, {"scopes": {"mode": "duo"}}),  # no such dimension
            ("b", 9, {}),  # a later item for the same player
        ]
        message = pb.BatchDoc()
        for player, score, extra in items:
            added = message.scores.add(board="grpc", player_id=player, score=score, match_id="m")
            if "metadata" in extra:
                added.metadata.update(extra["metadata"])
            if "at" in extra:
                added.at = extra["at"]
            for name, value in extra.get("scopes", {}).items():
                added.scopes[name] = value
        batch = await r.stub.SubmitScores(pb.SubmitScoresRequest(body=message), metadata=METADATA)
        http = await _http(
            r,
            "POST",
            "/v1/scores/batch",
            200,
            json={"scores": [_item("http", p, s, **x) for p, s, x in items]},
        )
        got = as_json(batch.result)
        assert got == renamed(http, {"http": "grpc"})
        locs = [r.get("error", {}).get("errors", [{}])[0].get("loc") for r in got["results"]]
        assert locs[2:6] == [
            ["body", "scores", 2, "player_id"],
            ["body", "scores", 3, "metadata"],
            ["body", "scores", 4, "at"],
            ["body", "scores", 5, "scopes", "mode"],
        ]
        for board in ("grpc", "http"):
            top = await _http(r, "GET", f"/v1/boards/{board}/top", 200)
            assert [(e["player_id"], e["score"]) for e in top["entries"]] == [
                ("c", 2**62),
                ("a", 7),
                ("b", 5),  # its second item reused its match id: refused, as over HTTP
            ]
        # the body's own refusals: no body, too many items
        problem = await refusal(
            r.stub.SubmitScores(pb.SubmitScoresRequest(), metadata=METADATA),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
        assert problem == await _http(r, "POST", "/v1/scores/batch", 422, json={})
        # a batch sent with no items (proto3 sends no empty list): a batch of nothing
        empty = await r.stub.SubmitScores(
            pb.SubmitScoresRequest(body=pb.BatchDoc()), metadata=METADATA
        )
        answered = await _http(r, "POST", "/v1/scores/batch", 200, json={"scores": []})
        assert answered == {}  # {"results": []}, empties cleaned
        assert empty.HasField("result") and list(empty.result.results) == []
        many = pb.BatchDoc()
        for i in range(1001):
            many.scores.add(board="grpc", player_id=f"x{i}", score=1, match_id="m")
        problem = await refusal(
            r.stub.SubmitScores(pb.SubmitScoresRequest(body=many), metadata=METADATA),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
        body = {"scores": [_item("http", f"x{i}", 1) for i in range(1001)]}
        assert problem == await _http(r, "POST", "/v1/scores/batch", 422, json=body)
        # a single submission's refusals
        for body, code, status in (
            ({"player_id": "z", "score": 1}, grpc.StatusCode.INVALID_ARGUMENT, 422),
            (
                {"player_id": "z", "score": 1, "match_id": "m", "metadata": big},
                grpc.StatusCode.INVALID_ARGUMENT,
                422,
            ),
            (
                {"player_id": "a", "score": 8, "match_id": "m1", "scopes": {"region": "EU"}},
                grpc.StatusCode.ALREADY_EXISTS,
                409,
            ),
        ):
            score = pb.ScoreIn(**{k: v for k, v in body.items() if k != "metadata"})
            if "metadata" in body:
                score.metadata.update(body["metadata"])
            problem = await refusal(
                r.stub.SubmitScore(
                    pb.SubmitScoreRequest(board_id="grpc", body=score), metadata=METADATA
                ),
                code,
            )
            http = await _http(r, "POST", "/v1/boards/http/scores", status, json=body)
            assert problem == renamed(http, {"http": "grpc"}), body


async def test_keys_scopes_and_limits_are_https(settings: Settings, clock: ManualClock) -> None:
    """The same keys, board scopes and rate limits (counted together with HTTP's)."""
    keyed = _with(
        settings,
        server_keys="test-server-key,scoped:game-a-*",
        read_keys="reader",
        rate_limit_key_writes="4/hour",
        rate_limit_address_reads="6/hour",
    )
    async with rig(keyed, clock) as r:
        await _http(r, "PUT", "/v1/boards/game-a-1", 201, json={})  # a write: 1 of 4
        await _http(r, "PUT", "/v1/boards/game-b-1", 201, json={})  # 2 of 4
        reader = (("authorization", "Bearer reader"),)
        scoped = (("authorization", "Bearer scoped"),)
        await refusal(
            r.stub.GetPlayer(pb.GetPlayerRequest(board_id="game-a-1", player_id="q")),
            grpc.StatusCode.UNAUTHENTICATED,
        )
        await refusal(
            r.stub.GetTop(
                pb.GetTopRequest(board_id="game-a-1"), metadata=(("authorization", "Bearer x"),)
            ),
            grpc.StatusCode.PERMISSION_DENIED,
        )
        items = pb.BatchDoc()
        for board in ("game-a-1", "game-b-1"):
            items.scores.add(board=board, player_id="q", score=1, match_id="b")
        await refusal(
            r.stub.SubmitScores(pb.SubmitScoresRequest(body=items), metadata=reader),
            grpc.StatusCode.PERMISSION_DENIED,
        )
        batch = await r.stub.SubmitScores(pb.SubmitScoresRequest(body=items), metadata=scoped)
        first, second = batch.result.results
        assert first.applied and second.error.status == 403
        assert "game-b-1" in second.error.detail
        assert (await r.stub.GetTop(pb.GetTopRequest(board_id="game-a-1"), metadata=reader)).total
        # per key: two writes over HTTP, then SubmitScores and SubmitScore take the rest
        await r.stub.SubmitScore(
            pb.SubmitScoreRequest(
                board_id="game-a-1", body=pb.ScoreIn(player_id="r", score=1, match_id="m")
            ),
            metadata=METADATA,
        )
        await r.stub.SubmitScores(pb.SubmitScoresRequest(body=items), metadata=METADATA)
        problem = await refusal(
            r.stub.SubmitScores(pb.SubmitScoresRequest(body=items), metadata=METADATA),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
        )
        assert problem["status"] == 429 and "per key" in problem["detail"]
        http = await r.http.post(
            "/v1/boards/game-a-1/scores",
            json={"player_id": "s", "score": 1, "match_id": "m"},
            headers=AUTH,
        )
        assert http.status_code == 429
        # per address: 3 reads so far (one refused before its key was checked counts too)
        for _ in range(2):
            await r.stub.GetPlayer(
                pb.GetPlayerRequest(board_id="game-a-1", player_id="q"), metadata=reader
            )
        assert (await r.http.get("/v1/boards/game-a-1/top", headers=AUTH)).status_code == 200
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await r.stub.GetTop(pb.GetTopRequest(board_id="game-a-1"), metadata=reader)
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        trailers = dict(caught.value.trailing_metadata() or ())
        assert int(trailers["retry-after"]) >= 1


KEY = rsa_key()


@pytest.fixture
def idp() -> Iterator[IdentityProvider]:
    provider = IdentityProvider(KEY).start()
    yield provider
    provider.stop()


async def test_player_tokens_as_over_http(
    settings: Settings, clock: ManualClock, idp: IdentityProvider
) -> None:
    """A player reads; reads as themselves; submits only as themselves, and only where the
    board takes client writes; never a batch. Per-player read limits count GetPlayer too."""
    tokens = with_key_set(settings, idp, rate_limit_player_reads="5/hour")
    async with rig(tokens, clock) as r:
        await _http(r, "PUT", "/v1/boards/open", 201, json={"client_writes": {"max_gain": 100}})
        await _http(r, "PUT", "/v1/boards/closed", 201, json={})
        token = mint(KEY, claims("p1"))
        own = (("authorization", f"Bearer {token}"),)
        headers = {"Authorization": f"Bearer {token}"}
        mine = pb.SubmitScoreRequest(board_id="open", body=pb.ScoreIn(score=5, match_id="x"))
        answer = await r.stub.SubmitScore(mine, metadata=own)
        assert (answer.result.player_id, answer.result.score) == ("p1", 5)
        another = pb.SubmitScoreRequest(
            board_id="open", body=pb.ScoreIn(player_id="p2", score=5, match_id="y")
        )
        problem = await refusal(
            r.stub.SubmitScore(another, metadata=own), grpc.StatusCode.PERMISSION_DENIED
        )
        http = await r.http.post(
            "/v1/boards/open/scores",
            json={"player_id": "p2", "score": 5, "match_id": "y"},
            headers=headers,
        )
        assert http.status_code == 403 and problem == clean(http.json())
        over = pb.SubmitScoreRequest(board_id="open", body=pb.ScoreIn(score=500, match_id="z"))
        problem = await refusal(
            r.stub.SubmitScore(over, metadata=own), grpc.StatusCode.INVALID_ARGUMENT
        )
        assert "above max_gain 100" in problem["reason"]
        closed = pb.SubmitScoreRequest(board_id="closed", body=pb.ScoreIn(score=5, match_id="x"))
        await refusal(r.stub.SubmitScore(closed, metadata=own), grpc.StatusCode.PERMISSION_DENIED)
        batch = pb.BatchDoc()
        batch.scores.add(board="open", player_id="p1", score=1, match_id="b")
        problem = await refusal(
            r.stub.SubmitScores(pb.SubmitScoresRequest(body=batch), metadata=own),
            grpc.StatusCode.PERMISSION_DENIED,
        )
        assert problem["type"].endswith("/not-for-players")
        mine_around = await r.stub.GetMeAround(
            pb.GetMeAroundRequest(board_id="open", k=1), metadata=own
        )
        http_around = await r.http.get("/v1/boards/open/me/around?k=1", headers=headers)
        assert as_json(mine_around) == clean(http_around.json())
        await refusal(
            r.stub.GetMeAround(pb.GetMeAroundRequest(board_id="open"), metadata=METADATA),
            grpc.StatusCode.PERMISSION_DENIED,
        )
        me = await r.stub.GetMe(pb.GetMeRequest(board_id="open"), metadata=own)
        player = await r.stub.GetPlayer(
            pb.GetPlayerRequest(board_id="open", player_id="p1"), metadata=own
        )
        assert as_json(me) == as_json(player) and me.rank == 1
        assert (await r.http.get("/v1/boards/open/me", headers=headers)).status_code == 200
        problem = await refusal(
            r.stub.GetTop(pb.GetTopRequest(board_id="open"), metadata=own),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
        )
        assert "per player" in problem["detail"]


async def _outstanding(writer: Any, count: int) -> None:
    """Until the writer holds ``count`` admitted submissions (30 s at most)."""
    async with asyncio.timeout(30):
        for _ in itertools.count():
            if writer._outstanding >= count:
                return
            await asyncio.sleep(0.001)


async def test_time_the_loop_ran_late_is_spent_from_a_writes_deadline(
    settings: Settings, clock: ManualClock
) -> None:
    """The worker's event loop ran late (told so: 5 s; its 1 s deadline spent before the
    servicer saw the call): a gRPC write is refused unprocessed, as an HTTP one is, nothing
    recorded, while a read is answered as ever."""
    async with rig(_with(settings, write_deadline_ms=1000), clock) as r:
        await _http(r, "PUT", "/v1/boards/arena", 201, json={})
        api = r.app.api
        await api.lag.close()  # the loop's lateness told, on a clock that stands still
        api.lag = LoopLag(monotonic=lambda: 100.0)
        single = pb.SubmitScoreRequest(
            board_id="arena", body=pb.ScoreIn(player_id="s1", score=3, match_id="m")
        )
        items = pb.BatchDoc()
        items.scores.add(board="arena", player_id="b1", score=1, match_id="m")
        batch = pb.SubmitScoresRequest(body=items)
        assert (await r.stub.SubmitScore(single, metadata=METADATA)).result.applied
        api.lag.observe(5.0)  # a tick ran 5 s late: a call seen after it waited as long
        for late in (
            r.stub.SubmitScore(single, metadata=METADATA),
            r.stub.SubmitScores(batch, metadata=METADATA),
        ):
            problem = await refusal(late, grpc.StatusCode.RESOURCE_EXHAUSTED)
            assert "deadline passed before the write was admitted" in problem["detail"]
        read = await r.stub.GetPlayer(
            pb.GetPlayerRequest(board_id="arena", player_id="s1"), metadata=METADATA
        )
        assert (read.player_id, read.score) == ("s1", 3)
        history = await r.http.get("/v1/players/b1/history", headers=AUTH)
        assert history.status_code == 404 or history.json()["items"] == [], history.text


async def test_the_calls_deadline_is_the_writes_when_sooner(
    settings: Settings, clock: ManualClock
) -> None:
    """With 300 submissions ahead at 100 a second, a batch whose call gives it 2 s is
    refused at once (the deadline it is told of is the call's), and one whose call gives it
    a minute is admitted (the server's, longer than the 3 s it waits, applies)."""
    async with rig(settings, clock) as r:
        await _http(r, "PUT", "/v1/boards/arena", 201, json={})
        service = r.app.state.service
        writer = service.writer
        writer.admission.measured(100, 1.0)
        lock = writer.commit_lock
        await lock.acquire()
        try:
            ahead = asyncio.create_task(
                r.http.post(
                    "/v1/scores/batch",
                    json={"scores": [_item("arena", f"a{i}") for i in range(300)]},
                    headers=AUTH,
                )
            )
            await _outstanding(writer, 300)
            items = pb.BatchDoc()
            items.scores.add(board="arena", player_id="b", score=1, match_id="m")
            hurried = r.stub.SubmitScores(
                pb.SubmitScoresRequest(body=items), metadata=METADATA, timeout=2.0
            )
            problem = await refusal(hurried, grpc.StatusCode.RESOURCE_EXHAUSTED)
            assert "300 submissions ahead" in problem["detail"]
            left = re.search(r"deadline leaves \((\d+) ms\)", problem["detail"])
            assert left is not None and int(left.group(1)) <= 2000
            patient = asyncio.ensure_future(
                r.stub.SubmitScores(
                    pb.SubmitScoresRequest(body=items), metadata=METADATA, timeout=60
                )
            )
            await _outstanding(writer, 301)
        finally:
            lock.release()
        assert (await ahead).status_code == 200
        assert (await patient).result.results[0].applied
