"""Asynchronous submissions (``Prefer: respond-async``): 202 once durable in the ingestion
log, applied behind it exactly once, reads given ``after=<token>`` include them, what cannot
be applied goes to the dead letters; a stopped applier stops at once. On every backend
stack, but for the checks of a token itself (a malformed one, one never applied), which are
the HTTP edge's, and a stop on the NATS log (the machine's NATS on 127.0.0.1:4222)."""

from __future__ import annotations

import asyncio
import shutil
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from helpers_api import (
    AUTH,
    assert_problem,
    get_json,
    open_app,
    open_client,
    put_board,
    serve,
    submit,
)
from helpers_brokers import NATS_URL, drop_nats_log
from helpers_procs import cli_env, run_cli
from rankline import ManualClock, Settings
from rankline.http.app import Application
from rankline.log.nats import NatsLog
from rankline.ratings.rated import MatchPayload, MatchPlayer, match_record
from rankline.writing import ingest as ingest_module
from rankline.writing import records
from rankline.writing.writer import Submission

ASYNC = {**AUTH, "Prefer": "respond-async"}


async def _post_async(client: httpx.AsyncClient, board: str, body: dict[str, Any]) -> str:
    response = await client.post(f"/v1/boards/{board}/scores", json=body, headers=ASYNC)
    assert response.status_code == 202, response.text
    answer = response.json()
    assert answer["accepted"] == 1 and answer["token"]
    token: str = answer["token"]
    return token


async def test_an_async_score_is_202_and_a_read_after_its_token_includes_it(
    client: httpx.AsyncClient,
) -> None:
    await put_board(client, "arena", windows=["all_time", "daily"], scopes=["region"])
    body = {"player_id": "p1", "score": 70, "match_id": "a1", "scopes": {"region": "EU"}}
    token = await _post_async(client, "arena", body)
    player = await get_json(client, "/v1/boards/arena/players/p1", after=token)
    assert (player["score"], player["rank"]) == (70, 1)
    daily = await get_json(
        client, "/v1/boards/arena/players/p1", after=token, window="daily", scope="region:EU"
    )
    assert daily["score"] == 70
    # the same submission again, synchronously: a retry, recognised as such
    again = await client.post("/v1/boards/arena/scores", json=body, headers=AUTH)
    assert again.status_code == 200 and again.json()["duplicate"] is True


async def test_tokens_joined_with_an_underscore_wait_for_all_of_them(
    client: httpx.AsyncClient,
) -> None:
    """An upload sent in several requests is answered with their tokens joined by ``_`` (the
    TypeScript client does so): a read given that one token includes every request."""
    for board in ("arena", "blitz"):  # two partitions of the log (crc32 % 16: 11 and 4)
        await put_board(client, board)
    first = await _post_async(client, "arena", {"player_id": "p1", "score": 5, "match_id": "j1"})
    second = await _post_async(client, "blitz", {"player_id": "p2", "score": 6, "match_id": "j2"})
    joined = f"{first}_{second}"
    assert len(ingest_module.parse_token(joined)) == 2
    for board, player, score in (("arena", "p1", 5), ("blitz", "p2", 6)):
        read = await get_json(client, f"/v1/boards/{board}/players/{player}", after=joined)
        assert read["score"] == score


async def test_an_async_batch_takes_the_valid_items_and_refuses_the_others(
    client: httpx.AsyncClient,
) -> None:
    await put_board(client, "arena")
    items = [
        {"board": "arena", "player_id": f"p{i}", "score": i, "match_id": f"b{i}"} for i in range(5)
    ]
    items.insert(2, {"board": "arena", "player_id": "bad", "score": 1.5, "match_id": "x"})
    items.append({"board": "nowhere", "player_id": "p9", "score": 1, "match_id": "y"})
    response = await client.post("/v1/scores/batch", json={"scores": items}, headers=ASYNC)
    assert response.status_code == 202, response.text
    answer = response.json()
    assert answer["accepted"] == 5
    results = answer["results"]
    assert [r["accepted"] for r in results] == [True, True, False, True, True, True, False]
    assert results[2]["error"]["status"] == 422 and results[6]["error"]["status"] == 404
    top = await get_json(client, "/v1/boards/arena/top", after=answer["token"])
    assert [(e["player_id"], e["score"]) for e in top["entries"]] == [
        (f"p{i}", i) for i in reversed(range(5))
    ]


