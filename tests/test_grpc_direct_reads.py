"""The read RPCs that call the service directly beside the hot ones (the board, player,
tournament and log reads) refuse what their HTTP twins refuse: the same problem, at the same
place, as the status code of the HTTP status; and a key limited to boards reads the logs of
its own boards only, as over HTTP. (Their answers are compared in ``test_grpc_twins``.)"""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from helpers_grpc import AUTH, METADATA, Rig, as_json, clean, refusal, rig
from rankline import ManualClock, Settings
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb

pytestmark = pytest.mark.edge

INVALID, MISSING = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND
STARTS, ENDS = "2026-11-21T11:00:00.000Z", "2026-11-22T12:00:00.000Z"


async def _http(
    r: Rig, method: str, url: str, status: int, headers: dict[str, str] = AUTH, **kwargs: Any
) -> Any:
    response = await r.http.request(method, url, headers=headers, **kwargs)
    assert response.status_code == status, response.text
    return clean(response.json())


async def _state(r: Rig) -> None:
    await _http(r, "PUT", "/v1/boards/arena", 201, json={"scopes": ["region"]})
    for n, score in enumerate([50, 40, 20], 1):
        body = {"player_id": f"p{n}", "score": score, "match_id": f"m{n}"}
        await _http(r, "POST", "/v1/boards/arena/scores", 200, json=body)
    cup = {"title": "Cup", "starts_at": STARTS, "ends_at": ENDS}
    await _http(r, "PUT", "/v1/tournaments/cup", 201, json=cup)


Refusal = tuple[str, Any, str, str, dict[str, Any], Any, grpc.StatusCode, int]

