"""``rankline demo`` starts a server and a simulated game that fills the boards."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from helpers_procs import HOST, REPO, cli_env, free_port
from rankline.demo.game import XP_CAP

pytestmark = pytest.mark.timeout(120)


def test_demo_fills_the_boards(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://{HOST}:{port}"
    argv = [sys.executable, "-m", "rankline", "demo", "--port", str(port), "--duration", "4"]
    argv += ["--players", "50", "--seed", "7", "--data-dir", str(tmp_path / "data")]
    proc = subprocess.Popen(
        argv, env=cli_env(), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    arena: list[dict[str, object]] = []
    xp: list[dict[str, object]] = []
    eu: list[dict[str, object]] = []
    try:
        with httpx.Client(base_url=url, timeout=2.0) as http:
            while proc.poll() is None:  # poll the demo's server while the game runs
                try:
                    arena = http.get("/v1/boards/arena-solo/top").json().get("entries", arena)
                    xp = http.get("/v1/boards/xp/top").json().get("entries", xp)
                    eu_top = http.get("/v1/boards/arena-solo/top?scope=region:EU&window=daily")
                    eu = eu_top.json().get("entries", eu)
                except (httpx.TransportError, ValueError):
                    pass
                time.sleep(0.3)
        output, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, output
    assert url in output
    assert "server key: rk_" in output
    assert "demo done:" in output
    assert arena and xp, output
    assert max(int(str(e["score"])) for e in xp) > XP_CAP  # sums of several matches
    assert eu, "no entries on arena-solo's region:EU leaderboard"


def test_a_demo_that_falls_behind_skips_ahead_instead_of_crashing(tmp_path: Path) -> None:
    """A pace no machine keeps (100,000 matches a second): the game plays what it can,
    skips the rest, and ends cleanly."""
    port = free_port()
    argv = [sys.executable, "-m", "rankline", "demo", "--port", str(port), "--duration", "3"]
    argv += ["--players", "40", "--rate", "100000", "--data-dir", str(tmp_path / "data")]
    done = subprocess.run(
        argv, env=cli_env(), cwd=REPO, capture_output=True, text=True, timeout=90, check=False
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "Traceback" not in output
    assert "demo done:" in output and "matches skipped to keep pace" in output
    with (
        httpx.Client(base_url=f"http://{HOST}:{port}", timeout=2.0) as http,
        pytest.raises(httpx.TransportError),  # the demo stopped its server
    ):
        http.get("/healthz")
