"""Helpers for process-level tests: run the real ``rankline`` CLI as a subprocess.

The server is started as ``python -m rankline serve`` with ``sys.executable``; ``PYTHONPATH``
points at ``src/`` (harmless when the package is installed), so this works from a bare venv
with the dependencies and from the project's installed ``.venv`` alike. Servers listen on
127.0.0.1 only, on a port picked by binding port 0, and are stopped by PID.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx

SRC = Path(__file__).resolve().parents[1] / "src"
REPO = SRC.parent
HOST = "127.0.0.1"


def free_port() -> int:
    """A currently free loopback port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def cli_env(data_dir: Path | None = None, **settings: str) -> dict[str, str]:
    """The environment for a rankline subprocess: no inherited RANKLINE_* variables,
    PYTHONPATH with ``src/`` first, and the given settings (``data_dir`` and
    ``NAME=value`` for ``RANKLINE_NAME``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RANKLINE_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    if data_dir is not None:
        env["RANKLINE_DATA_DIR"] = str(data_dir)
    for name, value in settings.items():
        env[f"RANKLINE_{name.upper()}"] = value
    return env


def run_cli(
    *args: str, env: Mapping[str, str] | None = None, cwd: Path | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m rankline ARGS`` to completion; stdout and stderr are captured apart."""
    return subprocess.run(
        [sys.executable, "-m", "rankline", *args],
        env=dict(env) if env is not None else cli_env(),
        cwd=cwd or REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


class Server:
    """One ``rankline serve`` process. Its stdout and stderr go to ``log_path``."""

    def __init__(self, data_dir: Path, log_path: Path, **settings: str) -> None:
        self.data_dir = data_dir
        self.log_path = log_path
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.env = cli_env(data_dir, **settings)
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self) -> None:
        argv = [sys.executable, "-m", "rankline", "serve", "--host", HOST, "--port", str(self.port)]
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                argv,
                env=self.env,
                cwd=self.data_dir.parent,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def output(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def wait_ready(self, timeout: float = 45.0) -> None:
        """Poll /readyz until it answers 200; fail early if the process exits."""
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        last = "no answer"
        with httpx.Client(base_url=self.url, timeout=2.0) as client:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise AssertionError(
                        f"rankline serve exited with {self.proc.returncode}:\n{self.output()}"
                    )
                try:
                    response = client.get("/readyz")
                    if response.status_code == 200:
                        return
                    last = f"{response.status_code} {response.text}"
                except httpx.TransportError as exc:
                    last = repr(exc)
                time.sleep(0.05)
        raise AssertionError(f"not ready after {timeout}s ({last}):\n{self.output()}")

    def kill9(self) -> None:
        """SIGKILL: the crash the durability promise is about."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self, timeout: float = 15.0) -> int | None:
        """Terminate (then kill after ``timeout``) and reap the process."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        return self.proc.returncode


@contextmanager
def serving(
    data_dir: Path, log_path: Path, *, ready_timeout: float = 45.0, **settings: str
) -> Iterator[Server]:
    """A started, ready server that is always stopped on exit."""
    server = Server(data_dir, log_path, **settings)
    try:
        server.start()
        server.wait_ready(ready_timeout)
        yield server
    finally:
        server.stop()
