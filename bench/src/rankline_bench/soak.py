"""``rankline soak``: mixed reads and writes for minutes, a restart in the middle, and the
figures that show whether the server holds up: requests, p50/p99 and 5xx per minute, and
the resident memory (RSS) of the server processes.

The load comes from this process: ``clients`` httpx connections sending at ``rate``
requests/s in all (or as fast as answers come back, if the server is slower; the run
still ends on time, and reports how far behind it fell): 35% player
views, 20% neighbours (``around?k=5``), 20% top pages (``limit=10``), 25% score submissions,
on one ``best`` board seeded with ``players`` players. Latency is measured from the moment
a request is sent to its answer. RSS is read from /proc every second. Its growth is judged
per process, from the end of that process's warm-up (the first minute under load, or a
fifth of the run when shorter) to its last sample, on the processes measured over at least a
fifth of the run: the long-lived ones, and a restarted server from its own warm-up.

While the restart is under way, requests may find no server ("connection") or a server
still building its index, which answers 503 with Retry-After (the contract's "nothing was
recorded, retry"): those 503s are counted apart, as "503 starting"; every other 5xx counts
against the goal of none.
"""

from __future__ import annotations

import asyncio
import math
import random
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
import msgspec
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from rankline_bench import servers, stack

BOARD = "soak"
AUTH = {"Authorization": f"Bearer {stack.KEY}"}
RSS_GOAL = 0.05  # growth
P99_SPREAD = 2.0  # a minute's p99 above this many times the median minute's is unstable


@dataclass(frozen=True)
class Options:
    minutes: float = 10.0
    backends: tuple[str, ...] = ("memory", "redis")
    rate: float = 200.0
    clients: int = 32
    players: int = 10_000
    json_path: Path | None = None
    seed: int = 1
    database_url: str = stack.PG_URL
    redis_url: str = stack.REDIS_URL

    @property
    def seconds(self) -> float:
        return self.minutes * 60.0

    @property
    def interval(self) -> float:
        """Seconds per row of the table: a minute, or a sixth of a shorter run."""
        return min(60.0, self.seconds / 6)

    @property
    def warmup(self) -> float:
        return min(60.0, self.seconds / 5)


@dataclass
class Bucket:
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)


class RssSampler:
    """RSS of every server process, once a second, in a thread: pid -> [(t, bytes)]."""

    def __init__(self, pids: Callable[[], list[int]], t0: float) -> None:
        self.pids = pids
        self.t0 = t0
        self.samples: dict[int, list[tuple[float, int]]] = {}
        self.totals: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            now = time.monotonic() - self.t0
            total = 0
            for pid in self.pids():
                rss = servers.rss_bytes(pid)
                if rss:
                    self.samples.setdefault(pid, []).append((now, rss))
                    total += rss
            if total:  # no server between a stop and a start
                self.totals.append((now, total))

    def growth(self, warmup: float, run_seconds: float) -> list[dict[str, Any]]:
        """Per process: RSS after its warm-up, at its last sample, and the growth."""
        out = []
        for pid, samples in sorted(self.samples.items()):
            first_seen = samples[0][0]
            after = [s for s in samples if s[0] >= first_seen + warmup]
            if len(after) < 2:
                continue
            (t_base, base), (t_last, last) = after[0], after[-1]
            out.append(
                {
                    "pid": pid,
                    "from_s": round(t_base, 1),
                    "to_s": round(t_last, 1),
                    "rss_start_mb": round(base / 2**20, 1),
                    "rss_end_mb": round(last / 2**20, 1),
                    "growth": (last - base) / base,
                    "judged": t_last - t_base >= run_seconds / 5,
                }
            )
        return out


