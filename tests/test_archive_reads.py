"""Reads of a period after its live leaderboard expired: answered from the archive with the
same shape and `"archived": true` (top, player, around, friends, ranks), and GET /periods.
Every test runs on each backend stack (see conftest.py), on the manual clock."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import httpx

from helpers_api import assert_problem, get_json, put_board, submit, unmoved, utc
from helpers_lifecycle import states
from rankline import ManualClock, Rankline
from rankline.http.app import Application
from rankline.types import LeaderboardId

DAY = "2026-11-21"
ARCHIVABLE = utc(2026, 11, 22, 0, 5, 10)
EXPIRED = utc(2026, 11, 23, 0, 5)
"""The day ended at midnight; + 300 s of grace + 1 day of retention."""
Read = Callable[[], Awaitable[httpx.Response]]


async def _board(client: httpx.AsyncClient, **spec: Any) -> None:
    """Ten players on a desc board, by region, with ties on score (and on score and time)."""
    await put_board(client, "arena", windows=["all_time", "daily"], scopes=["region"], **spec)
    scores = [90, 70, 90, 80, 80, 60, 100, 80, 50, 70]
    for i, score in enumerate(scores):
        minute = 3 if score == 80 else i
        region = {"region": "EU" if i % 2 else "US"}
        at = utc(2026, 11, 21, 10, minute)
        await submit(client, "arena", f"p{i}", score, at=at, scopes=region)
    await put_board(client, "golf", windows=["daily"], order="asc", **spec)
    for i, score in enumerate([72, 68, 68, 80]):
        await submit(client, "golf", f"g{i}", score, at=utc(2026, 11, 21, 9, 4 - i))


def _reads(client: httpx.AsyncClient) -> dict[str, Read]:
    """Every kind of leaderboard read, of the archived day."""
    day = {"window": "daily", "period": DAY}
    eu = day | {"scope": "region:EU"}
    base = "/v1/boards/arena"
    reads: dict[str, Read] = {
        "top": lambda: client.get(f"{base}/top", params=day),
        "top page": lambda: client.get(f"{base}/top", params=day | {"offset": 2, "limit": 4}),
        "top past the end": lambda: client.get(f"{base}/top", params=day | {"offset": 50}),
        "top EU": lambda: client.get(f"{base}/top", params=eu),
        "golf top": lambda: client.get("/v1/boards/golf/top", params=day),
        "around": lambda: client.get(f"{base}/players/p3/around", params=day | {"k": 2}),
        "around the top": lambda: client.get(f"{base}/players/p6/around", params=day),
        "around EU": lambda: client.get(f"{base}/players/p7/around", params=eu | {"k": 1}),
        "friends": lambda: client.post(
            f"{base}/players/p4/friends",
            params=day,
            json={"friends": ["p0", "p8", "p1", "nobody"], "k": 1},
        ),
        "friends without an entry": lambda: client.post(
            f"{base}/players/nobody/friends", params=day, json={"friends": ["p9", "p2"]}
        ),
        "ranks": lambda: client.post(
            f"{base}/ranks", params=day, json={"player_ids": ["p9", "p0", "nobody", "p6"]}
        ),
        "ranks EU": lambda: client.post(
            f"{base}/ranks", params=eu, json={"player_ids": ["p1", "p2", "p3"]}
        ),
    }
    for score in (101, 100, 90, 85, 80, 79, 50, 10):
        reads[f"rank-of {score}"] = lambda score=score: client.get(
            f"{base}/rank-of", params=day | {"score": score}
        )
    reads["rank-of 80 EU"] = lambda: client.get(f"{base}/rank-of", params=eu | {"score": 80})
    reads["golf rank-of 68"] = lambda: client.get(
        "/v1/boards/golf/rank-of", params=day | {"score": 68}
    )
    for i in (0, 3, 4, 7, 8):
        reads[f"player p{i}"] = lambda i=i: client.get(f"{base}/players/p{i}", params=day)
    reads["player p3 EU"] = lambda: client.get(f"{base}/players/p3", params=eu)
    for i in range(4):
        reads[f"golf g{i}"] = lambda i=i: client.get(f"/v1/boards/golf/players/g{i}", params=day)
    return reads


async def _answers(reads: dict[str, Read]) -> dict[str, dict[str, Any]]:
    found = {}
    for name, read in reads.items():
        response = await read()
        assert response.status_code == 200, (name, response.text)
        body = response.json()
        del body["as_of"]
        found[name] = unmoved(body)  # the archive keeps no movement: null there
    return found


async def _live_leaderboards(service: Rankline) -> set[LeaderboardId]:
    return {lb for b in ("arena", "golf") for lb in await service.index.leaderboards(b)}


async def test_reads_after_retention_come_from_the_archive(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    service: Rankline = app.state.service
    await _board(client, retention_days={"daily": 1})
    reads = _reads(client)
    clock.set(ARCHIVABLE)
    at_close = await _answers(reads)
    assert [e["player_id"] for e in at_close["top"]["entries"]] == [
        "p6", "p0", "p2", "p3", "p4", "p7", "p1", "p9", "p5", "p8",
    ]  # fmt: skip
    assert at_close["player p4"]["competition_rank"] == 4
    # 100 90 90 80 80 80 70 70 60 50: a new 80 comes after the three 80s there
    assert [at_close["rank-of 80"][k] for k in ("rank", "competition_rank", "total")] == [7, 4, 10]
    assert at_close["golf rank-of 68"]["rank"] == 3
    assert [e["player_id"] for e in at_close["golf top"]["entries"]] == ["g2", "g1", "g0", "g3"]
    await service.archive_periods()
    # archived, still live until its retention ends: the live index answers
    assert await _answers(reads) == at_close
    clock.set(EXPIRED - timedelta(microseconds=1))
    assert await service.expire_periods() == []
    assert await _answers(reads) == at_close

    clock.set(EXPIRED)
    dropped = await service.expire_periods()
    assert {(lb.board, lb.period) for lb in dropped} == {("arena", DAY), ("golf", DAY)}
    assert not any(lb.period == DAY for lb in await _live_leaderboards(service))
    after = await _answers(reads)
    assert after == {name: body | {"archived": True} for name, body in at_close.items()}

    # the same errors as a live leaderboard
    base = "/v1/boards/arena"
    day = {"window": "daily", "period": DAY}
    for url in (f"{base}/players/nobody", f"{base}/players/nobody/around"):
        assert_problem(await client.get(url, params=day), 404)
    # current periods still come from the live index
    today = await get_json(client, f"{base}/top", window="daily")
    assert today["period"] == "2026-11-23" and "archived" not in today
    all_time = await get_json(client, f"{base}/top")
    assert len(all_time["entries"]) == 10 and "archived" not in all_time
    assert (await states(client, "arena", "daily"))[DAY] == ("archived", 10)
    assert (await states(client, "golf", "daily"))[DAY] == ("archived", 4)


async def test_expired_before_it_was_archived_reads_the_standings(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    """With no retention, the live leaderboard goes at the close; until the scheduler has
    archived the period, its reads come from the SQL standings."""
    service: Rankline = app.state.service
    await _board(client, retention_days={"daily": 0})
    reads = _reads(client)
    at_close = await _answers(reads)
    clock.set(utc(2026, 11, 22, 0, 5))
    assert await service.expire_periods()
    assert not any(lb.period == DAY for lb in await _live_leaderboards(service))
    assert await _answers(reads) == at_close
    assert (await states(client, "arena", "daily"))[DAY] == ("closed", 10)
    clock.set(ARCHIVABLE)
    await service.archive_periods()
    after = await _answers(reads)
    assert after == {name: body | {"archived": True} for name, body in at_close.items()}
    assert (await states(client, "arena", "daily"))[DAY] == ("archived", 10)


async def test_submissions_to_an_archived_period_stay_closed(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    service: Rankline = app.state.service
    await _board(client, retention_days={"daily": 1})
    clock.set(EXPIRED)
    await service.archive_periods()
    await service.expire_periods()
    late = await submit(client, "arena", "p5", 1000, match="late", at=utc(2026, 11, 21, 23))
    daily = [s for s in late["standings"] if s["window"] == "daily"]
    assert daily and all((s["applied"], s["reason"]) == (False, "closed") for s in daily)
    body = await get_json(client, "/v1/boards/arena/players/p5", window="daily", period=DAY)
    assert (body["score"], body["rank"], body["archived"]) == (60, 9, True)
    assert (await get_json(client, "/v1/boards/arena/players/p5"))["score"] == 1000


async def test_the_archive_answers_dense_ranks_as_the_live_index_did(
    app: Application, client: httpx.AsyncClient, clock: ManualClock
) -> None:
    service: Rankline = app.state.service
    await _board(client, retention_days={"daily": 1}, dense_rank=True)
    reads = _reads(client)
    clock.set(ARCHIVABLE)
    at_close = await _answers(reads)
    # 100 90 90 80 80 80 70 70 60 50: dense ranks 1 2 2 3 3 3 4 4 5 6
    assert [e["dense_rank"] for e in at_close["top"]["entries"]] == [1, 2, 2, 3, 3, 3, 4, 4, 5, 6]
    assert [e["dense_rank"] for e in at_close["top page"]["entries"]] == [2, 3, 3, 3]
    assert at_close["player p4"]["dense_rank"] == 3
    assert [at_close[f"rank-of {s}"]["dense_rank"] for s in (101, 100, 85, 80, 10)] == [
        1,
        1,
        3,
        3,
        7,
    ]
    assert [e["dense_rank"] for e in at_close["golf top"]["entries"]] == [1, 1, 2, 3]
    await service.archive_periods()
    clock.set(EXPIRED)
    await service.expire_periods()
    after = await _answers(reads)
    assert after == {name: body | {"archived": True} for name, body in at_close.items()}
