"""``rankline bench --backends dense``: what dense ranks cost in memory.

For the memory index (with SQLite) and Redis (with PostgreSQL), one after the other: a
plain board and a board with ``"dense_rank": true``, each alone in a fresh store with the
same N players (their scores are all distinct, the most distinct scores a board can keep),
each measured on a server of its own exactly as ``rankline bench`` measures memory per
entry (``Bench.memory_at``). No wrk: reads of a dense-rank board cost one more O(log N) call.
Its PostgreSQL and Redis databases are its own, so it may run beside another bench; Redis's
``used_memory`` is the whole server's, so ``keys_bytes_per_entry`` (MEMORY USAGE of the
database's keys) is the figure other traffic cannot move.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import Any

from rankline_bench import load
from rankline_bench.harness import Backend, Harness

PG_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_bench_dense"
REDIS_URL = "redis://127.0.0.1:6379/5"


def measure(bench: Harness, plans: list[Backend]) -> dict[str, Any]:
    """Memory per entry of a plain and a dense-rank board of N players, on each of ``plans``."""
    o = bench.o
    section: dict[str, Any] = {"entries": o.n, "backends": {}}
    for given in plans:
        plan = given
        if given.redis_url is not None:
            plan = dataclasses.replace(given, database_url=PG_URL, redis_url=REDIS_URL)
        found: dict[str, Any] = {"label": plan.label}
        for name, dense in (("plain", False), ("dense_rank", True)):
            board = load.bench_board(dense_rank=dense)
            data_dir = bench.tmp / f"dense-{plan.name}-{name}"
            env, url, rss_empty = bench.prepared(plan, data_dir, [board])
            started = time.perf_counter()
            with bench.bar(f"bulk load into SQL: {name}", o.n) as update:
                asyncio.run(load.load(url, bench.data, bench.now, update, board=board))
            bench.step(f"loaded {o.n:,} players in {time.perf_counter() - started:.1f} s")
            found[name] = bench.memory_at(env, plan, rss_empty, o.n)
            per_entry = found[name]["bytes_per_entry"]
            bench.step(f"{plan.label}, {name}: {per_entry:,.1f} B per entry")
        found["dense_rank_extra_bytes_per_entry"] = (
            found["dense_rank"]["bytes_per_entry"] - found["plain"]["bytes_per_entry"]
        )
        section["backends"][plan.name] = found
    scores = {bench.data.score(i) for i in range(o.n)}
    section["distinct_scores"] = len(scores)
    return section
