"""Helpers for the chaos tests (workers, Redis outage, SQL outage): real processes.

Builds on ``helpers_procs`` (free ports, the rankline CLI environment, ``Server``) and adds what the
process-level failure tests need: ``rankline serve --workers N``, a private ``redis-server``
that can be SIGKILLed and restarted empty on the same port, a database of its own on the
shared PostgreSQL server, a private PostgreSQL instance that can be stopped and started,
per-worker request counts read from the Prometheus multiprocess files, and a client that
opens a new connection for every request. Everything listens on 127.0.0.1 only; every
process started here is stopped by its PID.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.mmap_dict import MmapedDict

from helpers_backends import _SLOT
from helpers_procs import HOST, Server, cli_env, free_port, run_cli

__all__ = [
    "HOST",
    "PrivatePostgres",
    "RanklineServer",
    "RedisServer",
    "cli_env",
    "free_port",
    "fresh_client",
    "iso_ms",
    "migrate",
    "past_base",
    "pg_database",
    "rank_order",
    "requests_by_pid",
    "run_cli",
    "stop_pid",
    "stop_popen",
    "wait_until",
]

PG_BIN = Path("/usr/lib/postgresql/15/bin")
SHARED_PG_PORT = 5432
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


# --- small utilities -------------------------------------------------------------------


def wait_until(predicate: Any, timeout: float, interval: float = 0.05, what: str = "") -> Any:
    """Poll ``predicate()`` until it returns something truthy; AssertionError after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what or predicate} ({last!r})")