REFUSALS: list[Refusal] = [
    (
        "GetBoard",
        pb.GetBoardRequest(board_id="nope"),
        "GET",
        "/v1/boards/nope",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "GetBoard",
        pb.GetBoardRequest(board_id="Bad Id"),
        "GET",
        "/v1/boards/Bad%20Id",
        {},
        None,
        INVALID,
        422,
    ),
    (
        "GetRankOf",
        pb.GetRankOfRequest(board_id="arena"),
        "GET",
        "/v1/boards/arena/rank-of",
        {},
        None,
        INVALID,
        422,
    ),
    (
        "GetRankOf",
        pb.GetRankOfRequest(board_id="arena", score=5, window="hourly"),
        "GET",
        "/v1/boards/arena/rank-of",
        {"score": 5, "window": "hourly"},
        None,
        INVALID,
        422,
    ),
    (
        "GetRankOf",
        pb.GetRankOfRequest(board_id="nope", score=5),
        "GET",
        "/v1/boards/nope/rank-of",
        {"score": 5},
        None,
        MISSING,
        404,
    ),
    (
        "GetFriends",
        pb.GetFriendsRequest(board_id="arena", player_id="p1"),
        "POST",
        "/v1/boards/arena/players/p1/friends",
        {},
        {},
        INVALID,
        422,
    ),
    (
        "GetFriends",
        pb.GetFriendsRequest(
            board_id="arena", player_id="p1", body=pb.FriendsIn(friends=["p2", "no spaces"])
        ),
        "POST",
        "/v1/boards/arena/players/p1/friends",
        {},
        {"friends": ["p2", "no spaces"]},
        INVALID,
        422,
    ),
    (
        "GetFriends",
        pb.GetFriendsRequest(
            board_id="arena", player_id="p1", body=pb.FriendsIn(friends=["p2"], k=5001)
        ),
        "POST",
        "/v1/boards/arena/players/p1/friends",
        {},
        {"friends": ["p2"], "k": 5001},
        INVALID,
        422,
    ),
    (
        "GetFriends",
        pb.GetFriendsRequest(
            board_id="arena", player_id="p1", scope="mode:duo", body=pb.FriendsIn(friends=["p2"])
        ),
        "POST",
        "/v1/boards/arena/players/p1/friends",
        {"scope": "mode:duo"},
        {"friends": ["p2"]},
        None,
        None,
    ),
    (
        "GetRanks",
        pb.GetRanksRequest(
            board_id="arena", body=pb.RanksIn(player_ids=[f"x{i}" for i in range(1001)])
        ),
        "POST",
        "/v1/boards/arena/ranks",
        {},
        {"player_ids": [f"x{i}" for i in range(1001)]},
        INVALID,
        422,
    ),
    (
        "GetRanks",
        pb.GetRanksRequest(board_id="nope", body=pb.RanksIn(player_ids=["p1"])),
        "POST",
        "/v1/boards/nope/ranks",
        {},
        {"player_ids": ["p1"]},
        MISSING,
        404,
    ),
    (
        "ListPeriods",
        pb.ListPeriodsRequest(board_id="arena", window="hourly"),
        "GET",
        "/v1/boards/arena/periods",
        {"window": "hourly"},
        None,
        None,
        None,
    ),
    (
        "ListPeriods",
        pb.ListPeriodsRequest(board_id="nope"),
        "GET",
        "/v1/boards/nope/periods",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "ListSnapshots",
        pb.ListSnapshotsRequest(board_id="arena", limit=0),
        "GET",
        "/v1/boards/arena/snapshots",
        {"limit": 0},
        None,
        INVALID,
        422,
    ),
    (
        "ListSnapshots",
        pb.ListSnapshotsRequest(board_id="arena", before="yesterday"),
        "GET",
        "/v1/boards/arena/snapshots",
        {"before": "yesterday"},
        None,
        INVALID,
        422,
    ),
    (
        "ListDeliveries",
        pb.ListDeliveriesRequest(board_id="nope"),
        "GET",
        "/v1/boards/nope/deliveries",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "ListDeliveries",
        pb.ListDeliveriesRequest(board_id="arena", limit=0),
        "GET",
        "/v1/boards/arena/deliveries",
        {"limit": 0},
        None,
        INVALID,
        422,
    ),
    (
        "GetProfile",
        pb.GetProfileRequest(player_id="ghost"),
        "GET",
        "/v1/players/ghost",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "GetProfile",
        pb.GetProfileRequest(player_id="no spaces"),
        "GET",
        "/v1/players/no%20spaces",
        {},
        None,
        INVALID,
        422,
    ),
    (
        "GetHistory",
        pb.GetHistoryRequest(player_id="p1", limit=0),
        "GET",
        "/v1/players/p1/history",
        {"limit": 0},
        None,
        INVALID,
        422,
    ),
    (
        "GetHistory",
        pb.GetHistoryRequest(player_id="p1", cursor="not-a-cursor"),
        "GET",
        "/v1/players/p1/history",
        {"cursor": "not-a-cursor"},
        None,
        INVALID,
        422,
    ),
    (
        "GetFriendList",
        pb.GetFriendListRequest(player_id="no spaces"),
        "GET",
        "/v1/players/no%20spaces/friends",
        {},
        None,
        INVALID,
        422,
    ),
    (
        "GetStoredFriends",
        pb.GetStoredFriendsRequest(board_id="arena", player_id="p1", k=5001),
        "GET",
        "/v1/boards/arena/players/p1/friends",
        {"k": 5001},
        None,
        INVALID,
        422,
    ),
    (
        "GetStoredFriends",
        pb.GetStoredFriendsRequest(board_id="nope", player_id="p1"),
        "GET",
        "/v1/boards/nope/players/p1/friends",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "GetRating",
        pb.GetRatingRequest(board_id="arena", player_id="p1"),
        "GET",
        "/v1/boards/arena/players/p1/rating",
        {},
        None,
        None,
        None,
    ),
    (
        "GetRating",
        pb.GetRatingRequest(board_id="nope", player_id="p1"),
        "GET",
        "/v1/boards/nope/players/p1/rating",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "GetTournament",
        pb.GetTournamentRequest(tournament_id="nope"),
        "GET",
        "/v1/tournaments/nope",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "GetTournament",
        pb.GetTournamentRequest(tournament_id="Bad Id"),
        "GET",
        "/v1/tournaments/Bad%20Id",
        {},
        None,
        INVALID,
        422,
    ),
    (
        "GetTournamentTop",
        pb.GetTournamentTopRequest(tournament_id="cup", limit=0),
        "GET",
        "/v1/tournaments/cup/top",
        {"limit": 0},
        None,
        INVALID,
        422,
    ),
    (
        "GetTournamentTop",
        pb.GetTournamentTopRequest(tournament_id="nope"),
        "GET",
        "/v1/tournaments/nope/top",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "GetTournamentPlayer",
        pb.GetTournamentPlayerRequest(tournament_id="cup", player_id="ghost"),
        "GET",
        "/v1/tournaments/cup/players/ghost",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "GetTournamentPlayer",
        pb.GetTournamentPlayerRequest(tournament_id="cup", player_id="p1", edition="1999-01-01"),
        "GET",
        "/v1/tournaments/cup/players/p1",
        {"edition": "1999-01-01"},
        None,
        None,
        None,
    ),
    (
        "GetTournamentAround",
        pb.GetTournamentAroundRequest(tournament_id="cup", player_id="p1", k=101),
        "GET",
        "/v1/tournaments/cup/players/p1/around",
        {"k": 101},
        None,
        INVALID,
        422,
    ),
    (
        "GetTournamentResults",
        pb.GetTournamentResultsRequest(tournament_id="nope"),
        "GET",
        "/v1/tournaments/nope/results",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "GetTournamentResults",
        pb.GetTournamentResultsRequest(tournament_id="cup", edition="someday"),
        "GET",
        "/v1/tournaments/cup/results",
        {"edition": "someday"},
        None,
        None,
        None,
    ),
    (
        "ListAuditEntries",
        pb.ListAuditEntriesRequest(limit=0),
        "GET",
        "/v1/audit",
        {"limit": 0},
        None,
        INVALID,
        422,
    ),
    (
        "ListAuditEntries",
        pb.ListAuditEntriesRequest(cursor="not-a-cursor"),
        "GET",
        "/v1/audit",
        {"cursor": "not-a-cursor"},
        None,
        INVALID,
        422,
    ),
    (
        "ListDeadLetters",
        pb.ListDeadLettersRequest(limit=0),
        "GET",
        "/v1/dead-letters",
        {"limit": 0},
        None,
        INVALID,
        422,
    ),
]
"""Each refused read: its RPC and message, its HTTP request (method, path, query, body),
and the code and status it is refused with (None, None: whichever HTTP answers, a 4xx)."""

