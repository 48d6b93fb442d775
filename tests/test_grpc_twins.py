"""Every RPC answers what its HTTP twin answers for the same state, on every stack: a real
grpcio client against the gRPC server of a real app (started as ``rankline serve
--grpc-port`` starts it), each answer compared with the HTTP API's for the same request.

A write is compared with the HTTP answer to the same write repeated (its idempotent retry:
the same state, ``duplicate`` aside); a read with the HTTP read."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from helpers_grpc import AUTH, METADATA, Rig, as_json, clean, rig
from rankline import ManualClock, Settings
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.store.dead_letters import DeadLetter

STARTS, ENDS = "2026-11-21T11:00:00.000Z", "2026-11-22T12:00:00.000Z"


def _named(body: Any, names: dict[str, str]) -> Any:
    """``body`` with the mirror's board and tournament ids named as the original's."""
    if isinstance(body, dict):
        return {k: _named(v, names) for k, v in body.items()}
    if isinstance(body, list):
        return [_named(v, names) for v in body]
    return names.get(body, body) if isinstance(body, str) else body


MIRROR = {"mirror": "arena", "elo-mirror": "elo", "cup-mirror": "cup"}


async def _http(r: Rig, method: str, url: str, body: Any = None, **params: Any) -> Any:
    response = await r.http.request(method, url, json=body, params=params or None, headers=AUTH)
    assert response.status_code < 300, response.text
    return clean(response.json())


async def _mirror(r: Rig, method: str, url: str, body: Any = None, **params: Any) -> Any:
    """The HTTP answer of the same write on the mirror (a board or tournament of its own)."""
    return _named(await _http(r, method, url, body, **params), MIRROR)


def _result(message: Any) -> Any:
    body = as_json(message)
    return body.get("result", body) if isinstance(body, dict) else body


async def _writes(r: Rig) -> None:
    """The same writes through gRPC (arena, elo, cup) and through HTTP (their mirrors): the
    same answers."""
    zoned = {"id": "daily", "timezone": "Europe/Paris"}
    snapshots = {"every_seconds": 60, "k": 2}
    spec = {
        "title": "Arena",
        "scopes": ["region"],
        "windows": ["all_time", zoned],
        "snapshots": snapshots,
    }
    board = pb.BoardSpec(title="Arena", scopes=["region"], snapshots=pb.SnapshotSpec(**snapshots))
    board.windows.add().string_value = "all_time"  # a window's name, or its object
    board.windows.add().struct_value.update(zoned)
    put = await r.stub.PutBoard(pb.PutBoardRequest(board_id="arena", body=board), metadata=METADATA)
    assert put.created is True
    assert _result(put) == await _mirror(r, "PUT", "/v1/boards/mirror", spec)
    rated = {"policy": "rating", "rating": {"system": "elo", "provisional_games": 0}}
    message = pb.BoardSpec(policy="rating")
    message.rating.update(rated["rating"])
    put = await r.stub.PutBoard(pb.PutBoardRequest(board_id="elo", body=message), metadata=METADATA)
    assert _result(put) == await _mirror(r, "PUT", "/v1/boards/elo-mirror", rated)

    for i, (player, score) in enumerate([("a", 50), ("b", 2**62), ("c", -7), ("d", 50)]):
        item: dict[str, Any] = {"player_id": player, "score": score, "match_id": f"m{i}"}
        item["scopes"] = {"region": "EU" if i % 2 else "NA"}
        item["metadata"] = {"kills": i}
        answer = await r.stub.SubmitScore(
            pb.SubmitScoreRequest(board_id="arena", body=pb.ScoreIn(**item)), metadata=METADATA
        )
        assert answer.WhichOneof("answer") == "result"
        assert _result(answer) == await _mirror(r, "POST", "/v1/boards/mirror/scores", item)

    items = [{"player_id": f"q{i}", "score": i, "match_id": "b"} for i in range(3)]
    items.append({"player_id": "x", "score": 1, "match_id": "b", "board": "nope"})
    batch = await r.stub.SubmitScores(
        pb.SubmitScoresRequest(
            body=pb.BatchDoc(scores=[pb.BatchScoreIn(**{"board": "arena", **i}) for i in items])
        ),
        metadata=METADATA,
    )
    mirrored = [{"board": "mirror", **i} for i in items]
    assert _result(batch) == await _mirror(r, "POST", "/v1/scores/batch", {"scores": mirrored})
    assert as_json(batch)["result"]["results"][3]["error"]["status"] == 404

    places = [{"player_id": "a", "place": 1}, {"player_id": "b", "place": 2}]
    results = [pb.MatchResultIn(**x) for x in places]
    answer = await r.stub.SubmitMatch(
        pb.SubmitMatchRequest(board_id="elo", body=pb.MatchIn(match_id="g1", results=results)),
        metadata=METADATA,
    )
    match = {"match_id": "g1", "results": places}
    assert _result(answer) == await _mirror(r, "POST", "/v1/boards/elo-mirror/matches", match)
    item = pb.MatchBatchItemIn(board="elo", match_id="g2", results=results)
    answer = await r.stub.SubmitMatches(
        pb.SubmitMatchesRequest(body=pb.MatchBatchDoc(matches=[item])), metadata=METADATA
    )
    matches = {"matches": [{"board": "elo-mirror", "match_id": "g2", "results": places}]}
    assert _result(answer) == await _mirror(r, "POST", "/v1/matches/batch", matches)

    # Players belong to every board: the same write again over HTTP answers the same.
    profile = {"display_name": "Ada", "country": "FR"}
    answer = await r.stub.PutProfile(
        pb.PutProfileRequest(player_id="a", body=pb.ProfileIn(**profile)), metadata=METADATA
    )
    assert answer.created is True
    assert _result(answer) == await _http(r, "PUT", "/v1/players/a", profile)
    friends = {"friends": ["b", "c", "q1"]}
    answer = await r.stub.PutFriendList(
        pb.PutFriendListRequest(player_id="a", body=pb.FriendListIn(**friends)),
        metadata=METADATA,
    )
    assert as_json(answer) == await _http(r, "PUT", "/v1/players/a/friends", friends)
    # A ban is not repeated: q2 through gRPC, q1 through HTTP.
    answer = await r.stub.BanPlayer(pb.BanPlayerRequest(player_id="q2"), metadata=METADATA)
    http = await _http(r, "POST", "/v1/players/q1/ban")
    assert as_json(answer) == _named(http, {"q1": "q2"})
    answer = await r.stub.UnbanPlayer(pb.UnbanPlayerRequest(player_id="q2"), metadata=METADATA)
    http = await _http(r, "DELETE", "/v1/players/q1/ban")
    assert as_json(answer) == _named(http, {"q1": "q2"})

    cup = {"title": "Cup", "starts_at": STARTS, "ends_at": ENDS, "grace_seconds": 60}
    answer = await r.stub.PutTournament(
        pb.PutTournamentRequest(tournament_id="cup", body=pb.TournamentSpec(**cup)),
        metadata=METADATA,
    )
    assert answer.created is True
    assert _result(answer) == await _mirror(r, "PUT", "/v1/tournaments/cup-mirror", cup)
    answer = await r.stub.JoinTournament(
        pb.JoinTournamentRequest(tournament_id="cup", body=pb.JoinIn(player_id="a")),
        metadata=METADATA,
    )
    join = {"player_id": "a"}
    assert as_json(answer) == await _mirror(r, "POST", "/v1/tournaments/cup-mirror/join", join)
    for player, score in (("a", 10), ("b", 30)):
        item = {"player_id": player, "score": score, "match_id": f"t-{player}"}
        answer = await r.stub.SubmitTournamentScore(
            pb.SubmitTournamentScoreRequest(tournament_id="cup", body=pb.TournamentScoreIn(**item)),
            metadata=METADATA,
        )
        url = "/v1/tournaments/cup-mirror/scores"
        assert as_json(answer) == await _mirror(r, "POST", url, item)


async def _moderation(r: Rig) -> None:
    """The same moderation through gRPC (arena) and through HTTP (its mirror): the same
    answers. Neither is repeated: a second removal finds nothing, a second void is 409."""
    removal = pb.RemoveEntryRequest(board_id="arena", player_id="d", reason="cheating")
    answer = await r.stub.RemoveEntry(removal, metadata=METADATA)
    url = "/v1/boards/mirror/players/d"
    assert as_json(answer) == await _mirror(r, "DELETE", url, reason="cheating")
    assert answer.removed > 0
    narrow = {"window": "all_time", "scope": "region:NA"}
    removal = pb.RemoveEntryRequest(board_id="arena", player_id="a", **narrow)
    answer = await r.stub.RemoveEntry(removal, metadata=METADATA)
    assert as_json(answer) == await _mirror(r, "DELETE", "/v1/boards/mirror/players/a", **narrow)
    assert answer.removed == 1
    void = pb.VoidMatchRequest(board_id="arena", match_id="m1", body=pb.VoidIn(reason="bot"))
    answer = await r.stub.VoidMatch(void, metadata=METADATA)
    url = "/v1/boards/mirror/matches/m1/void"
    assert as_json(answer) == await _mirror(r, "POST", url, {"reason": "bot"})
    assert list(answer.players) == ["b"]
    answer = await r.stub.VoidMatch(  # no body, as over HTTP
        pb.VoidMatchRequest(board_id="arena", match_id="b"), metadata=METADATA
    )
    assert as_json(answer) == await _mirror(r, "POST", "/v1/boards/mirror/matches/b/void")
    assert list(answer.players) == ["q0", "q1", "q2"]
    reset = {"window": "daily", "reason": "restart"}
    answer = await r.stub.ResetBoard(
        pb.ResetBoardRequest(board_id="arena", body=pb.ResetIn(**reset)), metadata=METADATA
    )
    assert as_json(answer) == await _mirror(r, "POST", "/v1/boards/mirror/reset", reset)
    assert answer.removed > 0


READS: list[tuple[str, Any, str, str, Any, dict[str, Any]]] = [
    ("ListBoards", pb.ListBoardsRequest(), "GET", "/v1/boards", None, {}),
    ("GetBoard", pb.GetBoardRequest(board_id="arena"), "GET", "/v1/boards/arena", None, {}),
    (
        "GetTop",
        pb.GetTopRequest(board_id="arena", limit=3, offset=1),
        "GET",
        "/v1/boards/arena/top",
        None,
        {"limit": 3, "offset": 1},
    ),
    (
        "GetTop",
        pb.GetTopRequest(board_id="arena", scope="region:EU", window="daily"),
        "GET",
        "/v1/boards/arena/top",
        None,
        {"scope": "region:EU", "window": "daily"},
    ),
    (
        "GetTop",
        pb.GetTopRequest(board_id="arena", limit=2, metadata=True),
        "GET",
        "/v1/boards/arena/top",
        None,
        {"limit": 2, "metadata": "true"},
    ),
    (
        "GetAround",
        pb.GetAroundRequest(board_id="arena", player_id="d", k=1, metadata=True),
        "GET",
        "/v1/boards/arena/players/d/around",
        None,
        {"k": 1, "metadata": "true"},
    ),
    (
        "GetFriends",
        pb.GetFriendsRequest(
            board_id="arena", player_id="a", body=pb.FriendsIn(friends=["b"]), metadata=True
        ),
        "POST",
        "/v1/boards/arena/players/a/friends",
        {"friends": ["b"]},
        {"metadata": "true"},
    ),
    (
        "ListSnapshots",
        pb.ListSnapshotsRequest(board_id="arena"),
        "GET",
        "/v1/boards/arena/snapshots",
        None,
        {},
    ),
    (
        "GetPlayer",
        pb.GetPlayerRequest(board_id="arena", player_id="a"),
        "GET",
        "/v1/boards/arena/players/a",
        None,
        {},
    ),
    (
        "GetAround",
        pb.GetAroundRequest(board_id="arena", player_id="d", k=1),
        "GET",
        "/v1/boards/arena/players/d/around",
        None,
        {"k": 1},
    ),
    (
        "GetRankOf",
        pb.GetRankOfRequest(board_id="arena", score=50),
        "GET",
        "/v1/boards/arena/rank-of",
        None,
        {"score": 50},
    ),
    (
        "GetFriends",
        pb.GetFriendsRequest(
            board_id="arena", player_id="a", body=pb.FriendsIn(friends=["b", "q0"], k=2)
        ),
        "POST",
        "/v1/boards/arena/players/a/friends",
        {"friends": ["b", "q0"], "k": 2},
        {},
    ),
    (
        "GetStoredFriends",
        pb.GetStoredFriendsRequest(board_id="arena", player_id="a"),
        "GET",
        "/v1/boards/arena/players/a/friends",
        None,
        {},
    ),
    (
        "GetRanks",
        pb.GetRanksRequest(board_id="arena", body=pb.RanksIn(player_ids=["c", "a", "x"])),
        "POST",
        "/v1/boards/arena/ranks",
        {"player_ids": ["c", "a", "x"]},
        {},
    ),
    (
        "ListPeriods",
        pb.ListPeriodsRequest(board_id="arena"),
        "GET",
        "/v1/boards/arena/periods",
        None,
        {},
    ),
    ("GetProfile", pb.GetProfileRequest(player_id="a"), "GET", "/v1/players/a", None, {}),
    (
        "GetHistory",
        pb.GetHistoryRequest(player_id="a", limit=2),
        "GET",
        "/v1/players/a/history",
        None,
        {"limit": 2},
    ),
    (
        "GetFriendList",
        pb.GetFriendListRequest(player_id="a"),
        "GET",
        "/v1/players/a/friends",
        None,
        {},
    ),
    (
        "GetRating",
        pb.GetRatingRequest(board_id="elo", player_id="a"),
        "GET",
        "/v1/boards/elo/players/a/rating",
        None,
        {},
    ),
    ("ListTournaments", pb.ListTournamentsRequest(), "GET", "/v1/tournaments", None, {}),
    (
        "ListDeliveries",
        pb.ListDeliveriesRequest(board_id="arena", limit=5),
        "GET",
        "/v1/boards/arena/deliveries",
        None,
        {"limit": 5},
    ),
    (
        "GetTournament",
        pb.GetTournamentRequest(tournament_id="cup"),
        "GET",
        "/v1/tournaments/cup",
        None,
        {},
    ),
    (
        "GetTournamentTop",
        pb.GetTournamentTopRequest(tournament_id="cup"),
        "GET",
        "/v1/tournaments/cup/top",
        None,
        {},
    ),
    (
        "GetTournamentPlayer",
        pb.GetTournamentPlayerRequest(tournament_id="cup", player_id="a"),
        "GET",
        "/v1/tournaments/cup/players/a",
        None,
        {},
    ),
    (
        "GetTournamentAround",
        pb.GetTournamentAroundRequest(tournament_id="cup", player_id="a", k=1),
        "GET",
        "/v1/tournaments/cup/players/a/around",
        None,
        {"k": 1},
    ),
]


async def test_every_rpc_answers_as_its_http_twin(settings: Settings, clock: ManualClock) -> None:
    settings = settings.model_copy(update={"snapshot_check_seconds": 0})  # taken by the test
    async with rig(settings, clock) as r:
        await _writes(r)
        assert await r.app.state.service.snapshots.take_due()
        for name, request, method, url, body, params in READS:
            answer = await getattr(r.stub, name)(request, metadata=METADATA)
            assert as_json(answer) == await _http(r, method, url, body, **params), name
            assert as_json(answer), name  # an answer with content, not an empty message
        # A page after a cursor, and the top as a snapshot kept it.
        first = await r.stub.GetTop(pb.GetTopRequest(board_id="arena", limit=2))
        assert first.next and not first.entries[0].HasField("metadata")  # when asked only
        after = pb.GetTopRequest(board_id="arena", limit=2, cursor=first.next)
        answer = await r.stub.GetTop(after)
        http = await _http(r, "GET", "/v1/boards/arena/top", limit=2, cursor=first.next)
        assert as_json(answer) == http and answer.entries[0].rank == 3
        [snapshot, *_] = (
            await r.stub.ListSnapshots(pb.ListSnapshotsRequest(board_id="arena"))
        ).snapshots
        answer = await r.stub.GetTop(pb.GetTopRequest(board_id="arena", at=snapshot.taken_at))
        http = await _http(r, "GET", "/v1/boards/arena/top", at=snapshot.taken_at)
        assert as_json(answer) == http and answer.taken_at == snapshot.taken_at
        assert len(answer.entries) == 2  # the snapshot's k
        # An edition that has not ended has no results: the same 404 both ways.
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await r.stub.GetTournamentResults(pb.GetTournamentResultsRequest(tournament_id="cup"))
        assert refused.value.code() == grpc.StatusCode.NOT_FOUND
        assert (await r.http.get("/v1/tournaments/cup/results")).status_code == 404
        await _moderation(r)
        # The deletions: gone both ways.
        await r.stub.DeleteTournament(
            pb.DeleteTournamentRequest(tournament_id="cup", reason="over"), metadata=METADATA
        )
        await r.stub.ErasePlayer(pb.ErasePlayerRequest(player_id="c"), metadata=METADATA)
        await r.stub.DeleteBoard(pb.DeleteBoardRequest(board_id="elo"), metadata=METADATA)
        for url in ("/v1/tournaments/cup", "/v1/boards/elo", "/v1/boards/arena/players/c"):
            assert (await r.http.get(url)).status_code == 404, url
        # The audit log of all that (a reason given over gRPC is kept), and the dead letters.
        letter = DeadLetter("arena", "z", "mz", 0, 1, "board frozen", '{"score": 5}', 1)
        await r.app.state.service.dead_letters.add([letter])
        for name, request, url, params in [
            ("ListAuditEntries", pb.ListAuditEntriesRequest(limit=5), "/v1/audit", {"limit": 5}),
            (
                "ListAuditEntries",
                pb.ListAuditEntriesRequest(board="arena", player="d"),
                "/v1/audit",
                {"board": "arena", "player": "d"},
            ),
            (
                "ListDeadLetters",
                pb.ListDeadLettersRequest(board="arena", limit=1),
                "/v1/dead-letters",
                {"board": "arena", "limit": 1},
            ),
        ]:
            answer = await getattr(r.stub, name)(request, metadata=METADATA)
            assert as_json(answer) == await _http(r, "GET", url, **params), name
        page = await r.stub.ListAuditEntries(pb.ListAuditEntriesRequest(limit=5), metadata=METADATA)
        assert [(i.action, i.reason) for i in page.items][:2] == [
            ("board.delete", ""),
            ("player.erase", ""),
        ]
        assert ("tournament.delete", "over") in [(i.action, i.reason) for i in page.items]
        older = await r.stub.ListAuditEntries(
            pb.ListAuditEntriesRequest(limit=5, cursor=page.next), metadata=METADATA
        )
        assert as_json(older) == await _http(r, "GET", "/v1/audit", limit=5, cursor=page.next)
        [removed] = (
            await r.stub.ListAuditEntries(
                pb.ListAuditEntriesRequest(board="arena", player="d"), metadata=METADATA
            )
        ).items
        assert (removed.action, removed.reason) == ("entry.remove", "cheating")
        assert (await r.stub.ListDeadLetters(pb.ListDeadLettersRequest(), metadata=METADATA)).items[
            0
        ].submission["score"] == 5
