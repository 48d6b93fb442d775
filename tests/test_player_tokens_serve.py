"""Player tokens in a real server process (``rankline serve``), its key set fetched from the
test's identity provider on loopback: tokens read and are refused as in-process, and no
token, key or secret appears in anything the server logs, its line per request included."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from helpers_idp import AUDIENCE, ISSUER, IdentityProvider, claims, mint, refused_tokens, rsa_key
from helpers_procs import cli_env, run_cli, serving

KEY = "test-server-key-0123456789"
READ_KEY = "test-read-key-0123456789"


@pytest.fixture
def idp() -> Iterator[IdentityProvider]:
    provider = IdentityProvider(rsa_key()).start()
    yield provider
    provider.stop()


def test_a_served_token_reads_and_no_credential_reaches_the_logs(
    tmp_path: Path, idp: IdentityProvider
) -> None:
    [key] = idp.published
    good = mint(key, claims("p1"))
    bad = refused_tokens(key)
    log_path = tmp_path / "server.log"
    settings = {
        "log_format": "json",
        "log_level": "debug",
        "server_keys": KEY,
        "read_keys": READ_KEY,
        "player_jwks_url": idp.url,
        "player_jwt_issuer": ISSUER,
        "player_jwt_audience": AUDIENCE,
    }
    with (
        serving(tmp_path / "data", log_path, **settings) as server,
        httpx.Client(base_url=server.url, timeout=30) as http,
    ):
        server_auth = {"Authorization": f"Bearer {KEY}"}
        assert http.put("/v1/boards/arena", json={}, headers=server_auth).status_code == 201
        body = {"player_id": "p1", "score": 10, "match_id": "m1"}
        assert http.post("/v1/boards/arena/scores", json=body, headers=server_auth).is_success
        player = {"Authorization": f"Bearer {good}", "X-Request-ID": "with-token"}
        me = http.get("/v1/boards/arena/me", headers=player)
        assert me.status_code == 200, me.text
        assert me.json()["player_id"] == "p1"
        assert http.get("/v1/boards/arena/top", headers=player).status_code == 200
        assert http.get("/v1/boards", headers={"Authorization": f"Bearer {READ_KEY}"}).is_success
        denied = http.put("/v1/boards/other", json={}, headers=player)
        assert denied.status_code == 403, denied.text
        for case, token in bad.items():
            refused = http.get("/v1/boards/arena/me", headers={"Authorization": f"Bearer {token}"})
            assert refused.status_code == 401, f"{case}: {refused.text}"
        deadline = time.monotonic() + 10
        while "with-token" not in server.output() and time.monotonic() < deadline:
            time.sleep(0.1)
    output = log_path.read_text(encoding="utf-8")
    lines = [json.loads(line) for line in output.splitlines() if line.strip()]
    requests = [e for e in lines if e["logger"] == "rankline.requests"]
    paths = {e["path"] for e in requests}
    assert "/v1/boards/arena/me" in paths, paths  # the request lines are there to search
    assert any(e.get("request_id") == "with-token" and e["status"] == 200 for e in requests)
    for secret in [good, KEY, READ_KEY, *bad.values()]:
        for part in secret.split("."):  # nor any part of a token: its signature, its claims
            if len(part) >= 8:
                assert part not in output, f"a credential is in the server's log:\n{output}"


def test_serve_stops_at_start_with_one_line_when_the_token_settings_do_not_fit(
    tmp_path: Path,
) -> None:
    secret = "a-secret-that-must-not-be-printed-0123456789"
    env = cli_env(
        tmp_path / "data",
        server_keys=KEY,
        player_jwks_url="https://idp.example/jwks.json",
        player_jwt_secret=secret,
    )
    done = run_cli("serve", "--port", "0", env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert "RANKLINE_PLAYER_JWKS_URL or RANKLINE_PLAYER_JWT_SECRET, not both" in said
    assert "Traceback" not in said and secret not in said
