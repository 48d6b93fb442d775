"""The fixed script of ``rankline bench answers``: the calls it makes, in order, each an HTTP
request (method, concrete path, query, body, headers, who calls) that the gRPC side sends as
the RPC twinning its operation where one does.

The script is data made the same way every time: it sets up boards, players, matches and a
tournament, reads them every way the API reads, changes them (bans, resets, voids, erasure),
and asks for what is refused (bad ids, out-of-range and unknown query parameters, missing or
wrong credentials, conflicts, oversized and mistyped bodies, a player over their read rate).
No call gives a time that is not fixed, so every answer is the same run after run but for the
server's own times, which the recording masks (``answers.mask``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

Auth = str
"""Who calls: ``server`` (the server key), ``read`` (the read key), ``none``, ``wrong`` (a
key no server knows), ``basic`` (not a bearer credential) or ``player:<id>`` (a player
token for that player)."""

PLAYER_READS = 5
"""Reads a player may make with a token per hour (``RANKLINE_RATE_LIMIT_PLAYER_READS``): the
script's rate-limited player makes two more."""
LIMITED = "limited"


@dataclass(frozen=True)
class Call:
    """One request of the script."""

    label: str
    method: str
    path: str
    query: dict[str, str] = field(default_factory=dict)
    body: Any = None
    raw: bytes | None = None
    """A body sent as these bytes (with ``headers``' content type) instead of ``body``."""
    headers: dict[str, str] = field(default_factory=dict)
    auth: Auth = "server"


ARENA = "arena"  # best, desc: all_time, daily; a region scope; snapshots off
SUMS = "xp"  # sum policy, asc order: none
DUEL = "duel"  # subscore
ELO = "chess"  # rating board (elo)
CUP = "cup"  # the tournament
LATER = "later"  # the asynchronous submission's, never read: when it is applied is not fixed
PLAYERS = [f"p{i:02d}" for i in range(24)]
REGIONS = ("EU", "NA", "AS")
AT = "2026-01-0{day}T12:00:00Z"
"""Fixed submission times (a day of January 2026): no answer depends on the hour it runs."""

BAD_IDS = ("UPPER", "has space", "x" * 65, "-lead", "é")
BAD_PLAYERS = ("has space", "y" * 65, "semi;colon")
QUERY_VALUES = {
    "limit": ("0", "1", "1000", "1001", "-1", "abc", ""),
    "offset": ("-1", "0", "3", "abc"),
    "k": ("-1", "0", "100", "101", "x"),
    "score": ("", "abc", "9223372036854775807", "9223372036854775808", "-9223372036854775809"),
}


def script() -> list[Call]:
    """Every call, in the order made, each with a label of its own (a label met again is
    numbered: ``#2``, ``#3``...)."""
    calls: list[Call] = []
    seen: dict[str, int] = {}
    for part in (_setup, _writes, _reads, _refusals, _tournament, _changes, _after):
        for call in part():
            seen[call.label] = seen.get(call.label, 0) + 1
            if seen[call.label] > 1:
                call = replace(call, label=f"{call.label} #{seen[call.label]}")
            calls.append(call)
    return calls


def _board(board: str, spec: dict[str, Any], label: str = "put board") -> Call:
    return Call(f"{label} {board}", "PUT", f"/v1/boards/{board}", body=spec)


def _score(board: str, player: str, score: int, match: str, **more: Any) -> Call:
    body = {"player_id": player, "score": score, "match_id": match} | more
    return Call(f"score {board} {player} {match}", "POST", f"/v1/boards/{board}/scores", body=body)


def _setup() -> Iterator[Call]:
    yield Call("list boards (none)", "GET", "/v1/boards")
    arena = {
        "title": "Arena",
        "order": "desc",
        "policy": "best",
        "windows": ["all_time", "daily"],
        "scopes": ["region"],
        "tiers": [{"name": "gold", "top_rank": 3}],
    }
    yield _board(ARENA, arena)
    yield _board(ARENA, arena | {"title": "Arena again"}, "update")
    yield _board(LATER, {"title": "Asynchronous"})
    yield _board(SUMS, {"title": "XP", "order": "asc", "policy": "sum"})
    yield _board(DUEL, {"title": "Duel", "subscore": "desc"})
    yield _board(ELO, {"title": "Chess", "policy": "rating", "rating": {"system": "elo"}})
    yield _board("gone", {"title": "To delete"})
    yield Call("delete board gone", "DELETE", "/v1/boards/gone", query={"reason": "cleanup"})
    yield Call("get deleted board", "GET", "/v1/boards/gone")
    yield Call("list boards", "GET", "/v1/boards")
    for board in (ARENA, SUMS, DUEL, ELO):
        yield Call(f"get board {board}", "GET", f"/v1/boards/{board}")
    yield _board("bad-spec", {"title": "x", "order": "sideways"}, "invalid spec")
    yield _board("bad-spec", {"title": "x", "unknown": 1}, "unknown field")
    yield _board("bad-spec", {"title": "x", "policy": "rating"}, "rating without system")


