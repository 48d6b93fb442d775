"""Batch ingest: idempotency across and within batches, against a naive model, on every
backend; and the store's guard against lost standing updates between writers."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from helpers_api import AUTH, open_app, open_client, put_board, ranking
from rankline import ManualClock, Settings
from rankline.errors import WriteConflict
from rankline.http.app import Application
from rankline.service import Rankline
from rankline.store import schema as t
from rankline.types import LeaderboardId, ScoreEvent

_Event = tuple[str, str, str]  # board, player, match


async def _batch(client: httpx.AsyncClient, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    response = await client.post("/v1/scores/batch", json={"scores": items}, headers=AUTH)
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    assert [r["index"] for r in results] == list(range(len(items)))
    assert all("error" not in r for r in results), results
    return results


async def _stored_events(app: Application) -> int:
    service: Rankline = app.state.service
    async with service.store.engine.connect() as conn:
        return int(
            (await conn.execute(select(func.count()).select_from(t.score_events))).scalar_one()
        )


class _Model:
    """What the boards should hold: every distinct event counted once, in arrival order."""

    def __init__(self, policies: dict[str, str]) -> None:
        self.policies = policies
        self.seen: set[_Event] = set()
        self.scores: dict[tuple[str, str], int] = {}

    def submit(self, board: str, player: str, match: str, score: int) -> tuple[bool, int]:
        """(duplicate, the player's score after it)."""
        key = (board, player)
        if (board, player, match) in self.seen:
            return True, self.scores[key]
        self.seen.add((board, player, match))
        current = self.scores.get(key)
        if current is None:
            self.scores[key] = score
        elif self.policies[board] == "sum":
            self.scores[key] = current + score
        else:
            self.scores[key] = max(current, score)
        return False, self.scores[key]

    def ranking(self, board: str) -> list[tuple[str, int]]:
        found = [(p, s) for (b, p), s in self.scores.items() if b == board]
        return sorted(found, key=lambda x: (-x[1], x[0]))


def _item(board: str, player: str, match: str, score: int) -> dict[str, Any]:
    return {"board": board, "player_id": player, "match_id": match, "score": score}


async def test_duplicates_across_batches_count_once(
    app: Application, client: httpx.AsyncClient
) -> None:
    await put_board(client, "arena", policy="sum", windows=["all_time", "daily"])
    first = await _batch(client, [_item("arena", "p1", "m1", 10), _item("arena", "p2", "m1", 5)])
    assert [(r["duplicate"], r["score"]) for r in first] == [(False, 10), (False, 5)]
    second = await _batch(
        client,
        [
            _item("arena", "p1", "m1", 10),  # stored: a duplicate
            _item("arena", "p1", "m2", 7),  # new, after the duplicate: 10 + 7
            _item("arena", "p2", "m2", 1),
            _item("arena", "p2", "m1", 5),  # stored, after a new one of the same player
            _item("arena", "p1", "m2", 7),  # repeated within this batch
        ],
    )
    assert [(r["duplicate"], r["applied"], r["score"]) for r in second] == [
        (True, False, 10),
        (False, True, 17),
        (False, True, 6),
        (True, False, 6),
        (True, False, 17),
    ]
    assert second[0]["standings"][0]["reason"] == "duplicate"
    assert second[1]["previous_score"] == 10
    assert [s["score"] for s in second[1]["standings"]] == [17, 17]  # all-time and daily
    again = await _batch(client, [_item("arena", "p1", "m1", 10), _item("arena", "p2", "m2", 1)])
    assert [(r["duplicate"], r["score"]) for r in again] == [(True, 17), (True, 6)]
    assert await ranking(client, "arena") == [("p1", 17), ("p2", 6)]
    assert await _stored_events(app) == 4


async def test_batches_mixing_new_and_duplicate_events_match_a_model(
    app: Application, client: httpx.AsyncClient
) -> None:
    policies = {"summed": "sum", "best": "best"}
    for board, policy in policies.items():
        await put_board(client, board, policy=policy, windows=["all_time", "weekly"])
    model = _Model(policies)
    rng = random.Random(6)
    payloads: dict[_Event, int] = {}  # a retry repeats its event's score
    for _ in range(12):
        keys = [
            (
                rng.choice(list(policies)),
                f"p{rng.randrange(8)}",
                f"m{rng.randrange(6)}",  # few match ids: many duplicates, old and new
            )
            for _ in range(rng.randrange(1, 40))
        ]
        items = [_item(*key, payloads.setdefault(key, rng.randrange(100))) for key in keys]
        results = await _batch(client, items)
        for item, result in zip(items, results, strict=True):
            duplicate, score = model.submit(
                item["board"], item["player_id"], item["match_id"], item["score"]
            )
            assert (result["duplicate"], result["score"]) == (duplicate, score), (item, result)
    for board in policies:
        assert await ranking(client, board) == model.ranking(board)
    assert await _stored_events(app) == len(model.seen)


async def test_concurrent_batches_with_shared_events_lose_nothing(
    app: Application, client: httpx.AsyncClient
) -> None:
    await put_board(client, "arena", policy="sum")
    rng = random.Random(3)
    events = [("arena", f"p{i % 20}", f"m{i}", rng.randrange(1, 50)) for i in range(300)]
    # Every event is sent by two of the four clients, in different batches and orders.
    per_client: list[list[tuple[str, str, str, int]]] = [[] for _ in range(4)]
    for event in events:
        for n in rng.sample(range(4), 2):
            per_client[n].append(event)
    answers: list[dict[str, Any]] = []

    async def send(mine: list[tuple[str, str, str, int]]) -> None:
        rng.shuffle(mine)
        for start in range(0, len(mine), 25):
            answers.extend(await _batch(client, [_item(*e) for e in mine[start : start + 25]]))

    await asyncio.gather(*(send(mine) for mine in per_client))
    assert len(answers) == 2 * len(events)
    firsts = [(a["player_id"], a["match_id"]) for a in answers if not a["duplicate"]]
    assert sorted(firsts) == sorted((p, m) for _, p, m, _ in events)  # each exactly once
    totals: dict[str, int] = {}
    for _, player, _, score in events:
        totals[player] = totals.get(player, 0) + score
    assert dict(await ranking(client, "arena")) == totals
    assert await _stored_events(app) == len(events)


async def test_requests_larger_than_a_commit_batch(settings: Settings, clock: ManualClock) -> None:
    """A request is never split over transactions; smaller ones share them up to the limit."""
    small = settings.model_copy(update={"commit_max_batch": 3})
    async with open_app(small, clock) as app, open_client(app) as client:
        await put_board(client, "arena", policy="sum")
        batches = [
            [_item("arena", f"p{n}", f"m{i}", 1) for i in range(size)]
            for n, size in enumerate([5, 1, 2, 7, 1, 3])
        ]
        answers = await asyncio.gather(*(_batch(client, items) for items in batches))
        for items, results in zip(batches, answers, strict=True):
            assert [r["score"] for r in results] == list(range(1, len(items) + 1))
        assert await ranking(client, "arena") == [
            ("p3", 7),
            ("p0", 5),
            ("p5", 3),
            ("p2", 2),
            ("p1", 1),
            ("p4", 1),
        ]


async def test_a_standing_changed_since_it_was_read_is_a_conflict(service: Rankline) -> None:
    """Two writers (workers) that read the same standing: the second write is refused, so
    the batch is planned again instead of overwriting the first (a lost update)."""
    lb = LeaderboardId("arena", "all_time", "all", "global")
    async with service.store.transaction() as tx:
        await tx.write_standings([(lb, "p1", 10, 1, 1, None), (lb, "p2", 20, 2, 1, None)])
    async with service.store.transaction() as tx:
        stored = await tx.read_standings([(lb, "p1"), (lb, "p2"), (lb, "p3")])
        assert stored == {
            (lb, "p1"): (lb, "p1", 10, 1, 1, None),
            (lb, "p2"): (lb, "p2", 20, 2, 1, None),
        }
        await tx.write_standings([(lb, "p1", 11, 3, 2, None)])
    with pytest.raises(WriteConflict):  # p1 is at revision 2 now, not 1
        async with service.store.transaction() as tx:
            await tx.write_standings([(lb, "p2", 21, 4, 2, None), (lb, "p1", 12, 4, 2, None)])
    with pytest.raises(WriteConflict):  # p2 exists: it cannot be inserted again
        async with service.store.transaction() as tx:
            await tx.write_standings([(lb, "p2", 22, 5, 1, None)])
    async with service.store.transaction() as tx:
        after = await tx.read_standings([(lb, "p1"), (lb, "p2")])
    assert after == {(lb, "p1"): (lb, "p1", 11, 3, 2, None), (lb, "p2"): (lb, "p2", 20, 2, 1, None)}


async def test_a_duplicate_event_is_a_conflict_and_the_batch_leaves_nothing(
    service: Rankline,
) -> None:
    """The unique event key, enforced by the database (another worker stored the same
    match first): the driver's integrity error becomes a conflict, so the batch is planned
    again, and nothing of the failed transaction stays."""
    lb = LeaderboardId("arena", "all_time", "all", "global")
    first = ScoreEvent("arena", "p1", "m1", 10, 1, 1, True)
    async with service.store.transaction() as tx:
        await tx.insert_events([first])
    with pytest.raises(WriteConflict):
        async with service.store.transaction() as tx:
            await tx.write_standings([(lb, "p9", 5, 1, 1, None)])
            await tx.insert_events([ScoreEvent("arena", "p2", "m1", 7, 1, 1, True), first])
    async with service.store.transaction() as tx:
        assert await tx.read_standings([(lb, "p9")]) == {}
        assert await tx.existing_events([("arena", "p1", "m1"), ("arena", "p2", "m1")]) == {
            ("arena", "p1", "m1"): first
        }
