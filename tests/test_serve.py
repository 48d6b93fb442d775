"""The ``rankline`` command line: serve (its generated key, its keys, a proxy's forwarded
address) and migrate, run as a real process; the commands that only print (the helps,
version, settings) run in this process (typer's runner), as test_cli.py renders the helps:
one real process of them is enough (test_cli.py's
``test_the_command_prints_the_help_rendered_in_process``)."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import httpx
import pytest
from click.testing import Result
from typer.testing import CliRunner

from helpers_procs import cli_env, run_cli, serving
from rankline import __version__
from rankline.cli import app as cli_app
from rankline.http.server import SERVERS
from rankline.settings import documented_settings

BOARD = {"windows": ["all_time"], "policy": "best"}
KEY_PATTERN = re.compile(r"rk_[A-Za-z0-9_-]{20,}")


def _printed(*args: str, env: dict[str, str] | None = None) -> Result:
    """What ``rankline ARGS`` prints, run in this process with ``env`` (``cli_env``'s): of
    the environment, only the ``RANKLINE_*`` settings and COLUMNS are taken, and this
    process's own ``RANKLINE_*`` variables are left out, as ``cli_env`` leaves them out."""
    given = {k: v for k, v in (env or {}).items() if k.startswith("RANKLINE_") or k == "COLUMNS"}
    unset: dict[str, str | None] = {k: None for k in os.environ if k.startswith("RANKLINE_")}
    return CliRunner().invoke(cli_app, list(args), env={**unset, **given}, prog_name="rankline")


def _put_board(url: str, key: str | None, board_id: str = "arena") -> httpx.Response:
    headers = {} if key is None else {"Authorization": f"Bearer {key}"}
    return httpx.put(f"{url}/v1/boards/{board_id}", json=BOARD, headers=headers, timeout=30)


def test_serve_generates_prints_and_keeps_a_server_key(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with serving(data_dir, tmp_path / "first.log") as server:
        output = server.output()
        assert f"http://127.0.0.1:{server.port}" in output, output
        printed = KEY_PATTERN.findall(output)
        assert len(printed) == 1, output
        key = printed[0]

        key_file = data_dir / "server-key"
        assert key_file.read_text().strip() == key
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600

        assert _put_board(server.url, None).status_code == 401
        assert _put_board(server.url, "rk_wrong").status_code == 403
        assert _put_board(server.url, key).status_code == 201

        with httpx.Client(base_url=server.url, timeout=30) as client:
            home = client.get("/")
            assert home.status_code == 200
            assert home.headers["content-type"].startswith("text/html")
            assert client.get("/healthz").status_code == 200
            ready = client.get("/readyz")
            assert ready.status_code == 200 and ready.json()["ready"] is True
            spec = client.get("/openapi.json")
            assert spec.status_code == 200
            assert "/v1/boards/{board_id}/scores" in spec.json()["paths"]
            assert client.get("/v1/boards/arena").json()["id"] == "arena"

    # A second start on the same data dir: the key is not printed again, and still works.
    with serving(data_dir, tmp_path / "second.log") as server:
        output = server.output()
        assert f"http://127.0.0.1:{server.port}" in output, output
        assert key not in output
        assert not KEY_PATTERN.search(output), output
        assert key_file.read_text().strip() == key
        assert _put_board(server.url, "rk_wrong").status_code == 403
        assert _put_board(server.url, key).status_code == 200  # it exists: updated
        assert _put_board(server.url, key, "second").status_code == 201


def test_configured_server_keys_replace_the_generated_one(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with serving(data_dir, tmp_path / "serve.log", server_keys="alpha, beta") as server:
        assert not KEY_PATTERN.search(server.output())
        assert not (data_dir / "server-key").exists()
        assert _put_board(server.url, "alpha").status_code == 201
        assert _put_board(server.url, "beta", "other").status_code == 201
        assert _put_board(server.url, "gamma").status_code == 403


@pytest.mark.parametrize("software", SERVERS)
def test_a_local_proxys_forwarded_for_is_the_client_address(tmp_path: Path, software: str) -> None:
    """Both servers take the client address from ``X-Forwarded-For`` when the request comes
    from a trusted proxy (127.0.0.1 by default), so each player's address has its own limit."""
    settings = {"server_keys": "k", "rate_limit_address_reads": "2/minute", "server": software}
    with serving(tmp_path / "data", tmp_path / "serve.log", **settings) as server:
        assert _put_board(server.url, "k").status_code == 201

        def read(address: str) -> int:
            headers = {"X-Forwarded-For": address}
            return httpx.get(f"{server.url}/v1/boards/arena/top", headers=headers).status_code

        assert [read("203.0.113.1") for _ in range(3)] == [200, 200, 429]
        assert read("203.0.113.2") == 200  # another address behind the same proxy


def test_help_lists_the_commands() -> None:
    result = _printed("--help")
    assert result.exit_code == 0, result.output
    for command in ("serve", "migrate", "settings", "version"):
        assert re.search(rf"\b{command}\b", result.stdout), result.stdout


def test_serve_help_lists_host_and_port() -> None:
    result = _printed("serve", "--help")
    assert result.exit_code == 0, result.output
    assert "--host" in result.stdout and "--port" in result.stdout, result.stdout
    help_text = " ".join(result.stdout.replace("│", " ").split())  # rich wraps long lines
    for variable in ("RANKLINE_HOST", "RANKLINE_PORT", "RANKLINE_SERVER"):
        assert variable in help_text, result.stdout


def test_version() -> None:
    result = _printed("version")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == __version__


def test_settings_lists_every_setting(tmp_path: Path) -> None:
    result = _printed("settings", env=cli_env(tmp_path / "data"))
    assert result.exit_code == 0, result.output
    output = result.stdout + result.stderr
    for name in documented_settings():
        assert name in output, f"{name} missing from `rankline settings`:\n{output}"
    assert str(tmp_path / "data") in output.replace("\n", "")


def test_settings_hides_secrets(tmp_path: Path) -> None:
    env = cli_env(
        tmp_path / "data",
        server_keys="server-secret",
        read_keys="read-secret",
        database_url="postgresql+asyncpg://rank:db-secret@db.internal/rankline",
        redis_url="redis://:redis-secret@redis.internal:6379/0",
    )
    env["COLUMNS"] = "400"  # no line wrapping that could split a secret
    result = _printed("settings", env=env)
    assert result.exit_code == 0, result.output
    output = result.stdout + result.stderr
    for secret in ("server-secret", "read-secret", "db-secret", "redis-secret"):
        assert secret not in output, output
    assert "db.internal" in output and "redis.internal" in output


def test_migrate_creates_the_database_and_is_idempotent(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data")
    first = run_cli("migrate", env=env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "data" / "rankline.db").exists()
    revision = re.search(r"is\s+at\s+revision\s+(\S+)", first.stdout + first.stderr)
    assert revision and revision.group(1) != "None", first.stderr
    second = run_cli("migrate", env=env, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    again = re.search(r"is\s+at\s+revision\s+(\S+)", second.stdout + second.stderr)
    assert again and again.group(1) == revision.group(1), second.stderr