_CODES = {
    400: grpc.StatusCode.INVALID_ARGUMENT,
    403: grpc.StatusCode.PERMISSION_DENIED,
    404: grpc.StatusCode.NOT_FOUND,
    409: grpc.StatusCode.FAILED_PRECONDITION,
    422: grpc.StatusCode.INVALID_ARGUMENT,
}


async def test_the_reads_refuse_as_http(settings: Settings, clock: ManualClock) -> None:
    async with rig(settings, clock) as r:
        await _state(r)
        for name, request, method, url, params, body, code, status in REFUSALS:
            response = await r.http.request(
                method, url, params=params or None, json=body, headers=AUTH
            )
            if status is None:
                status = response.status_code
                assert 400 <= status < 500, (name, response.text)
            assert response.status_code == status, (name, response.text)
            expected = code or _CODES[status]
            problem = await refusal(getattr(r.stub, name)(request, metadata=METADATA), expected)
            assert problem == clean(response.json()), (name, problem)
        # an empty path field, which no HTTP route matches, is refused as the path's
        problem = await refusal(
            r.stub.GetProfile(pb.GetProfileRequest(), metadata=METADATA), INVALID
        )
        assert problem["errors"][0]["loc"] == ["path", "player_id"]


async def test_a_key_limited_to_boards_reads_its_own_logs(
    settings: Settings, clock: ManualClock
) -> None:
    """The audit log and the dead letters: a key limited to boards names one of its own
    (422 when it names none, 403 when another), as over HTTP; its boards' deliveries only."""
    keyed = settings.model_copy(update={"server_keys": "test-server-key,scoped:game-a-*"})
    async with rig(keyed, clock) as r:
        for board in ("game-a-1", "game-b-1"):
            await _http(r, "PUT", f"/v1/boards/{board}", 201, json={})
        scoped = (("authorization", "Bearer scoped"),)
        headers = {"Authorization": "Bearer scoped"}
        cases: list[tuple[str, Any, str, dict[str, Any], grpc.StatusCode, int]] = [
            ("ListAuditEntries", pb.ListAuditEntriesRequest(), "/v1/audit", {}, INVALID, 422),
            (
                "ListAuditEntries",
                pb.ListAuditEntriesRequest(board="game-b-1"),
                "/v1/audit",
                {"board": "game-b-1"},
                grpc.StatusCode.PERMISSION_DENIED,
                403,
            ),
            ("ListDeadLetters", pb.ListDeadLettersRequest(), "/v1/dead-letters", {}, INVALID, 422),
            (
                "ListDeadLetters",
                pb.ListDeadLettersRequest(board="game-b-1"),
                "/v1/dead-letters",
                {"board": "game-b-1"},
                grpc.StatusCode.PERMISSION_DENIED,
                403,
            ),
            (
                "ListDeliveries",
                pb.ListDeliveriesRequest(board_id="game-b-1"),
                "/v1/boards/game-b-1/deliveries",
                {},
                grpc.StatusCode.PERMISSION_DENIED,
                403,
            ),
        ]
        for name, request, url, params, code, status in cases:
            problem = await refusal(getattr(r.stub, name)(request, metadata=scoped), code)
            http = await _http(r, "GET", url, status, headers=headers, params=params)
            assert problem == http, name
        for name, request, url, params in [
            (
                "ListAuditEntries",
                pb.ListAuditEntriesRequest(board="game-a-1"),
                "/v1/audit",
                {"board": "game-a-1"},
            ),
            (
                "ListDeadLetters",
                pb.ListDeadLettersRequest(board="game-a-1"),
                "/v1/dead-letters",
                {"board": "game-a-1"},
            ),
            (
                "ListDeliveries",
                pb.ListDeliveriesRequest(board_id="game-a-1"),
                "/v1/boards/game-a-1/deliveries",
                {},
            ),
        ]:
            answer = await getattr(r.stub, name)(request, metadata=scoped)
            http = await _http(r, "GET", url, 200, headers=headers, params=params)
            assert as_json(answer) == http, name


async def test_an_ended_editions_results_as_http(settings: Settings, clock: ManualClock) -> None:
    async with rig(settings, clock) as r:
        cup = {"title": "Cup", "starts_at": STARTS, "ends_at": ENDS, "grace_seconds": 60}
        await _http(r, "PUT", "/v1/tournaments/cup", 201, json=cup)
        for player, score in (("a", 10), ("b", 30)):
            await _http(r, "POST", "/v1/tournaments/cup/join", 200, json={"player_id": player})
            item = {"player_id": player, "score": score, "match_id": f"t-{player}"}
            await _http(r, "POST", "/v1/tournaments/cup/scores", 200, json=item)
        clock.advance(2 * 86_400)
        await r.app.state.service.finish_tournaments()
        for request, params in (
            (pb.GetTournamentResultsRequest(tournament_id="cup"), {}),
            (pb.GetTournamentResultsRequest(tournament_id="cup", edition="1"), {"edition": "1"}),
        ):
            answer = await r.stub.GetTournamentResults(request, metadata=METADATA)
            http = await _http(r, "GET", "/v1/tournaments/cup/results", 200, params=params)
            assert as_json(answer) == http
            assert [e.player_id for e in answer.results] == ["b", "a"]
