"""Measurements besides wrk's: write→visible latency, memory, naive SQL rank,
redis-benchmark ZREVRANK, durable event counts, and a py-spy profile of the server."""

from __future__ import annotations

import asyncio
import math
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import redis
from sqlalchemy import func, select, text

from rankline.log import LogOptions, open_log
from rankline.policies import StandingScore, combine
from rankline.store import schema as t
from rankline.store.opening import open_store, store_settings
from rankline.store.sql import SqlStore
from rankline.types import GLOBAL_SCOPE, LeaderboardId, ScoreEvent, StandingRow
from rankline_bench.load import BOARD_ID, Dataset, bench_board

SCRATCH_KEY = "rlbench:zset"


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile (``pct`` in 0..100) of a non-empty list."""
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, math.ceil(pct * len(ordered) / 100) - 1))
    return ordered[index]


def summary_ms(seconds: list[float]) -> dict[str, float]:
    ms = [s * 1000 for s in seconds]
    return {
        "samples": len(ms),
        "p50_ms": percentile(ms, 50),
        "p99_ms": percentile(ms, 99),
        "max_ms": max(ms),
    }


# --- write→visible -------------------------------------------------------------------------


async def write_visible(
    url: str, key: str, data: Dataset, samples: int, seed: int = 7
) -> dict[str, Any]:
    """Submit a better score for a random player through one connection and poll the
    player's rank through another until the new score shows; the time from sending the
    write to the first read that shows it, over ``samples`` players."""
    rng = random.Random(seed)
    run = uuid.uuid4().hex[:8]  # match ids new to the store, also when it is reused
    headers = {"Authorization": f"Bearer {key}"}
    limits = httpx.Limits(max_connections=1)
    visible: list[float] = []
    acked: list[float] = []
    polls = moved = 0
    async with (
        httpx.AsyncClient(base_url=url, limits=limits, timeout=10) as writer,
        httpx.AsyncClient(base_url=url, limits=limits, timeout=10) as reader,
    ):
        for n in range(samples):
            player = data.player(rng.randrange(data.n))
            path = f"/v1/boards/{BOARD_ID}/players/{player}"
            before = (await reader.get(path)).raise_for_status().json()
            score = before["score"] + rng.randint(1_000, 100_000_000)
            body = {"player_id": player, "score": score, "match_id": f"visible-{run}-{n}"}
            started = time.perf_counter()
            post = asyncio.create_task(
                writer.post(f"/v1/boards/{BOARD_ID}/scores", json=body, headers=headers)
            )
            while True:
                polls += 1
                acked_before = post.done()
                seen = (await reader.get(path)).raise_for_status().json()
                if seen["score"] == score:
                    visible.append(time.perf_counter() - started)
                    break
                if acked_before:  # acknowledged, then read, and still not there
                    answer = post.result().raise_for_status()
                    raise RuntimeError(
                        f"{player}: score {score} acknowledged {answer.text}, "
                        f"but the read shows {seen['score']}"
                    )
            answer = await post
            answer.raise_for_status()
            moved += seen["rank"] < before["rank"]
            acked.append(answer.elapsed.total_seconds())
    return summary_ms(visible) | {
        "ack_p50_ms": percentile([a * 1000 for a in acked], 50),
        "reads_per_sample": polls / samples,
        "rank_changed": moved / samples,
    }


# --- memory --------------------------------------------------------------------------------


FIXED_MEMORY = ("mem_clients_normal", "used_memory_scripts")
"""Parts of Redis's ``used_memory`` that a server's connections bring, whatever the number
of entries: its clients' buffers, and the script cache its workers load."""


def redis_memory(url: str) -> dict[str, int]:
    """``used_memory`` and its ``FIXED_MEMORY`` parts (``INFO memory``)."""
    client = redis.Redis.from_url(url)
    try:
        info = client.info("memory")
    finally:
        client.close()
    return {name: int(info[name]) for name in ("used_memory", *FIXED_MEMORY)}


def memory_per_entry(before: dict[str, int], after: dict[str, int], n: int) -> dict[str, float]:
    """Redis memory per entry between two ``redis_memory`` readings: the growth of
    ``used_memory`` less the growth of its fixed parts (a second worker's connections
    would otherwise count as entries), and the raw growth beside it."""
    delta = {name: after[name] - before.get(name, 0) for name in after}
    fixed = sum(delta[name] for name in FIXED_MEMORY)
    return {
        "bytes_per_entry": (delta["used_memory"] - fixed) / n,
        "raw_bytes_per_entry": delta["used_memory"] / n,
        "used_memory_delta": delta["used_memory"],
        "fixed_delta": fixed,
    }


