"""Player tokens over HTTP: a token from the studio's identity provider (a JSON Web Key Set
served on loopback by the test, or a shared HS256 secret) reads as its player (``me``), may
call every read, and nothing that only a key may call; every token that does not verify is
401, and the key set is fetched again only as often as it should be."""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from helpers_api import AUTH, assert_problem, open_app, open_client, put_board, submit, unmoved
from helpers_idp import (
    AUDIENCE,
    ISSUER,
    REFETCH,
    SECRET,
    IdentityProvider,
    SigningKey,
    claims,
    ec_key,
    ed_key,
    mint,
    mint_hs256,
    refused_tokens,
    rsa_key,
    unsigned,
    with_key_set,
)
from rankline import ManualClock, Settings
from rankline.access.keysets import KeySet
from rankline.access.tokens import PlayerTokens
from rankline.http import create_app
from rankline.http.app import Application
from rankline.http.endpoint import Endpoint
from rankline.http.routes import ENDPOINTS

"""The least time between two fetches of the key set in these tests (the setting's least)."""


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def with_secret(settings: Settings, **changes: Any) -> Settings:
    return settings.model_copy(update={"player_jwt_secret": SecretStr(SECRET), **changes})


@pytest.fixture(scope="module")
def keys() -> dict[str, SigningKey]:
    return {"rsa": rsa_key(), "ec": ec_key(), "ed": ed_key()}


@pytest.fixture
def idp(keys: dict[str, SigningKey]) -> Iterator[IdentityProvider]:
    provider = IdentityProvider(*keys.values()).start()
    yield provider
    provider.stop()


@asynccontextmanager
async def serving(settings: Settings, clock: ManualClock) -> AsyncIterator[httpx.AsyncClient]:
    async with open_app(settings, clock) as app, open_client(app) as client:
        yield client