def _writes() -> Iterator[Call]:
    for i, player in enumerate(PLAYERS):
        region = REGIONS[i % len(REGIONS)]
        yield _score(
            ARENA,
            player,
            1000 + (i * 37) % 500,
            "m1",
            at=AT.format(day=1),
            scopes={"region": region},
        )
        yield _score(SUMS, player, i % 7, "m1", at=AT.format(day=1))
    for i, player in enumerate(PLAYERS[:8]):
        yield _score(ARENA, player, 1200 + i, "m2", at=AT.format(day=2), scopes={"region": "EU"})
        yield _score(DUEL, player, 50 - i % 3, "m1", subscore=i, at=AT.format(day=1))
    yield _score(ARENA, PLAYERS[0], 1200, "m2", at=AT.format(day=2), scopes={"region": "EU"})
    yield _score(ARENA, PLAYERS[0], 999, "m2", at=AT.format(day=2), scopes={"region": "EU"})
    yield _score(ARENA, PLAYERS[1], 10, "m3")  # at: now, in today's daily period
    yield _score(DUEL, PLAYERS[0], 5, "no-subscore", at=AT.format(day=1))
    yield _score(ARENA, PLAYERS[0], 5, "future", at="2099-01-01T00:00:00Z")
    yield _score(ARENA, PLAYERS[0], 5, "bad-at", at="yesterday")
    yield _score(ARENA, "bad player", 5, "m9")
    yield _score(ARENA, PLAYERS[0], 2**63, "huge")
    yield _score("nowhere", PLAYERS[0], 5, "m1")
    yield Call(
        "score async",
        "POST",
        f"/v1/boards/{LATER}/scores",
        body={"player_id": PLAYERS[2], "score": 5, "match_id": "m-async", "at": AT.format(day=3)},
        headers={"Prefer": "respond-async"},
    )
    items = [
        {"board": ARENA, "player_id": p, "score": 700 + j, "match_id": "b1", "at": AT.format(day=3)}
        for j, p in enumerate(PLAYERS[:6])
    ]
    items += [
        {"board": "nowhere", "player_id": "p00", "score": 1, "match_id": "b1"},
        {"board": ARENA, "player_id": "bad id", "score": 1, "match_id": "b1"},
        {"board": ARENA, "player_id": "p00", "score": "ten", "match_id": "b2"},
        {
            "board": ARENA,
            "player_id": "p01",
            "score": 701,
            "match_id": "b1",
            "at": AT.format(day=3),
        },
        {"board": ARENA, "player_id": "p01", "score": 9, "match_id": "b1", "at": AT.format(day=3)},
        {"board": DUEL, "player_id": "p03", "score": 9, "match_id": "b1"},
    ]
    yield Call("batch with invalid items", "POST", "/v1/scores/batch", body={"scores": items})
    yield Call("batch again", "POST", "/v1/scores/batch", body={"scores": items})
    yield Call("batch empty", "POST", "/v1/scores/batch", body={"scores": []})
    yield Call("batch not a list", "POST", "/v1/scores/batch", body={"scores": 3})
    for n, places in enumerate(([1, 2], [2, 1], [1, 2, 3], [1, 1]), start=1):
        results = [{"player_id": PLAYERS[j], "place": p} for j, p in enumerate(places)]
        yield Call(
            f"match c{n}",
            "POST",
            f"/v1/boards/{ELO}/matches",
            body={"match_id": f"c{n}", "at": AT.format(day=n), "results": results},
        )
    one = [{"player_id": PLAYERS[0], "place": 1}]
    yield Call(
        "match of one",
        "POST",
        f"/v1/boards/{ELO}/matches",
        body={"match_id": "c9", "results": one},
    )
    yield Call(
        "match on a score board",
        "POST",
        f"/v1/boards/{ARENA}/matches",
        body={"match_id": "c1", "results": [*one, {"player_id": "p01", "place": 2}]},
    )
    matches = [
        {
            "board": ELO,
            "match_id": f"d{n}",
            "at": AT.format(day=5),
            "results": [
                {"player_id": PLAYERS[n], "place": 1},
                {"player_id": PLAYERS[n + 1], "place": 2},
            ],
        }
        for n in range(4)
    ]
    matches.append({"board": ELO, "match_id": "d9", "results": one})
    yield Call("match batch", "POST", "/v1/matches/batch", body={"matches": matches})
    for player in PLAYERS[:4]:
        yield Call(
            f"profile {player}",
            "PUT",
            f"/v1/players/{player}",
            body={"display_name": f"Player {player}", "country": "NO", "metadata": {"lvl": 3}},
        )
    yield Call(
        "profile unknown field", "PUT", "/v1/players/p05", body={"display_name": "x", "nick": "y"}
    )
    yield Call(
        "friend list",
        "PUT",
        f"/v1/players/{PLAYERS[0]}/friends",
        body={"friends": PLAYERS[1:6]},
    )
    yield Call("friend list bad id", "PUT", "/v1/players/p01/friends", body={"friends": ["bad id"]})