def redis_keys_memory(url: str) -> tuple[int, int]:
    """(bytes, keys): ``MEMORY USAGE`` summed over every key of the URL's database. Unlike
    ``used_memory`` it is not moved by other databases' traffic on a shared Redis."""
    client = redis.Redis.from_url(url)
    try:
        total = keys = 0
        for name in client.scan_iter(count=1000):
            total += int(client.memory_usage(name, samples=0) or 0)
            keys += 1
        return total, keys
    finally:
        client.close()


def flush_db(url: str) -> None:
    """FLUSHDB, waited for: emptying ten million entries takes Redis longer than redis-py's
    default socket timeout (5 s)."""
    client = redis.Redis.from_url(url, socket_timeout=_LOAD_SOCKET_TIMEOUT)
    try:
        client.flushdb()
    finally:
        client.close()


async def drop_log(log_url: str, name: str) -> None:
    """Drop the ingestion log ``name`` at ``log_url``, as the bench's servers laid it out:
    ``bench_env`` leaves their other log settings at the defaults, which ``LogOptions``
    shares."""
    log = open_log(log_url, "", LogOptions(name=name))
    try:
        await log.start()
        await log.drop()
    finally:
        await log.close()


def redis_version(url: str) -> str:
    client = redis.Redis.from_url(url)
    try:
        return str(client.info("server")["redis_version"])
    finally:
        client.close()


# --- SQL -----------------------------------------------------------------------------------


async def count_events(url: str) -> int:
    """Score events in SQL."""
    return await _count(url, t.score_events)


async def count_matches(url: str) -> int:
    """Rated matches in SQL (each recorded once, with its rating changes)."""
    return await _count(url, t.matches)


async def _count(url: str, table: Any) -> int:
    async with (
        open_store(store_settings(url), schema="any") as store,
        store.engine.connect() as conn,
    ):
        return int((await conn.execute(select(func.count()).select_from(table))).scalar_one())


async def postgres_version(url: str) -> str:
    async with (
        open_store(store_settings(url), schema="any") as store,
        store.engine.connect() as conn,
    ):
        return str((await conn.execute(text("SHOW server_version"))).scalar_one()).split()[0]


async def naive_sql_rank(url: str, data: Dataset, samples: int = 7) -> dict[str, Any]:
    """The rank as plain SQL computes it: COUNT(*) of the better scores on the leaderboard
    (median of ``samples`` random players; index-only scan over the rank index)."""
    s = t.standings
    rng = random.Random(11)
    times: list[float] = []
    async with (
        open_store(store_settings(url), schema="any") as store,
        store.engine.connect() as conn,
    ):
        for _ in range(samples):
            score = data.score(rng.randrange(data.n))
            query = select(func.count()).where(
                s.c.board_id == BOARD_ID,
                s.c.window == "all_time",
                s.c.period == "all",
                s.c.scope == GLOBAL_SCOPE,
                s.c.score > score,
            )
            started = time.perf_counter()
            (await conn.execute(query)).scalar_one()
            times.append(time.perf_counter() - started)
        version = (await conn.execute(select(func.version()))).scalar_one()
    return {
        "median_ms": statistics.median(times) * 1000,
        "samples": samples,
        "server": str(version).split(" on ")[0],
    }