async def _arena(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena")
    for n, score in enumerate([50, 40, 30, 20, 10], 1):
        await submit(client, "arena", f"p{n}", score)


def key_set_of(app: Application) -> KeySet:
    """The app's key set, whose fetches are counted even when nobody can answer them."""
    assert app.api.tokens is not None and isinstance(app.api.tokens.keys, KeySet)
    return app.api.tokens.keys


def assert_invalid_token(response: httpx.Response) -> dict[str, Any]:
    problem = assert_problem(response, 401)
    assert problem["type"].endswith("/invalid-token"), problem
    assert 'error="invalid_token"' in response.headers["www-authenticate"]
    return problem


# --- a player reads as themselves ------------------------------------------------------


async def test_a_player_token_reads_me_as_the_player_endpoints_answer(
    settings: Settings, clock: ManualClock
) -> None:
    async with serving(with_secret(settings), clock) as client:
        await _arena(client)
        friends = await client.put(
            "/v1/players/p3/friends", json={"friends": ["p1", "p5"]}, headers=AUTH
        )
        assert friends.status_code == 200, friends.text
        token = bearer(mint_hs256(claims("p3")))
        for mine, theirs, params in [
            ("me", "players/p3", {}),
            ("me", "players/p3", {"window": "all_time", "scope": "global"}),
            ("me/around", "players/p3/around", {"k": "1"}),
            ("me/friends", "players/p3/friends", {}),
            ("me/friends", "players/p3/friends", {"k": "1"}),
        ]:
            own = await client.get(f"/v1/boards/arena/{mine}", params=params, headers=token)
            assert own.status_code == 200, own.text
            other = await client.get(f"/v1/boards/arena/{theirs}", params=params)
            assert unmoved(own.json()) == unmoved(other.json())
        me = (await client.get("/v1/boards/arena/me", headers=token)).json()
        assert (me["player_id"], me["rank"]) == ("p3", 3)
        around = (await client.get("/v1/boards/arena/me/around?k=1", headers=token)).json()
        assert [e["player_id"] for e in around["entries"]] == ["p2", "p3", "p4"]
        # the same query checks as the endpoints they mirror
        bad = await client.get("/v1/boards/arena/me/around?k=101", headers=token)
        assert_problem(bad, 422)
        unknown = await client.get("/v1/boards/arena/me?nope=1", headers=token)
        assert_problem(unknown, 422)
        absent = await client.get("/v1/boards/arena/me", headers=bearer(mint_hs256(claims("p9"))))
        assert_problem(absent, 404)


@pytest.mark.edge
@pytest.mark.parametrize("kind", ["rsa", "ec", "ed"])
async def test_tokens_signed_by_each_kind_of_key_in_the_set_read_me(
    settings: Settings,
    clock: ManualClock,
    idp: IdentityProvider,
    keys: dict[str, SigningKey],
    kind: str,
) -> None:
    async with serving(with_key_set(settings, idp), clock) as client:
        await _arena(client)
        response = await client.get(
            "/v1/boards/arena/me", headers=bearer(mint(keys[kind], claims("p2")))
        )
        assert response.status_code == 200, response.text
        assert response.json()["rank"] == 2


@pytest.mark.edge
async def test_tokens_that_do_not_verify_are_401(
    settings: Settings, clock: ManualClock, idp: IdentityProvider, keys: dict[str, SigningKey]
) -> None:
    rsa = keys["rsa"]
    good = mint(rsa, claims("p1"))
    now = int(time.time())
    cases = refused_tokens(rsa)
    async with serving(with_key_set(settings, idp), clock) as client:
        await _arena(client)
        ok = await client.get("/v1/boards/arena/me", headers=bearer(good))
        assert ok.status_code == 200, ok.text
        for case, token in cases.items():
            for path in ("/v1/boards/arena/me", "/v1/boards/arena/top"):
                response = await client.get(path, headers=bearer(token))
                assert response.status_code == 401, f"{case} on {path}: {response.text}"
                problem = assert_invalid_token(response)
                assert token not in response.text, case
                assert problem["detail"], case
        # within the 30 s leeway, a token just expired is still taken
        late = await client.get(
            "/v1/boards/arena/me", headers=bearer(mint(rsa, claims("p1", exp=now - 10)))
        )
        assert late.status_code == 200, late.text


@pytest.mark.edge
async def test_hs256_tokens_verify_with_the_shared_secret_only(
    settings: Settings, clock: ManualClock
) -> None:
    async with serving(with_secret(settings), clock) as client:
        await _arena(client)
        assert (
            await client.get("/v1/boards/arena/me", headers=bearer(mint_hs256(claims("p1"))))
        ).status_code == 200
        for token in [
            mint_hs256(claims("p1"), secret="another-secret-of-at-least-32-bytes"),
            unsigned(claims("p1"), "any"),
            mint(rsa_key(), claims("p1")),  # RS256: the secret verifies HS256 only
            mint_hs256(claims("p1", exp=int(time.time()) - 60)),
        ]:
            assert_invalid_token(await client.get("/v1/boards/arena/me", headers=bearer(token)))


# --- the key set: rotation, withdrawal, outages ------------------------------------------


@pytest.mark.edge
async def test_a_rotated_key_is_fetched_once_and_a_withdrawn_one_refused(
    settings: Settings, clock: ManualClock, idp: IdentityProvider, keys: dict[str, SigningKey]
) -> None:
    old, new = keys["rsa"], rsa_key("rsa-2")
    idp.published = [old]
    async with serving(with_key_set(settings, idp), clock) as client:
        await _arena(client)
        before = mint(old, claims("p1"))
        assert (await client.get("/v1/boards/arena/me", headers=bearer(before))).status_code == 200
        assert idp.count() == 1
        for n in range(5):  # the same key again: no fetch
            token = mint(old, claims("p1", jti=f"t{n}"))
            assert (
                await client.get("/v1/boards/arena/me", headers=bearer(token))
            ).status_code == 200
        assert idp.count() == 1
        idp.published = [new]  # the identity provider rotates: the old key is withdrawn
        await asyncio.sleep(REFETCH + 0.1)
        rotated = await client.get("/v1/boards/arena/me", headers=bearer(mint(new, claims("p2"))))
        assert rotated.status_code == 200, rotated.text
        assert idp.count() == 2  # fetched once for the unknown kid
        for n in range(5):
            token = mint(new, claims("p2", jti=f"u{n}"))
            assert (
                await client.get("/v1/boards/arena/me", headers=bearer(token))
            ).status_code == 200
        assert idp.count() == 2
        # the withdrawn key's tokens are refused, the one verified before too
        assert_invalid_token(await client.get("/v1/boards/arena/me", headers=bearer(before)))
        fresh = mint(old, claims("p1", jti="after"))
        assert_invalid_token(await client.get("/v1/boards/arena/me", headers=bearer(fresh)))


@pytest.mark.edge
async def test_while_the_identity_provider_is_down_its_keys_keep_verifying_unhammered(
    settings: Settings, clock: ManualClock, idp: IdentityProvider, keys: dict[str, SigningKey]
) -> None:
    rsa = keys["rsa"]
    async with open_app(with_key_set(settings, idp), clock) as app, open_client(app) as client:
        await _arena(client)
        assert (
            await client.get("/v1/boards/arena/me", headers=bearer(mint(rsa)))
        ).status_code == 200
        key_set = key_set_of(app)
        assert idp.count() == key_set.fetches == 1

        # down: the port is closed; tokens never seen before still verify with the kept keys
        idp.stop()
        started = time.monotonic()
        for n in range(20):
            token = mint(rsa, claims(f"p{n % 5 + 1}", jti=f"down-{n}"))
            response = await client.get("/v1/boards/arena/me", headers=bearer(token))
            assert response.status_code == 200, response.text
            forged = mint(rsa_key(f"unknown-{n}"), claims("p1"))
            assert_invalid_token(await client.get("/v1/boards/arena/me", headers=bearer(forged)))
        tries = key_set.fetches - 1
        allowed = math.ceil((time.monotonic() - started) / REFETCH) + 1
        assert 1 <= tries <= allowed, (tries, allowed)

        # failing: the identity provider answers 503, and counts what it is asked
        idp.failing = True
        idp.start()
        counted, started = idp.count(), time.monotonic()
        await asyncio.sleep(REFETCH)
        for n in range(20):
            forged = mint(rsa_key(f"again-{n}"), claims("p1"))
            assert_invalid_token(await client.get("/v1/boards/arena/me", headers=bearer(forged)))
            token = mint(rsa, claims("p1", jti=f"failing-{n}"))
            assert (
                await client.get("/v1/boards/arena/me", headers=bearer(token))
            ).status_code == 200
        asked = idp.count() - counted
        allowed = math.ceil((time.monotonic() - started) / REFETCH) + 1
        assert 1 <= asked <= allowed, (asked, allowed)


@pytest.mark.edge
async def test_a_burst_of_unknown_keys_fetches_the_set_once(
    settings: Settings, clock: ManualClock, idp: IdentityProvider
) -> None:
    forged = [mint(rsa_key(f"burst-{n}"), claims("p1")) for n in range(30)]
    slower = with_key_set(settings, idp, player_jwks_refetch_seconds=30.0)
    async with serving(slower, clock) as client:
        await _arena(client)
        answers = await asyncio.gather(
            *(client.get("/v1/boards/arena/top", headers=bearer(token)) for token in forged)
        )
        for response in answers:
            assert_invalid_token(response)
        assert idp.count() == 1  # the burst waits on one fetch, then asks no more


@pytest.mark.edge
async def test_keys_older_than_max_stale_stop_verifying_until_fetched_again(
    settings: Settings, clock: ManualClock, idp: IdentityProvider, keys: dict[str, SigningKey]
) -> None:
    rsa = keys["rsa"]
    stale = with_key_set(settings, idp, player_jwks_max_stale_seconds=2.0)
    async with serving(stale, clock) as client:
        await _arena(client)
        assert (
            await client.get("/v1/boards/arena/me", headers=bearer(mint(rsa)))
        ).status_code == 200
        idp.stop()
        await asyncio.sleep(2.5)
        response = await client.get("/v1/boards/arena/me", headers=bearer(mint(rsa, claims("p2"))))
        problem = assert_problem(response, 503)
        assert "identity provider" in problem["detail"]
        assert int(response.headers["retry-after"]) >= 1
        idp.start()  # the same port
        await asyncio.sleep(REFETCH + 0.1)
        back = await client.get("/v1/boards/arena/me", headers=bearer(mint(rsa, claims("p3"))))
        assert back.status_code == 200, back.text


# --- what a player may call --------------------------------------------------------------


def _path(endpoint: Endpoint) -> str:
    # A board (and a tournament) that does not exist: whatever gets past auth ends in a 4xx
    # and changes nothing; any other path parameter (a player, a match, a key) is x1.
    names = {"board_id": "absent-board", "tournament_id": "absent-cup"}
    return re.sub(r"\{(\w+)\}", lambda m: names.get(m.group(1), "x1"), endpoint.path)


@pytest.mark.edge
async def test_a_player_token_calls_reads_and_its_own_endpoints_and_nothing_else(
    settings: Settings, clock: ManualClock
) -> None:
    token = bearer(mint_hs256(claims("p1")))
    refused = 0
    async with serving(with_secret(settings, rate_limits=False), clock) as client:
        await _arena(client)
        for endpoint in ENDPOINTS:
            response = await client.request(
                endpoint.method, _path(endpoint), json={"player_id": "p1"}, headers=token
            )
            name = f"{endpoint.method} {endpoint.path}"
            assert response.status_code < 500, f"{name}: {response.text}"
            if endpoint.auth in ("read", "me") or endpoint.for_players:
                assert response.status_code not in (401, 403) or endpoint.for_players, (
                    f"{name}: {response.text}"
                )
                continue
            problem = assert_problem(response, 403)
            assert problem["type"].endswith("/not-for-players"), name
            assert "player token" in problem["detail"], name
            refused += 1
        assert refused >= 20  # boards, players, moderation, audit, dead letters, tournaments...
        # nothing changed: the board is there, its entries as they were
        assert (await client.get("/v1/boards/arena")).status_code == 200
        top = (await client.get("/v1/boards/arena/top")).json()["entries"]
        assert [e["player_id"] for e in top] == ["p1", "p2", "p3", "p4", "p5"]


@pytest.mark.edge
async def test_a_player_submits_only_as_themselves_and_only_where_the_board_allows(
    settings: Settings, clock: ManualClock
) -> None:
    async with serving(with_secret(settings), clock) as client:
        await _arena(client)
        token = bearer(mint_hs256(claims("p5")))
        as_another = await client.post(
            "/v1/boards/arena/scores",
            json={"player_id": "p1", "score": 1000, "match_id": "x1"},
            headers=token,
        )
        problem = assert_problem(as_another, 403)
        assert "own" in problem["detail"]
        for body in [
            {"player_id": "p5", "score": 1000, "match_id": "x2"},
            {"score": 1000, "match_id": "x3"},  # the player is the token's
        ]:
            response = await client.post("/v1/boards/arena/scores", json=body, headers=token)
            problem = assert_problem(response, 403)
            assert "does not accept scores from players" in problem["detail"]
        batch = await client.post(
            "/v1/scores/batch",
            json={"scores": [{"board": "arena", "player_id": "p5", "score": 9, "match_id": "y"}]},
            headers=token,
        )
        assert_problem(batch, 403)
        top = (await client.get("/v1/boards/arena/top")).json()["entries"]
        assert [(e["player_id"], e["score"]) for e in top][-1] == ("p5", 10)


@pytest.mark.edge
async def test_keys_still_do_what_they_did_and_cannot_read_me(
    settings: Settings, clock: ManualClock
) -> None:
    read_key = "read-key-1"
    keyed = with_secret(settings, read_keys=read_key)
    async with serving(keyed, clock) as client:
        await _arena(client)
        token = bearer(mint_hs256(claims("p2")))
        # with read keys set, a valid token counts as one; a refused token is not anonymous
        assert (await client.get("/v1/boards/arena/top", headers=token)).status_code == 200
        assert (
            await client.get("/v1/boards/arena/top", headers=bearer(read_key))
        ).status_code == 200
        assert_problem(await client.get("/v1/boards/arena/top"), 401)
        expired = mint_hs256(claims("p2", exp=int(time.time()) - 60))
        assert_invalid_token(await client.get("/v1/boards/arena/top", headers=bearer(expired)))
        # a key reads any player, not "me"
        for key in (read_key, "test-server-key"):
            problem = assert_problem(
                await client.get("/v1/boards/arena/me", headers=bearer(key)), 403
            )
            assert "player token" in problem["detail"]
        assert_problem(await client.get("/v1/boards/arena/me"), 401)


@pytest.mark.edge
async def test_without_player_tokens_configured_me_is_refused(client: httpx.AsyncClient) -> None:
    await _arena(client)
    token = bearer(mint_hs256(claims("p1")))
    assert_problem(await client.get("/v1/boards/arena/me", headers=token), 403)
    # reads stay public as they were, whatever the header holds
    assert (await client.get("/v1/boards/arena/top", headers=token)).status_code == 200


@pytest.mark.edge
async def test_rate_limits_count_per_player_not_per_token(
    settings: Settings, clock: ManualClock
) -> None:
    limited = with_secret(settings, rate_limit_player_reads="3/minute")
    async with serving(limited, clock) as client:
        await _arena(client)
        for n in range(3):  # three tokens of one player
            token = bearer(mint_hs256(claims("p1", jti=f"t{n}")))
            assert (await client.get("/v1/boards/arena/top", headers=token)).status_code == 200
        over = await client.get(
            "/v1/boards/arena/me", headers=bearer(mint_hs256(claims("p1", jti="t9")))
        )
        problem = assert_problem(over, 429)
        assert "player" in problem["detail"]
        assert int(over.headers["retry-after"]) >= 1
        other = await client.get("/v1/boards/arena/me", headers=bearer(mint_hs256(claims("p2"))))
        assert other.status_code == 200, other.text


# --- settings ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"player_jwks_url": "https://idp.example/jwks.json"}, "ISSUER"),
        (
            {"player_jwks_url": "https://idp.example/jwks.json", "player_jwt_issuer": ISSUER},
            "AUDIENCE",
        ),
        (
            {
                "player_jwks_url": "https://idp.example/jwks.json",
                "player_jwt_issuer": ISSUER,
                "player_jwt_audience": AUDIENCE,
                "player_jwt_secret": SECRET,
            },
            "not both",
        ),
        ({"player_jwt_secret": "short"}, "32 bytes"),
        (
            {
                "player_jwks_url": "ftp://idp.example/jwks.json",
                "player_jwt_issuer": ISSUER,
                "player_jwt_audience": AUDIENCE,
            },
            "https://",
        ),
    ],
)
def test_player_token_settings_are_checked_at_start(
    changes: dict[str, Any], words: str, tmp_path: Path
) -> None:
    settings = Settings(data_dir=tmp_path, server_keys="k", **changes)
    with pytest.raises(ValueError, match=words):
        PlayerTokens.from_settings(settings)
    with pytest.raises(ValueError, match=words):
        create_app(settings)


def test_a_key_shaped_like_a_token_is_refused_at_start(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, server_keys="abc.def.ghi", player_jwt_secret=SECRET)
    with pytest.raises(ValueError, match="JWT's shape"):
        create_app(settings)
    assert (
        PlayerTokens.from_settings(Settings(data_dir=tmp_path, server_keys="abc.def.ghi")) is None
    )
