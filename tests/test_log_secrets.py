"""No credential in any log line: a real server with JSON logs (one line per request, the
access log) at debug level, called with keys and a token in the Authorization header and in
the live stream's ``?access_token=``, accepted and refused; its whole output is read, the
request lines are there, and none of the secrets is."""

from __future__ import annotations

import base64
import json
import logging
import secrets
from pathlib import Path

import httpx
import pytest

from procs import serving
from rankline.observability.logs import Redacting, redact

pytestmark = pytest.mark.timeout(180)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _token_shaped() -> str:
    """A string shaped like a player's JWT (header.payload.signature), unique to this run."""
    header = _b64(json.dumps({"alg": "RS256", "kid": "k1", "typ": "JWT"}).encode())
    payload = _b64(json.dumps({"sub": "p:ada", "exp": 4_102_444_800}).encode())
    return f"{header}.{payload}.{_b64(secrets.token_bytes(64))}"


@pytest.mark.parametrize("server_software", ["granian", "uvicorn"])
def test_no_key_or_token_appears_in_the_logs(tmp_path: Path, server_software: str) -> None:
    server_key = "rk_srv_" + secrets.token_urlsafe(24)
    read_key = "rk_read_" + secrets.token_urlsafe(24)
    wrong_key = "rk_wrong_" + secrets.token_urlsafe(24)
    token = _token_shaped()
    stream_token = _token_shaped()
    secret_list = [server_key, read_key, wrong_key, token, stream_token]
    with (
        serving(
            tmp_path / "data",
            tmp_path / "server.log",
            server_keys=server_key,
            read_keys=read_key,
            log_format="json",
            log_level="debug",
            server=server_software,
            cors_origins="http://127.0.0.1:1",
        ) as server,
        httpx.Client(base_url=server.url, timeout=30) as api,
    ):
        writes = {"Authorization": f"Bearer {server_key}"}
        assert api.put("/v1/boards/arena", json={}, headers=writes).status_code == 201
        score = {"player_id": "p:ada", "score": 10, "match_id": "m1"}
        assert api.post("/v1/boards/arena/scores", json=score, headers=writes).status_code == 200
        reads = {"Authorization": f"Bearer {read_key}"}
        assert api.get("/v1/boards/arena/top", headers=reads).status_code == 200
        wrong = {"Authorization": f"Bearer {wrong_key}"}
        assert api.get("/v1/boards/arena/top", headers=wrong).status_code == 403
        bearer = {"Authorization": f"Bearer {token}"}
        assert api.get("/v1/boards/arena/top", headers=bearer).status_code in (200, 403)
        assert api.post("/v1/boards/arena/scores", json=score, headers=bearer).status_code >= 400
        assert api.get("/v1/audit", headers=bearer).status_code == 403
        # A credential in the query string of an endpoint that refuses it.
        query = {"access_token": server_key}
        assert api.get("/v1/boards/arena/top", params=query).status_code == 422
        assert api.get("/v1/no-such-path", params=query).status_code == 404
        preflight = {"Origin": "http://127.0.0.1:1", "Access-Control-Request-Method": "GET"}
        assert api.options("/v1/boards/arena/top", params=query, headers=preflight).status_code
        # The stream, as an EventSource calls it: accepted, then refused.
        for credential, status in ((read_key, 200), (stream_token, 403)):
            params = {"access_token": credential, "limit": "1"}
            with api.stream("GET", "/v1/boards/arena/stream", params=params) as answer:
                assert answer.status_code == status
                if status == 200:
                    first = next(answer.iter_lines())
                    assert first.startswith("event: top"), first
    output = server.output()
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    requests = {(line.get("method"), line.get("path"), line.get("status")) for line in lines}
    assert ("GET", "/v1/boards/arena/top", 403) in requests, output[-3000:]
    assert ("GET", "/v1/boards/arena/top", 422) in requests
    assert ("GET", "/v1/boards/arena/stream", 200) in requests
    assert ("GET", "/v1/boards/arena/stream", 403) in requests
    if server_software == "uvicorn":  # its access log prints the query string, redacted
        assert "/v1/boards/arena/top?access_token=[redacted] HTTP/1.1" in output
    for secret in secret_list:
        assert secret not in output
        # nor any recognisable part of it (a token's signature, a key without its prefix)
        assert secret[-24:] not in output


@pytest.mark.parametrize(
    ("line", "redacted"),
    [
        (
            "GET /v1/boards/a/stream?limit=3&access_token=abc.def-ghi&players=x HTTP/1.1",
            "GET /v1/boards/a/stream?limit=3&access_token=[redacted]&players=x HTTP/1.1",
        ),
        ("GET /v1/x?ACCESS_TOKEN=k1 200", "GET /v1/x?ACCESS_TOKEN=[redacted] 200"),
        ("Authorization: Bearer rk_abc123", "Authorization: Bearer [redacted]"),
        ('{"authorization": "bearer eyJ.x.y"}', '{"authorization": "bearer [redacted]"}'),
        ("GET /v1/boards/a/top?limit=3 200", "GET /v1/boards/a/top?limit=3 200"),
    ],
)
def test_redact(line: str, redacted: str) -> None:
    assert redact(line) == redacted


def test_redacting_keeps_the_arguments_shape() -> None:
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        "",
        0,
        '%s - "%s %s" %d',
        ("127.0.0.1:5", "GET", "/v1/s?access_token=sekrit", 200),
        None,
    )
    assert Redacting().filter(record)
    assert record.args == ("127.0.0.1:5", "GET", "/v1/s?access_token=[redacted]", 200)
    assert "sekrit" not in record.getMessage()