async def write_floor(
    url: str, data: Dataset, seconds: float, *, batch: int | None = None, seed: int = 1
) -> dict[str, Any]:
    """The group commit's own SQL run back to back, and nothing else: the storage's rate
    for these writes.

    For ``seconds``, one connection runs transactions of ``batch`` random players of the
    bench board (default: the server's ``commit_max_batch``, the size the bench's batches
    commit at), each doing what the writer's first attempt at a batch does in SQL through
    ``SqlStore.transaction`` and its statements: read the board's definition and the
    players' standings, insert one new event each, move the standings their score beats to
    the next revision, look for bans, commit, with checkpoints as the server makes them.
    No HTTP, no validation or planning, no ranking index. Scores are drawn as the bench's
    writes draw them (about half beat the stored best). The store's settings are the
    server's defaults, as the bench's servers run with (not this process's environment).
    It writes to the board, so it runs once the server has stopped."""
    defaults = store_settings(url)  # the defaults, without RANKLINE_* variables
    batch = batch or defaults.commit_max_batch
    store = SqlStore.from_settings(defaults)
    board = bench_board()
    leaderboard = LeaderboardId(BOARD_ID, "all_time", "all", GLOBAL_SCOPE)
    rng = random.Random(seed)
    run = uuid.uuid4().hex[:8]
    events = transactions = 0
    started = time.perf_counter()
    try:
        while time.perf_counter() - started < seconds:
            players = sorted({data.player(rng.randrange(data.n)) for _ in range(batch)})
            now = int(time.time() * 1_000_000)
            async with store.transaction() as tx:
                await tx.board_definitions([BOARD_ID])
                stored = await tx.read_standings([(leaderboard, p) for p in players])
                written: list[ScoreEvent] = []
                rows: list[StandingRow] = []
                for player in players:
                    score = rng.randrange(1_000_000_001)
                    before = stored.get((leaderboard, player))
                    current = None if before is None else StandingScore(before[2], before[3])
                    new = combine(board.policy, board.order, current, score, now)  # the writer's
                    match = f"floor-{run}-{events + len(written)}"
                    written.append(
                        ScoreEvent(BOARD_ID, player, match, score, now, now, new is not None)
                    )
                    if new is not None:
                        revision = 1 if before is None else before[4] + 1
                        rows.append(
                            (leaderboard, player, new.score, new.achieved_at, revision, None)
                        )
                await tx.insert_events(written)
                await tx.write_standings(rows)
                await tx.banned_players(players)
            events += len(players)
            transactions += 1
    finally:
        await store.close()  # waits for the last checkpoint, which the time includes
    elapsed = time.perf_counter() - started
    return {
        "events": events,
        "transactions": transactions,
        "seconds": elapsed,
        "events_per_s": events / elapsed,
        "batch": batch,
        "writers": 1,
        "how": "the group commit's SQL alone, back to back on one connection (board, "
        "standings, events, upserts, bans, commit), batches of random players, no HTTP "
        "or index",
    }


# --- redis-benchmark -----------------------------------------------------------------------


_ZADD_MEMBERS = 10_000
"""Members per ZADD when loading the scratch sorted set."""
_ZADD_PIPELINE = 10
"""ZADDs per pipeline: each round trip carries 100,000 members (a few MB), well inside
the socket timeout even at N=10M, when each ZADD into the big set takes longer."""
_LOAD_SOCKET_TIMEOUT = 120.0
"""redis-py's default (5 s) is too short for a loaded 2-core machine at N=10M."""


def redis_benchmark(
    url: str, n: int, *, requests: int = 200_000, clients: int = 50
) -> dict[str, Any]:
    """Raw ZREVRANK on a plain sorted set of ``n`` members in the scratch database of
    ``url`` (loaded first in pipelines of bounded size, deleted afterwards): the store's
    own speed."""
    if shutil.which("redis-benchmark") is None:
        return {"skipped": "redis-benchmark is not installed"}
    client = redis.Redis.from_url(url, socket_timeout=_LOAD_SOCKET_TIMEOUT)
    params = client.connection_pool.connection_kwargs
    rng = random.Random(5)
    try:
        client.unlink(SCRATCH_KEY)  # freed in the background
        started = time.perf_counter()
        step = _ZADD_MEMBERS * _ZADD_PIPELINE
        for first in range(0, n, step):
            with client.pipeline(transaction=False) as pipe:
                for start in range(first, min(n, first + step), _ZADD_MEMBERS):
                    stop = min(n, start + _ZADD_MEMBERS)
                    members = {f"m:{i:012d}": rng.randrange(1 << 40) for i in range(start, stop)}
                    pipe.zadd(SCRATCH_KEY, members)
                pipe.execute()
        load_seconds = time.perf_counter() - started
        argv = ["redis-benchmark", "-h", str(params.get("host", "127.0.0.1"))]
        argv += ["-p", str(params.get("port", 6379)), "--dbnum", str(params.get("db", 0))]
        argv += ["-n", str(requests), "-c", str(clients), "-r", str(n), "--csv"]
        argv += ["ZREVRANK", SCRATCH_KEY, "m:__rand_int__"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=True)
    finally:
        client.unlink(SCRATCH_KEY)  # freed in the background
        client.close()
    return parse_redis_benchmark(done.stdout) | {
        "members": n,
        "clients": clients,
        "pipelined_load_per_s": n / load_seconds,
    }


