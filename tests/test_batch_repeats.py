"""A batch whose items repeat (board, player, match_id), with equal and with different
payloads, over two boards, sent synchronously and asynchronously: each item's answer, and
the standings and dead letters once the asynchronous one is applied. On every stack (its
ingestion log on SQL: a SQLite file of its own, PostgreSQL, MariaDB), and with the log on
NATS JetStream and on a Kafka-protocol broker."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers_api import AUTH, open_app, open_client, put_board
from helpers_brokers import NATS_URL, drop_nats_log, tansu_broker
from rankline import ManualClock, Settings
from rankline.http.app import Application
from rankline.service import Rankline

ASYNC = {**AUTH, "Prefer": "respond-async"}

# (board, player, match, score): the first of each key wins; an equal repeat is a duplicate;
# a different payload under a key taken is refused (409 synchronously, a dead letter after)
ITEMS = [
    ("arena", "p1", "m1", 10),
    ("blitz", "p1", "m1", 20),  # the same player and match on another board: its own key
    ("arena", "p1", "m1", 10),  # equal: a duplicate
    ("arena", "p1", "m1", 11),  # different: key reused
    ("blitz", "p2", "m2", 5),
    ("blitz", "p1", "m1", 21),  # different: key reused
    ("blitz", "p2", "m2", 5),  # equal: a duplicate
    ("arena", "p2", "m3", 7),
]
DUPLICATES, REUSED = {2, 6}, {3, 5}


def _body(prefix: str) -> dict[str, Any]:
    return {
        "scores": [
            {"board": b, "player_id": p, "match_id": f"{prefix}{m}", "score": s}
            for b, p, m, s in ITEMS
        ]
    }


async def _standings(client: httpx.AsyncClient, after: str | None = None) -> dict[str, Any]:
    """Each board's scores; given ``after``, once it is applied (a Kafka log's partitions
    may take a while to find their owner: a read after answers 503 until then)."""
    found = {}
    for board in ("arena", "blitz"):
        params = {} if after is None else {"after": after}
        for _ in range(30):
            response = await client.get(f"/v1/boards/{board}/top", params=params)
            if response.status_code != 503:
                break
        assert response.status_code == 200, response.text
        found[board] = {e["player_id"]: e["score"] for e in response.json()["entries"]}
    return found


async def _repeats(client: httpx.AsyncClient, service: Rankline) -> None:
    for board in ("arena", "blitz"):
        await put_board(client, board, policy="sum")  # a sum: counting twice would show
    response = await client.post("/v1/scores/batch", json=_body("s"), headers=AUTH)
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert [r["index"] for r in results] == list(range(len(ITEMS)))
    for i, result in enumerate(results):
        if i in REUSED:
            assert result["error"]["status"] == 409, result
            assert "different payload" in result["error"]["detail"]
        else:
            assert result["duplicate"] is (i in DUPLICATES), result
            assert result["applied"] is (i not in DUPLICATES), result
    once = {"arena": {"p1": 10, "p2": 7}, "blitz": {"p1": 20, "p2": 5}}
    assert await _standings(client) == once

    tokens = []
    for _ in range(2):  # the same request again: the log keeps it once
        response = await client.post("/v1/scores/batch", json=_body("a"), headers=ASYNC)
        assert response.status_code == 202, response.text
        answer = response.json()
        assert answer["accepted"] == len(ITEMS)
        assert answer["results"] == [{"index": i, "accepted": True} for i in range(len(ITEMS))]
        tokens.append(answer["token"])
    assert tokens[0] == tokens[1]
    twice = {board: {p: 2 * s for p, s in scores.items()} for board, scores in once.items()}
    assert await _standings(client, after=tokens[0]) == twice
    letters = await service.dead_letters.newest(10)
    assert sorted((d.board, d.player, d.match_id) for d in letters) == [
        ("arena", "p1", "am1"),
        ("blitz", "p1", "am1"),
    ]
    assert all(d.reason.startswith("key reused:") for d in letters)
    kept = {d.board: d.submission for d in letters}
    assert '"score":11' in kept["arena"] and '"score":21' in kept["blitz"]
    # synchronously again, after the asynchronous one: each a duplicate or refused
    response = await client.post("/v1/scores/batch", json=_body("a"), headers=AUTH)
    again = response.json()["results"]
    assert [("error" in r) for r in again] == [i in REUSED for i in range(len(ITEMS))]
    assert all(r["duplicate"] for r in again if "error" not in r)
    assert await _standings(client) == twice


async def test_repeated_keys_in_a_batch_count_once_sync_and_async(
    client: httpx.AsyncClient, app: Application
) -> None:
    await _repeats(client, app.state.service)


@pytest.fixture(scope="module")
def kafka_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with tansu_broker(tmp_path_factory.mktemp("tansu")) as url:
        yield url


@pytest.mark.parametrize("engine", ["nats", "kafka"])
async def test_repeated_keys_count_once_with_the_log_on_a_broker(
    engine: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    migrated_template: Path,
    clock: ManualClock,
) -> None:
    data_dir = tmp_path / "data"
    shutil.copytree(migrated_template, data_dir)
    name = "t" + uuid.uuid4().hex[:12]
    log_url = NATS_URL if engine == "nats" else request.getfixturevalue("kafka_url")
    settings = Settings(
        data_dir=data_dir,
        server_keys=AUTH["Authorization"].split()[-1],
        log_url=log_url,
        log_name=name,
        log_partitions=4,
    )
    try:
        async with open_app(settings, clock) as app, open_client(app) as client:
            await _repeats(client, app.state.service)
    finally:
        if engine == "nats":
            await drop_nats_log(name)