def iso_ms(when: datetime) -> str:
    """RFC 3339, UTC, milliseconds: how the API takes and renders times."""
    when = when.astimezone(UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def past_base(hours: float = 2.0) -> datetime:
    """A whole-millisecond UTC time in the past, to derive explicit ``at`` values from."""
    now = datetime.now(UTC) - timedelta(hours=hours)
    return now.replace(microsecond=(now.microsecond // 1000) * 1000)


def rank_order(
    standings: dict[str, tuple[int, int]], order: str = "desc"
) -> list[tuple[str, int, int]]:
    """``{player: (score, achieved_at_ms)}`` in the contract's ranking order: score (desc or
    asc), then achieved_at ascending, then player id bytewise ascending."""
    sign = -1 if order == "desc" else 1
    items = [(p, s, a) for p, (s, a) in standings.items()]
    items.sort(key=lambda x: (sign * x[1], x[2], x[0].encode()))
    return items


def fresh_client(base_url: str, **kwargs: Any) -> httpx.AsyncClient:
    """An async client that uses a NEW connection for every request: no keep-alive in the
    pool and ``Connection: close`` on every request, so each request is accepted anew by
    whichever worker process the kernel hands it to."""
    headers = {"Connection": "close", **kwargs.pop("headers", {})}
    return httpx.AsyncClient(
        base_url=base_url,
        headers=headers,
        limits=httpx.Limits(max_keepalive_connections=0, max_connections=100),
        timeout=kwargs.pop("timeout", httpx.Timeout(30.0, connect=10.0)),
        **kwargs,
    )


# --- processes -------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is dead for our purposes.
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            return False
    return True


def children(pid: int) -> list[int]:
    """The direct children of a process (Linux /proc)."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                found += [int(x) for x in (task / "children").read_text().split()]
    return found


def descendants(pid: int) -> list[int]:
    out: list[int] = []
    todo = children(pid)
    while todo:
        child = todo.pop()
        out.append(child)
        todo += children(child)
    return out


def stop_pid(pid: int, timeout: float = 10.0) -> None:
    """SIGTERM one process by PID, SIGKILL it if it outlives ``timeout`` (not our child:
    wait by polling)."""
    if not _alive(pid):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)


def stop_popen(proc: subprocess.Popen[Any] | None, timeout: float = 10.0) -> None:
    """Terminate, wait, kill, reap."""
    if proc is None:
        return
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


class RanklineServer(Server):
    """``rankline serve --workers N`` (``helpers_procs.Server`` with a worker count). Stopping it
    also stops, by PID, any worker process that outlived its parent."""

    def __init__(self, data_dir: Path, log_path: Path, *, workers: int = 1, **settings: str):
        super().__init__(data_dir, log_path, **settings)
        self.workers = workers
        self.env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        self._seen_children: set[int] = set()

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        argv = [
            sys.executable,
            "-m",
            "rankline",
            "serve",
            "--host",
            HOST,
            "--port",
            str(self.port),
            "--workers",
            str(self.workers),
        ]
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                argv,
                env=self.env,
                cwd=self.data_dir.parent,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def worker_pids(self) -> list[int]:
        """The live worker processes (children of the parent, not the spawn helper)."""
        assert self.proc is not None
        pids = []
        for pid in children(self.proc.pid):
            with contextlib.suppress(OSError):
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                if b"multiprocessing.resource_tracker" in cmdline:
                    continue
                pids.append(pid)
        self._seen_children.update(pids)
        return sorted(pids)

    def stop(self, timeout: float = 15.0) -> int | None:
        if self.proc is not None:
            self._seen_children.update(descendants(self.proc.pid))
        code = super().stop(timeout)
        for pid in sorted(self._seen_children):
            stop_pid(pid, timeout=5)
        return code


def requests_by_pid(metrics_dir: Path, route: str | None = None) -> dict[int, float]:
    """``rankline_http_requests_total`` per worker PID, read from the Prometheus
    multiprocess files (``counter_<pid>.db``) the workers write."""
    counts: dict[int, float] = {}
    for path in sorted(metrics_dir.glob("counter_*.db")):
        pid = int(path.stem.split("_")[-1])
        total = 0.0
        with contextlib.suppress(FileNotFoundError, RuntimeError):
            for key, value, _, _ in MmapedDict.read_all_values_from_file(str(path)):
                _, name, labels, _ = json.loads(key)
                if name == "rankline_http_requests_total" and (
                    route is None or labels.get("route") == route
                ):
                    total += value
        counts[pid] = total
    return counts


# --- Redis -----------------------------------------------------------------------------


class RedisServer:
    """A private ``redis-server`` without persistence: a restart comes back EMPTY."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def url(self, db: int = 0) -> str:
        return f"redis://{HOST}:{self.port}/{db}"

    @property
    def log_path(self) -> Path:
        return self.workdir / f"redis-{self.starts}.log"

    def start(self, timeout: float = 20.0) -> None:
        assert self.proc is None or self.proc.poll() is not None, "already running"
        self.starts += 1
        argv = [
            REDIS_SERVER,
            "--port",
            str(self.port),
            "--bind",
            HOST,
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--dir",
            str(self.workdir),
            "--maxmemory-policy",
            "noeviction",
        ]
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
            )
        wait_until(self._pong, timeout, what=f"redis-server on port {self.port}")

    def _pong(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise AssertionError(f"redis-server exited: {self.log_path.read_text()}")
        import socket

        try:
            with socket.create_connection((HOST, self.port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def command(self, *args: str) -> bytes:
        """One command, in the inline protocol, answered raw (for DBSIZE and the like)."""
        import socket

        with socket.create_connection((HOST, self.port), timeout=5) as sock:
            sock.sendall((" ".join(args) + "\r\n").encode())
            return sock.recv(65536)

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        stop_popen(self.proc)


# --- PostgreSQL ------------------------------------------------------------------------


def _psql_shared(sql: str) -> None:
    argv = ["psql", "-h", HOST, "-p", str(SHARED_PG_PORT), "-U", "postgres", "-d", "test"]
    subprocess.run(
        [*argv, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql],
        check=True,
        capture_output=True,
        timeout=60,
        env={**os.environ, "PGCONNECT_TIMEOUT": "10"},
    )


@contextlib.contextmanager
def pg_database(prefix: str) -> Iterator[str]:
    """A new, empty database on the shared PostgreSQL server, dropped on exit; yields its
    asyncpg URL. Its name carries the test slot (RANKLINE_TEST_SLOT, as in ``helpers_backends``),
    so suites running side by side never share one."""
    name = f"{prefix}_slot{_SLOT}_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    _psql_shared(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+asyncpg://postgres@{HOST}:{SHARED_PG_PORT}/{name}"
    finally:
        _psql_shared(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def migrate(env: dict[str, str]) -> None:
    done = run_cli("migrate", env=env, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


class PrivatePostgres:
    """A PostgreSQL 15 instance of our own, run as the ``postgres`` OS user (it refuses
    root) from a directory it owns under /tmp (pytest's tmp_path is root-only)."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="rankline-pg-", dir="/tmp"))
        shutil.chown(self.root, "postgres", "postgres")
        self.root.chmod(0o700)
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.port = free_port()

    @property
    def url(self) -> str:
        return f"postgresql+asyncpg://postgres@{HOST}:{self.port}/postgres"

    def _as_postgres(self, *argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["runuser", "-u", "postgres", "--", *argv],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            cwd=self.root,
        )

    def init(self) -> None:
        done = self._as_postgres(
            str(PG_BIN / "initdb"),
            "-D",
            str(self.data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        assert done.returncode == 0, done.stdout + done.stderr

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses={HOST} -c fsync=off "
            "-c full_page_writes=off -c max_connections=60 -c shared_buffers=32MB"
        )
        done = self._as_postgres(
            str(PG_BIN / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            options,
            "-w",
            "-t",
            "90",
            "start",
        )
        assert done.returncode == 0, done.stdout + done.stderr + self.log_tail()

    def stop_immediate(self) -> None:
        done = self._as_postgres(
            str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"
        )
        assert done.returncode == 0, done.stdout + done.stderr

    def postmaster_pid(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def close(self) -> None:
        """Stop the instance (immediate; SIGKILL by PID as the fallback) and delete it."""
        try:
            pid = self.postmaster_pid()
            if pid is not None and _alive(pid):
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._as_postgres(
                        str(PG_BIN / "pg_ctl"),
                        "-D",
                        str(self.data),
                        "-m",
                        "immediate",
                        "-w",
                        "-t",
                        "20",
                        "stop",
                        timeout=30,
                    )
                if _alive(pid):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
