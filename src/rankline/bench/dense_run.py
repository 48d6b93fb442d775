"""``rankline bench --backends dense``: what dense ranks cost in memory.

For the memory index (with SQLite) and Redis (with PostgreSQL), one after the other: a
plain board and a board with ``"dense_rank": true``, each alone in a fresh store with the
same N players (their scores are all distinct, the most distinct scores a board can keep),
each measured on a server of its own exactly as ``rankline bench`` measures memory per
entry (``Bench.memory_at``). No wrk: reads of a dense-rank board cost one more O(log N) call.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from rankline.bench import load

if TYPE_CHECKING:
    from rankline.bench.run import Backend, Bench


def measure(bench: Bench, plans: list[Backend]) -> dict[str, Any]:
    """Memory per entry of a plain and a dense-rank board of N players, on each of ``plans``."""
    o = bench.o
    section: dict[str, Any] = {"entries": o.n, "backends": {}}
    for plan in plans:
        found: dict[str, Any] = {"label": plan.label}
        for name, dense in (("plain", False), ("dense_rank", True)):
            board = load.bench_board(dense_rank=dense)
            env, url = bench.environment(plan, bench.tmp / f"dense-{plan.name}-{name}")
            rss_empty = bench.fresh_store(env, plan, url, [board])
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