_READ_SHAPES: tuple[dict[str, str], ...] = (
    {},
    {"window": "daily"},
    {"window": "daily", "period": "2026-01-02"},
    {"window": "daily", "period": "2026-01-01"},
    {"scope": "region:EU"},
    {"scope": "region:NA"},
    {"scope": "country:NO"},
    {"window": "weekly"},
    {"period": "nonsense"},
    {"metadata": "true"},
)


def _reads() -> Iterator[Call]:
    board_reads = f"/v1/boards/{ARENA}"
    for shape in _READ_SHAPES:
        tag = ",".join(f"{k}={v}" for k, v in shape.items()) or "plain"
        yield Call(f"top {tag}", "GET", f"{board_reads}/top", query=shape)
        yield Call(f"player {tag}", "GET", f"{board_reads}/players/p00", query=shape)
        yield Call(f"around {tag}", "GET", f"{board_reads}/players/p03/around", query=shape)
        yield Call(
            f"rank-of {tag}", "GET", f"{board_reads}/rank-of", query=shape | {"score": "1100"}
        )
        yield Call(
            f"friends {tag}",
            "POST",
            f"{board_reads}/players/p00/friends",
            query=shape,
            body={"friends": ["p01", "p02", "p07"]},
        )
        yield Call(
            f"ranks {tag}",
            "POST",
            f"{board_reads}/ranks",
            query=shape,
            body={"player_ids": ["p00", "p05", "p23", "nobody"]},
        )
    for limit, offset in (("1", "0"), ("5", "2"), ("3", "20"), ("1000", "0"), ("2", "100")):
        yield Call(
            f"top page {limit}+{offset}",
            "GET",
            f"{board_reads}/top",
            query={"limit": limit, "offset": offset},
        )
    yield Call("top tier", "GET", f"{board_reads}/top", query={"tier": "gold"})
    yield Call("top unknown tier", "GET", f"{board_reads}/top", query={"tier": "tin"})
    yield Call("top at (no snapshots)", "GET", f"{board_reads}/top", query={"at": AT.format(day=1)})
    for k in ("0", "1", "3", "100"):
        yield Call(f"around k={k}", "GET", f"{board_reads}/players/p10/around", query={"k": k})
    for board in (SUMS, DUEL, ELO):
        yield Call(f"top {board}", "GET", f"/v1/boards/{board}/top")
        yield Call(f"player {board}", "GET", f"/v1/boards/{board}/players/p01")
        yield Call(f"around {board}", "GET", f"/v1/boards/{board}/players/p01/around")
    yield Call(
        "rank-of duel", "GET", f"/v1/boards/{DUEL}/rank-of", query={"score": "49", "subscore": "3"}
    )
    yield Call(
        "rank-of duel no subscore", "GET", f"/v1/boards/{DUEL}/rank-of", query={"score": "49"}
    )
    yield Call(
        "rank-of subscore on plain",
        "GET",
        f"{board_reads}/rank-of",
        query={"score": "1", "subscore": "1"},
    )
    yield Call("player not ranked", "GET", f"{board_reads}/players/nobody")
    yield Call("around not ranked", "GET", f"{board_reads}/players/nobody/around")
    yield Call(
        "friends k",
        "POST",
        f"{board_reads}/players/p00/friends",
        body={"friends": PLAYERS[1:9], "k": 2},
    )
    yield Call(
        "friends bad body", "POST", f"{board_reads}/players/p00/friends", body={"friend": []}
    )
    yield Call("ranks too many", "POST", f"{board_reads}/ranks", body={"player_ids": ["p"] * 1001})
    yield Call("stored friends", "GET", f"{board_reads}/players/p00/friends")
    yield Call("stored friends k", "GET", f"{board_reads}/players/p00/friends", query={"k": "1"})
    yield Call("stored friends none", "GET", f"{board_reads}/players/p09/friends")
    for board in (ARENA, SUMS):
        yield Call(f"periods {board}", "GET", f"/v1/boards/{board}/periods")
    yield Call("periods daily", "GET", f"{board_reads}/periods", query={"window": "daily"})
    yield Call("snapshots", "GET", f"{board_reads}/snapshots")
    yield Call("deliveries", "GET", f"{board_reads}/deliveries")
    for player in ("p00", "p01", "p05", "nobody"):
        yield Call(f"profile get {player}", "GET", f"/v1/players/{player}")
        yield Call(f"history {player}", "GET", f"/v1/players/{player}/history")
        yield Call(f"friend list get {player}", "GET", f"/v1/players/{player}/friends")
    yield Call(
        "history board", "GET", "/v1/players/p00/history", query={"board": ARENA, "limit": "2"}
    )
    yield Call("history other board", "GET", "/v1/players/p00/history", query={"board": DUEL})
    for player in ("p00", "p01", "p04", "nobody"):
        yield Call(f"rating {player}", "GET", f"/v1/boards/{ELO}/players/{player}/rating")
    yield Call("rating on a score board", "GET", f"{board_reads}/players/p00/rating")
    for player in ("p00", "p02"):
        token = f"player:{player}"
        yield Call(f"me {player}", "GET", f"{board_reads}/me", auth=token)
        yield Call(
            f"me around {player}", "GET", f"{board_reads}/me/around", query={"k": "2"}, auth=token
        )
        yield Call(f"me friends {player}", "GET", f"{board_reads}/me/friends", auth=token)
    yield Call("me with a key", "GET", f"{board_reads}/me")
    yield Call("player token reads another", "GET", f"{board_reads}/players/p05", auth="player:p00")
    yield Call(
        "player token writes",
        "POST",
        f"{board_reads}/scores",
        body={"player_id": "p00", "score": 1, "match_id": "t"},
        auth="player:p00",
    )
    for n in range(PLAYER_READS + 2):
        yield Call(
            f"rate-limited player read {n}", "GET", f"{board_reads}/me", auth=f"player:{LIMITED}"
        )


