"""Keys made at runtime on real servers: a key revoked through one worker of ``rankline serve
--workers 2`` (PostgreSQL + Redis) is refused by both within a second of the DELETE's answer;
``rankline keys create|list|revoke`` work on the store while a server runs, which takes each
change in. No secret appears in a server's log."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers_chaos import (
    RanklineServer,
    RedisServer,
    cli_env,
    migrate,
    pg_database,
    requests_by_pid,
    run_cli,
    wait_until,
)

pytestmark = pytest.mark.timeout(180)

KEY = "bootstrap-serving-key"
AUTH = {"Authorization": f"Bearer {KEY}"}
AUDIT_ROUTE = "audit_log"
"""How the metrics name GET /v1/audit's route (its handler)."""
WITHIN = 1.0
"""Seconds from a DELETE's answer by which every worker refuses the key."""


@pytest.fixture
def two_workers(tmp_path: Path) -> Iterator[RanklineServer]:
    redis = RedisServer(tmp_path / "redis")
    try:
        redis.start()
        with pg_database("rl_keys") as url:
            settings = {"database_url": url, "redis_url": redis.url(0), "server_keys": KEY}
            migrate(cli_env(tmp_path / "data", **settings))
            server = RanklineServer(
                tmp_path / "data", tmp_path / "serve.log", workers=2, **settings
            )
            try:
                server.start()
                server.wait_ready(90)
                wait_until(lambda: len(server.worker_pids()) == 2, 60, what="two workers")
                yield server
            finally:
                server.stop()
    finally:
        redis.stop()


class Answers:
    """Requests made one at a time, each on a new connection, with the worker that answered
    it: the PID whose request counter (the Prometheus multiprocess files) grew."""

    def __init__(self, server: RanklineServer) -> None:
        self.server = server
        self.metrics = server.data_dir / "metrics"
        self.counts = requests_by_pid(self.metrics, AUDIT_ROUTE)

    def get(self, headers: dict[str, str]) -> tuple[float, int, int]:
        """(when it was sent, status, worker PID) of one GET /v1/audit."""
        sent = time.monotonic()
        with httpx.Client(base_url=self.server.url, timeout=10) as client:
            status = client.get(
                "/v1/audit", params={"limit": 1}, headers={"Connection": "close", **headers}
            ).status_code
        before = self.counts

        def grown() -> dict[int, float] | None:
            now = requests_by_pid(self.metrics, AUDIT_ROUTE)
            return now if sum(now.values()) > sum(before.values()) else None

        self.counts = wait_until(grown, 10, interval=0.005, what="the request counters")
        [pid] = [p for p, n in self.counts.items() if n > before.get(p, 0)]
        return sent, status, pid


def test_a_revoked_key_is_refused_by_both_workers_within_a_second(
    two_workers: RanklineServer,
) -> None:
    server = two_workers
    with httpx.Client(base_url=server.url, timeout=10) as client:
        made = client.post("/v1/keys", json={"name": "fleet", "role": "server"}, headers=AUTH)
    assert made.status_code == 201, made.text
    key = {"Authorization": f"Bearer {made.json()['secret']}"}
    answers = Answers(server)
    workers = set(server.worker_pids())

    accepted: set[int] = set()
    deadline = time.monotonic() + 60
    while accepted != workers:
        assert time.monotonic() < deadline, f"accepted by {accepted} of {workers}"
        _, status, pid = answers.get(key)
        if status == 200:
            accepted.add(pid)

    with httpx.Client(base_url=server.url, timeout=10) as client:
        revoked = client.delete(f"/v1/keys/{made.json()['id']}", headers=AUTH)
    answered = time.monotonic()
    assert revoked.status_code == 200, revoked.text

    seen: list[tuple[float, int, int]] = []
    refused_late: set[int] = set()
    deadline = answered + 30
    while refused_late != workers:
        assert time.monotonic() < deadline, (refused_late, seen)
        sent, status, pid = answers.get(key)
        seen.append((sent - answered, status, pid))
        if status == 403 and sent >= answered + WITHIN:
            refused_late.add(pid)
    accepted_after = [(at, pid) for at, status, pid in seen if status == 200 and at >= WITHIN]
    assert not accepted_after, seen
    assert {status for _, status, _ in seen} <= {200, 403}, seen
    log = server.output()
    assert made.json()["secret"] not in log and KEY not in log


