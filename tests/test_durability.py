"""An acknowledged score survives SIGKILL, and no score is ever applied twice.

The real server (``rankline serve``, SQLite in a fresh data dir) takes a stream of
submissions from 32 concurrent connections on a ``sum`` board (so a double application
would show in the totals), and is SIGKILLed mid-stream. After a restart on the same data
dir, every attempted submission is sent again: ``duplicate: true`` means it was recorded
before the crash. Then:

- every acknowledged (HTTP 200) submission answers ``duplicate: true``;
- before the resubmission, each player's all-time total is exactly the sum of the
  submissions that were recorded (the acknowledged ones plus possibly some in flight);
- after it, exactly the sum of all attempted ones: each counted once, none twice.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from helpers_procs import Server
from rankline.http.server import SERVERS

pytestmark = pytest.mark.timeout(150)

KEY = "k"
AUTH = {"Authorization": f"Bearer {KEY}"}
BOARD = "b"
WORKERS = 32
PLAYERS = 50
MIN_TRAFFIC_SECONDS = 1.5
MIN_ACKED_BEFORE_KILL = 100
KILL_DEADLINE_SECONDS = 25.0


@dataclass(frozen=True, slots=True)
class Sub:
    player: str
    match_id: str
    score: int

    def body(self) -> dict[str, object]:
        return {"player_id": self.player, "match_id": self.match_id, "score": self.score}


@dataclass
class Traffic:
    attempted: list[Sub] = field(default_factory=list)
    acked: list[Sub] = field(default_factory=list)
    refused: dict[Sub, int] = field(default_factory=dict)  # an HTTP answer other than 200
    lost: list[Sub] = field(default_factory=list)  # no answer: transport error
    errors_after_kill: int = 0
    killed_at: float | None = None
    traffic_seconds: float = 0.0
    acked_before_kill: int = 0
    in_flight: set[Sub] = field(default_factory=set)
    in_flight_at_kill: frozenset[Sub] = frozenset()


async def _worker(server: Server, n: int, traffic: Traffic, rng: random.Random) -> None:
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    timeout = httpx.Timeout(30.0, connect=10.0)
    async with httpx.AsyncClient(
        base_url=server.url, headers=AUTH, limits=limits, timeout=timeout
    ) as client:
        seq = 0
        while True:
            sub = Sub(f"p:{rng.randrange(PLAYERS)}", f"w{n}-{seq}", rng.randint(1, 1_000_000))
            seq += 1
            traffic.attempted.append(sub)
            traffic.in_flight.add(sub)
            try:
                response = await client.post(f"/v1/boards/{BOARD}/scores", json=sub.body())
            except httpx.TransportError:
                traffic.in_flight.discard(sub)
                traffic.lost.append(sub)
                if traffic.killed_at is not None:
                    traffic.errors_after_kill += 1
                return  # the server is gone (or the connection broke): stop this stream
            traffic.in_flight.discard(sub)
            if response.status_code == 200:
                body = response.json()
                assert body["duplicate"] is False, body
                traffic.acked.append(sub)
            else:
                traffic.refused[sub] = response.status_code
                await asyncio.sleep(0.01)


async def _stream_then_kill(server: Server, traffic: Traffic) -> None:
    rng = random.Random(20261121)
    tasks = [
        asyncio.create_task(_worker(server, n, traffic, random.Random(rng.random())))
        for n in range(WORKERS)
    ]
    started = time.monotonic()
    deadline = started + KILL_DEADLINE_SECONDS
    try:
        while True:
            await asyncio.sleep(0.02)
            elapsed = time.monotonic() - started
            enough = len(traffic.acked) >= MIN_ACKED_BEFORE_KILL
            if (elapsed >= MIN_TRAFFIC_SECONDS and enough) or time.monotonic() > deadline:
                break
            if all(t.done() for t in tasks):
                break
        # No await between these lines: the counts are exact as of the kill.
        traffic.acked_before_kill = len(traffic.acked)
        traffic.in_flight_at_kill = frozenset(traffic.in_flight)
        traffic.killed_at = time.monotonic()
        traffic.traffic_seconds = traffic.killed_at - started
        server.kill9()
        done, pending = await asyncio.wait(tasks, timeout=30)
        assert not pending, "client tasks hung after the kill"
        for task in done:
            task.result()  # re-raise an assertion from a worker
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _totals(client: httpx.AsyncClient) -> dict[str, int]:
    response = await client.get(f"/v1/boards/{BOARD}/top", params={"limit": 1000})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["total"] == len(body["entries"])
    return {e["player_id"]: e["score"] for e in body["entries"]}


async def _resubmit(client: httpx.AsyncClient, subs: list[Sub]) -> dict[Sub, bool]:
    """Send every submission again (batch endpoint); its ``duplicate`` flag for each."""
    duplicate: dict[Sub, bool] = {}
    for start in range(0, len(subs), 500):
        chunk = subs[start : start + 500]
        items = [{"board": BOARD, **s.body()} for s in chunk]
        response = await client.post("/v1/scores/batch", json={"scores": items}, headers=AUTH)
        assert response.status_code == 200, response.text
        results = response.json()["results"]
        assert [r["index"] for r in results] == list(range(len(chunk)))
        for sub, result in zip(chunk, results, strict=True):
            assert "error" not in result, result
            assert result["player_id"] == sub.player and result["match_id"] == sub.match_id
            duplicate[sub] = result["duplicate"]
    return duplicate


def _sums(subs: list[Sub]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for sub in subs:
        totals[sub.player] = totals.get(sub.player, 0) + sub.score
    return totals


def _gone(pid: int) -> bool:
    """The process has exited (a zombie waiting to be reaped counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def _wait_gone(pid: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not _gone(pid):
        assert time.monotonic() < deadline, f"process {pid} outlived the kill"
        time.sleep(0.05)


@pytest.mark.parametrize("software", SERVERS)
async def test_acknowledged_scores_survive_sigkill_exactly_once(
    tmp_path: Path, software: str
) -> None:
    data_dir = tmp_path / "data"
    first = Server(data_dir, tmp_path / "first.log", server_keys=KEY, server=software)
    second = Server(data_dir, tmp_path / "second.log", server_keys=KEY, server=software)
    traffic = Traffic()
    try:
        first.start()
        await asyncio.to_thread(first.wait_ready)
        async with httpx.AsyncClient(base_url=first.url, timeout=30) as client:
            board = {"windows": ["all_time", "daily"], "policy": "sum"}
            response = await client.put(f"/v1/boards/{BOARD}", json=board, headers=AUTH)
            assert response.status_code == 201, response.text
            worker = (await client.get("/readyz")).json()["worker"]  # granian: not first.pid

        await _stream_then_kill(first, traffic)
        assert first.proc is not None and first.proc.returncode == -9
        # The process that served died with it: none goes on serving or holding the data dir.
        await asyncio.to_thread(_wait_gone, worker)

        # The kill really happened mid-stream.
        assert traffic.acked_before_kill >= MIN_ACKED_BEFORE_KILL, traffic.acked_before_kill
        assert traffic.in_flight_at_kill
        assert traffic.errors_after_kill > 0
        assert set(traffic.refused.values()) <= {429, 503}, traffic.refused

        second.start()
        await asyncio.to_thread(second.wait_ready)
        async with httpx.AsyncClient(base_url=second.url, timeout=60) as client:
            before = await _totals(client)
            duplicate = await _resubmit(client, traffic.attempted)
            after = await _totals(client)
            again = await _resubmit(client, traffic.attempted)
            final = await _totals(client)

        print(
            f"killed after {traffic.traffic_seconds:.2f}s: "
            f"attempted={len(traffic.attempted)} acked={len(traffic.acked)} "
            f"(before kill {traffic.acked_before_kill}) refused={len(traffic.refused)} "
            f"in flight at kill={len(traffic.in_flight_at_kill)} "
            f"recorded={sum(duplicate.values())} errors after kill={traffic.errors_after_kill}"
        )
        # (a) every acknowledged submission was durable.
        missing = [s for s in traffic.acked if not duplicate[s]]
        assert not missing, f"{len(missing)} acknowledged submissions lost, e.g. {missing[:3]}"
        # A refused submission (429/503) recorded nothing.
        assert not [s for s in traffic.refused if duplicate[s]]
        recorded = [s for s in traffic.attempted if duplicate[s]]
        # recorded ⊇ acknowledged, ⊆ attempted: the unacknowledged ones were in flight at the kill.
        assert set(recorded) - set(traffic.acked) <= traffic.in_flight_at_kill

        # (b) each recorded submission counted exactly once, before and after resubmitting.
        assert before == _sums(recorded)
        assert after == _sums(traffic.attempted)
        assert all(again.values()), "a resubmission after the resubmission was not a duplicate"
        assert final == after
    finally:
        first.stop()
        second.stop()
