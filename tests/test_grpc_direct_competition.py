"""The tournament and match write RPCs call the service directly and answer what their HTTP
twins answer: a write through gRPC and the same write through HTTP on a mirror (a board or
tournament of its own) answer the same, an asynchronous one is accepted as over HTTP, and
each refusal is the HTTP problem, at the same place, as the status code of the HTTP status
(a bad id, a key limited to other boards, a reason too long, 409s, a batch's invalid
items)."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from helpers_grpc import AUTH, METADATA, Rig, as_json, clean, refusal, rig
from rankline import ManualClock, Settings
from rankline.grpc import service
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb

pytestmark = pytest.mark.edge

STARTS, ENDS = "2026-11-21T11:00:00.000Z", "2026-11-22T12:00:00.000Z"
BEFORE = "2026-11-20T11:00:00.000Z"
SCOPED = (("authorization", "Bearer scoped"),)
SCOPED_AUTH = {"Authorization": "Bearer scoped"}
MIRROR = {"elo-mirror": "elo", "cup-mirror": "cup", "game-a-mirror": "game-a-1"}
CODES = {
    400: grpc.StatusCode.INVALID_ARGUMENT,
    403: grpc.StatusCode.PERMISSION_DENIED,
    404: grpc.StatusCode.NOT_FOUND,
    409: grpc.StatusCode.FAILED_PRECONDITION,
    413: grpc.StatusCode.RESOURCE_EXHAUSTED,
    422: grpc.StatusCode.INVALID_ARGUMENT,
}
PLACES = [{"player_id": "a", "place": 1}, {"player_id": "b", "place": 2}]
RATED = {"policy": "rating", "rating": {"system": "elo", "provisional_games": 0}}
CUP = {"title": "Cup", "starts_at": STARTS, "ends_at": ENDS, "join_required": True, "max_size": 2}


def _named(body: Any) -> Any:
    """``body`` with the mirror's ids named as the original's."""
    if isinstance(body, dict):
        return {k: _named(v) for k, v in body.items()}
    if isinstance(body, list):
        return [_named(v) for v in body]
    return MIRROR.get(body, body) if isinstance(body, str) else body


async def _http(
    r: Rig,
    method: str,
    url: str,
    status: int,
    body: Any = None,
    headers: dict[str, str] = AUTH,
    **params: Any,
) -> Any:
    response = await r.http.request(method, url, json=body, params=params or None, headers=headers)
    assert response.status_code == status, response.text
    return _named(clean(response.json())) if response.content else None


def _settings(settings: Settings) -> Settings:
    update = {"server_keys": "test-server-key,scoped:game-a-*", "max_metadata_bytes": 64}
    return settings.model_copy(update=update)


async def _boards(r: Rig) -> None:
    for board in ("elo", "elo-mirror"):
        await _http(r, "PUT", f"/v1/boards/{board}", 201, RATED)
    await _http(r, "PUT", "/v1/boards/arena", 201, {})


def _match(match_id: str, places: list[dict[str, Any]] = PLACES, **more: Any) -> pb.MatchIn:
    return pb.MatchIn(match_id=match_id, results=[pb.MatchResultIn(**p) for p in places], **more)


def _item(board: str, match_id: str, places: list[dict[str, Any]] = PLACES) -> pb.MatchBatchItemIn:
    results = [pb.MatchResultIn(**p) for p in places]
    return pb.MatchBatchItemIn(board=board, match_id=match_id, results=results)


def test_the_competition_writes_are_direct() -> None:
    for name in (
        "PutTournament",
        "DeleteTournament",
        "JoinTournament",
        "SubmitTournamentScore",
        "SubmitMatch",
        "SubmitMatches",
    ):
        assert name in service.DIRECT, name


async def test_the_tournament_writes_answer_as_http(settings: Settings, clock: ManualClock) -> None:
    async with rig(_settings(settings), clock) as r:
        for created, status in ((True, 201), (False, 200)):
            answer = await r.stub.PutTournament(
                pb.PutTournamentRequest(
                    tournament_id="cup", body=pb.TournamentSpec(**CUP), reason="season one"
                ),
                metadata=METADATA,
            )
            assert answer.created is created
            http = await _http(
                r, "PUT", "/v1/tournaments/cup-mirror", status, CUP, reason="season one"
            )
            assert as_json(answer)["result"] == http
        audit = await _http(r, "GET", "/v1/audit", 200, board="cup")
        mirrored = await _http(r, "GET", "/v1/audit", 200, board="cup-mirror")
        assert [(i["actor"], i["action"], i.get("reason")) for i in audit["items"]] == [
            (i["actor"], i["action"], i.get("reason")) for i in mirrored["items"]
        ]
        assert audit["items"][0]["reason"] == "season one"
        for player in ("a", "b"):
            answer = await r.stub.JoinTournament(
                pb.JoinTournamentRequest(tournament_id="cup", body=pb.JoinIn(player_id=player)),
                metadata=METADATA,
            )
            join = {"player_id": player}
            assert as_json(answer) == await _http(
                r, "POST", "/v1/tournaments/cup-mirror/join", 200, join
            )
        item = {"player_id": "a", "score": 10, "match_id": "t-a", "metadata": {"k": 1}}
        for _ in range(2):  # the retry answers the same too
            answer = await r.stub.SubmitTournamentScore(
                pb.SubmitTournamentScoreRequest(
                    tournament_id="cup", body=pb.TournamentScoreIn(**item)
                ),
                metadata=METADATA,
            )
            url = "/v1/tournaments/cup-mirror/scores"
            assert as_json(answer) == await _http(r, "POST", url, 200, item)
        answer = await r.stub.DeleteTournament(
            pb.DeleteTournamentRequest(tournament_id="cup", reason="done"), metadata=METADATA
        )
        assert as_json(answer) == {}
        assert await _http(r, "DELETE", "/v1/tournaments/cup-mirror", 204, reason="done") is None
        await _http(r, "GET", "/v1/tournaments/cup", 404)


async def test_the_match_writes_answer_as_http(settings: Settings, clock: ManualClock) -> None:
    async with rig(_settings(settings), clock) as r:
        await _boards(r)
        body = {"match_id": "g1", "results": PLACES}
        for _ in range(2):  # a retry answers the same
            answer = await r.stub.SubmitMatch(
                pb.SubmitMatchRequest(board_id="elo", body=_match("g1")), metadata=METADATA
            )
            assert answer.WhichOneof("answer") == "result"
            http = await _http(r, "POST", "/v1/boards/elo-mirror/matches", 200, body)
            assert as_json(answer)["result"] == http
        answer = await r.stub.SubmitMatch(
            pb.SubmitMatchRequest(board_id="elo", body=_match("g2"), respond_async=True),
            metadata=METADATA,
        )
        assert answer.WhichOneof("answer") == "accepted"
        response = await r.http.post(
            "/v1/boards/elo-mirror/matches",
            json={"match_id": "g2", "results": PLACES},
            headers={**AUTH, "Prefer": "respond-async"},
        )
        assert response.status_code == 202, response.text
        accepted, http = as_json(answer)["accepted"], response.json()
        assert accepted["accepted"] == http["accepted"] == 1
        assert accepted["token"] and http["token"]
        await r.app.state.service.ingest.settled(accepted["token"])

        # a batch: a match, an invalid one, one to a board with no ratings, one to no board
        twice = [{"player_id": "a", "place": 1}, {"player_id": "a", "place": 2}]
        items = [
            ("elo", "g3", PLACES),
            ("elo", "g4", twice),
            ("arena", "g5", PLACES),
            ("nope", "g6", PLACES),
        ]
        raw = {"board": "elo-mirror", "match_id": "g7", "results": [{"player_id": "a"}]}
        batch = [_item(b, m, p) for b, m, p in items]
        mirrored = [
            {"board": "elo-mirror" if b == "elo" else b, "match_id": m, "results": p}
            for b, m, p in items
        ]
        answer = await r.stub.SubmitMatches(
            pb.SubmitMatchesRequest(
                body=pb.MatchBatchDoc(matches=[*batch, _item("elo", "g7", [{"player_id": "a"}])])
            ),
            metadata=METADATA,
        )
        assert answer.WhichOneof("answer") == "result"
        http = await _http(r, "POST", "/v1/matches/batch", 200, {"matches": [*mirrored, raw]})
        assert as_json(answer)["result"] == http
        statuses = [result.get("error", {}).get("status") for result in http["results"]]
        assert statuses == [None, 422, 409, 404, 422]
        assert http["results"][4]["error"]["errors"][0]["loc"][:3] == ["body", "matches", 4]

        answer = await r.stub.SubmitMatches(
            pb.SubmitMatchesRequest(
                body=pb.MatchBatchDoc(matches=[_item("elo", "g8"), _item("nope", "g9")]),
                respond_async=True,
            ),
            metadata=METADATA,
        )
        assert answer.WhichOneof("answer") == "accepted"
        response = await r.http.post(
            "/v1/matches/batch",
            json={
                "matches": [
                    {"board": "elo-mirror", "match_id": "g8", "results": PLACES},
                    {"board": "nope", "match_id": "g9", "results": PLACES},
                ]
            },
            headers={**AUTH, "Prefer": "respond-async"},
        )
        assert response.status_code == 202, response.text
        accepted, http = as_json(answer)["accepted"], clean(response.json())
        assert accepted["token"] and http["token"]
        del accepted["token"], http["token"]
        assert accepted == http
        assert http["accepted"] == 1


Refusal = tuple[str, Any, Any, str, str, Any, dict[str, Any], int]
"""An RPC, its request and call metadata, and its HTTP twin (method, url, body, query)
with the status it answers."""

REFUSALS: list[Refusal] = [
    (
        "PutTournament",
        pb.PutTournamentRequest(tournament_id="Bad Id", body=pb.TournamentSpec(**CUP)),
        METADATA,
        "PUT",
        "/v1/tournaments/Bad%20Id",
        CUP,
        {},
        422,
    ),
    (
        "PutTournament",
        pb.PutTournamentRequest(tournament_id="cup", body=pb.TournamentSpec(**CUP)),
        SCOPED,
        "PUT",
        "/v1/tournaments/cup",
        CUP,
        {},
        403,
    ),
    (
        "PutTournament",
        pb.PutTournamentRequest(
            tournament_id="cup2", reason="x" * 1001, body=pb.TournamentSpec(starts_at=ENDS)
        ),
        METADATA,
        "PUT",
        "/v1/tournaments/cup2",
        {"starts_at": ENDS},
        {"reason": "x" * 1001},
        422,
    ),
    (
        "PutTournament",
        pb.PutTournamentRequest(tournament_id="cup2", body=pb.TournamentSpec(starts_at=ENDS)),
        METADATA,
        "PUT",
        "/v1/tournaments/cup2",
        {"starts_at": ENDS},
        {},
        422,
    ),
    (
        "PutTournament",
        pb.PutTournamentRequest(
            tournament_id="cup2", body=pb.TournamentSpec(starts_at=ENDS, ends_at=STARTS)
        ),
        METADATA,
        "PUT",
        "/v1/tournaments/cup2",
        {"starts_at": ENDS, "ends_at": STARTS},
        {},
        422,
    ),
    (
        "PutTournament",
        pb.PutTournamentRequest(tournament_id="arena", body=pb.TournamentSpec(**CUP)),
        METADATA,
        "PUT",
        "/v1/tournaments/arena",
        CUP,
        {},
        409,
    ),
    (
        "DeleteTournament",
        pb.DeleteTournamentRequest(tournament_id="nope"),
        METADATA,
        "DELETE",
        "/v1/tournaments/nope",
        None,
        {},
        404,
    ),
    (
        "DeleteTournament",
        pb.DeleteTournamentRequest(tournament_id="cup"),
        SCOPED,
        "DELETE",
        "/v1/tournaments/cup",
        None,
        {},
        403,
    ),
    (
        "JoinTournament",
        pb.JoinTournamentRequest(tournament_id="cup", body=pb.JoinIn(player_id="c")),
        METADATA,
        "POST",
        "/v1/tournaments/cup/join",
        {"player_id": "c"},
        {},
        409,
    ),
    (
        "JoinTournament",
        pb.JoinTournamentRequest(tournament_id="cup", body=pb.JoinIn(player_id="no spaces")),
        METADATA,
        "POST",
        "/v1/tournaments/cup/join",
        {"player_id": "no spaces"},
        {},
        422,
    ),
    (
        "JoinTournament",
        pb.JoinTournamentRequest(tournament_id="cup"),
        METADATA,
        "POST",
        "/v1/tournaments/cup/join",
        {},
        {},
        422,
    ),
    (
        "JoinTournament",
        pb.JoinTournamentRequest(tournament_id="nope", body=pb.JoinIn(player_id="c")),
        METADATA,
        "POST",
        "/v1/tournaments/nope/join",
        {"player_id": "c"},
        {},
        404,
    ),
    (
        "SubmitTournamentScore",
        pb.SubmitTournamentScoreRequest(
            tournament_id="cup", body=pb.TournamentScoreIn(player_id="c", score=1, match_id="t")
        ),
        METADATA,
        "POST",
        "/v1/tournaments/cup/scores",
        {"player_id": "c", "score": 1, "match_id": "t"},
        {},
        409,
    ),
    (
        "SubmitTournamentScore",
        pb.SubmitTournamentScoreRequest(
            tournament_id="cup",
            body=pb.TournamentScoreIn(player_id="a", score=1, match_id="t", at="yesterday"),
        ),
        METADATA,
        "POST",
        "/v1/tournaments/cup/scores",
        {"player_id": "a", "score": 1, "match_id": "t", "at": "yesterday"},
        {},
        422,
    ),
    (
        "SubmitTournamentScore",
        pb.SubmitTournamentScoreRequest(
            tournament_id="nope",
            body=pb.TournamentScoreIn(player_id="a", score=1, match_id="t", at="yesterday"),
        ),
        METADATA,
        "POST",
        "/v1/tournaments/nope/scores",
        {"player_id": "a", "score": 1, "match_id": "t", "at": "yesterday"},
        {},
        422,
    ),
    (
        "SubmitTournamentScore",
        pb.SubmitTournamentScoreRequest(
            tournament_id="nope", body=pb.TournamentScoreIn(player_id="a", score=1, match_id="t")
        ),
        METADATA,
        "POST",
        "/v1/tournaments/nope/scores",
        {"player_id": "a", "score": 1, "match_id": "t"},
        {},
        404,
    ),
    (
        "SubmitTournamentScore",
        pb.SubmitTournamentScoreRequest(
            tournament_id="cup",
            body=pb.TournamentScoreIn(player_id="a", score=1, match_id="t", at=BEFORE),
        ),
        METADATA,
        "POST",
        "/v1/tournaments/cup/scores",
        {"player_id": "a", "score": 1, "match_id": "t", "at": BEFORE},
        {},
        None,
    ),
    (
        "SubmitTournamentScore",
        pb.SubmitTournamentScoreRequest(
            tournament_id="cup",
            body=pb.TournamentScoreIn(player_id="a", score=1, match_id="t", subscore=3),
        ),
        METADATA,
        "POST",
        "/v1/tournaments/cup/scores",
        {"player_id": "a", "score": 1, "match_id": "t", "subscore": 3},
        {},
        422,
    ),
    (
        "SubmitMatch",
        pb.SubmitMatchRequest(board_id="Bad Id", body=_match("g1")),
        METADATA,
        "POST",
        "/v1/boards/Bad%20Id/matches",
        {"match_id": "g1", "results": PLACES},
        {},
        422,
    ),
    (
        "SubmitMatch",
        pb.SubmitMatchRequest(board_id="elo", body=_match("g1")),
        SCOPED,
        "POST",
        "/v1/boards/elo/matches",
        {"match_id": "g1", "results": PLACES},
        {},
        403,
    ),
    (
        "SubmitMatch",
        pb.SubmitMatchRequest(board_id="arena", body=_match("g1")),
        METADATA,
        "POST",
        "/v1/boards/arena/matches",
        {"match_id": "g1", "results": PLACES},
        {},
        409,
    ),
    (
        "SubmitMatch",
        pb.SubmitMatchRequest(board_id="nope", body=_match("g1")),
        METADATA,
        "POST",
        "/v1/boards/nope/matches",
        {"match_id": "g1", "results": PLACES},
        {},
        404,
    ),
    (
        "SubmitMatch",
        pb.SubmitMatchRequest(
            board_id="elo",
            body=_match("g1", [{"player_id": "a", "place": 1}, {"player_id": "a", "place": 2}]),
        ),
        METADATA,
        "POST",
        "/v1/boards/elo/matches",
        {
            "match_id": "g1",
            "results": [{"player_id": "a", "place": 1}, {"player_id": "a", "place": 2}],
        },
        {},
        422,
    ),
    (
        "SubmitMatch",
        pb.SubmitMatchRequest(board_id="elo", body=_match("g1", at="soon")),
        METADATA,
        "POST",
        "/v1/boards/elo/matches",
        {"match_id": "g1", "results": PLACES, "at": "soon"},
        {},
        422,
    ),
    (
        "SubmitMatch",
        pb.SubmitMatchRequest(board_id="elo", body=_match("m0", list(reversed(PLACES)))),
        METADATA,
        "POST",
        "/v1/boards/elo/matches",
        {"match_id": "m0", "results": list(reversed(PLACES))},
        {},
        None,
    ),
    (
        "SubmitMatch",
        pb.SubmitMatchRequest(board_id="elo"),
        METADATA,
        "POST",
        "/v1/boards/elo/matches",
        {},
        {},
        422,
    ),
    (
        "SubmitMatches",
        pb.SubmitMatchesRequest(
            body=pb.MatchBatchDoc(matches=[_item("elo", f"b{i}") for i in range(1001)])
        ),
        METADATA,
        "POST",
        "/v1/matches/batch",
        {
            "matches": [
                {"board": "elo", "match_id": f"b{i}", "results": PLACES} for i in range(1001)
            ]
        },
        {},
        422,
    ),
]


async def test_the_competition_writes_refuse_as_http(
    settings: Settings, clock: ManualClock
) -> None:
    async with rig(_settings(settings), clock) as r:
        await _boards(r)
        await _http(r, "POST", "/v1/boards/elo/matches", 200, {"match_id": "m0", "results": PLACES})
        await _http(r, "PUT", "/v1/tournaments/cup", 201, {**CUP, "metadata": {}})
        for player in ("a", "b"):
            await _http(r, "POST", "/v1/tournaments/cup/join", 200, {"player_id": player})
        for name, request, metadata, method, url, body, params, status in REFUSALS:
            headers = SCOPED_AUTH if metadata is SCOPED else AUTH
            response = await r.http.request(
                method, url, json=body, params=params or None, headers=headers
            )
            if status is None:
                status = response.status_code
                assert 400 <= status < 500, (name, response.text)
            assert response.status_code == status, (name, url, response.text)
            http = clean(response.json())
            code = CODES[status]
            if http["type"].endswith("/match-id-reused"):  # a 409 of its own
                code = grpc.StatusCode.ALREADY_EXISTS
            problem = await refusal(getattr(r.stub, name)(request, metadata=metadata), code)
            assert problem == http, (name, url, problem)


async def test_a_key_limited_to_boards_writes_matches_on_its_own(
    settings: Settings, clock: ManualClock
) -> None:
    """A batch by a key limited to boards: its items to other boards are refused (403) one by
    one, as over HTTP; a metadata too large is refused at its place."""
    async with rig(_settings(settings), clock) as r:
        for board in ("game-a-1", "game-a-mirror"):
            await _http(r, "PUT", f"/v1/boards/{board}", 201, RATED)
        await _http(r, "PUT", "/v1/boards/elo", 201, RATED)
        answer = await r.stub.SubmitMatches(
            pb.SubmitMatchesRequest(
                body=pb.MatchBatchDoc(matches=[_item("game-a-1", "s1"), _item("elo", "s2")])
            ),
            metadata=SCOPED,
        )
        mirrored = [
            {"board": "game-a-mirror", "match_id": "s1", "results": PLACES},
            {"board": "elo", "match_id": "s2", "results": PLACES},
        ]
        http = await _http(
            r, "POST", "/v1/matches/batch", 200, {"matches": mirrored}, headers=SCOPED_AUTH
        )
        assert as_json(answer)["result"] == http
        assert [x.get("error", {}).get("status") for x in http["results"]] == [None, 403]

        big = {"player_id": "a", "score": 1, "match_id": "t", "metadata": {"k": "x" * 100}}
        await _http(r, "PUT", "/v1/tournaments/cup", 201, {**CUP, "join_required": False})
        response = await r.http.post("/v1/tournaments/cup/scores", json=big, headers=AUTH)
        assert response.status_code == 422, response.text
        request = pb.SubmitTournamentScoreRequest(tournament_id="cup")
        request.body.player_id, request.body.score, request.body.match_id = "a", 1, "t"
        request.body.metadata.update(big["metadata"])
        problem = await refusal(
            r.stub.SubmitTournamentScore(request, metadata=METADATA), CODES[422]
        )
        assert problem == clean(response.json())
        assert problem["errors"][0]["loc"] == ["body", "metadata"]
