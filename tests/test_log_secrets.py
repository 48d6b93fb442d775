"""No credential in any log line: a real server with JSON logs (one line per request, the
access log) at debug level and player tokens from the test's identity provider, called with
keys and tokens in the Authorization header and in the live stream's ``?access_token=``,
accepted and refused; its whole output is read, the request lines are there, and none of
the secrets is."""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from helpers_idp import AUDIENCE, ISSUER, IdentityProvider, claims, mint, refused_tokens, rsa_key
from helpers_procs import serving
from rankline.observability.logs import Redacting, redact

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def idp() -> Iterator[IdentityProvider]:
    provider = IdentityProvider(rsa_key()).start()
    yield provider
    provider.stop()


@pytest.mark.parametrize("server_software", ["granian", "uvicorn"])
def test_no_key_or_token_appears_in_the_logs(
    tmp_path: Path, server_software: str, idp: IdentityProvider
) -> None:
    server_key = "rk_srv_" + secrets.token_urlsafe(24)
    read_key = "rk_read_" + secrets.token_urlsafe(24)
    wrong_key = "rk_wrong_" + secrets.token_urlsafe(24)
    [signing] = idp.published
    token = mint(signing, claims("p:ada"))
    stream_token = mint(signing, claims("p:bo"))
    forged = refused_tokens(signing)
    # an identity provider may want a credential in its key set's URL: a secret, too
    jwks_secret = "jwks_" + secrets.token_urlsafe(24)
    secret_list = [server_key, read_key, wrong_key, token, stream_token, *forged.values()]
    secret_list.append(jwks_secret)
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
            player_jwks_url=f"{idp.url}?sig={jwks_secret}",
            player_jwt_issuer=ISSUER,
            player_jwt_audience=AUDIENCE,
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
        assert api.get("/v1/boards/arena/top", headers=bearer).status_code == 200
        assert api.get("/v1/boards/arena/me", headers=bearer).status_code == 200
        assert api.post("/v1/boards/arena/scores", json=score, headers=bearer).status_code == 403
        assert api.get("/v1/audit", headers=bearer).status_code == 403
        for case, bad in forged.items():
            refused = api.get("/v1/boards/arena/me", headers={"Authorization": f"Bearer {bad}"})
            assert refused.status_code == 401, case
        # A credential in the query string of an endpoint that refuses it.
        query = {"access_token": server_key}
        assert api.get("/v1/boards/arena/top", params=query).status_code == 422
        assert api.get("/v1/no-such-path", params=query).status_code == 404
        encoded = f"/v1/boards/arena/top?access%5Ftoken={wrong_key}"  # the name percent-encoded
        assert api.get(encoded).status_code == 422
        preflight = {"Origin": "http://127.0.0.1:1", "Access-Control-Request-Method": "GET"}
        assert api.options("/v1/boards/arena/top", params=query, headers=preflight).status_code
        # The stream, as an EventSource calls it: accepted, then refused.
        streams = [(read_key, 200), (stream_token, 200), (wrong_key, 403)]
        streams += [(bad, 401) for bad in forged.values()]
        for credential, status in streams:
            params = {"access_token": credential, "limit": "1"}
            with api.stream("GET", "/v1/boards/arena/stream", params=params) as answer:
                assert answer.status_code == status, credential
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
    assert ("GET", "/v1/boards/arena/stream", 401) in requests
    assert ("GET", "/v1/boards/arena/me", 200) in requests
    if server_software == "uvicorn":  # its access log prints the query string, redacted
        assert "/v1/boards/arena/top?access_token=[redacted] HTTP/1.1" in output
    for secret in secret_list:
        assert secret not in output
        # nor any recognisable part of it: a token's signature or claims, a key's end
        for part in [*secret.split("."), secret[-24:]]:
            if len(part) >= 8:
                assert part not in output, part


@pytest.mark.parametrize(
    ("line", "redacted"),
    [
        (
            "GET /v1/boards/a/stream?limit=3&access_token=abc.def-ghi&players=x HTTP/1.1",
            "GET /v1/boards/a/stream?limit=3&access_token=[redacted]&players=x HTTP/1.1",
        ),
        ("GET /v1/x?ACCESS_TOKEN=k1 200", "GET /v1/x?ACCESS_TOKEN=[redacted] 200"),
        ("GET /v1/x?access%5Ftoken=k1 200", "GET /v1/x?access%5Ftoken=[redacted] 200"),
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