def _refusals() -> Iterator[Call]:
    for bad in BAD_IDS:
        yield Call(f"top bad board {bad!r}", "GET", f"/v1/boards/{_quote(bad)}/top")
        yield Call(f"get bad board {bad!r}", "GET", f"/v1/boards/{_quote(bad)}")
    for bad in BAD_PLAYERS:
        yield Call(f"player bad id {bad!r}", "GET", f"/v1/boards/{ARENA}/players/{_quote(bad)}")
        yield Call(f"profile bad id {bad!r}", "GET", f"/v1/players/{_quote(bad)}")
    paths = {
        "limit": (
            f"/v1/boards/{ARENA}/top",
            "/v1/audit",
            "/v1/players/p00/history",
            f"/v1/boards/{ARENA}/snapshots",
            "/v1/dead-letters",
        ),
        "offset": (f"/v1/boards/{ARENA}/top",),
        "k": (f"/v1/boards/{ARENA}/players/p00/around", f"/v1/boards/{ARENA}/players/p00/friends"),
        "score": (f"/v1/boards/{ARENA}/rank-of",),
    }
    for name, values in QUERY_VALUES.items():
        for path in paths[name]:
            for value in values:
                yield Call(f"{name}={value!r} {path}", "GET", path, query={name: value})
    yield Call("unknown parameter", "GET", f"/v1/boards/{ARENA}/top", query={"limits": "5"})
    yield Call("unknown parameter, bad board", "GET", "/v1/boards/BAD/top", query={"x": "1"})
    yield Call("metadata=maybe", "GET", f"/v1/boards/{ARENA}/top", query={"metadata": "maybe"})
    yield Call("at not a time", "GET", f"/v1/boards/{ARENA}/top", query={"at": "noon"})
    yield Call("stream nowhere", "GET", "/v1/boards/nowhere/stream")
    yield Call("stream limit=101", "GET", "/v1/boards/nowhere/stream", query={"limit": "101"})
    for auth in ("none", "wrong", "basic", "read"):
        yield Call(f"top as {auth}", "GET", f"/v1/boards/{ARENA}/top", auth=auth)
        yield Call(
            f"put board as {auth}", "PUT", f"/v1/boards/{ARENA}", body={"title": "x"}, auth=auth
        )
        yield Call(f"audit as {auth}", "GET", "/v1/audit", auth=auth)
        yield Call(f"ban as {auth}", "POST", "/v1/players/p00/ban", auth=auth)
    yield Call("unknown route", "GET", "/v1/nothing-here")
    yield Call("method not allowed", "PATCH", f"/v1/boards/{ARENA}")
    score = "/v1/boards/arena/scores"
    yield Call(
        "not json", "POST", score, raw=b"{nope", headers={"Content-Type": "application/json"}
    )
    yield Call(
        "text body", "POST", score, raw=b"player=p00", headers={"Content-Type": "text/plain"}
    )
    yield Call("no body", "POST", score, raw=b"", headers={"Content-Type": "application/json"})
    yield Call(
        "too large",
        "POST",
        "/v1/scores/batch",
        raw=b'{"scores": [' + b" " * (4 * 1024 * 1024 + 10) + b"]}",
        headers={"Content-Type": "application/json"},
    )
    yield Call(
        "Request-Timeout bad",
        "POST",
        score,
        body={"player_id": "p00", "score": 1, "match_id": "rt"},
        headers={"Request-Timeout": "0"},
    )
    yield Call(
        "metadata too large",
        "POST",
        score,
        body={"player_id": "p00", "score": 1, "match_id": "mt", "metadata": {"x": "y" * 5000}},
    )
    yield Call(
        "change order with entries",
        "PUT",
        f"/v1/boards/{ARENA}",
        body={"title": "A", "order": "asc", "windows": ["all_time", "daily"]},
    )
    yield Call("history bad cursor", "GET", "/v1/players/p00/history", query={"cursor": "zzz"})
    yield Call("top bad cursor", "GET", f"/v1/boards/{ARENA}/top", query={"cursor": "zzz"})


