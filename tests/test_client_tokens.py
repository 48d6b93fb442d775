"""The Python client with a player's token: sent as the bearer credential of every call, a
token function called when first needed and again once after a 401 (the request then sent
again, once), sync and async; the ``me`` and keys methods' requests; and against a real
server, a refreshed credential replacing a refused one."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import pytest

from helpers_idp import SECRET, claims, mint_hs256
from helpers_procs import serving
from rankline.client import ApiError, AsyncClient, Client


def _server(accepted: str) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    """A transport answering 200 to ``Bearer accepted`` and 401 to anything else."""
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.headers.get("authorization") == f"Bearer {accepted}":
            return httpx.Response(200, json={"ok": True})
        problem = {"type": "t", "title": "Missing credentials", "status": 401, "detail": "expired"}
        return httpx.Response(401, json=problem)

    return httpx.MockTransport(answer), seen


def _tokens(*values: str) -> tuple[Callable[[], str], list[str]]:
    """A token function handing out ``values`` in turn (the last one from then on)."""
    handed: list[str] = []

    def token() -> str:
        handed.append(values[min(len(handed), len(values) - 1)])
        return handed[-1]

    return token, handed


def test_a_token_is_sent_on_reads_and_writes() -> None:
    transport, seen = _server("t1")
    with Client("http://t", token="t1", transport=transport) as rl:
        rl.top("arena")
        rl.submit("arena", "p:1", 5, match_id="m1")
        rl.me("arena")
    assert [r.headers["authorization"] for r in seen] == ["Bearer t1"] * 3


def test_a_token_string_is_not_refreshed_after_a_401() -> None:
    transport, seen = _server("fresh")
    with (
        Client("http://t", token="stale", transport=transport) as rl,
        pytest.raises(ApiError) as refused,
    ):
        rl.me("arena")
    assert refused.value.status == 401 and len(seen) == 1


def test_a_token_function_is_called_once_then_again_after_a_401() -> None:
    transport, seen = _server("second")
    token, handed = _tokens("first", "second")
    with Client("http://t", token=token, transport=transport) as rl:
        assert rl.me("arena") == {"ok": True}
        assert rl.top("arena") == {"ok": True}
        assert rl.submit("arena", "p:1", 5, match_id="m1") == {"ok": True}
    assert handed == ["first", "second"]  # not called again while the token is accepted
    sent = [r.headers["authorization"] for r in seen]
    assert sent == ["Bearer first", "Bearer second", "Bearer second", "Bearer second"]
    assert seen[0].url == seen[1].url  # the refused request, sent again


def test_a_refreshed_token_refused_again_raises_the_401() -> None:
    transport, seen = _server("never")
    token, handed = _tokens("a", "b", "c")
    with (
        Client("http://t", token=token, transport=transport) as rl,
        pytest.raises(ApiError) as refused,
    ):
        rl.top("arena")
    assert refused.value.status == 401
    assert handed == ["a", "b"] and len(seen) == 2  # one refresh, one resend, no loop


def test_refusals_other_than_401_do_not_refresh() -> None:
    seen: list[httpx.Request] = []

    def forbidden(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        problem = {"type": "t", "title": "Forbidden", "status": 403, "detail": "not a player's"}
        return httpx.Response(403, json=problem)

    token, handed = _tokens("t")
    transport = httpx.MockTransport(forbidden)
    with (
        Client("http://t", token=token, transport=transport) as rl,
        pytest.raises(ApiError) as refused,
    ):
        rl.audit()
    assert refused.value.status == 403 and handed == ["t"] and len(seen) == 1


@pytest.mark.parametrize("kind", ["coroutine", "plain"])
async def test_the_async_client_takes_a_coroutine_or_a_plain_token_function(kind: str) -> None:
    transport, seen = _server("second")
    plain, handed = _tokens("first", "second")

    async def coroutine() -> str:
        return plain()

    source: Callable[[], str] | Callable[[], Awaitable[str]] = (
        coroutine if kind == "coroutine" else plain
    )

    async def handler(request: httpx.Request) -> httpx.Response:
        return transport.handle_request(request)

    async with AsyncClient("http://t", token=source, transport=httpx.MockTransport(handler)) as rl:
        assert await rl.me_around("arena", k=2) == {"ok": True}
        assert await rl.me_friends("arena") == {"ok": True}
    assert handed == ["first", "second"]
    assert [r.headers["authorization"] for r in seen] == [
        "Bearer first",
        "Bearer second",
        "Bearer second",
    ]


def test_a_client_is_one_caller() -> None:
    with pytest.raises(ValueError, match="one caller"):
        Client("http://t", token="t", server_key="k")
    with pytest.raises(ValueError, match="one caller"):
        AsyncClient("http://t", token=lambda: "t", read_key="r")


def test_the_me_and_keys_methods_requests() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={})

    with Client("http://t", token="t", transport=httpx.MockTransport(answer)) as rl:
        rl.me("arena", window="daily", metadata=True)
        rl.me_around("arena", k=3, scope="region:EU")
        rl.me_friends("arena", k=10)
    with Client("http://t", server_key="s", transport=httpx.MockTransport(answer)) as rl:
        rl.create_key("game-a", role="read", boards=["game-a-*"], expires_at="2027-01-01T00:00:00Z")
        rl.list_keys()
        rl.revoke_key("k_1")
    requests = [(r.method, r.url.path, dict(r.url.params)) for r in seen]
    assert requests == [
        ("GET", "/v1/boards/arena/me", {"window": "daily", "metadata": "true"}),
        ("GET", "/v1/boards/arena/me/around", {"k": "3", "scope": "region:EU"}),
        ("GET", "/v1/boards/arena/me/friends", {"k": "10"}),
        ("POST", "/v1/keys", {}),
        ("GET", "/v1/keys", {}),
        ("DELETE", "/v1/keys/k_1", {}),
    ]
    assert json.loads(seen[3].content) == {
        "name": "game-a",
        "role": "read",
        "boards": ["game-a-*"],
        "expires_at": "2027-01-01T00:00:00Z",
    }
    assert [r.headers["authorization"] for r in seen[3:]] == ["Bearer s"] * 3


def test_a_refreshed_credential_against_a_real_server(tmp_path: Path) -> None:
    """The server takes the token as it takes any bearer credential: here a read key, handed
    out by the function after an empty one that the server refuses with 401."""
    token, handed = _tokens("", "reader")
    with serving(
        tmp_path / "data", tmp_path / "log", server_keys="writer", read_keys="reader"
    ) as server:
        with Client(server.url, server_key="writer") as admin:
            admin.put_board("arena")
            admin.submit("arena", "p:1", 10, match_id="m1")
        with Client(server.url, token=token) as rl:
            assert [e["player_id"] for e in rl.top("arena")["entries"]] == ["p:1"]
            assert rl.player("arena", "p:1")["rank"] == 1
        with Client(server.url, token="nobody") as rl, pytest.raises(ApiError) as refused:
            rl.top("arena")
    assert handed == ["", "reader"]
    assert refused.value.status == 403


def test_a_player_token_refreshed_after_it_expired_against_a_real_server(tmp_path: Path) -> None:
    """A player's real token (HS256, the studio's secret): the first one the function hands
    out has expired, the server answers 401, the function is asked again and the read is
    sent again with the new token; the player reads their own rank and submits where the
    board takes client writes, sync and async."""
    expired = mint_hs256(claims("p:2", ttl=-3600))
    token, handed = _tokens(expired, mint_hs256(claims("p:2")))
    with serving(
        tmp_path / "data", tmp_path / "log", server_keys="writer", player_jwt_secret=SECRET
    ) as server:
        with Client(server.url, server_key="writer") as admin:
            admin.put_board("arena")
            admin.put_board("open", client_writes={"max_per_minute": 10})
            for n, score in enumerate((30, 10, 20)):
                admin.submit("arena", f"p:{n}", score, match_id=f"m{n}")
        with Client(server.url, token=token) as rl:
            me = rl.me("arena")
            assert (me["player_id"], me["rank"]) == ("p:2", 2)
            assert [e["player_id"] for e in rl.me_around("arena", k=1)["entries"]] == [
                "p:0",
                "p:2",
                "p:1",
            ]
            assert rl.submit("open", "p:2", 50, match_id="run-1")["score"] == 50
            with pytest.raises(ApiError) as not_here:
                rl.submit("arena", "p:2", 50, match_id="run-1")
            assert not_here.value.status == 403
        assert handed[0] == expired and len(handed) == 2
        with Client(server.url, token=expired) as stale, pytest.raises(ApiError) as refused:
            stale.me("arena")
        assert refused.value.status == 401
        assert refused.value.problem["type"].endswith("/invalid-token")
