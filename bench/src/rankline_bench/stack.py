"""The servers of ``rankline soak`` and ``rankline check-history``, one backend at a time.

``memory``: the in-process index on SQLite in a temporary directory. It can only run one
worker, so its restart in the middle stops the whole server and starts it again on the same
port. ``redis``: ``rankline serve --workers 2`` on PostgreSQL + Redis (both emptied first);
its restart kills one worker process and lets the supervisor start a new one.
"""

from __future__ import annotations

import asyncio
import os
import signal
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import httpx

from rankline.store import admin
from rankline_bench import probes, servers
from rankline_bench.scratch import SOAK_DATABASE_URL, SOAK_REDIS_URL

KEY = "soak-server-key"
PG_URL = SOAK_DATABASE_URL
REDIS_URL = SOAK_REDIS_URL
BACKENDS = ("memory", "redis")


@dataclass(frozen=True)
class Plan:
    """Where a backend keeps its data: ``database_url`` (PostgreSQL, recreated) and
    ``redis_url`` (flushed) for ``redis``; neither for ``memory`` (SQLite)."""

    backend: str
    database_url: str | None = None
    redis_url: str | None = None
    worker_count: int | None = None
    """Server workers; by default 2 on Redis, 1 embedded (it serves from one process)."""

    @property
    def workers(self) -> int:
        if self.worker_count is not None:
            return self.worker_count
        return 2 if self.redis_url else 1

    @property
    def describe(self) -> str:
        if self.redis_url:
            return "2 workers, Redis index + PostgreSQL; one worker killed midway"
        return "1 worker (in-process index), SQLite; the server restarted midway"


def plan(backend: str, database_url: str = PG_URL, redis_url: str = REDIS_URL) -> Plan:
    if backend == "redis":
        return Plan("redis", database_url, redis_url)
    if backend == "memory":
        return Plan("memory")
    raise ValueError(f"backends are {', '.join(BACKENDS)}, not {backend!r}")


def parse_backends(text: str) -> tuple[str, ...]:
    names = tuple(b.strip() for b in text.split(",") if b.strip())
    unknown = [b for b in names if b not in BACKENDS]
    if unknown or not names:
        raise ValueError(f"--backends takes memory and/or redis, not {text!r}")
    return names


class Stack:
    """One started rankline server for ``plan``, with a restart in the middle."""

    def __init__(self, plan: Plan, workdir: Path) -> None:
        self.plan = plan
        settings = {"server_keys": KEY, "data_dir": str(workdir / "data"), "log_level": "warning"}
        if plan.database_url:
            settings["database_url"] = plan.database_url
        if plan.redis_url:
            settings["redis_url"] = plan.redis_url
        self.env = servers.bench_env(**settings)
        self.server = servers.rankline_server(self.env, plan.workers, workdir / "serve.log")
        self.restarts: list[str] = []

    @property
    def url(self) -> str:
        return self.server.url

    def start(self, timeout: float = 120.0) -> None:
        if self.plan.database_url:
            asyncio.run(admin.recreate_database(self.plan.database_url))
        if self.plan.redis_url:
            probes.flush_db(self.plan.redis_url)
        if self.plan.database_url:
            servers.run_cli(["migrate"], self.env, timeout=120)
        self.server.start()
        self.server.wait_ready(timeout)
        self.wait_workers(timeout)

    def stop(self) -> None:
        self.server.stop()
        if self.plan.database_url:
            with suppress(Exception):
                asyncio.run(admin.drop_database(self.plan.database_url))
        if self.plan.redis_url:
            with suppress(Exception):
                probes.flush_db(self.plan.redis_url)

    def pids(self) -> list[int]:
        """The server's processes: the supervisor (if any) and its workers."""
        if self.server.proc is None or self.server.proc.poll() is not None:
            return []
        return [self.server.pid, *self.worker_pids()]

    def worker_pids(self) -> list[int]:
        found = []
        for pid in servers.children(self.server.pid):
            with suppress(OSError):
                if b"resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.append(pid)
        return sorted(found)

    def wait_workers(self, timeout: float) -> None:
        """Until every worker answers /readyz (each on a new connection)."""
        if self.plan.workers == 1:
            return
        deadline = time.monotonic() + timeout
        ready: set[int] = set()
        while True:
            workers = set(self.worker_pids())
            if len(workers) >= self.plan.workers and workers <= ready:
                return
            if time.monotonic() > deadline:
                raise servers.ServerFailed(
                    f"workers {sorted(workers - ready)} not ready:\n{self.server.log()}"
                )
            with (
                suppress(httpx.HTTPError),
                httpx.Client(base_url=self.url, timeout=5, headers={"Connection": "close"}) as c,
            ):
                answer = c.get("/readyz")
                if answer.status_code == 200:
                    ready.add(int(answer.json()["worker"]))
                    continue
            time.sleep(0.05)

    def restart(self, kill: signal.Signals = signal.SIGTERM, timeout: float = 120.0) -> str:
        """Restart in the middle: one worker (redis) or the whole server (memory). Returns
        what was done, for the report."""
        if self.plan.workers > 1:
            victim = self.worker_pids()[0]
            os.kill(victim, kill)
            deadline = time.monotonic() + timeout
            while victim in self.worker_pids() or len(self.worker_pids()) < self.plan.workers:
                if time.monotonic() > deadline:
                    raise servers.ServerFailed(f"worker {victim} not replaced")
                time.sleep(0.1)
            self.wait_workers(timeout)
            done = f"killed worker {victim} ({kill.name}); the supervisor started a new one"
        else:
            old = self.server.pid
            if kill == signal.SIGKILL:
                for pid in [*servers.children(old), old]:
                    with suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                assert self.server.proc is not None
                self.server.proc.wait(timeout=30)
            else:
                self.server.stop()
            self.server.start()
            self.server.wait_ready(timeout)
            done = f"stopped the server {old} ({kill.name}) and started it again"
        self.restarts.append(done)
        return done


@contextmanager
def running(
    plan: Plan, settings: Mapping[str, str] | None = None, prefix: str = "rankline"
) -> Iterator[Stack]:
    """A started stack in a temporary directory, always stopped and cleaned on exit;
    ``settings`` (``RANKLINE_*`` variables) added to its server's environment."""
    with tempfile.TemporaryDirectory(prefix=f"{prefix}-{plan.backend}-") as tmp:
        stack = Stack(plan, Path(tmp))
        stack.env.update(settings or {})
        stack.server.env.update(settings or {})
        try:
            stack.start()
            yield stack
        finally:
            stack.stop()
