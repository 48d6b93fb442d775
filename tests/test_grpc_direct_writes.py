"""The board, player and moderation write RPCs call the service directly and answer what
their HTTP twins answer: the same definitions, profiles, bans, removals, resets and voids
(``created`` for HTTP's 201, an empty message for its 204), audited alike (the same actor
and reason); and the same refusals (the same problem, at the same place, as the status code
of the HTTP status): a bad id, an unknown board, player or match, a reason too long (in the
query or the body), metadata over the cap, an unknown body field, no credential, a player
token, a key limited to other boards."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf import empty_pb2
from pydantic import SecretStr

from helpers_grpc import AUTH, METADATA, Rig, as_json, clean, refusal, renamed, rig
from helpers_idp import SECRET, claims, mint_hs256
from rankline import ManualClock, Settings
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.grpc.service import DIRECT

pytestmark = pytest.mark.edge

INVALID, MISSING = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND
DENIED = grpc.StatusCode.PERMISSION_DENIED
WRITES = (
    "PutBoard",
    "DeleteBoard",
    "RemoveEntry",
    "ResetBoard",
    "VoidMatch",
    "PutProfile",
    "ErasePlayer",
    "PutFriendList",
    "BanPlayer",
    "UnbanPlayer",
)
LONG = "x" * 1001


def _with(settings: Settings, **changes: Any) -> Settings:
    return settings.model_copy(update=changes)


async def _http(
    r: Rig, method: str, url: str, status: int, headers: dict[str, str] = AUTH, **kwargs: Any
) -> Any:
    response = await r.http.request(method, url, headers=headers, **kwargs)
    assert response.status_code == status, response.text
    return clean(response.json()) if response.content else None


async def _scores(r: Rig, board: str) -> None:
    for n, score in enumerate([50, 40, 20], 1):
        body = {"player_id": f"p{n}", "score": score, "match_id": f"m{n}"}
        body["scopes"] = {"region": "EU" if n % 2 else "NA"}
        await _http(r, "POST", f"/v1/boards/{board}/scores", 200, json=body)


def test_the_board_player_and_moderation_writes_are_direct() -> None:
    assert set(WRITES) <= set(DIRECT)


async def test_the_writes_answer_as_http(settings: Settings, clock: ManualClock) -> None:
    """Each write over gRPC, and the same write over HTTP on a twin (a board or player of
    its own): the same answer, and the same audit entries."""
    async with rig(settings, clock) as r:
        spec = {"title": "Arena", "scopes": ["region"], "windows": ["all_time", "daily"]}
        board = pb.BoardSpec(title="Arena", scopes=["region"])
        for window in ("all_time", "daily"):
            board.windows.add().string_value = window
        put = pb.PutBoardRequest(board_id="arena", body=board, reason="launch")
        answer = await r.stub.PutBoard(put, metadata=METADATA)
        http = await _http(r, "PUT", "/v1/boards/twin", 201, json=spec, params={"reason": "launch"})
        assert answer.created is True
        assert as_json(answer.result) == renamed(http, {"twin": "arena"})
        answer = await r.stub.PutBoard(put, metadata=METADATA)
        http = await _http(r, "PUT", "/v1/boards/twin", 200, json=spec, params={"reason": "launch"})
        assert answer.created is False
        assert as_json(answer.result) == renamed(http, {"twin": "arena"})
        for name in ("arena", "twin"):
            await _scores(r, name)
        boards = {"twin": "arena"}

        remove = pb.RemoveEntryRequest(board_id="arena", player_id="p3", reason="cheat")
        answer = await r.stub.RemoveEntry(remove, metadata=METADATA)
        http = await _http(r, "DELETE", "/v1/boards/twin/players/p3?reason=cheat", 200)
        assert as_json(answer) == renamed(http, boards) and answer.removed > 0
        void = pb.VoidMatchRequest(board_id="arena", match_id="m2", body=pb.VoidIn(reason="bot"))
        answer = await r.stub.VoidMatch(void, metadata=METADATA)
        body = {"reason": "bot"}
        http = await _http(r, "POST", "/v1/boards/twin/matches/m2/void", 200, json=body)
        assert as_json(answer) == renamed(http, boards)
        reset = pb.ResetBoardRequest(
            board_id="arena", body=pb.ResetIn(window="daily", scope="region:EU", reason="event")
        )
        answer = await r.stub.ResetBoard(reset, metadata=METADATA)
        body = {"window": "daily", "scope": "region:EU", "reason": "event"}
        http = await _http(r, "POST", "/v1/boards/twin/reset", 200, json=body)
        assert as_json(answer) == renamed(http, boards) and answer.removed > 0
        # a reset with no body restarts the board's first window on every scope
        answer = await r.stub.ResetBoard(pb.ResetBoardRequest(board_id="arena"), metadata=METADATA)
        http = await _http(r, "POST", "/v1/boards/twin/reset", 200, json={})
        assert as_json(answer) == renamed(http, boards)

        players = {"b": "a"}
        profile = pb.ProfileIn(display_name="Ada", country="FR")
        profile.metadata.update({"level": 3})
        given = {"display_name": "Ada", "country": "FR", "metadata": {"level": 3}}
        answer = await r.stub.PutProfile(
            pb.PutProfileRequest(player_id="a", body=profile), metadata=METADATA
        )
        http = await _http(r, "PUT", "/v1/players/b", 201, json=given)
        assert answer.created is True and as_json(answer.result) == renamed(http, players)
        answer = await r.stub.PutProfile(
            pb.PutProfileRequest(player_id="a", body=profile), metadata=METADATA
        )
        http = await _http(r, "PUT", "/v1/players/b", 200, json=given)
        assert answer.created is False and as_json(answer.result) == renamed(http, players)
        friends = pb.FriendListIn(friends=["p2", "p1", "a", "p2"])
        answer = await r.stub.PutFriendList(
            pb.PutFriendListRequest(player_id="a", body=friends), metadata=METADATA
        )
        listed = {"friends": ["p2", "p1", "b", "p2"]}
        http = await _http(r, "PUT", "/v1/players/b/friends", 200, json=listed)
        assert as_json(answer) == renamed(http, players) and answer.friends == ["p1", "p2"]
        for player in ("q1", "q2"):
            await _http(r, "PUT", f"/v1/players/{player}", 201, json={})
        names = {"q2": "q1"}
        ban = pb.BanPlayerRequest(player_id="q1", reason="abuse")
        answer = await r.stub.BanPlayer(ban, metadata=METADATA)
        http = await _http(r, "POST", "/v1/players/q2/ban?reason=abuse", 200)
        assert as_json(answer) == renamed(http, names) and answer.banned
        answer = await r.stub.UnbanPlayer(pb.UnbanPlayerRequest(player_id="q1"), metadata=METADATA)
        http = await _http(r, "DELETE", "/v1/players/q2/ban", 200)
        assert as_json(answer) == renamed(http, names) and not answer.banned
        # audited alike: the same actor and reason for each action, on both sides
        await _audited_alike(r, boards | players | names)

        erase = pb.ErasePlayerRequest(player_id="q1", reason="asked to")
        answer = await r.stub.ErasePlayer(erase, metadata=METADATA)
        assert answer == empty_pb2.Empty()
        http = await r.http.delete("/v1/players/q2?reason=asked%20to", headers=AUTH)
        assert (http.status_code, http.content) == (204, b"")
        await _http(r, "GET", "/v1/players/q1", 404)
        answer = await r.stub.DeleteBoard(
            pb.DeleteBoardRequest(board_id="arena", reason="gone"), metadata=METADATA
        )
        assert answer == empty_pb2.Empty()
        http = await r.http.delete("/v1/boards/twin?reason=gone", headers=AUTH)
        assert (http.status_code, http.content) == (204, b"")
        await _http(r, "GET", "/v1/boards/arena", 404)
        log = await _http(r, "GET", "/v1/audit", 200, params={"limit": 1000})
        erased = [e for e in log["items"] if e["action"] in ("player.erase", "board.delete")]
        assert sorted((e["action"], e.get("reason")) for e in erased) == [
            ("board.delete", "gone"),
            ("board.delete", "gone"),
            ("player.erase", "asked to"),
            ("player.erase", "asked to"),
        ]
        assert len({e["actor"] for e in erased}) == 1


async def _audited_alike(r: Rig, twins: dict[str, str]) -> None:
    """Each action made over gRPC is audited as its twin made over HTTP: the same actor (the
    key's fingerprint, never the key), reason and detail (the twin's ids renamed)."""
    log = await _http(r, "GET", "/v1/audit", 200, params={"limit": 1000})
    grpc_side: list[Any] = []
    http_side: list[Any] = []
    for entry in log["items"]:
        named = entry.get("board") or entry.get("player_id")
        side = http_side if named in twins else grpc_side
        side.append({k: v for k, v in entry.items() if k not in ("id", "at")})
    assert len(grpc_side) == len(http_side) >= 8
    assert grpc_side == renamed(http_side, twins)
    assert all(
        e["actor"].startswith("key:") and "test-server-key" not in e["actor"] for e in grpc_side
    )


Refusal = tuple[str, Any, str, str, dict[str, Any], Any, grpc.StatusCode | None, int | None]

REFUSALS: list[Refusal] = [
    (
        "PutBoard",
        pb.PutBoardRequest(board_id="Bad Id"),
        "PUT",
        "/v1/boards/Bad%20Id",
        {},
        {},
        INVALID,
        422,
    ),
    (
        "PutBoard",
        pb.PutBoardRequest(board_id="arena", reason=LONG),
        "PUT",
        "/v1/boards/arena",
        {"reason": LONG},
        {},
        INVALID,
        422,
    ),
    (
        "PutBoard",
        pb.PutBoardRequest(board_id="arena", body=pb.BoardSpec(policy="sometimes")),
        "PUT",
        "/v1/boards/arena",
        {},
        {"policy": "sometimes"},
        INVALID,
        422,
    ),
    (
        "DeleteBoard",
        pb.DeleteBoardRequest(board_id="nope"),
        "DELETE",
        "/v1/boards/nope",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "DeleteBoard",
        pb.DeleteBoardRequest(board_id="arena", reason=LONG),
        "DELETE",
        "/v1/boards/arena",
        {"reason": LONG},
        None,
        INVALID,
        422,
    ),
    (
        "RemoveEntry",
        pb.RemoveEntryRequest(board_id="nope", player_id="p1"),
        "DELETE",
        "/v1/boards/nope/players/p1",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "RemoveEntry",
        pb.RemoveEntryRequest(board_id="arena", player_id="no spaces"),
        "DELETE",
        "/v1/boards/arena/players/no%20spaces",
        {},
        None,
        INVALID,
        422,
    ),
    (
        "RemoveEntry",
        pb.RemoveEntryRequest(board_id="arena", player_id="p1", window="hourly"),
        "DELETE",
        "/v1/boards/arena/players/p1",
        {"window": "hourly"},
        None,
        None,
        None,
    ),
    (
        "RemoveEntry",
        pb.RemoveEntryRequest(board_id="arena", player_id="p1", reason=LONG),
        "DELETE",
        "/v1/boards/arena/players/p1",
        {"reason": LONG},
        None,
        INVALID,
        422,
    ),
    (
        "RemoveEntry",
        pb.RemoveEntryRequest(board_id="arena", player_id="ghost"),
        "DELETE",
        "/v1/boards/arena/players/ghost",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "ResetBoard",
        pb.ResetBoardRequest(board_id="nope"),
        "POST",
        "/v1/boards/nope/reset",
        {},
        {},
        MISSING,
        404,
    ),
    (
        "ResetBoard",
        pb.ResetBoardRequest(board_id="Bad Id"),
        "POST",
        "/v1/boards/Bad%20Id/reset",
        {},
        {},
        INVALID,
        422,
    ),
    (
        "ResetBoard",
        pb.ResetBoardRequest(board_id="arena", body=pb.ResetIn(reason=LONG)),
        "POST",
        "/v1/boards/arena/reset",
        {},
        {"reason": LONG},
        INVALID,
        422,
    ),
    (
        "ResetBoard",
        pb.ResetBoardRequest(board_id="arena", body=pb.ResetIn(window="hourly")),
        "POST",
        "/v1/boards/arena/reset",
        {},
        {"window": "hourly"},
        INVALID,
        422,
    ),
    (
        "ResetBoard",
        pb.ResetBoardRequest(board_id="arena", body=pb.ResetIn(scope="mode:duo")),
        "POST",
        "/v1/boards/arena/reset",
        {},
        {"scope": "mode:duo"},
        None,
        None,
    ),
    (
        "VoidMatch",
        pb.VoidMatchRequest(board_id="arena", match_id="m9"),
        "POST",
        "/v1/boards/arena/matches/m9/void",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "VoidMatch",
        pb.VoidMatchRequest(board_id="nope", match_id="m1"),
        "POST",
        "/v1/boards/nope/matches/m1/void",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "VoidMatch",
        pb.VoidMatchRequest(board_id="arena", match_id="bad match", body=pb.VoidIn(reason=LONG)),
        "POST",
        "/v1/boards/arena/matches/bad%20match/void",
        {},
        {"reason": LONG},
        INVALID,
        422,
    ),
    (
        "VoidMatch",
        pb.VoidMatchRequest(board_id="arena", match_id="m1", body=pb.VoidIn(reason=LONG)),
        "POST",
        "/v1/boards/arena/matches/m1/void",
        {},
        {"reason": LONG},
        INVALID,
        422,
    ),
    (
        "PutProfile",
        pb.PutProfileRequest(player_id="no spaces", body=pb.ProfileIn(display_name="A")),
        "PUT",
        "/v1/players/no%20spaces",
        {},
        {"display_name": "A"},
        INVALID,
        422,
    ),
    (
        "PutProfile",
        pb.PutProfileRequest(player_id="a", body=pb.ProfileIn(country="X" * 9)),
        "PUT",
        "/v1/players/a",
        {},
        {"country": "X" * 9},
        INVALID,
        422,
    ),
    (
        "PutProfile",
        pb.PutProfileRequest(player_id="a", body=pb.ProfileIn(display_name="a\x00b")),
        "PUT",
        "/v1/players/a",
        {},
        {"display_name": "a\x00b"},
        INVALID,
        422,
    ),
    (
        "ErasePlayer",
        pb.ErasePlayerRequest(player_id="ghost"),
        "DELETE",
        "/v1/players/ghost",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "ErasePlayer",
        pb.ErasePlayerRequest(player_id="p1", reason=LONG),
        "DELETE",
        "/v1/players/p1",
        {"reason": LONG},
        None,
        INVALID,
        422,
    ),
    (
        "PutFriendList",
        pb.PutFriendListRequest(player_id="a"),
        "PUT",
        "/v1/players/a/friends",
        {},
        {},
        INVALID,
        422,
    ),
    (
        "PutFriendList",
        pb.PutFriendListRequest(player_id="a", body=pb.FriendListIn(friends=["p1", "no spaces"])),
        "PUT",
        "/v1/players/a/friends",
        {},
        {"friends": ["p1", "no spaces"]},
        INVALID,
        422,
    ),
    (
        "BanPlayer",
        pb.BanPlayerRequest(player_id="no spaces"),
        "POST",
        "/v1/players/no%20spaces/ban",
        {},
        None,
        INVALID,
        422,
    ),
    (
        "BanPlayer",
        pb.BanPlayerRequest(player_id="p1", reason=LONG),
        "POST",
        "/v1/players/p1/ban",
        {"reason": LONG},
        None,
        INVALID,
        422,
    ),
    (
        "UnbanPlayer",
        pb.UnbanPlayerRequest(player_id="p1"),
        "DELETE",
        "/v1/players/p1/ban",
        {},
        None,
        MISSING,
        404,
    ),
    (
        "UnbanPlayer",
        pb.UnbanPlayerRequest(player_id="p1", reason=LONG),
        "DELETE",
        "/v1/players/p1/ban",
        {"reason": LONG},
        None,
        INVALID,
        422,
    ),
]
"""Each refused write: its RPC and message, its HTTP request (method, path, query, body),
and the code and status it is refused with (None, None: whichever HTTP answers, a 4xx)."""

_CODES = {
    401: grpc.StatusCode.UNAUTHENTICATED,
    403: DENIED,
    404: MISSING,
    409: grpc.StatusCode.FAILED_PRECONDITION,
    422: INVALID,
}


async def _refused_alike(
    r: Rig,
    refusals: list[Refusal],
    metadata: tuple[tuple[str, str], ...] = METADATA,
    headers: dict[str, str] = AUTH,
) -> list[dict[str, Any]]:
    problems = []
    for name, request, method, url, params, body, code, status in refusals:
        response = await r.http.request(
            method, url, params=params or None, json=body, headers=headers
        )
        if status is None:
            status = response.status_code
            assert 400 <= status < 500, (name, response.text)
        assert response.status_code == status, (name, response.text)
        expected = code or _CODES[status]
        problem = await refusal(getattr(r.stub, name)(request, metadata=metadata), expected)
        assert problem == clean(response.json()), (name, problem)
        problems.append(problem)
    return problems


async def test_the_writes_refuse_as_http(settings: Settings, clock: ManualClock) -> None:
    async with rig(_with(settings, max_metadata_bytes=100), clock) as r:
        await _http(r, "PUT", "/v1/boards/arena", 201, json={"scopes": ["region"]})
        await _scores(r, "arena")
        problems = await _refused_alike(r, REFUSALS)
        locs = [p.get("errors", [{}])[0].get("loc") for p in problems]
        assert ["query", "reason"] in locs and ["body", "reason"] in locs
        assert ["path", "match id"] in locs
        # metadata over the cap: refused at its place, before the text is checked
        big = {"note": "x" * 100}
        profile = pb.ProfileIn(display_name="a\x00b")
        profile.metadata.update(big)
        problem = await refusal(
            r.stub.PutProfile(pb.PutProfileRequest(player_id="a", body=profile), metadata=METADATA),
            INVALID,
        )
        body = {"display_name": "a\x00b", "metadata": big}
        assert problem == await _http(r, "PUT", "/v1/players/a", 422, json=body)
        assert problem["errors"][0]["loc"] == ["body", "metadata"]
        # nothing was changed by a refusal
        await _http(r, "GET", "/v1/players/a", 404)
        top = await _http(r, "GET", "/v1/boards/arena/top", 200)
        assert [e["player_id"] for e in top["entries"]] == ["p1", "p2", "p3"]
        # a void twice: the second is refused alike (409)
        void = pb.VoidMatchRequest(board_id="arena", match_id="m1")
        await r.stub.VoidMatch(void, metadata=METADATA)
        problem = await refusal(
            r.stub.VoidMatch(void, metadata=METADATA), grpc.StatusCode.FAILED_PRECONDITION
        )
        assert problem == await _http(r, "POST", "/v1/boards/arena/matches/m1/void", 409)


_ADMISSIONS: list[tuple[str, Any, str, str, Any]] = [
    ("PutBoard", pb.PutBoardRequest(board_id="arena"), "PUT", "/v1/boards/arena", {}),
    ("DeleteBoard", pb.DeleteBoardRequest(board_id="arena"), "DELETE", "/v1/boards/arena", None),
    (
        "RemoveEntry",
        pb.RemoveEntryRequest(board_id="arena", player_id="p1"),
        "DELETE",
        "/v1/boards/arena/players/p1",
        None,
    ),
    ("ResetBoard", pb.ResetBoardRequest(board_id="arena"), "POST", "/v1/boards/arena/reset", {}),
    (
        "VoidMatch",
        pb.VoidMatchRequest(board_id="arena", match_id="m1"),
        "POST",
        "/v1/boards/arena/matches/m1/void",
        None,
    ),
    ("PutProfile", pb.PutProfileRequest(player_id="p1"), "PUT", "/v1/players/p1", {}),
    ("ErasePlayer", pb.ErasePlayerRequest(player_id="p1"), "DELETE", "/v1/players/p1", None),
    (
        "PutFriendList",
        pb.PutFriendListRequest(player_id="p1", body=pb.FriendListIn(friends=["p2"])),
        "PUT",
        "/v1/players/p1/friends",
        {"friends": ["p2"]},
    ),
    ("BanPlayer", pb.BanPlayerRequest(player_id="p1"), "POST", "/v1/players/p1/ban", None),
    ("UnbanPlayer", pb.UnbanPlayerRequest(player_id="p1"), "DELETE", "/v1/players/p1/ban", None),
]
"""Each write as an RPC and as its HTTP request (method, path, body), for the admission."""


async def test_the_writes_admit_as_http(settings: Settings, clock: ManualClock) -> None:
    """No credential: 401; a read key or a player token: 403 (a player may not call a
    write that is not for players); a key limited to boards: 403 for another board's
    writes and for every player's (players belong to every board)."""
    keyed = _with(
        settings,
        server_keys="test-server-key,scoped:game-*",
        read_keys="a-read-key",
        player_jwt_secret=SecretStr(SECRET),
        rate_limit_player_writes="1000/second",
    )
    async with rig(keyed, clock) as r:
        await _http(r, "PUT", "/v1/boards/arena", 201, json={"scopes": ["region"]})
        await _scores(r, "arena")
        token = mint_hs256(claims("p1"))
        callers: list[tuple[str | None, grpc.StatusCode, int]] = [
            (None, grpc.StatusCode.UNAUTHENTICATED, 401)
        ]
        callers += [(c, DENIED, 403) for c in ("a-read-key", token, "scoped")]
        for credential, code, status in callers:
            metadata = () if credential is None else (("authorization", f"Bearer {credential}"),)
            headers = {} if credential is None else {"Authorization": f"Bearer {credential}"}
            refusals: list[Refusal] = [
                (name, request, method, url, {}, body, code, status)
                for name, request, method, url, body in _ADMISSIONS
            ]
            problems = await _refused_alike(r, refusals, metadata, headers)
            if credential == token:
                assert all(p["type"].endswith("/not-for-players") for p in problems)
        # nothing was changed by a refusal
        top = await _http(r, "GET", "/v1/boards/arena/top", 200)
        assert [e["player_id"] for e in top["entries"]] == ["p1", "p2", "p3"]
        # a key limited to boards writes its own boards, audited under its fingerprint
        scoped = (("authorization", "Bearer scoped"),)
        put = await r.stub.PutBoard(pb.PutBoardRequest(board_id="game-1"), metadata=scoped)
        assert put.created
        await r.stub.DeleteBoard(pb.DeleteBoardRequest(board_id="game-1"), metadata=scoped)
        log = await _http(r, "GET", "/v1/audit", 200, params={"board": "game-1"})
        actors = {e["actor"] for e in log["items"]}
        arena = await _http(r, "GET", "/v1/audit", 200, params={"board": "arena"})
        assert len(actors) == 1 and actors.isdisjoint({e["actor"] for e in arena["items"]})