def test_keys_commands_on_the_store_a_server_uses(tmp_path: Path) -> None:
    """``rankline keys`` beside a running server on the embedded store: the server takes in a
    key created by the command, and refuses it once the command revokes it."""
    settings = {"server_keys": KEY}
    server = RanklineServer(tmp_path / "data", tmp_path / "serve.log", **settings)
    env = cli_env(tmp_path / "data", **settings)
    try:
        server.start()
        server.wait_ready(90)
        help_text = run_cli("keys", "create", "--help", env=env)
        assert help_text.returncode == 0 and "--expires-at" in help_text.stdout

        created = run_cli("keys", "create", "ci-deployer", "--board", "game-*", env=env)
        assert created.returncode == 0, created.stderr
        line, secret = created.stdout.split()[-2:]
        key_id = line.strip("()")
        assert secret.startswith("rk_") and key_id.startswith("key_")
        assert "shown this once" in created.stderr
        key = {"Authorization": f"Bearer {secret}"}

        def writes(board: str) -> int:
            with httpx.Client(base_url=server.url, timeout=10) as client:
                return client.put(f"/v1/boards/{board}", json={}, headers=key).status_code

        wait_until(lambda: writes("game-1") == 201, 10, what="the server to take the key in")
        assert writes("other") == 403

        listed = run_cli("keys", "list", "--json", env=env)
        assert listed.returncode == 0, listed.stderr
        [shown] = json.loads(listed.stdout)["keys"]
        assert secret not in listed.stdout
        assert shown == {
            "id": key_id,
            "name": "ci-deployer",
            "role": "server",
            "boards": ["game-*"],
            "expires_at": None,
            "created_at": shown["created_at"],
            "created_by": "cli",
            "state": "live",
        }
        table = run_cli("keys", "list", env=env)
        assert key_id in table.stdout and "boards game-*" in table.stdout

        revoked = run_cli("keys", "revoke", key_id, "--reason", "rotated", env=env)
        assert revoked.returncode == 0, revoked.stderr
        wait_until(lambda: writes("game-2") == 403, 10, what="the server to refuse the key")
        # Newest first. Until the server has taken the revocation in, the wait above may
        # have created game-2 as well: that creation may come before or after the revoke.
        audit = _audit(server)
        seen = [
            (i["action"], i.get("board"), i["actor"], i.get("reason"))
            for i in audit
            if i["action"] == "key.revoke" or i.get("board") == "game-1"
        ]
        assert seen[:2] == [
            ("key.revoke", None, "cli", "rotated"),
            ("board.create", "game-1", f"key:ci-deployer#{key_id}", None),
        ]
        late = [i["actor"] for i in audit if i.get("board") == "game-2"]
        assert late in ([], [f"key:ci-deployer#{key_id}"])

        unknown = run_cli("keys", "revoke", "key_0000000000000000", env=env)
        assert unknown.returncode == 1 and "no key" in unknown.stderr
        invalid = run_cli("keys", "create", "x", "--role", "read", "--board", "a", env=env)
        assert invalid.returncode == 1 and "only server keys are limited" in invalid.stderr
        bad_name = run_cli("keys", "create", "has space", env=env)
        assert bad_name.returncode == 2 and "NAME" in bad_name.stderr
        long_reason = run_cli("keys", "revoke", key_id, "--reason", "x" * 1001, env=env)
        assert long_reason.returncode == 2 and "--reason" in long_reason.stderr
    finally:
        server.stop()
    log = server.output()
    assert secret not in log and KEY not in log


def _audit(server: RanklineServer) -> list[dict[str, Any]]:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        answer = client.get("/v1/audit", headers=AUTH)
    assert answer.status_code == 200, answer.text
    items: list[dict[str, Any]] = answer.json()["items"]
    return items
