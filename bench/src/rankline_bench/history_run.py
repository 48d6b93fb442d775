"""``rankline check-history``: record a concurrent history against a real server, then check it.

Writers submit to a ``best`` board and a ``sum`` board (every ``match_id`` unique; a 503,
429, 5xx, timeout or dropped connection is retried with the same ``match_id`` until a 200),
readers read players with their neighbours and the top page, every request on a new
connection so either worker may answer it; halfway through, one worker (or the one-worker
server) is killed with SIGKILL and comes back. Then :func:`rankline_bench.history.check`
judges every read. Each acknowledged write is recorded with the time its first attempt was
sent and the time its 200 came back.
"""

from __future__ import annotations

import asyncio
import random
import signal
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import msgspec
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from rankline_bench import stack
from rankline_bench.history import (
    RULES,
    Final,
    History,
    Read,
    SeenEntry,
    Violation,
    Write,
    check,
    count,
)

BEST = "history-best"
SUM = "history-sum"
AUTH = {"Authorization": f"Bearer {stack.KEY}"}
RETRY_FOR = 120.0  # seconds a write is retried (same match_id) before it is left unknown
_RETRY = {429, 500, 502, 503, 504}


@dataclass(frozen=True)
class Options:
    seconds: float = 180.0
    writers: int = 6
    readers: int = 6
    players: int = 20
    backends: tuple[str, ...] = ("redis", "memory")
    json_path: Path | None = None
    seed: int = 1
    database_url: str = stack.PG_URL
    redis_url: str = stack.REDIS_URL


@dataclass
class Tally:
    """What happened on the wire, for the report."""

    retries: int = 0
    rejected: Counter[int] = field(default_factory=Counter)
    read_errors: Counter[str] = field(default_factory=Counter)


def _client(url: str) -> httpx.AsyncClient:
    # A new connection per request: the kernel hands each to whichever worker accepts.
    return httpx.AsyncClient(
        base_url=url,
        headers={"Connection": "close", **AUTH},
        limits=httpx.Limits(max_keepalive_connections=0, max_connections=64),
        timeout=httpx.Timeout(10.0),
    )


async def define_boards(client: httpx.AsyncClient, confirmations: int = 20) -> None:
    """Create both boards, then wait until that many answers in a row (new connections, so
    every worker) know them."""
    for board, policy in ((BEST, "best"), (SUM, "sum")):
        body = {"policy": policy, "order": "desc", "windows": ["all_time"]}
        answer = await client.put(f"/v1/boards/{board}", json=body)
        answer.raise_for_status()
    known = 0
    deadline = time.monotonic() + 60
    while known < confirmations:
        if time.monotonic() > deadline:
            raise RuntimeError("the boards are not known to every worker after 60 s")
        answers = [await client.get(f"/v1/boards/{b}") for b in (BEST, SUM)]
        known = known + 1 if all(a.status_code == 200 for a in answers) else 0


class Recorder:
    def __init__(self, client: httpx.AsyncClient, options: Options, t0: float) -> None:
        self.client = client
        self.o = options
        self.t0 = t0
        self.history = History(best_board=BEST, sum_board=SUM)
        self.tally = Tally()
        self.players = [f"h:{i}" for i in range(options.players)]
        self.used_scores: set[int] = set()

    def now(self) -> float:
        return time.monotonic() - self.t0

    async def writer(self, index: int, until: float) -> None:
        rng = random.Random(self.o.seed * 1000 + index)
        seq = 0
        while self.now() < until:
            seq += 1
            board = BEST if rng.random() < 0.5 else SUM
            if board == BEST:
                score = rng.randrange(1, 10**12)
                while score in self.used_scores:  # distinct scores: no ties to break
                    score = rng.randrange(1, 10**12)
                self.used_scores.add(score)
            else:
                score = rng.randint(1, 100)
            await self.write(board, rng.choice(self.players), f"w{index}-{seq}", score)

    async def write(self, board: str, player: str, match_id: str, score: int) -> None:
        invoked = self.now()
        body = {"player_id": player, "score": score, "match_id": match_id}
        status: int | None = None
        while self.now() - invoked < RETRY_FOR:
            try:
                answer = await self.client.post(f"/v1/boards/{board}/scores", json=body)
                status = answer.status_code
            except httpx.TransportError:
                status = None
            if status == 200:
                break
            if status is not None and status not in _RETRY:
                self.tally.rejected[status] += 1
                break
            self.tally.retries += 1
            await asyncio.sleep(0.05)
        acked = status == 200
        completed = self.now() if acked or status is not None else None
        self.history.writes.append(Write(board, player, match_id, score, invoked, completed, acked))

    async def reader(self, index: int, until: float) -> None:
        rng = random.Random(self.o.seed * 1000 + 500 + index)
        while self.now() < until:
            choice = rng.random()
            player = rng.choice(self.players)
            if choice < 0.4:
                await self.read(BEST, f"/v1/boards/{BEST}/players/{player}/around?k=2", player)
            elif choice < 0.6:
                await self.read(BEST, f"/v1/boards/{BEST}/top?limit={len(self.players)}", None)
            else:
                await self.read(SUM, f"/v1/boards/{SUM}/players/{player}", player)

    async def read(self, board: str, path: str, player: str | None) -> None:
        invoked = self.now()
        try:
            answer = await self.client.get(path)
        except httpx.TransportError as exc:
            self.tally.read_errors[type(exc).__name__] += 1
            await asyncio.sleep(0.05)  # no server to answer: do not spin
            return
        completed = self.now()
        if answer.status_code == 404 and player is not None:
            self.history.reads.append(Read(board, invoked, completed, absent=player))
            return
        if answer.status_code != 200:
            self.tally.read_errors[str(answer.status_code)] += 1
            return
        body = answer.json()
        rows = body.get("entries", [body])
        entries = tuple(
            SeenEntry(r["player_id"], r["score"], r["rank"], r["achieved_at"]) for r in rows
        )
        self.history.reads.append(Read(board, invoked, completed, entries, body.get("total")))

    async def finals(self) -> None:
        for player in self.players:
            answer = await self.client.get(f"/v1/boards/{SUM}/players/{player}")
            if answer.status_code == 404:
                self.history.finals.append(Final(player, None))
            else:
                answer.raise_for_status()
                self.history.finals.append(Final(player, int(answer.json()["score"])))


