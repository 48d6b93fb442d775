"""Cross-origin requests (RANKLINE_CORS_ORIGINS) through the in-process app: preflights
answered or refused, CORS headers only for an allowed origin and method, ``*`` for reads
only, none at all when CORS is off."""

from __future__ import annotations

import httpx
import pytest
from pydantic import ValidationError

from helpers_api import AUTH, assert_problem, open_app, open_client, put_board, submit
from rankline import ManualClock, Settings

pytestmark = pytest.mark.edge

GAME = "https://game.example.com"
OTHER = "https://evil.example.net"
CORS_HEADERS = {
    "access-control-allow-origin",
    "access-control-allow-methods",
    "access-control-allow-headers",
    "access-control-allow-credentials",
    "access-control-expose-headers",
    "access-control-max-age",
}


def _cors(response: httpx.Response) -> set[str]:
    return CORS_HEADERS & {name.lower() for name in response.headers}


def _preflight(
    method: str, origin: str, headers: str = "authorization,content-type"
) -> dict[str, str]:
    return {
        "Origin": origin,
        "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": headers,
    }


async def test_listed_origins_may_read_and_write(settings: Settings, clock: ManualClock) -> None:
    listed = settings.model_copy(update={"cors_origins": f"{GAME},http://127.0.0.1:9999"})
    async with open_app(listed, clock) as app, open_client(app) as client:
        await put_board(client, "arena")
        await submit(client, "arena", "p1", 10, "m1")

        answer = await client.options("/v1/boards/arena/scores", headers=_preflight("POST", GAME))
        assert answer.status_code == 204
        assert answer.headers["access-control-allow-origin"] == GAME
        assert "POST" in answer.headers["access-control-allow-methods"]
        allowed = answer.headers["access-control-allow-headers"].split(", ")
        assert {"authorization", "content-type", "if-none-match", "prefer"} <= set(allowed)
        assert "access-control-allow-credentials" not in answer.headers
        assert int(answer.headers["access-control-max-age"]) > 0

        read = await client.get("/v1/boards/arena/top", headers={"Origin": GAME})
        assert read.status_code == 200
        assert read.headers["access-control-allow-origin"] == GAME
        exposed = read.headers["access-control-expose-headers"]
        assert {"ETag", "Retry-After", "WWW-Authenticate"} <= set(exposed.split(", "))
        assert "Origin" in read.headers["vary"]
        assert "access-control-allow-credentials" not in read.headers

        body = {"player_id": "p2", "score": 20, "match_id": "m2"}
        write = await client.post(
            "/v1/boards/arena/scores", json=body, headers={**AUTH, "Origin": GAME}
        )
        assert write.status_code == 200, write.text
        assert write.headers["access-control-allow-origin"] == GAME

        # A refusal carries the headers too, so the page can read why.
        refused = await client.post("/v1/boards/arena/scores", json=body, headers={"Origin": GAME})
        assert_problem(refused, 401)
        assert refused.headers["access-control-allow-origin"] == GAME

        # Without an Origin (a server, curl): no CORS header, but the answer varies on it.
        plain = await client.get("/v1/boards/arena/top")
        assert _cors(plain) == set() and "Origin" in plain.headers["vary"]


async def test_an_origin_not_listed_gets_no_cors_headers(
    settings: Settings, clock: ManualClock
) -> None:
    listed = settings.model_copy(update={"cors_origins": GAME})
    async with open_app(listed, clock) as app, open_client(app) as client:
        await put_board(client, "arena")
        read = await client.get("/v1/boards/arena/top", headers={"Origin": OTHER})
        assert read.status_code == 200 and _cors(read) == set()
        for method in ("GET", "POST", "DELETE"):
            answer = await client.options("/v1/boards/arena/top", headers=_preflight(method, OTHER))
            body = assert_problem(answer, 403)
            assert body["type"].endswith("/origin-not-allowed")
            assert "origin" in body["detail"]
            assert _cors(answer) == set()
        # An origin differing only in scheme or port is another origin.
        for near in ("http://game.example.com", f"{GAME}:8443", f"{GAME}.evil.net"):
            answer = await client.options("/v1/boards/arena/top", headers=_preflight("GET", near))
            assert_problem(answer, 403)
            assert _cors(answer) == set()


async def test_a_preflight_asking_for_a_header_the_api_does_not_take_is_refused(
    settings: Settings, clock: ManualClock
) -> None:
    listed = settings.model_copy(update={"cors_origins": GAME})
    async with open_app(listed, clock) as app, open_client(app) as client:
        asked = _preflight("GET", GAME, "authorization, x-debug-token")
        answer = await client.options("/v1/boards/arena/top", headers=asked)
        body = assert_problem(answer, 403)
        assert "x-debug-token" in body["detail"]
        assert _cors(answer) == set()
        asked = _preflight("TRACE", GAME)
        assert_problem(await client.options("/v1/boards/arena/top", headers=asked), 403)


async def test_any_origin_may_read_but_never_write(settings: Settings, clock: ManualClock) -> None:
    anyone = settings.model_copy(update={"cors_origins": "*"})
    async with open_app(anyone, clock) as app, open_client(app) as client:
        await put_board(client, "arena")
        answer = await client.options("/v1/boards/arena/top", headers=_preflight("GET", OTHER))
        assert answer.status_code == 204
        assert answer.headers["access-control-allow-origin"] == "*"
        assert "POST" not in answer.headers["access-control-allow-methods"]
        assert "access-control-allow-credentials" not in answer.headers

        read = await client.get("/v1/boards/arena/top", headers={"Origin": OTHER})
        assert read.headers["access-control-allow-origin"] == "*"
        assert "access-control-allow-credentials" not in read.headers

        for method in ("POST", "PUT", "DELETE"):
            asked = _preflight(method, OTHER)
            body = assert_problem(
                await client.options("/v1/boards/arena/scores", headers=asked), 403
            )
            assert method in body["detail"]
        # A write that needs no preflight still gets no CORS header: the page cannot read it.
        write = await client.post(
            "/v1/boards/arena/scores",
            json={"player_id": "p1", "score": 1, "match_id": "m1"},
            headers={**AUTH, "Origin": OTHER},
        )
        assert write.status_code == 200 and _cors(write) == set()


async def test_without_cors_origins_no_answer_has_cors_headers(
    settings: Settings, clock: ManualClock
) -> None:
    assert settings.cors_origins == ""
    async with open_app(settings, clock) as app, open_client(app) as client:
        await put_board(client, "arena")
        read = await client.get("/v1/boards/arena/top", headers={"Origin": GAME})
        assert read.status_code == 200 and _cors(read) == set()
        assert "vary" not in read.headers
        answer = await client.options("/v1/boards/arena/top", headers=_preflight("GET", GAME))
        assert_problem(answer, 405)
        assert _cors(answer) == set()


@pytest.mark.parametrize(
    "value",
    [
        "game.example.com",
        "https://game.example.com/",
        "https://a.example/path",
        "*,https://a.b",
        "ftp://x",
    ],
)
def test_cors_origins_must_be_origins(value: str) -> None:
    with pytest.raises(ValidationError, match=r"CORS_ORIGINS|not an origin"):
        Settings(cors_origins=value)


def test_cors_origins_are_read_as_a_list() -> None:
    settings = Settings(cors_origins=" https://a.example , http://127.0.0.1:8080,")
    assert settings.cors_origin_list == ["https://a.example", "http://127.0.0.1:8080"]
    assert Settings(cors_origins="*").cors_origin_list == ["*"]