def parse_redis_benchmark(csv_text: str) -> dict[str, float]:
    """The figures of ``redis-benchmark --csv``'s one test line."""
    lines = [line for line in csv_text.splitlines() if line.strip()]
    head = [h.strip('"') for h in lines[0].split(",")]
    values = [v.strip('"') for v in lines[-1].split('","')]
    row = dict(zip(head, [v.strip('"') for v in values], strict=False))
    return {
        "rps": float(row["rps"]),
        "p50_ms": float(row["p50_latency_ms"]),
        "p99_ms": float(row["p99_latency_ms"]),
    }


# --- profile -------------------------------------------------------------------------------


@dataclass
class Profiler:
    """``py-spy record`` attached to a running server (non-blocking: it does not pause the
    process to sample it, so it barely slows the run it watches)."""

    pid: int
    seconds: float
    proc: subprocess.Popen[bytes] | None = None
    out: Path | None = None

    @staticmethod
    def command() -> str | None:
        """py-spy on PATH, or beside this interpreter (a venv's bin, not activated)."""
        beside = Path(sys.executable).parent / "py-spy"
        return shutil.which("py-spy") or (str(beside) if beside.exists() else None)

    @classmethod
    def available(cls) -> bool:
        return cls.command() is not None

    def start(self) -> None:
        self.out = Path(tempfile.mkstemp(prefix="rankline-pyspy-", suffix=".txt")[1])
        argv = [
            self.command() or "py-spy",
            "record",
            "--pid",
            str(self.pid),
            "--duration",
            str(round(self.seconds)),
        ]
        argv += ["--rate", "200", "--format", "raw", "--nonblocking", "--subprocesses"]
        argv += ["--output", str(self.out)]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def finish(self, top: int = 10) -> dict[str, Any]:
        assert self.proc is not None and self.out is not None
        _, err = self.proc.communicate(timeout=self.seconds + 60)
        try:
            if self.proc.returncode != 0:
                return {"error": err.decode(errors="replace")[-500:]}
            return top_frames(self.out.read_text(), top)
        finally:
            self.out.unlink(missing_ok=True)


def top_frames(collapsed: str, top: int = 10) -> dict[str, Any]:
    """The frames most often on top of the stack (self time), from py-spy's collapsed
    stacks (``frame;frame;frame count`` per line), and the frames most often anywhere on
    it (total time), each as a share of all samples."""
    own: Counter[str] = Counter()
    anywhere: Counter[str] = Counter()
    samples = 0
    for line in collapsed.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = stack.split(";")
        samples += count
        own[frames[-1]] += count
        for frame in set(frames):
            anywhere[frame] += count

    def share(counter: Counter[str]) -> list[dict[str, Any]]:
        return [
            {"frame": frame, "share": count / samples} for frame, count in counter.most_common(top)
        ]

    return (
        {"samples": samples, "self": share(own), "total": share(anywhere)}
        if samples
        else {"samples": 0, "self": [], "total": []}
    )


_THREAD = re.compile(r"^thread \((\d+)\)(?:: (.*))?$")


def thread_shares(collapsed: str, seconds: float, rate: float) -> list[dict[str, Any]]:
    """How busy each thread was, from py-spy's collapsed stacks recorded with ``--threads``
    (each stack holds a ``thread (TID): NAME`` frame, and idle samples are left out, as py-spy
    does unless ``--idle``): its samples over the ``seconds * rate`` it would have had if
    always busy, busiest first; with the frames most often on top of its stacks."""
    stacks: dict[str, list[str]] = {}
    samples: Counter[str] = Counter()
    for line in collapsed.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        frames = stack.split(";")
        at = next((i for i, f in enumerate(frames) if _THREAD.match(f)), None)
        if at is None:
            continue
        tid, name = _THREAD.match(frames[at]).groups()  # type: ignore[union-attr]
        thread = f"{name or 'thread'} ({tid})"
        samples[thread] += int(count_text)
        stacks.setdefault(thread, []).append(f"{';'.join(frames[at + 1 :]) or '-'} {count_text}")
    possible = seconds * rate
    return [
        {
            "thread": thread,
            "busy": count / possible,
            "self": top_frames("\n".join(stacks[thread]), 8)["self"],
        }
        for thread, count in samples.most_common()
    ]
