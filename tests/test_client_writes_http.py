"""Client writes over HTTP: ``POST /v1/boards/{board_id}/scores`` with a player token (HS256
tokens minted by the test) is written only where the board's ``client_writes`` allows it,
within its limits and behind its validator; every refusal is problem+json with its status;
the refusals are listed at ``GET /v1/audit``; a server key's writes go on as before."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from helpers_api import AUTH, assert_problem, open_app, open_client, put_board, submit
from helpers_idp import SECRET, claims, mint_hs256
from helpers_webhook_receiver import receiver
from rankline import ManualClock, Settings

VALIDATOR_SECRET = "validator-secret"


def bearer(player: str, **extra: Any) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_hs256(claims(player, **extra))}"}


@asynccontextmanager
async def serving(settings: Settings, clock: ManualClock) -> AsyncIterator[httpx.AsyncClient]:
    with_tokens = settings.model_copy(update={"player_jwt_secret": SecretStr(SECRET)})
    async with open_app(with_tokens, clock) as app, open_client(app) as client:
        yield client


async def _post(
    client: httpx.AsyncClient, player: str, score: int, match_id: str, **headers: str
) -> httpx.Response:
    return await client.post(
        "/v1/boards/arena/scores",
        json={"score": score, "match_id": match_id},
        headers={**bearer(player), **headers},
    )


async def _top(client: httpx.AsyncClient) -> list[tuple[str, int]]:
    entries = (await client.get("/v1/boards/arena/top")).json()["entries"]
    return [(e["player_id"], e["score"]) for e in entries]


async def _rejections(client: httpx.AsyncClient) -> list[dict[str, Any]]:
    answer = await client.get("/v1/audit", params={"board": "arena"}, headers=AUTH)
    assert answer.status_code == 200, answer.text
    return [i for i in answer.json()["items"] if i["action"] == "score.rejected"]


@pytest.mark.edge
async def test_a_player_writes_only_where_the_board_allows_it(
    settings: Settings, clock: ManualClock
) -> None:
    async with serving(settings, clock) as client:
        await put_board(client, "arena")
        refused = await _post(client, "ann", 100, "m-1")
        assert "does not accept scores from players" in assert_problem(refused, 403)["detail"]
        await put_board(client, "arena", expect=200, client_writes={})
        written = await _post(client, "ann", 100, "m-1")
        assert written.status_code == 200, written.text
        assert (written.json()["player_id"], written.json()["applied"]) == ("ann", True)
        named = await client.post(
            "/v1/boards/arena/scores",
            json={"player_id": "ann", "score": 120, "match_id": "m-2"},
            headers=bearer("ann"),
        )
        assert named.status_code == 200, named.text
        as_bob = await client.post(
            "/v1/boards/arena/scores",
            json={"player_id": "bob", "score": 999, "match_id": "m-3"},
            headers=bearer("ann"),
        )
        assert_problem(as_bob, 403)
        # answered once written, whatever the Prefer header asks
        later = await _post(client, "ann", 130, "m-4", prefer="respond-async")
        assert later.status_code == 200 and later.json()["score"] == 130
        # a key writes as before: for any player, no client limits
        await submit(client, "arena", "bob", 5000)
        assert await _top(client) == [("bob", 5000), ("ann", 130)]


@pytest.mark.edge
async def test_each_limit_refuses_with_its_status(settings: Settings, clock: ManualClock) -> None:
    async with serving(settings, clock) as client:
        limits = {"max_per_minute": 2, "max_gain": 1000}
        await put_board(client, "arena", min_score=0, max_score=5000, client_writes=limits)
        assert (await _post(client, "ann", 1000, "m-1")).status_code == 200
        too_far = await _post(client, "ann", 2001, "m-2")
        problem = assert_problem(too_far, 422)
        assert problem["type"].endswith("/score-rejected")
        assert "above max_gain 1000" in problem["reason"]
        too_high = await _post(client, "ann", 5001, "m-3")
        assert_problem(too_high, 422)
        assert (await _post(client, "ann", 2000, "m-4")).status_code == 200
        limited = await _post(client, "ann", 2500, "m-5")
        problem = assert_problem(limited, 429)
        assert "at most 2 submissions a minute" in problem["detail"]
        assert int(limited.headers["retry-after"]) == 60
        retried = await _post(client, "ann", 2000, "m-4")  # a retry: answered as the first time
        assert retried.status_code == 200 and retried.json()["duplicate"] is True
        clock.advance(60)
        assert (await _post(client, "ann", 2500, "m-5")).status_code == 200
        assert await _top(client) == [("ann", 2500)]
        listed = await _rejections(client)
        assert [(i["actor"], i["match_id"], i["detail"]["rule"]) for i in listed] == [
            ("player:ann", "m-3", "range"),
            ("player:ann", "m-2", "gain"),
        ]
        metrics = (await client.get("/metrics")).text
        assert 'rankline_client_writes_rejected_total{reason="gain"}' in metrics


@pytest.mark.edge
async def test_the_validator_judges_with_the_tokens_claims(
    settings: Settings, clock: ManualClock
) -> None:
    def verdict(body: bytes) -> tuple[int, bytes]:
        sent = json.loads(body)
        if sent["claims"].get("level", 0) < 5 and sent["score"] > 100:
            return 200, b'{"accept": false, "reason": "too high for the level"}'
        if sent["score"] == 13:
            time.sleep(3.0)  # past the timeout
        return 200, b'{"accept": true}'

    with receiver(answer=verdict) as (url, got):
        async with serving(settings, clock) as client:
            validator = {"url": url, "secret": VALIDATOR_SECRET, "timeout_ms": 1500}
            await put_board(client, "arena", client_writes={"validator": validator})
            low = {"Authorization": f"Bearer {mint_hs256(claims('ann', level=2))}"}
            high = {"Authorization": f"Bearer {mint_hs256(claims('bob', level=9))}"}
            body = {"score": 500, "match_id": "m-1"}
            rejected = await client.post("/v1/boards/arena/scores", json=body, headers=low)
            problem = assert_problem(rejected, 422)
            assert problem["reason"] == "too high for the level"
            accepted = await client.post("/v1/boards/arena/scores", json=body, headers=high)
            assert accepted.status_code == 200, accepted.text
            slow = {"score": 13, "match_id": "m-2"}
            unjudged = await client.post("/v1/boards/arena/scores", json=slow, headers=high)
            assert int(assert_problem(unjudged, 503)["status"]) == 503
            assert unjudged.headers["retry-after"]
            assert await _top(client) == [("bob", 500)]
            assert [i["reason"] for i in await _rejections(client)][-1] == (
                "too high for the level"
            )
        sent = [json.loads(b) for _, b, _ in got.requests[:2]]
        assert [(s["player_id"], s["claims"]["sub"], s["claims"]["level"]) for s in sent] == [
            ("ann", "ann", 2),
            ("bob", "bob", 9),
        ]
