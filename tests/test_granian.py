"""``RANKLINE_SERVER=granian``: ``rankline serve`` and the benchmark's ceiling on granian, as
real processes. Its workers are processes of their own even with one worker, so they must
build the app from the environment, log as ``rankline serve`` does, and shut down cleanly."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from helpers_procs import HOST, REPO, cli_env, free_port, serving
from rankline.cli import app as cli_app
from rankline.client import Client
from rankline.http import server
from rankline_bench import ceiling


def test_serve_on_granian_writes_reads_and_stops_cleanly(tmp_path: Path) -> None:
    data, log = tmp_path / "data", tmp_path / "log"
    with serving(data, log, server_keys="real", server="granian") as running:
        with Client(running.url, server_key="real") as rl:
            rl.put_board("speed", order="asc")
            for i, score in enumerate([30, 10, 20]):
                rl.submit("speed", f"p{i}", score, match_id=f"m{i}")
            assert [e["score"] for e in rl.top("speed")["entries"]] == [10, 20, 30]
            assert rl.submit("speed", "p0", 30, match_id="m0")["duplicate"] is True
        ready = httpx.get(f"{running.url}/readyz").json()
        assert ready["worker"] != running.pid  # granian serves from a worker process
        assert running.stop() == 0
    assert "HTTP server: granian, 1 worker(s)" in running.output()
    with (
        serving(data, tmp_path / "log2", server_keys="real", server="granian") as again,
        Client(again.url, server_key="real") as rl,
    ):
        assert [e["player_id"] for e in rl.top("speed")["entries"]] == ["p1", "p2", "p0"]
    # the worker rebuilt the index from SQL and logged it, as `rankline serve` does
    assert "ranking index built: 3" in again.output()


def test_the_ceiling_runs_on_granian(tmp_path: Path) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "rankline_bench.ceiling", "--server", "granian"]
    argv += ["--host", HOST, "--port", str(port), "--log-level", "warning"]
    with (tmp_path / "log").open("wb") as log:
        proc = subprocess.Popen(argv, env=cli_env(), cwd=REPO, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                response = httpx.get(f"http://{HOST}:{port}/anything")
                break
            except httpx.TransportError:
                assert proc.poll() is None, (tmp_path / "log").read_text()
                assert time.monotonic() < deadline, "the ceiling did not start"
                time.sleep(0.1)
        assert response.status_code == 200
        assert response.content == ceiling.BODY
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) == 0


@pytest.mark.parametrize("name", server.SERVERS)
def test_the_ceiling_runs_on_the_server_and_options_of_rankline_serve(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both go through ``server.run``, which derives the options from these arguments: if
    ``rankline serve`` changes them, the ceiling must follow."""
    calls: list[dict[str, Any]] = []

    def run(chosen: str, target: str, **kwargs: Any) -> None:
        kwargs.pop("app"), kwargs.pop("factory", None)
        calls.append({"server": chosen, **kwargs})

    monkeypatch.setattr(server, "run", run)
    monkeypatch.setenv("RANKLINE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("RANKLINE_SERVER_KEYS", "k")
    monkeypatch.setenv("RANKLINE_LOG_LEVEL", "warning")
    argv = ["serve", "--host", "127.0.0.1", "--port", "8123", "--server", name]
    done = CliRunner().invoke(cli_app, argv)
    assert done.exit_code == 0, done.output
    ceiling.main(["--server", name, "--port", "8123", "--log-level", "warning"])
    assert (
        calls[0]
        == calls[1]
        == {
            "server": name,
            "host": "127.0.0.1",
            "port": 8123,
            "workers": 1,
            "log_level": "warning",
            "log_format": "text",
        }
    )
