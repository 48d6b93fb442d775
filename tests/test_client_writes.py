"""Client writes on every stack, at the service: a player's own score is written only on a
board with ``client_writes``, within ``max_per_minute`` (counted from the store), ``max_gain``
and ``min_score``/``max_score``, and behind the board's validator (a real receiver on
loopback that checks the signature); a retry is counted once and not judged again; every
refusal that judges a score is kept as a ``score.rejected`` audit entry and counted; a key's
writes are not limited."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import msgspec
import pytest
from prometheus_client import REGISTRY

from helpers_api import AUTH, get_json, put_board
from helpers_webhook_receiver import Received, receiver
from rankline import ManualClock, Rankline
from rankline.answers import SubmitOut
from rankline.audit.requests import AuditRequest
from rankline.boards import Board, BoardSpec
from rankline.callers import Player
from rankline.errors import (
    Forbidden,
    InvalidInput,
    KeyReused,
    NotFound,
    RanklineError,
    ScoreRejected,
    TooManyRequests,
    Unavailable,
)
from rankline.http.app import Application
from rankline.types import LeaderboardId

SECRET = "validator-secret"
CLAIMS = {"sub": "ann", "iss": "https://idp.example", "aud": "game", "level": 7}
ANN = Player("ann", time.time() + 3600, CLAIMS)
BOB = Player("bob", time.time() + 3600, {"sub": "bob"})


async def _board(service: Rankline, board_id: str = "arena", **spec: Any) -> None:
    await service.board_changes.put(board_id, msgspec.convert(spec, BoardSpec))


async def _client(
    service: Rankline,
    player: Player,
    score: int,
    match_id: str,
    board_id: str = "arena",
    named: str | None = None,
) -> SubmitOut:
    return await service.client_writes.submit(
        player,
        board_id,
        named=named,
        match_id=match_id,
        score=score,
        at=None,
        scopes=None,
        metadata=None,
        subscore=None,
    )


async def _score(service: Rankline, player: str, board_id: str = "arena") -> int | None:
    leaderboard = LeaderboardId(board_id, "all_time", "all", "global")
    position = await service.index.position(leaderboard, player)
    board = service.boards.get(board_id)
    return None if position is None else board.keys.decode(position.key)[0]


async def _rejections(service: Rankline) -> list[tuple[str, str | None, str | None, str]]:
    """(actor, match id, reason, rule) of the ``score.rejected`` audit entries, oldest first."""
    page = await service.audit.page(AuditRequest())
    return [
        (i.actor, i.match_id, i.reason, i.detail["rule"])
        for i in reversed(page.items)
        if i.action == "score.rejected"
    ]


def _rejected_count(reason: str) -> float:
    value = REGISTRY.get_sample_value("rankline_client_writes_rejected_total", {"reason": reason})
    return value or 0.0


def _problem(error: RanklineError) -> dict[str, Any]:
    problem = error.problem()
    assert problem["status"] == error.status and problem["detail"], problem
    return problem


async def test_a_board_without_client_writes_refuses_a_player(service: Rankline) -> None:
    await _board(service)
    before = _rejected_count("off")
    with pytest.raises(Forbidden) as refused:
        await _client(service, ANN, 100, "m-1")
    assert "does not accept scores from players" in _problem(refused.value)["detail"]
    assert _rejected_count("off") == before + 1
    assert await _score(service, "ann") is None
    # the server-authoritative path, as today
    sub = await service.scores.prepare(
        "arena", player="ann", match_id="m-1", score=100, at=None, scopes=None, metadata=None
    )
    [answer] = await service.scores.submit([sub])
    assert isinstance(answer, SubmitOut) and answer.applied
    assert await _score(service, "ann") == 100


async def test_a_player_writes_their_own_score_only(service: Rankline) -> None:
    await _board(service, client_writes={})
    with pytest.raises(Forbidden) as refused:
        await _client(service, ANN, 100, "m-1", named="bob")
    assert "'bob'" in _problem(refused.value)["detail"]
    answer = await _client(service, ANN, 100, "m-1", named="ann")
    assert (answer.player_id, answer.applied, answer.score) == ("ann", True, 100)
    answer = await _client(service, BOB, 90, "m-1")  # the token's player, the body naming none
    assert (answer.player_id, answer.score) == ("bob", 90)
    assert (await _score(service, "ann"), await _score(service, "bob")) == (100, 90)


async def test_max_per_minute_counts_a_player_and_a_retry_once(
    service: Rankline, clock: ManualClock
) -> None:
    await _board(service, client_writes={"max_per_minute": 3})
    first = await _client(service, ANN, 10, "m-1")
    again = await _client(service, ANN, 10, "m-1")  # a retry: the same answer, not counted
    assert (first.duplicate, again.duplicate, again.applied) == (False, True, False)
    clock.advance(20)
    await _client(service, ANN, 20, "m-2")
    await _client(service, ANN, 30, "m-3")
    await _client(service, BOB, 5, "m-1")  # another player has a minute of their own
    before = _rejected_count("rate")
    with pytest.raises(TooManyRequests) as limited:
        await _client(service, ANN, 40, "m-4")
    assert "at most 3 submissions a minute" in _problem(limited.value)["detail"]
    assert limited.value.retry_after == 40  # when m-1 (received 60 s before now - 40) leaves
    assert _rejected_count("rate") == before + 1
    retried = await _client(service, ANN, 30, "m-3")  # a retry over the limit: as answered
    assert retried.duplicate
    with pytest.raises(KeyReused):  # the same match id with another score is not a retry
        await _client(service, ANN, 31, "m-3")
    clock.advance(40)
    answer = await _client(service, ANN, 40, "m-4")
    assert answer.applied and await _score(service, "ann") == 40


async def test_a_burst_in_one_worker_does_not_slip_past_the_count(service: Rankline) -> None:
    await _board(service, client_writes={"max_per_minute": 3})
    results = await asyncio.gather(
        *(_client(service, ANN, i, f"burst-{i}") for i in range(10)), return_exceptions=True
    )
    written = [r for r in results if isinstance(r, SubmitOut)]
    limited = [r for r in results if isinstance(r, TooManyRequests)]
    assert (len(written), len(limited)) == (3, 7), results


async def test_max_gain_on_a_best_board(service: Rankline) -> None:
    await _board(service, windows=["all_time", "daily"], client_writes={"max_gain": 5000})
    before = _rejected_count("gain")
    with pytest.raises(ScoreRejected) as rejected:
        await _client(service, ANN, 5001, "m-1")  # from no score, as from 0
    problem = _problem(rejected.value)
    assert problem["status"] == 422 and "above max_gain 5000" in problem["reason"]
    await _client(service, ANN, 5000, "m-2")
    await _client(service, ANN, 10_000, "m-3")
    with pytest.raises(ScoreRejected):
        await _client(service, ANN, 15_001, "m-4")
    answer = await _client(service, ANN, 3, "m-5")  # a step down is no gain
    assert answer.applied is False and await _score(service, "ann") == 10_000
    assert _rejected_count("gain") == before + 2
    assert [(r[1], r[3]) for r in await _rejections(service)] == [("m-1", "gain"), ("m-4", "gain")]


async def test_max_gain_on_a_sum_board_and_an_ascending_board(service: Rankline) -> None:
    await _board(service, policy="sum", client_writes={"max_gain": 100})
    for match in range(3):
        await _client(service, ANN, 100, f"m-{match}")
    with pytest.raises(ScoreRejected):
        await _client(service, ANN, 101, "m-9")
    assert await _score(service, "ann") == 300
    # lower is better: a step is a step down, from 0 when there is no score yet
    await _board(service, "race", order="asc", client_writes={"max_gain": 100})
    await _client(service, ANN, 5000, "lap-1", board_id="race")
    await _client(service, ANN, 4900, "lap-2", board_id="race")
    with pytest.raises(ScoreRejected) as rejected:
        await _client(service, ANN, 4799, "lap-3", board_id="race")
    assert "a step of 101 on the current score 4900" in rejected.value.reason
    assert await _score(service, "ann", "race") == 4900


async def test_min_and_max_score_refuse_and_are_kept(service: Rankline) -> None:
    await _board(service, min_score=0, max_score=1000, client_writes={})
    before = _rejected_count("range")
    for score in (-1, 1001):
        with pytest.raises(InvalidInput) as refused:
            await _client(service, ANN, score, f"m{score}")
        assert _problem(refused.value)["status"] == 422
    assert _rejected_count("range") == before + 2
    assert [(r[0], r[3]) for r in await _rejections(service)] == [("player:ann", "range")] * 2
    await _client(service, ANN, 1000, "m-ok")
    assert await _score(service, "ann") == 1000


def _verdict(accept: bool, reason: str | None = None, status: int = 200) -> Any:
    body = json.dumps({"accept": accept, **({"reason": reason} if reason else {})}).encode()
    return lambda _: (status, body)


@pytest.fixture
def judge() -> Iterator[tuple[str, Received, dict[str, Any]]]:
    """A validator on loopback whose answer the test sets in ``state``: its verdict
    (``accept``, ``reason``), a ``status`` other than 200, a ``body`` that is no verdict, or a
    ``delay`` in seconds."""
    state: dict[str, Any] = {
        "accept": True,
        "reason": None,
        "status": 200,
        "body": None,
        "delay": 0.0,
    }

    def answer(_: bytes) -> tuple[int, bytes]:
        time.sleep(state["delay"])
        if state["body"] is not None:
            return state["status"], state["body"]
        verdict = {"accept": state["accept"], "reason": state["reason"]}
        return state["status"], json.dumps(verdict).encode()

    with receiver(answer=answer) as (url, got):
        yield url, got, state


def _signed(headers: dict[str, str], body: bytes) -> bool:
    expected = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    return headers["x-rankline-signature"] == f"sha256={expected}"


async def test_the_validator_receives_the_claims_signed_and_its_verdict_holds(
    service: Rankline, judge: tuple[str, Received, dict[str, Any]]
) -> None:
    url, got, state = judge
    validator = {"url": url, "secret": SECRET, "timeout_ms": 2000}
    await _board(service, client_writes={"validator": validator})
    answer = await _client(service, ANN, 700, "m-1")
    assert answer.applied and await _score(service, "ann") == 700
    [(headers, body, _)] = got.requests
    assert _signed(headers, body)
    assert headers["x-rankline-delivery"] == "arena/ann/m-1"
    sent = json.loads(body)
    assert sent["claims"] == CLAIMS
    assert {k: sent[k] for k in ("board", "player_id", "match_id", "score", "current_score")} == {
        "board": "arena",
        "player_id": "ann",
        "match_id": "m-1",
        "score": 700,
        "current_score": None,
    }
    state.update(accept=False, reason="impossible for level 7")
    before = _rejected_count("validator")
    with pytest.raises(ScoreRejected) as rejected:
        await _client(service, ANN, 900, "m-2")
    problem = _problem(rejected.value)
    assert (problem["status"], problem["reason"]) == (422, "impossible for level 7")
    assert json.loads(got.requests[-1][1])["current_score"] == 700
    assert _rejected_count("validator") == before + 1
    assert await _score(service, "ann") == 700
    assert await _rejections(service) == [
        ("player:ann", "m-2", "impossible for level 7", "validator")
    ]
    # a retry of the accepted submission is answered as it was, not judged again
    retried = await _client(service, ANN, 700, "m-1")
    assert retried.duplicate and len(got.requests) == 2


FAILURES = {
    "timeout": ({"delay": 3.0}, "no answer within 1000 ms"),
    "status": ({"status": 500}, "HTTP 500"),
    "redirect": ({"status": 302}, "HTTP 302"),
    "not a verdict": ({"body": b'{"accept": "yes"}'}, "not a verdict"),
    "not json": ({"body": b"<html>ok</html>"}, "not a verdict"),
}


@pytest.mark.cases
@pytest.mark.parametrize("failure", list(FAILURES))
async def test_a_validator_without_a_verdict_follows_on_error(
    service: Rankline, judge: tuple[str, Received, dict[str, Any]], failure: str
) -> None:
    url, got, state = judge
    answer, said = FAILURES[failure]
    state.update(answer)
    refusing = {"url": url, "secret": SECRET, "timeout_ms": 1000, "on_error": "reject"}
    await _board(service, client_writes={"validator": refusing})
    before = _rejected_count("validator_error")
    with pytest.raises(Unavailable) as refused:
        await _client(service, ANN, 100, "m-1")
    problem = _problem(refused.value)
    assert problem["status"] == 503 and "gave no verdict" in problem["detail"]
    assert await _score(service, "ann") is None
    assert _rejected_count("validator_error") == before + 1
    [(_, _, reason, rule)] = await _rejections(service)
    assert rule == "validator_error" and reason is not None
    assert said in reason
    accepting = {**refusing, "on_error": "accept"}
    await _board(service, client_writes={"validator": accepting})
    answer = await _client(service, ANN, 100, "m-1")
    assert answer.applied and await _score(service, "ann") == 100
    for _ in range(200):  # a slow validator records a request once it has answered it
        if len(got.requests) == 2:
            break
        await asyncio.sleep(0.05)
    assert len(got.requests) == 2


async def test_a_server_keys_writes_are_not_limited(service: Rankline) -> None:
    await _board(service, client_writes={"max_per_minute": 1, "max_gain": 10})
    for match, score in enumerate((1000, 5000, 9000)):
        sub = await service.scores.prepare(
            "arena",
            player="ann",
            match_id=f"server-{match}",
            score=score,
            at=None,
            scopes=None,
            metadata=None,
        )
        [answer] = await service.scores.submit([sub])
        assert isinstance(answer, SubmitOut) and answer.applied
    assert await _score(service, "ann") == 9000
    with pytest.raises(TooManyRequests):  # the minute counts the server's writes too
        await _client(service, ANN, 9005, "client-1")


@pytest.mark.parametrize(
    ("client_writes", "policy", "loc"),
    [
        ({"validator": {"url": "https://v.example/check"}}, "best", "secret"),
        ({"max_gain": 10}, "latest", "max_gain"),
        ({"max_gain": 10}, "first", "max_gain"),
    ],
)
def test_a_definition_that_cannot_hold_is_refused(
    client_writes: dict[str, Any], policy: str, loc: str
) -> None:
    spec = msgspec.convert({"policy": policy, "client_writes": client_writes}, BoardSpec)
    with pytest.raises(InvalidInput) as refused:
        Board.define("arena", spec)
    [error] = refused.value.errors or []
    assert error["loc"][:2] == ["body", "client_writes"] and error["loc"][-1] == loc


@pytest.mark.parametrize(
    "client_writes",
    [
        {"max_per_minute": 0},
        {"max_per_minute": 601},
        {"max_gain": 0},
        {"validator": {"url": "ftp://v.example", "secret": "s"}},
        {"validator": {"url": "https://v.example", "secret": "s", "timeout_ms": 49}},
        {"validator": {"url": "https://v.example", "secret": "s", "timeout_ms": 5001}},
        {"validator": {"url": "https://v.example", "secret": "s", "on_error": "retry"}},
        {"validator": {"url": "https://v.example", "secret": ""}},
        {"max_per_minute": 5, "owner": "me"},
    ],
)
def test_client_writes_outside_its_bounds_is_refused(client_writes: dict[str, Any]) -> None:
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"client_writes": client_writes}, BoardSpec)


@pytest.mark.edge
async def test_a_definition_shows_its_limits_never_the_secret(
    app: Application, client: httpx.AsyncClient
) -> None:
    service_of_app: Rankline = app.state.service
    await put_board(client, "arena", expect=201)
    validator = {"url": "https://v.example/check", "secret": SECRET}
    shown = await put_board(client, "arena", expect=200, client_writes={"validator": validator})
    assert shown["client_writes"] == {
        "max_per_minute": 10,
        "validator": {"url": "https://v.example/check", "timeout_ms": 300, "on_error": "reject"},
    }
    answer = await client.get("/v1/boards/arena", headers=AUTH)
    assert answer.status_code == 200 and SECRET not in answer.text
    audit = await client.get("/v1/audit", headers=AUTH)
    assert audit.status_code == 200 and "client_writes" in audit.text
    assert SECRET not in audit.text
    # stored with its secret, which every worker signs with
    [stored] = await service_of_app.store.load_boards()
    assert stored["client_writes"]["validator"]["secret"] == SECRET
    reloaded = Board(msgspec.convert(stored, BoardSpec)).spec.client_writes
    assert reloaded == service_of_app.boards.get("arena").spec.client_writes
    # a PUT without it turns client writes off again
    shown = await put_board(client, "arena", expect=200)
    assert "client_writes" not in shown
    document = await get_json(client, "/openapi.json")
    schemas = document["components"]["schemas"]
    assert set(schemas["ClientWritesSpec"]["properties"]) == {
        "max_per_minute",
        "max_gain",
        "validator",
    }
    assert sorted(schemas["ValidatorSpec"]["properties"]["on_error"]["enum"]) == [
        "accept",
        "reject",
    ]
    assert "reason" in schemas["Problem"]["properties"]


async def test_a_refused_player_takes_no_place_in_a_cohort(service: Rankline) -> None:
    await _board(service, cohort_size=1, client_writes={"max_gain": 100})
    board = service.boards.get("arena")
    with pytest.raises(ScoreRejected):
        await _client(service, ANN, 101, "m-1")
    with pytest.raises(NotFound):
        await service.cohorts.scope_for(board, None, None, "ann")
    await _client(service, BOB, 50, "m-1")
    await _client(service, ANN, 100, "m-2")
    assert await service.cohorts.scope_for(board, None, None, "bob") == "cohort:1"
    assert await service.cohorts.scope_for(board, None, None, "ann") == "cohort:2"
