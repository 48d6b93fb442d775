"""Ranking extras: when a read's period ends and closes (``period_ends_at``, ``closes_at``),
the rank a score would get (``rank-of``), tiers and dense ranks, each checked on every
backend stack against a naive model of the leaderboard."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from helpers_api import (
    AUTH,
    NOW,
    assert_problem,
    error_locs,
    get_json,
    open_client,
    put_board,
    submit,
    utc,
)
from rankline import ManualClock
from rankline.http.app import Application
from test_stream import SSE

# --- period_ends_at and closes_at -----------------------------------------------------------

SEASONS = [{"id": "s1", "start": "2026-11-01T00:00:00Z", "end": "2026-12-01T00:00:00Z"}]


async def test_every_read_says_when_its_period_ends_and_closes(client: httpx.AsyncClient) -> None:
    await put_board(
        client,
        "arena",
        windows=["all_time", "daily", "weekly", "monthly"],
        seasons=SEASONS,
        grace_seconds=60,
    )
    await submit(client, "arena", "p1", 10)
    expected: dict[str, tuple[str | None, str | None]] = {
        "all_time": (None, None),
        "daily": ("2026-11-22T00:00:00.000Z", "2026-11-22T00:01:00.000Z"),
        "weekly": ("2026-11-23T00:00:00.000Z", "2026-11-23T00:01:00.000Z"),
        "monthly": ("2026-12-01T00:00:00.000Z", "2026-12-01T00:01:00.000Z"),
        "season": ("2026-12-01T00:00:00.000Z", "2026-12-01T00:01:00.000Z"),
    }
    for window, (ends, closes) in expected.items():
        for path, method, body in (
            ("/v1/boards/arena/top", "GET", None),
            ("/v1/boards/arena/players/p1", "GET", None),
            ("/v1/boards/arena/players/p1/around", "GET", None),
            ("/v1/boards/arena/players/p1/friends", "POST", {"friends": []}),
            ("/v1/boards/arena/ranks", "POST", {"player_ids": ["p1"]}),
        ):
            response = await client.request(method, path, params={"window": window}, json=body)
            assert response.status_code == 200, response.text
            answer = response.json()
            assert (answer["period_ends_at"], answer["closes_at"]) == (ends, closes), (
                window,
                path,
            )


async def test_a_past_period_and_a_changed_grace_show_in_the_head(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"])
    await submit(client, "arena", "p1", 10)
    body = await get_json(client, "/v1/boards/arena/top", window="daily", period="2026-11-20")
    assert (body["period_ends_at"], body["closes_at"]) == (
        "2026-11-21T00:00:00.000Z",
        "2026-11-21T00:05:00.000Z",
    )
    await put_board(client, "arena", 200, windows=["all_time", "daily"], grace_seconds=3600)
    body = await get_json(client, "/v1/boards/arena/players/p1", window="daily")
    assert body["closes_at"] == "2026-11-22T01:00:00.000Z"
    clock.set(utc(2026, 11, 22, 0, 30))  # a new day: the default period moves with it
    body = await get_json(client, "/v1/boards/arena/top", window="daily")
    assert (body["period"], body["period_ends_at"]) == ("2026-11-22", "2026-11-23T00:00:00.000Z")


async def test_stream_events_carry_the_period_end(
    app: Application, client: httpx.AsyncClient
) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"])
    await submit(client, "arena", "p1", 10)
    async with SSE(app, "arena", window="daily", players="p1") as stream:
        seen: dict[str, Any] = {}
        while len(seen) < 2:
            name, data = await stream.next()
            seen[name] = data
    for name in ("top", "player"):
        assert seen[name]["period_ends_at"] == "2026-11-22T00:00:00.000Z", name
        assert seen[name]["closes_at"] == "2026-11-22T00:05:00.000Z", name


# --- rank-of ------------------------------------------------------------------------------

Row = tuple[int, str, str]
"""(score, achieved_at as the API writes it, player)."""


def _model_rank_of(rows: list[Row], score: int, now: str, order: str) -> tuple[int, int, int]:
    """(rank, competition_rank, total) a score submitted at ``now`` would get, naively."""

    def better(other: int) -> bool:
        return other > score if order == "desc" else other < score

    ahead = [r for r in rows if better(r[0]) or (r[0] == score and r[1] <= now)]
    strictly = [r for r in rows if better(r[0])]
    return len(ahead) + 1, len(strictly) + 1, len(rows)


async def _seeded(client: httpx.AsyncClient, board: str, order: str, **spec: Any) -> list[Row]:
    """30 players on ``board``, scores drawn from a few values (many ties), at times of the
    morning (some equal), half in region EU; returns the rows of the global leaderboard."""
    import random

    rng = random.Random(f"{board}-{order}")
    await put_board(client, board, order=order, scopes=["region"], **spec)
    rows: list[Row] = []
    items = []
    for i in range(30):
        score, minute = (
            rng.choice([-(2**63), -5, 0, 7, 7, 7, 2**53 + 1, 2**63 - 1]),
            rng.randrange(4),
        )
        at = f"2026-11-21T10:{minute:02d}:00.000Z"
        region = {"region": "EU"} if i % 2 else {}
        items.append(
            {"board": board, "player_id": f"p{i}", "score": score, "match_id": "m", "at": at}
            | ({"scopes": region} if region else {})
        )
        rows.append((score, at, f"p{i}"))
    response = await client.post("/v1/scores/batch", json={"scores": items}, headers=AUTH)
    assert response.status_code == 200
    assert all("error" not in r for r in response.json()["results"])
    return rows


PROBES = [-(2**63), -6, -5, 0, 6, 7, 8, 2**53, 2**53 + 1, 2**53 + 2, 2**63 - 1]


async def test_rank_of_matches_a_naive_model(client: httpx.AsyncClient) -> None:
    for board, order, spec in (
        ("high", "desc", {}),
        ("low", "asc", {}),
        ("split", "desc", {"shards": 3}),
    ):
        rows = await _seeded(client, board, order, **spec)
        for scope, held in (("global", rows), ("region:EU", rows[1::2])):
            for score in PROBES:
                body = await get_json(
                    client, f"/v1/boards/{board}/rank-of", score=str(score), scope=scope
                )
                rank, competition, total = _model_rank_of(held, score, NOW, order)
                assert (body["rank"], body["competition_rank"], body["total"]) == (
                    rank,
                    competition,
                    total,
                ), (board, scope, score)
                assert body["score"] == score
                assert body["percentile"] == round(100 * (total - rank + 1) / (total + 1), 4)
                assert (body["board"], body["scope"], body["as_of"]) == (board, scope, NOW)


async def test_rank_of_is_the_rank_the_score_gets_when_submitted(
    client: httpx.AsyncClient, clock: ManualClock
) -> None:
    await _seeded(client, "arena", "desc", windows=["all_time", "daily"])
    for i, score in enumerate([7, 2**53 + 1, -5, 8, 7]):
        clock.set(utc(2026, 11, 21, 12, i + 1))
        predicted = await get_json(
            client, "/v1/boards/arena/rank-of", score=str(score), window="daily"
        )
        await submit(client, "arena", f"new{i}", score)
        got = await get_json(client, f"/v1/boards/arena/players/new{i}", window="daily")
        assert (got["rank"], got["competition_rank"], got["percentile"]) == (
            predicted["rank"],
            predicted["competition_rank"],
            predicted["percentile"],
        )
        assert got["total"] == predicted["total"] + 1


async def test_rank_of_an_empty_leaderboard_is_first(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"])
    body = await get_json(client, "/v1/boards/arena/rank-of", score="10", window="daily")
    assert {k: body[k] for k in ("rank", "competition_rank", "percentile", "total")} == {
        "rank": 1,
        "competition_rank": 1,
        "percentile": 0.0,
        "total": 0,
    }
    assert body["period_ends_at"] == "2026-11-22T00:00:00.000Z"


@pytest.mark.edge
async def test_rank_of_refuses_what_a_submission_would(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", min_score=0, max_score=1000)
    for bad in ("", "1.5", "10.0", "1e3", "abc", " 5", "+5", "0x10", str(2**63), str(-(2**63) - 1),
                "-1", "1001", "٣"):  # fmt: skip
        response = await client.get("/v1/boards/arena/rank-of", params={"score": bad})
        assert error_locs(response) == [["query", "score"]], bad
    response = await client.get("/v1/boards/arena/rank-of")
    assert error_locs(response) == [["query", "score"]]
    response = await client.get("/v1/boards/arena/rank-of", params={"score": "5", "scor": "1"})
    assert_problem(response, 422)
    assert_problem(await client.get("/v1/boards/nope/rank-of", params={"score": "5"}), 404)
    response = await client.get("/v1/boards/arena/rank-of", params={"score": 5, "window": "x"})
    assert error_locs(response) == [["query", "window"]]


async def test_degraded_and_live_indexes_count_the_same(app: Application) -> None:
    """The SQL reader (what answers while the index cannot) counts keys before any bound as
    the live index does: a key, a 16-byte head, an 8-byte score prefix."""
    from rankline.index.sql import SqlIndex
    from rankline.ordering import encode, head, score_prefix
    from rankline.types import LeaderboardId

    service = app.state.service
    async with open_client(app) as client:
        rows = await _seeded(client, "arena", "desc")
    sql = SqlIndex(service.store, service.boards.keys_of)
    leaderboard = LeaderboardId("arena", "all_time", "all", "global")
    bounds: list[bytes] = []
    for score in PROBES:
        bounds.append(score_prefix(score, "desc"))
        for minute in range(5):
            micros = int(utc(2026, 11, 21, 10, minute).timestamp()) * 1_000_000
            bounds.append(head(score, micros, "desc"))
            bounds.append(encode(score, micros, "p15", "desc"))
    assert await sql.counts_before(leaderboard, bounds) == await service.index.counts_before(
        leaderboard, bounds
    )
    assert (await sql.counts_before(leaderboard, bounds))[0] == len(rows)


# --- tiers --------------------------------------------------------------------------------

TIERS = [
    {"name": "gold", "top_percent": 10},
    {"name": "silver", "top_rank": 5},
    {"name": "bronze", "top_percent": 50.5},
    {"name": "never", "top_rank": 2},
]


def _model_tier(tiers: list[dict[str, Any]], rank: int, total: int) -> str | None:
    from fractions import Fraction
    from math import ceil

    for tier in tiers:
        if "top_percent" in tier:
            limit = ceil(total * Fraction(str(tier["top_percent"])) / 100)
        else:
            limit = tier["top_rank"]
        if rank <= min(limit, total):
            name: str = tier["name"]
            return name
    return None


async def _tiered(client: httpx.AsyncClient, count: int, **spec: Any) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"], tiers=TIERS, **spec)
    items = [
        {"board": "arena", "player_id": f"p{i:02d}", "score": 1000 - i // 2, "match_id": "m"}
        for i in range(count)
    ]
    response = await client.post("/v1/scores/batch", json={"scores": items}, headers=AUTH)
    assert response.status_code == 200


async def test_every_view_carries_the_tier_of_the_model(client: httpx.AsyncClient) -> None:
    for count, spec in ((23, {}), (7, {}), (23, {"shards": 3})):
        await client.delete("/v1/boards/arena", headers=AUTH)
        await _tiered(client, count, **spec)
        body = await get_json(client, "/v1/boards/arena/top", limit=1000)
        for entry in body["entries"]:
            assert entry.get("tier") == _model_tier(TIERS, entry["rank"], count), entry
            assert ("tier" in entry) == (entry.get("tier") is not None)
        for i in range(count):
            me = await get_json(client, f"/v1/boards/arena/players/p{i:02d}")
            assert me.get("tier") == _model_tier(TIERS, me["rank"], count)
        around = await get_json(client, "/v1/boards/arena/players/p03/around", k=3)
        assert around["player"].get("tier") == _model_tier(TIERS, around["player"]["rank"], count)
        for entry in around["entries"]:
            assert entry.get("tier") == _model_tier(TIERS, entry["rank"], count)
        friends = (
            await client.post(
                "/v1/boards/arena/players/p01/friends", json={"friends": ["p00", "p06"]}
            )
        ).json()
        for entry in [*friends["entries"], friends["player"]]:
            assert entry.get("tier") == _model_tier(TIERS, entry["rank"], count)
        ranks = (
            await client.post("/v1/boards/arena/ranks", json={"player_ids": ["p00", "p05"]})
        ).json()
        for entry in ranks["entries"]:
            assert entry.get("tier") == _model_tier(TIERS, entry["rank"], count)
        rank_of = await get_json(client, "/v1/boards/arena/rank-of", score="999")
        assert rank_of.get("tier") == _model_tier(TIERS, rank_of["rank"], count + 1)


async def test_top_pages_one_tier_at_a_time(client: httpx.AsyncClient) -> None:
    await _tiered(client, 23)  # gold 1..3, silver 4..5, bronze 6..12, never: none
    whole = (await get_json(client, "/v1/boards/arena/top", limit=1000))["entries"]
    for name, first, last in (("gold", 1, 3), ("silver", 4, 5), ("bronze", 6, 12), ("never", 1, 0)):
        expected = [e for e in whole if first <= e["rank"] <= last]
        assert all(e.get("tier") == name for e in expected)
        for offset in range(0, 9):
            for limit in (1, 2, 100):
                body = await get_json(
                    client, "/v1/boards/arena/top", tier=name, offset=offset, limit=limit
                )
                assert body["entries"] == expected[offset : offset + limit], (name, offset, limit)
                assert (body["tier"], body["tier_total"], body["total"]) == (
                    name,
                    len(expected),
                    23,
                )
    plain = await get_json(client, "/v1/boards/arena/top")
    assert "tier" not in plain and "tier_total" not in plain
    # a different tier has a different ETag, an unchanged one the same
    gold = await client.get("/v1/boards/arena/top", params={"tier": "gold"})
    again = await client.get("/v1/boards/arena/top", params={"tier": "gold"})
    silver = await client.get("/v1/boards/arena/top", params={"tier": "silver"})
    assert gold.headers["etag"] == again.headers["etag"] != silver.headers["etag"]


async def test_tiers_follow_the_total_and_a_changed_definition(client: httpx.AsyncClient) -> None:
    await _tiered(client, 9)  # gold: ceil(0.9) = 1
    first = await get_json(client, "/v1/boards/arena/top")
    assert [e.get("tier") for e in first["entries"][:2]] == ["gold", "silver"]
    more = [
        {"board": "arena", "player_id": f"q{i:02d}", "score": 1, "match_id": "m"} for i in range(11)
    ]  # below everyone: the top stamp may stay, but 10% of 20 is 2
    assert (await client.post("/v1/scores/batch", json={"scores": more}, headers=AUTH)).is_success
    second = await get_json(client, "/v1/boards/arena/top")
    assert [e.get("tier") for e in second["entries"][:3]] == ["gold", "gold", "silver"]
    await put_board(client, "arena", 200, windows=["all_time", "daily"], tiers=[])
    third = await get_json(client, "/v1/boards/arena/top")
    assert all("tier" not in e for e in third["entries"])
    response = await client.get("/v1/boards/arena/top", params={"tier": "gold"})
    assert error_locs(response) == [["query", "tier"]]
    player = await get_json(client, "/v1/boards/arena/players/p00")
    assert "tier" not in player


BAD_TIERS: list[Any] = [
    [{"name": "gold"}],
    [{"name": "gold", "top_percent": 1, "top_rank": 3}],
    [{"name": "gold", "top_percent": 0}],
    [{"name": "gold", "top_percent": 100.5}],
    [{"name": "gold", "top_percent": "1"}],
    [{"name": "gold", "top_rank": 0}],
    [{"name": "gold", "top_rank": 1.5}],
    [{"name": "Gold", "top_rank": 1}],
    [{"name": "", "top_rank": 1}],
    [{"name": "gold", "top_rank": 1}, {"name": "gold", "top_rank": 2}],
    [{"name": "gold", "top_rank": 1, "colour": "yellow"}],
    [{"name": f"t{i}", "top_rank": i + 1} for i in range(17)],
    {"name": "gold", "top_rank": 1},
]


@pytest.mark.edge
async def test_bad_tiers_are_422(client: httpx.AsyncClient) -> None:
    for tiers in BAD_TIERS:
        response = await client.put("/v1/boards/arena", json={"tiers": tiers}, headers=AUTH)
        assert response.status_code == 422, (tiers, response.text)
        assert all(
            e["loc"][:2] == ["body", "tiers"] for e in assert_problem(response, 422)["errors"]
        )
    board = await put_board(client, "arena", tiers=TIERS)
    assert board["tiers"] == [
        {"name": "gold", "top_percent": 10.0},
        {"name": "silver", "top_rank": 5},
        {"name": "bronze", "top_percent": 50.5},
        {"name": "never", "top_rank": 2},
    ]
    await submit(client, "arena", "p1", 10)
    changed = await put_board(client, "arena", 200, tiers=TIERS[:1])  # may change with entries
    assert changed["tiers"] == [{"name": "gold", "top_percent": 10.0}]