def _tournament() -> Iterator[Call]:
    path = f"/v1/tournaments/{CUP}"
    spec = {
        "title": "Cup",
        "starts_at": "2020-01-01T00:00:00Z",
        "ends_at": "2100-01-01T00:00:00Z",
        "max_size": 3,
        "join_required": True,
        "max_submissions": 2,
        "rewards": [{"ranks": [1, 1], "reward": {"gems": 10}}],
    }
    yield Call("list tournaments (none)", "GET", "/v1/tournaments")
    yield Call("put tournament", "PUT", path, body=spec)
    yield Call("put tournament again", "PUT", path, body=spec | {"title": "Cup!"})
    yield Call("tournament on a board id", "PUT", f"/v1/tournaments/{ARENA}", body=spec)
    yield Call("tournament bad spec", "PUT", "/v1/tournaments/bad", body={"title": "x"})
    yield Call("get tournament", "GET", path)
    yield Call("list tournaments", "GET", "/v1/tournaments")
    yield Call(
        "score before join",
        "POST",
        f"{path}/scores",
        body={"player_id": "p00", "score": 5, "match_id": "t1"},
    )
    for player in PLAYERS[:4]:
        yield Call(f"join {player}", "POST", f"{path}/join", body={"player_id": player})
    yield Call("join again", "POST", f"{path}/join", body={"player_id": "p00"})
    for n, player in enumerate(PLAYERS[:3]):
        for match in ("t1", "t2", "t3"):
            yield Call(
                f"cup score {player} {match}",
                "POST",
                f"{path}/scores",
                body={"player_id": player, "score": 10 * n + len(match), "match_id": match},
            )
    yield Call(
        "cup score before start",
        "POST",
        f"{path}/scores",
        body={"player_id": "p00", "score": 5, "match_id": "t0", "at": "2019-01-01T00:00:00Z"},
    )
    yield Call(
        "board write on the cup",
        "POST",
        f"/v1/boards/{CUP}/scores",
        body={"player_id": "p00", "score": 5, "match_id": "x"},
    )
    yield Call("cup top", "GET", f"{path}/top")
    yield Call("cup top limit", "GET", f"{path}/top", query={"limit": "1", "offset": "1"})
    yield Call("cup player", "GET", f"{path}/players/p01")
    yield Call("cup around", "GET", f"{path}/players/p01/around", query={"k": "1"})
    yield Call("cup edition 1", "GET", f"{path}/top", query={"edition": "1"})
    yield Call("cup results", "GET", f"{path}/results")
    yield Call("cup results edition 1", "GET", f"{path}/results", query={"edition": "1"})
    yield Call("no tournament", "GET", "/v1/tournaments/nothing/top")
    yield Call("put cup2", "PUT", "/v1/tournaments/cup2", body=spec)
    yield Call("delete cup2", "DELETE", "/v1/tournaments/cup2")
    yield Call("get cup2", "GET", "/v1/tournaments/cup2")


