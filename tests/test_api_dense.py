"""Dense ranks (``"dense_rank": true``): every view of such a board carries ``dense_rank``
(1, 2, 2, 3), checked on every backend stack against a naive model, also under random
submissions, erasures, bans and unbans (hypothesis), after a rebuild, and by verify."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers_api import (
    AUTH,
    assert_problem,
    error_locs,
    get_json,
    open_app,
    open_client,
    put_board,
    submit,
)
from helpers_backends import EDGE_STACK, flush_redis, real_url, selected
from rankline import ManualClock
from rankline.http.app import Application
from rankline.index.maintenance import verify
from rankline.index.sql import SqlIndex
from rankline.ordering import score_prefix
from rankline.settings import Settings
from rankline.types import LeaderboardId
from test_api_extras import PROBES, Row, _seeded


def _model_dense(scores: list[int], score: int, order: str) -> int:
    """1 + the distinct scores better than ``score``, naively."""
    better = {s for s in scores if (s > score if order == "desc" else s < score)}
    return len(better) + 1


async def _check_views(
    client: httpx.AsyncClient, board: str, rows: list[Row], order: str, **params: Any
) -> None:
    """Every view of every player of ``rows`` (the leaderboard read with ``params``) against
    the model."""
    scores = [score for score, _, _ in rows]
    of = {player: score for score, _, player in rows}
    base = f"/v1/boards/{board}"

    def check(entry: dict[str, Any]) -> None:
        assert entry["dense_rank"] == _model_dense(scores, entry["score"], order), entry

    whole = (await get_json(client, f"{base}/top", limit=1000, **params))["entries"]
    assert [e["player_id"] for e in whole if e["player_id"] in of] == [
        e["player_id"] for e in whole
    ]
    assert len(whole) == len(rows)
    for entry in whole:
        check(entry)
    for offset, limit in ((0, 3), (4, 5), (len(rows) - 2, 10), (13, 1)):
        page = await get_json(client, f"{base}/top", offset=offset, limit=limit, **params)
        assert page["entries"] == whole[offset : offset + limit]
    for player in of:
        me = await get_json(client, f"{base}/players/{player}", **params)
        check(me)
        around = await get_json(client, f"{base}/players/{player}/around", k=3, **params)
        check(around["player"])
        for entry in around["entries"]:
            check(entry)
    friends = list(of)[::3]
    response = await client.post(
        f"{base}/players/{friends[0]}/friends", params=params, json={"friends": friends[1:]}
    )
    assert response.status_code == 200, response.text
    answer = response.json()
    check(answer["player"])
    assert len(answer["entries"]) == len(friends)
    for entry in answer["entries"]:
        check(entry)
    response = await client.post(
        f"{base}/ranks", params=params, json={"player_ids": [*friends, "nobody"]}
    )
    assert [e["dense_rank"] for e in response.json()["entries"]] == [
        _model_dense(scores, e["score"], order) for e in response.json()["entries"]
    ]
    for probe in PROBES:
        rank_of = await get_json(client, f"{base}/rank-of", score=str(probe), **params)
        assert rank_of["dense_rank"] == _model_dense(scores, probe, order), probe


async def test_every_view_carries_the_dense_rank_of_the_model(client: httpx.AsyncClient) -> None:
    for board, order in (("high", "desc"), ("low", "asc")):
        rows = await _seeded(client, board, order, dense_rank=True)
        await _check_views(client, board, rows, order)
        eu = [row for row in rows if int(row[2][1:]) % 2]
        await _check_views(client, board, eu, order, scope="region:EU")
    # a board without dense ranks carries none
    rows = await _seeded(client, "plain", "desc")
    body = await get_json(client, "/v1/boards/plain/top")
    assert not any("dense_rank" in entry for entry in body["entries"])
    assert "dense_rank" not in await get_json(client, "/v1/boards/plain/players/p1")
    assert "dense_rank" not in await get_json(client, "/v1/boards/plain/rank-of", score="7")


async def test_dense_ranks_follow_every_change(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", policy="latest", dense_rank=True)

    async def dense() -> list[tuple[str, int]]:
        body = await get_json(client, "/v1/boards/arena/top")
        return [(e["player_id"], e["dense_rank"]) for e in body["entries"]]

    for player, score in (("a", 10), ("b", 10), ("c", 5), ("d", 3)):
        await submit(client, "arena", player, score, at="2026-11-21T10:00:00.000Z")
    assert await dense() == [("a", 1), ("b", 1), ("c", 2), ("d", 3)]
    await submit(client, "arena", "c", 10, at="2026-11-21T10:01:00.000Z")  # 5 is gone
    assert await dense() == [("a", 1), ("b", 1), ("c", 1), ("d", 2)]
    for player in ("a", "b"):
        await submit(client, "arena", player, 1, at="2026-11-21T10:02:00.000Z")
    assert await dense() == [("c", 1), ("d", 2), ("a", 3), ("b", 3)]
    assert (await client.post("/v1/players/c/ban", headers=AUTH)).status_code == 200
    assert await dense() == [("d", 1), ("a", 2), ("b", 2)]
    assert (await client.delete("/v1/players/c/ban", headers=AUTH)).status_code == 200
    assert (await client.delete("/v1/players/d", headers=AUTH)).status_code == 204
    assert await dense() == [("c", 1), ("a", 2), ("b", 2)]


async def test_dense_rank_is_refused_on_sharded_boards_and_fixed_once_entries_exist(
    client: httpx.AsyncClient,
) -> None:
    response = await client.put(
        "/v1/boards/split", json={"dense_rank": True, "shards": 3}, headers=AUTH
    )
    assert_problem(response, 422)
    assert error_locs(response) == [["body", "dense_rank"]]
    assert "shards" in response.json()["errors"][0]["msg"]
    # before the first entry it may change; after, it cannot
    await put_board(client, "arena")
    await put_board(client, "arena", 200, dense_rank=True)
    assert (await get_json(client, "/v1/boards/arena"))["dense_rank"] is True
    await submit(client, "arena", "p1", 5)
    response = await client.put("/v1/boards/arena", json={"dense_rank": False}, headers=AUTH)
    assert_problem(response, 409)
    assert "dense_rank" in response.json()["detail"]
    assert (await get_json(client, "/v1/boards/arena/players/p1"))["dense_rank"] == 1


async def test_a_rebuilt_index_answers_the_same_dense_ranks(
    settings: Settings, clock: ManualClock
) -> None:
    """A restart rebuilds the index from SQL (memory: loaded whole; Redis: flushed first,
    then filled), the distinct scores with it; verify finds nothing to fix."""

    async with open_app(settings, clock) as app, open_client(app) as client:
        rows = await _seeded(client, "arena", "desc", dense_rank=True)
        before = await get_json(client, "/v1/boards/arena/top", limit=1000)
    if settings.redis_url is not None:
        url = real_url(settings.redis_url)
        assert url is not None
        flush_redis(url)
    async with open_app(settings, clock) as app, open_client(app) as client:
        service = app.state.service
        await service.wait_ready()
        after = await get_json(client, "/v1/boards/arena/top", limit=1000)
        assert {k: v for k, v in after.items() if k != "as_of"} == {
            k: v for k, v in before.items() if k != "as_of"
        }
        await _check_views(client, "arena", rows, "desc")
        boards = [service.boards.get("arena")]
        report = await verify(service.keeper, service.store, boards)
        assert report.count == 0, report.differences


async def test_degraded_reads_count_distinct_scores_as_the_index(app: Application) -> None:
    """The SQL reader (what answers while the index cannot) counts the distinct better
    scores as the index does, from the rows alone."""
    service = app.state.service
    async with open_client(app) as client:
        rows = await _seeded(client, "arena", "desc", dense_rank=True)
    sql = SqlIndex(service.store, service.boards.keys_of)
    prefixes = [score_prefix(probe, "desc") for probe in PROBES]
    for scope, held in (("global", rows), ("region:EU", [r for r in rows if int(r[2][1:]) % 2])):
        leaderboard = LeaderboardId("arena", "all_time", "all", scope)
        expected = [_model_dense([r[0] for r in held], p, "desc") - 1 for p in PROBES]
        assert await sql.distinct_before(leaderboard, prefixes) == expected
        assert await service.index.distinct_before(leaderboard, prefixes) == expected


def _model_dense_pair(
    values: list[tuple[int, int]], value: tuple[int, int], order: str, sub: str
) -> int:
    """1 + the distinct (score, subscore) values better than ``value``, naively."""

    def better(a: tuple[int, int], b: tuple[int, int]) -> bool:
        if a[0] != b[0]:
            return a[0] > b[0] if order == "desc" else a[0] < b[0]
        return a[1] > b[1] if sub == "desc" else a[1] < b[1]

    return len({v for v in values if better(v, value)}) + 1


@pytest.mark.parametrize(("order", "sub"), [("desc", "desc"), ("asc", "desc"), ("desc", "asc")])
async def test_a_dense_rank_board_with_a_subscore_counts_distinct_score_subscore_pairs(
    app: Application, order: str, sub: str
) -> None:
    """On a board with a subscore the value dense ranks count is (score, subscore): entries
    tie only when both are equal, an equal score with another subscore is another value.
    Every view, rank-of, the SQL reader and verify against the naive model, also after
    changes that drop and bring back values."""
    import random

    rng = random.Random(f"dense-sub-{order}-{sub}")
    service = app.state.service
    board = f"pairs-{order}-{sub}"
    pairs = [(7, 1), (7, 1), (7, 2), (7, -(2**63)), (0, 2**63 - 1), (0, 1), (-(2**63), 1)]
    pairs += [(2**53 + 1, 2**53), (2**53 + 1, 2**53 + 1), (2**63 - 1, 0)]
    async with open_client(app) as client:
        await put_board(client, board, order=order, subscore=sub, policy="latest", dense_rank=True)
        held: dict[str, tuple[int, int]] = {}

        async def put(player: str, value: tuple[int, int], step: int) -> None:
            at = f"2026-11-21T10:{step // 60:02d}:{step % 60:02d}.000Z"
            await submit(client, board, player, value[0], f"m{step}", at=at, subscore=value[1])
            held[player] = value

        async def check() -> None:
            values = list(held.values())

            def expected(entry: dict[str, Any]) -> int:
                return _model_dense_pair(values, (entry["score"], entry["subscore"]), order, sub)

            base = f"/v1/boards/{board}"
            whole = (await get_json(client, f"{base}/top", limit=1000))["entries"]
            assert {e["player_id"]: (e["score"], e["subscore"]) for e in whole} == held
            assert [e["dense_rank"] for e in whole] == [expected(e) for e in whole]
            # ranks grow by one at each new pair: an equal score alone does not tie
            pairs_seen = [(e["score"], e["subscore"]) for e in whole]
            assert whole[-1]["dense_rank"] == len(set(pairs_seen))
            for offset in (1, 4, len(whole) - 2):
                page = await get_json(client, f"{base}/top", offset=offset, limit=3)
                assert page["entries"] == whole[offset : offset + 3]
            for player in held:
                me = await get_json(client, f"{base}/players/{player}")
                assert me["dense_rank"] == expected(me), me
                around = await get_json(client, f"{base}/players/{player}/around", k=2)
                assert around["player"]["dense_rank"] == expected(around["player"])
                assert [e["dense_rank"] for e in around["entries"]] == [
                    expected(e) for e in around["entries"]
                ]
            players = list(held)
            response = await client.post(
                f"{base}/players/{players[0]}/friends", json={"friends": players[1:]}
            )
            assert response.status_code == 200, response.text
            assert [e["dense_rank"] for e in response.json()["entries"]] == [
                expected(e) for e in response.json()["entries"]
            ]
            response = await client.post(f"{base}/ranks", json={"player_ids": players})
            assert [e["dense_rank"] for e in response.json()["entries"]] == [
                expected(e) for e in response.json()["entries"]
            ]
            probes = [*values, (7, 0), (7, 3), (0, 0), (-5, 2**63 - 1), (2**53 + 1, 0)]
            for probe in probes:
                found = await get_json(
                    client, f"{base}/rank-of", score=str(probe[0]), subscore=str(probe[1])
                )
                assert found["dense_rank"] == _model_dense_pair(values, probe, order, sub), probe
            leaderboard = LeaderboardId(board, "all_time", "all", "global")
            keys = service.boards.keys_of(board)
            prefixes = [keys.value_prefix(*probe) for probe in probes]
            model = [_model_dense_pair(values, probe, order, sub) - 1 for probe in probes]
            sql = SqlIndex(service.store, service.boards.keys_of)
            assert await sql.distinct_before(leaderboard, prefixes) == model
            assert await service.index.distinct_before(leaderboard, prefixes) == model
            report = await verify(service.keeper, service.store, [service.boards.get(board)])
            assert report.count == 0, report.differences

        step = 0
        for i, value in enumerate(pairs):
            await put(f"q{i}", value, step)
            step += 1
        await check()
        # (7, 2) and (0, 2**63 - 1) leave; (7, 1) is still held by another; then one comes back
        for player, value in (("q2", (7, 1)), ("q4", (0, 1)), ("q0", (-5, 3))):
            await put(player, value, step)
            step += 1
        await check()
        for _ in range(6):
            player = f"q{rng.randrange(len(pairs))}"
            await put(player, rng.choice(pairs), step)
            step += 1
        await check()


# --- random submissions, erasures, bans and unbans ---------------------------------------

PLAYERS = ("a", "b", "c", "d", "e")
SCORES = (-3, 0, 0, 4, 4, 9)

_ops = st.lists(
    st.one_of(
        st.tuples(st.just("submit"), st.sampled_from(PLAYERS), st.sampled_from(SCORES)),
        st.tuples(st.just("submit"), st.sampled_from(PLAYERS), st.sampled_from(SCORES)),
        st.tuples(st.just("erase"), st.sampled_from(PLAYERS), st.just(0)),
        st.tuples(st.just("ban"), st.sampled_from(PLAYERS), st.just(0)),
        st.tuples(st.just("unban"), st.sampled_from(PLAYERS), st.just(0)),
    ),
    max_size=14,
)
_runs = iter(range(1_000_000))


async def _run_ops(
    settings: Settings, clock: ManualClock, order: str, ops: list[tuple[str, str, int]]
) -> None:
    board = f"r{next(_runs)}"
    scores: dict[str, int] = {}
    banned: set[str] = set()
    async with open_app(settings, clock) as app, open_client(app) as client:
        await put_board(client, board, order=order, policy="latest", dense_rank=True)
        for step, (op, name, score) in enumerate(ops):
            player = f"{board}.{name}"  # bans and erasures are global: players of its own
            if op == "submit":
                at = f"2026-11-21T10:{step // 60:02d}:{step % 60:02d}.000Z"
                await submit(client, board, player, score, f"m{step}", at=at)
                scores[player] = score
            elif op == "erase":
                response = await client.delete(f"/v1/players/{player}", headers=AUTH)
                assert response.status_code == (
                    204 if player in scores or player in banned else 404
                )
                scores.pop(player, None)
                banned.discard(player)
            elif op == "ban":
                response = await client.post(f"/v1/players/{player}/ban", headers=AUTH)
                assert response.status_code == 200, response.text
                banned.add(player)
            elif player in banned:
                response = await client.delete(f"/v1/players/{player}/ban", headers=AUTH)
                assert response.status_code == 200, response.text
                banned.discard(player)
            shown = {p: s for p, s in scores.items() if p not in banned}
            body = await get_json(client, f"/v1/boards/{board}/top")
            assert {e["player_id"]: e["score"] for e in body["entries"]} == shown, ops[: step + 1]
            for entry in body["entries"]:
                expected = _model_dense(list(shown.values()), entry["score"], order)
                assert entry["dense_rank"] == expected, (entry, shown)
            for p, s in shown.items():
                me = await get_json(client, f"/v1/boards/{board}/players/{p}")
                assert me["dense_rank"] == _model_dense(list(shown.values()), s, order)
        assert (await client.delete(f"/v1/boards/{board}", headers=AUTH)).status_code == 204


@pytest.mark.edge
@pytest.mark.parametrize("order", ["desc", "asc"])
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(ops=_ops)
def test_dense_rank_matches_the_model_under_random_changes(
    settings: Settings, clock: ManualClock, order: str, ops: list[tuple[str, str, int]]
) -> None:
    """Each example on a board of its own (deleted after), with a service started for it."""
    asyncio.run(_run_ops(settings, clock, order, ops))


@pytest.mark.parametrize("stack", [n for n in selected() if n != EDGE_STACK], indirect=True)
@pytest.mark.parametrize("order", ["desc", "asc"])
@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(ops=_ops)
def test_dense_rank_matches_the_model_on_every_stack(
    settings: Settings, clock: ManualClock, order: str, ops: list[tuple[str, str, int]]
) -> None:
    """Fewer examples of the model test above on each stack with a server (the model's
    cases are the same; what differs is the index and the store that count)."""
    asyncio.run(_run_ops(settings, clock, order, ops))


@pytest.mark.edge
async def test_the_openapi_document_describes_the_fields(client: httpx.AsyncClient) -> None:
    schemas = (await get_json(client, "/openapi.json"))["components"]["schemas"]
    for name in ("Entry", "FriendEntry", "PlayerOut", "PlayerStanding", "RankOfOut"):
        assert "dense_rank" in schemas[name]["properties"], name
    for name in ("PlayerOut", "PlayerStanding", "FriendPlayer"):
        for field in ("previous_rank", "best_rank"):
            assert field in schemas[name]["required"], (name, field)
    assert "dense_rank" in schemas["BoardSpec"]["properties"]