class Load:
    def __init__(self, client: httpx.AsyncClient, options: Options, t0: float) -> None:
        self.client = client
        self.o = options
        self.t0 = t0
        self.buckets: dict[int, Bucket] = {}
        self.sent = 0
        self.match = 0
        self.failures: list[str] = []
        self.restarting = False  # 503s meanwhile are the restarted server's "retry shortly"
        self.behind = 0.0  # how late a request was sent, at worst, against the schedule

    def now(self) -> float:
        return time.monotonic() - self.t0

    async def run_client(self, index: int) -> None:
        rng = random.Random(self.o.seed * 1000 + index)
        while True:
            slot = self.sent
            self.sent += 1
            due = slot / self.o.rate
            if due >= self.o.seconds or self.now() >= self.o.seconds:
                return  # the run ends on time, even when it could not keep up
            wait = due - self.now()
            if wait > 0:
                await asyncio.sleep(wait)
            await self.one(rng, due)

    async def one(self, rng: random.Random, due: float) -> None:
        player = f"s:{rng.randrange(self.o.players)}"
        pick = rng.random()
        sent = self.now()
        self.behind = max(self.behind, sent - due)
        try:
            if pick < 0.25:
                self.match += 1
                body = {
                    "player_id": player,
                    "score": rng.randrange(1, 10**9),
                    "match_id": f"soak-{self.match}",
                }
                answer = await self.client.post(f"/v1/boards/{BOARD}/scores", json=body)
            elif pick < 0.6:
                answer = await self.client.get(f"/v1/boards/{BOARD}/players/{player}")
            elif pick < 0.8:
                answer = await self.client.get(f"/v1/boards/{BOARD}/players/{player}/around?k=5")
            else:
                answer = await self.client.get(f"/v1/boards/{BOARD}/top?limit=10")
            status = _status_class(answer.status_code)
            if answer.status_code == 503 and self.restarting:
                status = "503 starting"
            if status == "5xx" and len(self.failures) < 20:
                where = answer.request.url.path
                self.failures.append(
                    f"{self.now():.1f} s {answer.status_code} {where}: {answer.text[:300]}"
                )
        except httpx.TransportError as exc:
            status = "connection" if not isinstance(exc, httpx.TimeoutException) else "timeout"
            await asyncio.sleep(0.05)  # the server is restarting: do not spin
        # The row it was due in: sent late on a busy machine, a request due just before the
        # end would make a row of its own past the run, too short for an RSS sample.
        bucket = self.buckets.setdefault(int(due // self.o.interval), Bucket())
        bucket.statuses[status] += 1
        if status == "2xx":
            bucket.latencies.append(self.now() - sent)


def _status_class(code: int) -> str:
    return str(code) if code in (404, 429) else f"{code // 100}xx"


async def seed(client: httpx.AsyncClient, players: int) -> None:
    """The board and one score per player, so every read finds its player."""
    answer = await client.put(f"/v1/boards/{BOARD}", json={"policy": "best", "order": "desc"})
    answer.raise_for_status()
    rng = random.Random(0)
    for start in range(0, players, 1000):
        items = [
            {
                "board": BOARD,
                "player_id": f"s:{i}",
                "score": rng.randrange(1, 10**9),
                "match_id": "seed",
            }
            for i in range(start, min(start + 1000, players))
        ]
        for attempt in range(50):  # a worker may not know the new board yet
            answer = await client.post("/v1/scores/batch", json={"scores": items})
            answer.raise_for_status()
            if all("error" not in r for r in answer.json()["results"]):
                break
            await asyncio.sleep(0.1 * (attempt + 1))
        else:
            raise RuntimeError(f"seeding failed: {answer.text[:500]}")


async def drive(
    url: str,
    options: Options,
    restart: Callable[[], str],
    pids: Callable[[], list[int]],
    tick: Callable[[float], None],
) -> dict[str, Any]:
    limits = httpx.Limits(
        max_connections=options.clients, max_keepalive_connections=options.clients
    )
    async with httpx.AsyncClient(
        base_url=url, headers=AUTH, limits=limits, timeout=httpx.Timeout(30.0)
    ) as client:
        await seed(client, options.players)
        t0 = time.monotonic()
        load = Load(client, options, t0)
        with RssSampler(pids, t0) as rss:
            tasks = [asyncio.create_task(load.run_client(i)) for i in range(options.clients)]
            while load.now() < options.seconds / 2:
                tick(load.now())
                await asyncio.sleep(0.5)
            restart_at = load.now()
            load.restarting = True
            restarted = await asyncio.to_thread(restart)
            load.restarting = False
            restarted_by = load.now()
            while not all(t.done() for t in tasks):
                tick(min(load.now(), options.seconds))
                await asyncio.sleep(0.5)
            await asyncio.gather(*tasks)
        elapsed = load.now()
    summary = summarize(options, load.buckets, rss, restart_at, restarted_by, restarted, elapsed)
    return summary | {"errors_5xx_first": load.failures, "behind_s": round(load.behind, 2)}


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def summarize(
    options: Options,
    buckets: dict[int, Bucket],
    rss: RssSampler,
    restart_at: float,
    restarted_by: float,
    restarted: str,
    elapsed: float,
) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    # A row for every interval of the run: one the load never reached (it fell behind its
    # schedule and the run ended on time) shows no request rather than going missing.
    count = max(math.ceil(options.seconds / options.interval - 1e-9), max(buckets, default=-1) + 1)
    for index in range(count):
        bucket = buckets.get(index, Bucket())
        start, end = index * options.interval, (index + 1) * options.interval
        in_row = [total for t, total in rss.totals if start <= t < end]
        p50, p99 = _percentile(bucket.latencies, 0.5), _percentile(bucket.latencies, 0.99)
        rows.append(
            {
                "from_s": start,
                "requests": sum(bucket.statuses.values()),
                "p50_ms": None if p50 is None else round(p50 * 1000, 2),
                "p99_ms": None if p99 is None else round(p99 * 1000, 2),
                "status": dict(bucket.statuses),
                "errors_5xx": bucket.statuses["5xx"],
                "rss_mb": round(in_row[-1] / 2**20, 1) if in_row else None,
                # Every row the restart overlaps, however many rows it took.
                "restart": restart_at < end and start <= restarted_by,
            }
        )
    growth = rss.growth(options.warmup, options.seconds)
    judged = [g["growth"] for g in growth if g["judged"]]
    steady = [r["p99_ms"] for r in rows if not r["restart"] and r["p99_ms"] is not None]
    median = _percentile(steady, 0.5)
    worst = max(steady, default=None)
    errors = sum(r["errors_5xx"] for r in rows)
    return {
        "restart": restarted,
        "restart_at_s": round(restart_at, 1),
        "restart_took_s": round(restarted_by - restart_at, 1),
        "seconds": round(elapsed, 1),
        "requests": sum(r["requests"] for r in rows),
        "rows": rows,
        "rss": growth,
        "rss_growth": max(judged) if judged else None,
        "p99_median_ms": median,
        "p99_worst_ms": worst,
        "errors_5xx": errors,
        "goals": {
            "rss": bool(judged) and max(judged) <= RSS_GOAL,
            "p99": median is not None and worst is not None and worst <= P99_SPREAD * median,
            "5xx": errors == 0,
        },
    }


def run_backend(options: Options, name: str, console: Console) -> dict[str, Any]:
    plan = stack.plan(name, options.database_url, options.redis_url)
    console.print(f"[bold]{name}[/bold]: {plan.describe}")
    with stack.running(plan) as server:
        columns = (TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task(f"{name} soak", total=options.seconds)
            result = asyncio.run(
                drive(
                    server.url,
                    options,
                    lambda: server.restart(signal.SIGTERM),
                    server.pids,
                    lambda done: bar.update(task, completed=done),
                )
            )
    return {"backend": name, "setup": plan.describe, **result}


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def render(result: dict[str, Any], options: Options, console: Console) -> None:
    table = Table(
        title=f"{result['backend']} soak: {options.rate:g} requests/s on {options.clients} "
        f"connections, {options.players:,} players"
    )
    for column in ("from", "requests", "p50 ms", "p99 ms", "5xx", "other", "RSS MB"):
        table.add_column(column, justify="right")
    for row in result["rows"]:
        other = {k: v for k, v in row["status"].items() if k not in ("2xx", "5xx")}
        table.add_row(
            f"{row['from_s']:.0f} s" + (" *" if row["restart"] else ""),
            str(row["requests"]),
            _ms(row["p50_ms"]),
            _ms(row["p99_ms"]),
            str(row["errors_5xx"]),
            ", ".join(f"{k}: {v}" for k, v in sorted(other.items())) or "0",
            _ms(row["rss_mb"]),
        )
    console.print(table)
    console.print(
        f"* restart at {result['restart_at_s']} s ({result['restart_took_s']} s): "
        f"{result['restart']}"
    )
    for g in result["rss"]:
        console.print(
            f"  pid {g['pid']}: {g['rss_start_mb']} MB at {g['from_s']} s -> "
            f"{g['rss_end_mb']} MB at {g['to_s']} s ({g['growth']:+.1%})"
            + ("" if g["judged"] else " (too short a span to judge)")
        )
    if result["behind_s"] > 1:
        sent = result["requests"] / result["seconds"]
        console.print(
            f"  the load fell behind its schedule by up to {result['behind_s']:.1f} s: the "
            f"server (or this machine) did not keep up with {options.rate:g} requests/s "
            f"({sent:.0f}/s sent)"
        )
    for failure in result["errors_5xx_first"][:5]:
        console.print(f"  5xx at {failure}")
    goals = result["goals"]
    growth = result["rss_growth"]
    _verdict(
        console,
        goals["rss"],
        f"RSS growth after warm-up: {'-' if growth is None else f'{growth:+.1%}'} (goal <= 5%)",
    )
    _verdict(
        console,
        goals["p99"],
        f"p99 per {options.interval:.0f} s: worst {_ms(result['p99_worst_ms'])} ms, median "
        f"{_ms(result['p99_median_ms'])} ms (goal: stable, worst <= {P99_SPREAD:g}x median, "
        "restart rows aside)",
    )
    starting = sum(r["status"].get("503 starting", 0) for r in result["rows"])
    _verdict(
        console,
        goals["5xx"],
        f"5xx answers: {result['errors_5xx']} (goal 0)"
        + (f"; besides, {starting} x 503 while the server restarted" if starting else ""),
    )


def _verdict(console: Console, ok: bool, text: str) -> None:
    console.print(("[green]PASS[/green] " if ok else "[red]FAIL[/red] ") + text)


def main(options: Options, console: Console) -> int:
    results = []
    for name in options.backends:
        result = run_backend(options, name, console)
        render(result, options, console)
        results.append(result)
    if options.json_path is not None:
        options.json_path.parent.mkdir(parents=True, exist_ok=True)
        settings = {k: str(v) if isinstance(v, Path) else v for k, v in asdict(options).items()}
        document = {"options": settings, "backends": results}
        options.json_path.write_bytes(msgspec.json.encode(document))
        console.print(f"figures written to {options.json_path}")
    return 0 if all(all(r["goals"].values()) for r in results) else 1