def _changes() -> Iterator[Call]:
    board = f"/v1/boards/{ARENA}"
    yield Call("ban p01", "POST", "/v1/players/p01/ban", query={"reason": "cheat"})
    yield Call("ban p01 again", "POST", "/v1/players/p01/ban")
    yield Call("top after ban", "GET", f"{board}/top", query={"limit": "5"})
    yield Call("banned player", "GET", f"{board}/players/p01")
    yield Call("unban p01", "DELETE", "/v1/players/p01/ban")
    yield Call("unban p01 again", "DELETE", "/v1/players/p01/ban")
    yield Call("remove p02", "DELETE", f"{board}/players/p02", query={"reason": "r"})
    yield Call("remove p02 again", "DELETE", f"{board}/players/p02")
    yield Call(
        "remove p03 daily",
        "DELETE",
        f"{board}/players/p03",
        query={"window": "daily", "period": "2026-01-01"},
    )
    yield Call("remove on rating board", "DELETE", f"/v1/boards/{ELO}/players/p00")
    yield Call("void m2", "POST", f"{board}/matches/m2/void", body={"reason": "bug"})
    yield Call("void m2 again", "POST", f"{board}/matches/m2/void")
    yield Call("void unknown", "POST", f"{board}/matches/zz/void")
    yield Call("void c2 on chess", "POST", f"/v1/boards/{ELO}/matches/c2/void")
    yield Call("rating after void", "GET", f"/v1/boards/{ELO}/players/p00/rating")
    yield Call("top after void", "GET", f"{board}/top", query={"limit": "5"})
    yield Call("reset sums", "POST", f"/v1/boards/{SUMS}/reset", body={"reason": "new"})
    yield Call("reset unknown window", "POST", f"/v1/boards/{SUMS}/reset", body={"window": "daily"})
    yield Call("top after reset", "GET", f"/v1/boards/{SUMS}/top")
    yield Call("reset cup", "POST", f"/v1/boards/{CUP}/reset", body={})
    yield Call("erase p04", "DELETE", "/v1/players/p04", query={"reason": "gdpr"})
    yield Call("profile after erase", "GET", "/v1/players/p04")
    yield Call("history after erase", "GET", "/v1/players/p04/history")
    yield Call("erase nobody", "DELETE", "/v1/players/nobody")
    yield Call(
        "freeze duel",
        "PUT",
        f"/v1/boards/{DUEL}",
        body={"title": "Duel", "subscore": "desc", "status": "frozen"},
    )
    yield _score(DUEL, "p00", 99, "frozen", subscore=1)


def _after() -> Iterator[Call]:
    for query in ({}, {"limit": "3"}, {"board": ARENA}, {"player": "p01"}, {"board": "nowhere"}):
        tag = ",".join(f"{k}={v}" for k, v in query.items()) or "all"
        yield Call(f"audit {tag}", "GET", "/v1/audit", query=query)
    yield Call("dead letters", "GET", "/v1/dead-letters")
    yield Call(
        "dead letters board", "GET", "/v1/dead-letters", query={"board": ARENA, "limit": "5"}
    )
    yield Call("list boards at the end", "GET", "/v1/boards")
    yield Call("top at the end", "GET", f"/v1/boards/{ARENA}/top")
    yield Call("delete cup", "DELETE", f"/v1/tournaments/{CUP}")
    yield Call("delete arena", "DELETE", f"/v1/boards/{ARENA}")
    yield Call("top of deleted", "GET", f"/v1/boards/{ARENA}/top")


def _quote(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")