async def test_a_duplicate_storm_counts_once(settings: Settings, clock: ManualClock) -> None:
    """The same batch from 8 clients at once, asynchronously and synchronously, then again,
    and again from both kinds after a restart: a sum board counts each submission once."""
    items = [
        {"board": "xp", "player_id": f"p{i % 10}", "score": 1 + i, "match_id": f"m{i}"}
        for i in range(200)
    ]
    expected = {f"p{p}": sum(1 + i for i in range(200) if i % 10 == p) for p in range(10)}

    async def send(client: httpx.AsyncClient, n: int) -> str | None:
        headers = ASYNC if n % 2 == 0 else AUTH
        response = await client.post("/v1/scores/batch", json={"scores": items}, headers=headers)
        assert response.status_code in (200, 202), response.text
        return response.json().get("token")

    async def storm(client: httpx.AsyncClient, senders: int) -> None:
        tokens = [t for t in await asyncio.gather(*(send(client, n) for n in range(senders))) if t]
        tokens += [t for t in [await send(client, 0)] if t]
        for token in tokens:
            await get_json(client, "/v1/boards/xp/top", after=token)
        top = await get_json(client, "/v1/boards/xp/top")
        assert {e["player_id"]: e["score"] for e in top["entries"]} == expected

    async with serve(settings, clock) as client:
        await put_board(client, "xp", policy="sum")
        await storm(client, 8)
    async with serve(settings, clock) as client:
        await storm(client, 4)


async def test_what_cannot_be_applied_is_a_dead_letter_and_the_partition_goes_on(
    client: httpx.AsyncClient, app: Application
) -> None:
    await put_board(client, "arena")
    await submit(client, "arena", "p1", 10, match="m1")
    # the same key with another payload: refused when applied, kept as a dead letter
    token = await _post_async(client, "arena", {"player_id": "p1", "score": 99, "match_id": "m1"})
    after = await _post_async(client, "arena", {"player_id": "p2", "score": 5, "match_id": "m2"})
    await get_json(client, "/v1/boards/arena/top", after=token)
    top = await get_json(client, "/v1/boards/arena/top", after=after)
    assert [(e["player_id"], e["score"]) for e in top["entries"]] == [("p1", 10), ("p2", 5)]
    letters = await app.state.service.dead_letters.newest(10)
    assert [(d.player, d.match_id) for d in letters] == [("p1", "m1")]
    assert letters[0].reason.startswith("key reused:")
    assert '"score":99' in letters[0].submission