async def record(
    url: str, options: Options, restart: Callable[[], str], tick: Callable[[float], None]
) -> tuple[History, Tally, str]:
    """Drive the server at ``url`` for ``options.seconds``, calling ``restart`` halfway."""
    async with _client(url) as client:
        await define_boards(client)
        recorder = Recorder(client, options, time.monotonic())
        until = options.seconds
        tasks = [asyncio.create_task(recorder.writer(i, until)) for i in range(options.writers)]
        tasks += [asyncio.create_task(recorder.reader(i, until)) for i in range(options.readers)]
        while recorder.now() < until / 2:
            tick(recorder.now())
            await asyncio.sleep(0.2)
        restarted = await asyncio.to_thread(restart)
        while not all(t.done() for t in tasks):
            tick(min(recorder.now(), until))
            await asyncio.sleep(0.2)
        await asyncio.gather(*tasks)
        await recorder.finals()
        return recorder.history, recorder.tally, restarted


def run_backend(options: Options, name: str, console: Console) -> dict[str, Any]:
    plan = stack.plan(name, options.database_url, options.redis_url)
    console.print(f"[bold]{name}[/bold]: {plan.describe}")
    with stack.running(plan) as server:
        columns = (TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task(f"{name} history", total=options.seconds)
            history, tally, restarted = asyncio.run(
                record(
                    server.url,
                    options,
                    lambda: server.restart(signal.SIGKILL),
                    lambda done: bar.update(task, completed=done),
                )
            )
    violations = check(history)
    return {
        "backend": name,
        "setup": plan.describe,
        "restart": restarted,
        "writes": len(history.writes),
        "acknowledged": sum(w.acked for w in history.writes),
        "unknown": sum(w.completed is None for w in history.writes),
        "retries": tally.retries,
        "rejected": {str(k): v for k, v in sorted(tally.rejected.items())},
        "reads": len(history.reads),
        "observations": sum(len(r.entries) + (r.absent is not None) for r in history.reads),
        "read_errors": dict(tally.read_errors),
        "violations": count(violations),
        "examples": [msgspec.to_builtins(v) for v in _examples(violations)],
        "history": msgspec.to_builtins(history),
    }


def _examples(violations: list[Violation], per_rule: int = 3) -> list[Violation]:
    shown: Counter[str] = Counter()
    out = []
    for v in violations:
        if shown[v.rule] < per_rule:
            shown[v.rule] += 1
            out.append(v)
    return out


def main(options: Options, console: Console) -> int:
    results = [run_backend(options, name, console) for name in options.backends]
    table = Table(title="history check: violations per rule (goal: 0)")
    table.add_column("rule")
    for r in results:
        table.add_column(r["backend"], justify="right")
    for rule in RULES:
        table.add_row(rule, *(str(r["violations"][rule]) for r in results))
    console.print(table)
    failed = False
    for r in results:
        total = sum(r["violations"].values())
        failed = failed or total > 0 or r["acknowledged"] == 0 or r["reads"] == 0
        console.print(
            f"{r['backend']}: {r['writes']} writes ({r['acknowledged']} acknowledged, "
            f"{r['retries']} retries, {r['unknown']} unknown, rejected {r['rejected'] or 0}), "
            f"{r['reads']} reads ({r['observations']} observations, errors "
            f"{r['read_errors'] or 0}); {r['restart']}"
        )
        for example in r["examples"]:
            console.print(f"  {example['rule']} {example['player']}: {example['detail']}")
        verdict = "[green]PASS[/green]" if total == 0 else "[red]FAIL[/red]"
        console.print(f"{verdict} {r['backend']}: {total} violations (goal 0)")
    if options.json_path is not None:
        options.json_path.parent.mkdir(parents=True, exist_ok=True)
        options.json_path.write_bytes(msgspec.json.encode({"backends": results}))
        console.print(f"history and result written to {options.json_path}")
    return 1 if failed else 0
