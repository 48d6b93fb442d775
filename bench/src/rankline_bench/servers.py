"""Starting and stopping the servers under test: ``rankline serve`` and the ceiling.

Each is a subprocess of this interpreter (``python -m ...``) on a free loopback port, with
its output in a log file, waited for until it answers, and stopped by its PID. Only one
runs at a time: the ceiling and rankline never share the machine's two cores.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx
import jwt

from rankline.http.server import DEFAULT_SERVER

HOST = "127.0.0.1"
_ERROR = re.compile(r" ERROR |^\w*(Error|Exception)\b")
_BUILT = re.compile(r"ranking index built: ([\d,]+) in ([\d.]+) s \((\d+)/s\)")


class ServerFailed(RuntimeError):
    """A server exited early or never became ready; the message holds its log's tail."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


UNBOUND_RATE = "1000000/second"
"""The rate limits of a measured server: on, so that their checks cost what they cost, but
above anything this machine sends. wrk sends from one address with one key, and the
default limits (20,000 requests a second per key and per address) would answer 429 to a
server that reads faster than that."""
_RATE_LIMITS = {
    f"rate_limit_{who}_{what}": UNBOUND_RATE
    for who in ("key", "address", "player")
    for what in ("reads", "writes")
}
PLAYER_SECRET = "rankline-bench-player-token-secret-0123456789"
"""The HS256 secret of the measured servers' player tokens (``player_token``): every server
verifies them, so the reads with a token and those without run on the same server."""


def player_token(player: str = "p:0") -> str:
    """A player token the measured servers accept, valid for a day."""
    return jwt.encode({"sub": player, "exp": int(time.time()) + 86_400}, PLAYER_SECRET)