@pytest.mark.edge
async def test_after_checks_its_token_and_gives_up_with_503(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    bad = await client.get("/v1/boards/arena/top", params={"after": "not-a-token"})
    assert_problem(bad, 422)
    never = await client.get("/v1/boards/arena/top", params={"after": "0.999999999"})
    problem = assert_problem(never, 503)
    assert never.headers["Retry-After"] and "not applied yet" in problem["detail"]


async def test_dead_letters_are_listed_by_the_command(tmp_path: Any, clock: ManualClock) -> None:
    data_dir = tmp_path / "data"
    settings = Settings(data_dir=data_dir, server_keys=AUTH["Authorization"].split()[-1])
    async with serve(settings, clock) as client:
        await put_board(client, "arena")
        await submit(client, "arena", "p1", 10, match="m1")
        token = await _post_async(
            client, "arena", {"player_id": "p1", "score": 11, "match_id": "m1"}
        )
        await get_json(client, "/v1/boards/arena/top", after=token)
    done = run_cli("dead-letters", env=cli_env(data_dir))
    assert done.returncode == 0, done.stderr
    assert "arena p1 m1: key reused:" in done.stdout
    assert "1 dead letter(s) in all" in done.stdout


async def test_the_applier_gathers_the_appends_announced_to_it(
    client: httpx.AsyncClient, app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requests that wait for their records to be applied announce their appends: a woken
    applier takes them in one step rather than one each; an announced append that never
    comes holds it back only briefly."""
    # room enough for the second append on a loaded machine (50 ms in service)
    monkeypatch.setattr(ingest_module, "_GATHER_SECONDS", 0.5)
    await put_board(client, "arena")
    ingest = app.state.service.ingest
    await get_json(
        client,
        "/v1/boards/arena/top",
        after=await _post_async(
            client, "arena", {"player_id": "p0", "score": 1, "match_id": "warm"}
        ),
    )
    gathered = []
    for attempt in range(3):  # an applier looking at its partitions right then takes one alone
        steps = ingest.steps
        with ingest.coming():
            first = await _post_async(
                client,
                "arena",
                {"player_id": "p1", "score": 10 + attempt, "match_id": f"a{attempt}"},
            )
            await asyncio.sleep(0.01)
            second = await _post_async(
                client,
                "arena",
                {"player_id": "p2", "score": 20 + attempt, "match_id": f"b{attempt}"},
            )
        top = await get_json(client, "/v1/boards/arena/top", after=second)
        await get_json(client, "/v1/boards/arena/top", after=first)
        assert [e["score"] for e in top["entries"]][:2] == [20 + attempt, 10 + attempt]
        gathered.append(ingest.steps - steps)
    assert 1 in gathered, gathered
    with ingest.coming():  # announced, never appended: the others still go through
        token = await _post_async(
            client, "arena", {"player_id": "p3", "score": 99, "match_id": "c"}
        )
        player = await get_json(client, "/v1/boards/arena/players/p3", after=token)
    assert player["score"] == 99


async def test_matches_posted_together_are_rated_in_one_step(
    client: httpx.AsyncClient, app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two match requests sent at once are rated by one step of the applier (their appends
    are gathered into one, or the applier waits for the second, announced as its request
    entered), each answered with its own rating changes."""
    monkeypatch.setattr(ingest_module, "_GATHER_SECONDS", 0.5)  # room on a loaded machine
    await put_board(
        client, "elo", policy="rating", rating={"system": "elo", "provisional_games": 0}
    )
    ingest = app.state.service.ingest

    async def match(match_id: str, winner: str, loser: str) -> dict[str, Any]:
        body = {
            "match_id": match_id,
            "results": [{"player_id": winner, "place": 1}, {"player_id": loser, "place": 2}],
        }
        response = await client.post("/v1/boards/elo/matches", json=body, headers=AUTH)
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        return answer

    await match("warm", "w0", "w1")
    gathered = []
    for attempt in range(3):  # an applier looking at its partitions right then takes one alone
        steps = ingest.steps
        first, second = await asyncio.gather(
            match(f"a{attempt}", f"p{attempt}", f"q{attempt}"),
            match(f"b{attempt}", f"r{attempt}", f"s{attempt}"),
        )
        gathered.append(ingest.steps - steps)
        for answer, winner in ((first, f"p{attempt}"), (second, f"r{attempt}")):
            rated = {r["player_id"]: r for r in answer["results"]}
            assert rated[winner]["rating"]["rating"] > rated[winner]["previous"]["rating"]
            assert rated[winner]["rating"]["games"] == 1
    assert 1 in gathered, gathered


# --- the log's records: one per submission (older), one per request and board, matches ----


def _item(player: str, match_id: str, score: int) -> records.Item:
    return records.Item(player, match_id, score, None, {}, {})


async def test_a_log_of_single_batch_and_match_records_applies_each_once(
    client: httpx.AsyncClient, app: Application
) -> None:
    """Records written one per submission (as before batch records) and batch records in
    one log: each submission is applied once, an equal repeat is a duplicate, a key reused
    with another payload is a dead letter at its batch record's position, and the match
    record beside them is rated."""
    await put_board(client, "arena", policy="sum")  # a sum: counting twice would show
    await put_board(
        client, "elo", policy="rating", rating={"system": "elo", "provisional_games": 0}
    )
    service = app.state.service
    ingest, clock = service.ingest, service.clock
    arena, now = service.boards.get("arena"), clock.now()

    def sub(player: str, match_id: str, score: int) -> Submission:
        return Submission(arena, player, match_id, score, now, now, at_given=False)

    singles = [
        records.record_of(sub("p1", "m1", 10)),
        records.record_of(sub("p2", "m2", 20)),
    ]
    match = MatchPayload("g1", now, now, False, [MatchPlayer("w", 1), MatchPlayer("l", 2)])
    first = await ingest.append([*singles, match_record("elo", match)])
    items = [
        _item("p1", "m3", 5),
        _item("p3", "m4", 7),
        _item("p1", "m3", 5),  # an equal repeat: a duplicate
        _item("p2", "m2", 99),  # the key of a single record, another payload
        _item("p1", "m1", 11),  # and again
        _item("p2", "m5", 1),
    ]
    [record] = records.batch_records("arena", now, items)
    assert records.is_batch_record(record)
    token = await ingest.append([record])
    top = await get_json(client, "/v1/boards/arena/top", after=f"{first}_{token}")
    assert {e["player_id"]: e["score"] for e in top["entries"]} == {"p1": 15, "p2": 21, "p3": 7}
    rated = await get_json(client, "/v1/boards/elo/top", after=first)
    assert [e["player_id"] for e in rated["entries"]] == ["w", "l"]
    letters = await service.dead_letters.newest(10)
    [position] = ingest_module.parse_token(token).values()
    assert sorted((d.player, d.match_id, d.position) for d in letters) == [
        ("p1", "m1", position),
        ("p2", "m2", position),
    ]
    assert all(d.reason.startswith("key reused:") for d in letters)
    assert {d.submission.count('"score":') for d in letters} == {1}
    assert any('"score":99' in d.submission for d in letters)


def test_batch_records_are_cut_to_a_size_every_engine_takes_and_keyed_by_content() -> None:
    heavy = {"note": "x" * 1000}
    items = [records.Item(f"p{i}", f"m{i}", i, None, {}, heavy) for i in range(1000)]
    cut = records.batch_records("arena", 1, items)
    assert len(cut) > 1
    assert all(len(r.payload) <= records.BATCH_BYTES + 64 for r in cut)
    decoded = [msgspec.msgpack.decode(r.payload, type=records.BatchPayload) for r in cut]
    assert [i for d in decoded for i in d.items] == items  # all of them, in order
    # the same request later (another receive time): the same keys, so the log keeps it once
    again = records.batch_records("arena", 2, items)
    assert [r.key for r in again] == [r.key for r in cut]
    assert [r.payload for r in again] != [r.payload for r in cut]
    # another payload: another key
    other = records.batch_records("arena", 1, [*items[:-1], _item("p999", "m999", 1)])
    assert other[-1].key != cut[-1].key
    assert len({r.key for r in cut}) == len(cut)
    assert all(r.key.startswith("arena/batch/") for r in cut)


async def test_an_identical_retry_of_an_async_batch_is_kept_once(
    client: httpx.AsyncClient, app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same batch twice: the log keeps it once (the same token); the applier, cut into
    runs of a few submissions, still applies each once."""
    monkeypatch.setattr(ingest_module, "_READ_LIMIT", 4)
    await put_board(client, "arena", policy="sum")
    await put_board(client, "blitz", policy="sum")
    items = [
        {"board": board, "player_id": f"p{i % 3}", "score": 1 + i, "match_id": f"r{i}"}
        for i in range(9)
        for board in ("arena", "blitz")
    ]
    tokens = []
    for _ in range(2):
        response = await client.post("/v1/scores/batch", json={"scores": items}, headers=ASYNC)
        assert response.status_code == 202, response.text
        tokens.append(response.json()["token"])
    assert tokens[0] == tokens[1]
    singles = [  # single records after them
        await _post_async(client, "arena", {"player_id": "q", "score": 100, "match_id": f"s{i}"})
        for i in range(3)
    ]
    expected = {f"p{p}": sum(1 + i for i in range(9) if i % 3 == p) for p in range(3)}
    for board in ("arena", "blitz"):
        top = await get_json(client, f"/v1/boards/{board}/top", after=tokens[0])
        scores = {e["player_id"]: e["score"] for e in top["entries"] if e["player_id"] != "q"}
        assert scores == expected
    player = await get_json(client, "/v1/boards/arena/players/q", after=singles[-1])
    assert player["score"] == 300
    assert await app.state.service.dead_letters.count() == 0


async def test_a_worker_that_does_not_apply_leaves_the_log_to_one_that_does(
    settings: Settings, clock: ManualClock
) -> None:
    """``log_apply=false``: the worker takes asynchronous submissions (202) and applies none
    (a read after the token is 503); a worker that applies the log takes them from there."""
    body = {"scores": [{"board": "arena", "player_id": "p1", "score": 5, "match_id": "m1"}]}
    async with serve(settings.model_copy(update={"log_apply": False}), clock) as client:
        await put_board(client, "arena")
        response = await client.post("/v1/scores/batch", json=body, headers=ASYNC)
        assert response.status_code == 202, response.text
        token = response.json()["token"]
        pending = await client.get("/v1/boards/arena/top", params={"after": token})
        assert_problem(pending, 503)
        assert (await get_json(client, "/v1/boards/arena/top"))["entries"] == []
    async with serve(settings, clock) as client:
        player = await get_json(client, "/v1/boards/arena/players/p1", after=token)
        assert player["score"] == 5


async def test_an_applier_on_nats_stopped_as_its_fetch_is_answered_stops_at_once(
    tmp_path: Path, migrated_template: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The applier is stopped while its fetch from NATS waits for the answer, and the answer
    lands in the same turn of the event loop as the stop. nats-py waits for every answer with
    ``asyncio.wait_for``, which on Python 3.11 then returns the answer and drops the
    cancellation (CPython gh-86296): the applier ran on, and a server's stop waited out its
    10 s bound. The stop is prompt, and what was appended before is applied once after a
    restart (a sum board would count a record applied twice)."""
    name = "t" + uuid.uuid4().hex[:12]
    settings = Settings(
        data_dir=tmp_path / "data",
        server_keys=AUTH["Authorization"].split()[-1],
        log_url=NATS_URL,
        log_name=name,
        log_partitions=4,
    )
    shutil.copytree(migrated_template, settings.data_dir)
    read = NatsLog.read
    fetched: asyncio.Future[tuple[asyncio.Future[Any], Any]] = asyncio.Future()

    async def answered_as_nats_py_does(log: NatsLog, partition: int, after: int, limit: int) -> Any:
        """The first records fetched are handed over as nats-py hands over an answer: on a
        future its reader resolves, awaited with ``asyncio.wait_for``; the test resolves it."""
        records = await read(log, partition, after, limit)
        if not records or fetched.done():
            return records
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        fetched.set_result((answer, records))
        return await asyncio.wait_for(answer, 5.0)

    monkeypatch.setattr(NatsLog, "read", answered_as_nats_py_does)
    items = [
        {"board": "arena", "player_id": f"p{i % 5}", "score": 1 + i, "match_id": f"m{i}"}
        for i in range(20)
    ]
    expected = {f"p{p}": sum(1 + i for i in range(20) if i % 5 == p) for p in range(5)}
    try:
        async with open_app(settings, clock) as app, open_client(app) as client:
            await put_board(client, "arena", policy="sum")
            response = await client.post("/v1/scores/batch", json={"scores": items}, headers=ASYNC)
            assert response.status_code == 202, response.text
            token = response.json()["token"]
            answer, records = await asyncio.wait_for(fetched, 10)
            started = time.perf_counter()
            answer.set_result(records)
            async with asyncio.timeout(10):  # (it waited for ever before)
                # awaited here, not in a task of its own: its cancel lands in this very turn
                await app.state.service.ingest.close()
            stopped = time.perf_counter() - started
            assert stopped < 2.5, f"the applier took {stopped:.1f} s to stop"
        async with open_app(settings, clock) as app, open_client(app) as client:
            for _ in range(10):  # until the new applier owns the partition
                standing = await client.get("/v1/boards/arena/top", params={"after": token})
                if standing.status_code != 503:
                    break
            assert standing.status_code == 200, standing.text
            scores = {e["player_id"]: e["score"] for e in standing.json()["entries"]}
            assert scores == expected
            assert await app.state.service.dead_letters.count() == 0
    finally:
        await drop_nats_log(name)
