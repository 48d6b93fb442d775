"""``rankline bench --backends cluster``: an unsharded and a sharded board side by side on
one local Redis Cluster.

1. start a local cluster (3 primaries, 3 replicas: ``bench.cluster``) and recreate the
   PostgreSQL database ``rankline_bench``;
2. for each of two boards with the same N players, one after the other: ``bench`` (one
   sorted set per leaderboard), then ``bench-sharded`` (``shards`` sorted sets, one per
   primary at S=3): bulk-load it alone into an empty store, empty the cluster, start
   ``rankline serve`` on it and time the index build from SQL; read every node's
   ``used_memory`` before and after: bytes per entry on the primaries, and with the
   replicas; wrk against rank, around and top-100; stop the server. The cluster never holds
   more than N entries, so N can be as large as one board fits on the machine;
3. the sharded board's requests/s as a share of the unsharded one's;
4. raw ``redis-benchmark`` ZREVRANK on a plain sorted set of N members on one primary:
   what one node does with no rankline in front.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from rankline.boards import Board
from rankline.index.redis.cluster import slot_of
from rankline.store import admin
from rankline_bench import load, probes, servers
from rankline_bench.cluster import LocalCluster
from rankline_bench.harness import Harness

SHARDED_BOARD = "bench-sharded"
SHARDS = 3
READS = ("rank", "around", "top")


def _memory(cluster: LocalCluster) -> dict[str, dict[str, int]]:
    """``used_memory`` (and its fixed parts) of every live node, by role."""
    found: dict[str, dict[str, int]] = {"primaries": {}, "replicas": {}}
    for node in cluster.nodes:
        if not node.alive():
            continue
        role = "primaries" if cluster.is_primary(node) else "replicas"
        for name, value in probes.redis_memory(f"redis://{node.address}/0").items():
            found[role][name] = found[role].get(name, 0) + value
    return found


def measure(bench: Harness, url: str) -> dict[str, Any]:
    """The cluster run, with ``url`` the PostgreSQL database to recreate and fill."""
    o = bench.o
    section: dict[str, Any] = {"shards": SHARDS, "boards": {}, "memory": {}, "ready_seconds": {}}
    with LocalCluster(primaries=3, replicas=1) as cluster:
        section["nodes"] = "3 primaries + 3 replicas, one machine"
        for board in (load.bench_board(), load.bench_board(SHARDED_BOARD, SHARDS)):
            _one_board(bench, url, cluster, board, section)
        section["sharded_share"] = {
            endpoint: _share(section["boards"], load.BOARD_ID, SHARDED_BOARD, endpoint)
            for endpoint in READS
        }
        node = cluster.primary_of(slot_of(probes.SCRATCH_KEY.encode()))
        bench.step("redis-benchmark ZREVRANK on one primary")
        section["redis_benchmark"] = probes.redis_benchmark(f"redis://{node.address}/0", o.n)
    asyncio.run(admin.drop_database(url))
    return section


def _one_board(
    bench: Harness, url: str, cluster: LocalCluster, board: Board, section: dict[str, Any]
) -> None:
    """Load ``board`` alone into an empty store and an empty cluster, serve it, measure its
    memory and its reads. One board at a time, so the cluster holds N entries, not 2N: the
    largest N this machine runs is twice what two boards side by side would allow."""
    o = bench.o
    bench.step(f"{board.id}: preparing the durable store")
    asyncio.run(admin.recreate_database(url))
    asyncio.run(load.prepare(url, bench.now, [board]))
    started = time.perf_counter()
    with bench.bar(f"bulk load into SQL: {board.id}", o.n) as update:
        rows = asyncio.run(load.load(url, bench.data, bench.now, update, board=board))
    bench.step(f"loaded {rows:,} players of {board.id} in {time.perf_counter() - started:.1f} s")
    cluster.flush()
    before = _memory(cluster)
    env = servers.bench_env(
        data_dir=str(bench.tmp / f"cluster-{board.id}"),
        server_keys=bench.key,
        log_level="info",
        server=o.server,
        database_url=url,
        redis_url=cluster.url,
    )
    log = bench.tmp / f"cluster-{board.id}-rankline.log"
    server = servers.rankline_server(env, o.workers, log)
    server.start()
    try:
        ready = server.wait_ready(o.ready_timeout, None)
        section["ready_seconds"][board.id] = ready
        bench.step(f"{board.id}: index of {o.n:,} entries built on the cluster in {ready:.1f} s")
        after = _memory(cluster)
        section["memory"][board.id] = {
            "entries": o.n,
            "primaries": probes.memory_per_entry(before["primaries"], after["primaries"], o.n),
            "with_replicas": probes.memory_per_entry(_sum(before), _sum(after), o.n),
        }
        bench.wrk(server, "rank", o.connections, 2.0, label="warming up", board=board.id)
        found: dict[str, Any] = {}
        for endpoint in READS:
            label = f"{board.id}: {endpoint}"
            result = bench.wrk(
                server, endpoint, o.connections, o.duration, label=label, board=board.id
            )
            found[endpoint] = result.to_json()
            bench.step(f"{label}: {result.rps:,.0f} req/s, p99 {result.p99_ms:.2f} ms")
        section["boards"][board.id] = found
    finally:
        server.stop()


def _sum(memory: dict[str, dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for part in memory.values():
        for name, value in part.items():
            total[name] = total.get(name, 0) + value
    return total


def _share(boards: dict[str, Any], plain: str, sharded: str, endpoint: str) -> float | None:
    base = boards.get(plain, {}).get(endpoint, {}).get("rps")
    split = boards.get(sharded, {}).get(endpoint, {}).get("rps")
    return split / base if base and split else None


def rows(section: dict[str, Any]) -> list[list[str]]:
    """The cluster table: each read on both boards, and the sharded board's share."""
    found = []
    boards = section.get("boards", {})
    for endpoint in READS:
        plain = boards.get(load.BOARD_ID, {}).get(endpoint, {})
        split = boards.get(SHARDED_BOARD, {}).get(endpoint, {})
        share = section.get("sharded_share", {}).get(endpoint)
        found.append(
            [
                endpoint,
                f"{plain.get('rps', 0):,.0f}",
                f"{plain.get('p99_ms', 0):.2f}",
                f"{split.get('rps', 0):,.0f}",
                f"{split.get('p99_ms', 0):.2f}",
                "—" if share is None else f"{share:.0%}",
            ]
        )
    return found


HEADER = (
    "read",
    "unsharded req/s",
    "p99 ms",
    f"sharded (S={SHARDS}) req/s",
    "p99 ms",
    "sharded / unsharded",
)