def bench_env(**settings: str) -> dict[str, str]:
    """This environment without any inherited ``RANKLINE_*`` variable, the rate limits
    raised out of the way (``UNBOUND_RATE``), player tokens on (``PLAYER_SECRET``), plus
    ``settings`` (``name=value`` becomes
    ``RANKLINE_NAME``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RANKLINE_")}
    env["PYTHONUNBUFFERED"] = "1"
    defaults = _RATE_LIMITS | {"player_jwt_secret": PLAYER_SECRET}
    env.update({f"RANKLINE_{k.upper()}": v for k, v in (defaults | settings).items()})
    return env


class Server:
    """One server subprocess, ready when ``ready_path`` answers 200."""

    def __init__(
        self, name: str, argv: list[str], env: Mapping[str, str], log_path: Path, port: int
    ) -> None:
        self.name = name
        self.argv = argv
        self.env = dict(env)
        self.log_path = log_path
        self.port = port
        self.url = f"http://{HOST}:{port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.ready_path = "/readyz" if name == "rankline" else "/"
        self.health_path = "/healthz" if name == "rankline" else "/"

    @property
    def pid(self) -> int:
        assert self.proc is not None, "not started"
        return self.proc.pid

    def start(self) -> None:
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                self.argv,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def log(self, tail: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-tail:]
        except FileNotFoundError:
            return ""

    def wait_ready(
        self, timeout: float, progress: Callable[[dict[str, Any]], None] | None = None
    ) -> float:
        """Poll until ready; return the seconds it took. ``progress`` gets each 503 body of
        /readyz (it reports the index build's progress)."""
        assert self.proc is not None, "not started"
        started = time.perf_counter()
        last = "no answer"
        with httpx.Client(base_url=self.url, timeout=5.0) as client:
            while time.perf_counter() - started < timeout:
                if self.proc.poll() is not None:
                    raise ServerFailed(
                        f"{self.name} exited with {self.proc.returncode}:\n{self.log()}"
                    )
                try:
                    response = client.get(self.ready_path)
                    if response.status_code == 200:
                        return time.perf_counter() - started
                    last = f"{response.status_code} {response.text[:200]}"
                    if progress is not None and response.status_code == 503:
                        progress(response.json())
                except (httpx.TransportError, ValueError) as exc:
                    last = repr(exc)
                time.sleep(0.1)
        raise ServerFailed(f"{self.name} not ready after {timeout:.0f} s ({last}):\n{self.log()}")

    def wait_idle(self, timeout: float = 60.0, quick: float = 0.05) -> float | None:
        """Wait until the server answers its health check within ``quick`` seconds twice
        running: the requests a load generator left queued are done, so they do not slow
        the next measurement. The seconds waited, or None if still busy after ``timeout``."""
        started = time.perf_counter()
        fast = 0
        with httpx.Client(base_url=self.url) as client:
            while fast < 2:
                left = timeout - (time.perf_counter() - started)
                if left <= 0:
                    return None
                sent = time.perf_counter()
                try:
                    client.get(self.health_path, timeout=left)
                except httpx.TimeoutException:
                    return None
                fast = fast + 1 if time.perf_counter() - sent < quick else 0
                if not fast:
                    time.sleep(0.05)
        return time.perf_counter() - started

    def restart(self, timeout: float) -> None:
        """Stop and start again on the same port: what clears a backlog no wait will."""
        self.stop()
        self.start()
        self.wait_ready(timeout)

    def stop(self, timeout: float = 20.0) -> None:
        """SIGTERM (graceful), then SIGKILL after ``timeout``; by PID, workers included."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            for pid in [*children(self.proc.pid), self.proc.pid]:
                with suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            self.proc.wait(timeout=30)

    def rss_bytes(self) -> int:
        """Resident memory of the server and its worker processes."""
        return sum(rss_bytes(pid) for pid in [self.pid, *children(self.pid)])

    def errors(self, limit: int = 3) -> list[str]:
        """The last errors the server logged (log lines and exception lines)."""
        lines = self.log(tail=200_000).splitlines()
        return [line.strip() for line in lines if _ERROR.search(line)][-limit:]

    def logged_build(self) -> tuple[int, float, float] | None:
        """(entries, seconds, entries/s) of the index build the server logged, if any."""
        found = _BUILT.findall(self.log(tail=10_000_000))
        if not found:
            return None
        entries, seconds, rate = found[-1]
        return int(entries.replace(",", "")), float(seconds), float(rate)


def rankline_server(env: Mapping[str, str], workers: int, log_path: Path) -> Server:
    port = free_port()
    argv = [sys.executable, "-m", "rankline", "serve", "--host", HOST, "--port", str(port)]
    argv += ["--workers", str(workers)]
    return Server("rankline", argv, env, log_path, port)


def ceiling_server(env: Mapping[str, str], workers: int, log_path: Path) -> Server:
    port = free_port()
    argv = [sys.executable, "-m", "rankline_bench.ceiling", "--host", HOST, "--port", str(port)]
    argv += ["--workers", str(workers), "--log-level", env.get("RANKLINE_LOG_LEVEL", "info")]
    argv += ["--server", env.get("RANKLINE_SERVER", DEFAULT_SERVER)]  # as `rankline serve`'s
    return Server("ceiling", argv, env, log_path, port)


def lean_server(
    env: Mapping[str, str], workers: int, log_path: Path, n: int, at0: int, seed: int
) -> Server:
    """The lean reference (``rankline_bench.lean``) over the bench's players, served like
    the ceiling; ready once its board is built and a top page answers."""
    port = free_port()
    argv = [sys.executable, "-m", "rankline_bench.lean", "--host", HOST, "--port", str(port)]
    argv += ["--n", str(n), "--at0", str(at0), "--seed", str(seed)]
    argv += ["--workers", str(workers), "--log-level", env.get("RANKLINE_LOG_LEVEL", "info")]
    argv += ["--server", env.get("RANKLINE_SERVER", DEFAULT_SERVER)]
    server = Server("lean", argv, env, log_path, port)
    server.ready_path = server.health_path = "/v1/boards/bench/top?limit=1"
    return server


@contextmanager
def running(
    server: Server,
    timeout: float = 600.0,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> Iterator[Server]:
    """A started, ready server, always stopped on exit."""
    try:
        server.start()
        server.wait_ready(timeout, progress)
        yield server
    finally:
        server.stop()


def run_cli(args: list[str], env: Mapping[str, str], timeout: float) -> tuple[float, str]:
    """Run ``rankline ARGS`` to completion: (wall seconds, output). Raises on failure."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "rankline", *args],
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    elapsed = time.perf_counter() - started
    output = done.stdout + done.stderr
    if done.returncode != 0:
        raise ServerFailed(f"rankline {' '.join(args)} exited with {done.returncode}:\n{output}")
    return elapsed, output


def children(pid: int) -> list[int]:
    """The PIDs of a process's descendants (uvicorn's workers), from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far, all its threads (``/proc``); 0 when it
    is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    """``cpu_seconds`` of a process and its descendants: a server's, whose workers (granian
    always has one) are processes of their own."""
    return sum(map(cpu_seconds, [pid, *children(pid)]))


def rss_bytes(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0
