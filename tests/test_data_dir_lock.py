"""One embedded server per data directory: a second `rankline serve` (or `migrate`) on a
directory a server holds refuses with one line naming the holder; a killed holder leaves
nothing that blocks a restart; an in-process service holds the directory while started."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import httpx

from helpers_procs import HOST, Server, cli_env, free_port, run_cli, serving
from rankline import Settings
from rankline.service import Rankline
from rankline.store.lock import embedded_lock


def _refusal(data_dir: Path, pid: int) -> str:
    held = data_dir.resolve()
    return (
        f"error: the data directory {held} is in use by process {pid} "
        f"(lock {held / 'server.lock'}); stop it or set RANKLINE_DATA_DIR to another directory"
    )


def _lines(result: subprocess.CompletedProcess[str]) -> list[str]:
    text = result.stdout + result.stderr
    return [line for line in text.splitlines() if line.strip()]


def _submit(url: str, key: str, player: str, score: int) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"}
    body = {"player_id": player, "score": score, "match_id": f"m-{player}"}
    return httpx.post(f"{url}/v1/boards/arena/scores", json=body, headers=headers, timeout=30)


def _put_board(url: str, key: str) -> None:
    headers = {"Authorization": f"Bearer {key}"}
    response = httpx.put(f"{url}/v1/boards/arena", json={}, headers=headers, timeout=30)
    assert response.status_code in (200, 201), response.text


def test_a_second_server_on_the_same_data_dir_refuses(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with serving(data_dir, tmp_path / "first.log") as first:
        key = (data_dir / "server-key").read_text().strip()
        _put_board(first.url, key)
        second = run_cli("serve", "--host", HOST, "--port", str(free_port()), env=cli_env(data_dir))
        assert second.returncode != 0
        assert _lines(second) == [_refusal(data_dir, first.pid)]
        migrate = run_cli("migrate", env=cli_env(data_dir))
        assert migrate.returncode != 0
        assert _lines(migrate) == [_refusal(data_dir, first.pid)]
        # The holder is untouched and still the one server of the directory.
        assert _submit(first.url, key, "p1", 10).status_code == 200
    assert (data_dir / "server.lock").exists()


def test_a_restart_after_kill_9_of_the_holder_starts(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    crashed = Server(data_dir, tmp_path / "crashed.log")
    try:
        crashed.start()
        crashed.wait_ready()
        key = (data_dir / "server-key").read_text().strip()
        _put_board(crashed.url, key)
        assert _submit(crashed.url, key, "p1", 10).status_code == 200
        crashed.kill9()
    finally:
        crashed.stop()
    assert (data_dir / "server.lock").read_text().strip() == str(crashed.pid)  # left behind
    with serving(data_dir, tmp_path / "restarted.log") as server:
        assert (data_dir / "server.lock").read_text().strip() == str(server.pid)
        top = httpx.get(f"{server.url}/v1/boards/arena/top", timeout=30).json()
        assert [(e["player_id"], e["score"]) for e in top["entries"]] == [("p1", 10)]


async def test_an_in_process_service_holds_its_data_dir_while_started(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    settings = Settings(data_dir=data_dir, database_url=None, redis_url=None)
    service = Rankline(settings)
    await service.start()
    try:
        held = run_cli("migrate", env=cli_env(data_dir))
        assert _lines(held) == [_refusal(data_dir, os.getpid())]
    finally:
        await service.close()
    free = run_cli("migrate", env=cli_env(data_dir))
    assert free.returncode == 0, free.stderr


def test_only_the_embedded_store_with_the_in_process_index_is_locked(tmp_path: Path) -> None:
    """A shared index or a server database serves several processes."""
    sqlite = f"sqlite+aiosqlite:///{tmp_path}/rankline.db"
    assert embedded_lock(tmp_path, sqlite, shared_index=False) is not None
    assert embedded_lock(tmp_path, sqlite, shared_index=True) is None
    assert embedded_lock(tmp_path, "postgresql+asyncpg://u@h/db", shared_index=False) is None
