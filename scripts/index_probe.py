"""Measure the memory index's build rate and memory per entry, end to end, as a server start
does it: stream the standings out of SQLite and load them into ``MemoryIndex``.

    .venv/bin/python scripts/index_probe.py --n 1000000
    .venv/bin/python scripts/index_probe.py --n 10000000 --db /tmp/probe-10m.db --keep

It makes a SQLite database with one board ("probe", desc, all_time) holding N players
("p:0" to "p:<N-1>") with random scores in [0, 10^6) (a bulk insert; reused when ``--db``
names a file made before with the same N), then, in a fresh process, starts a ``Rankline``
service on it and times ``start(wait_ready=True)``. Memory per entry is the process's RSS
growth over that start divided by N: the index with its player map, plus whatever the
build left behind. It also prints the rate the server logs for the build itself (what
``rankline bench`` reports), and the CPU time of the server process and of its children
(the process that reads a big leaderboard apart, see ``rankline.store.scan``): on a busy
machine wall time says little, and the build's critical path is about the greater of the
two for the scan plus the server's own sort after it.

    .venv/bin/python scripts/index_probe.py --n 10000000 --db /tmp/m10m/probe-10m.db --keep --runs 3
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import os
import random
import re
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rankline.boards import BoardSpec
from rankline.service import Rankline
from rankline.settings import Settings
from rankline.types import LeaderboardId

BOARD = "probe"
_INDEXES = ("ix_rl_standings_rank", "ix_rl_standings_player")


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _settings(db: Path) -> Settings:
    return Settings(
        data_dir=db.parent,
        database_url=f"sqlite+aiosqlite:///{db}",
        server_keys="probe-key",
    )


async def _create_board(db: Path) -> None:
    service = Rankline(_settings(db), auto_migrate=True)
    await service.start(wait_ready=True)
    try:
        await service.put_board(BOARD, BoardSpec(order="desc"))
    finally:
        await service.close()


def make_database(db: Path, n: int, seed: int = 7) -> None:
    """A migrated database with ``n`` standings on one leaderboard, inserted in bulk."""
    db.unlink(missing_ok=True)
    asyncio.run(_create_board(db))
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=DELETE")  # not WAL for one huge transaction
    conn.execute("PRAGMA synchronous=OFF")
    # Inserting into the secondary indexes row by row is slow: drop them, insert, and make
    # them again from the migration's own definitions.
    ddl = [
        conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0]
        for name in _INDEXES
    ]
    for name in _INDEXES:
        conn.execute(f"DROP INDEX {name}")
    rng = random.Random(seed)
    base = 1_767_225_600_000_000  # 2026-01-01
    # In player id order, the primary key's index grows at its end.
    rows = (
        (BOARD, "all_time", "all", "global", f"p:{i}", rng.randrange(1_000_000), base + i, 1)
        for i in sorted(range(n), key=str)
    )
    conn.executemany("INSERT INTO rl_standings VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    for sql in ddl:
        conn.execute(sql)
    conn.execute("PRAGMA user_version = " + str(n))  # marks the file as holding n rows
    conn.commit()
    conn.close()


class _Rate(logging.Handler):
    """The build rate the server logs ("ranking index built: ... (N/s)")."""

    rate = 0.0

    def emit(self, record: logging.LogRecord) -> None:
        found = re.search(r"\((\d+)/s\)$", record.getMessage())
        if record.getMessage().startswith("ranking index built") and found:
            self.rate = float(found.group(1))


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def _measure(db: Path) -> dict[str, float]:
    service = Rankline(_settings(db), auto_migrate=False)
    logged = _Rate()
    logging.getLogger("rankline.index").addHandler(logged)
    logging.getLogger("rankline.index").setLevel(logging.INFO)
    gc.collect()
    before = _rss()
    started, cpu, children = time.perf_counter(), time.process_time(), _children_cpu()
    await service.start(wait_ready=True)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    children = _children_cpu() - children
    gc.collect()
    grown = _rss() - before
    n = await service.keeper.index.total(LeaderboardId(BOARD, "all_time", "all", "global"))
    await service.close()
    return {
        "entries": n,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "children_cpu_seconds": children,
        "logged_rate": logged.rate,
        "rss_bytes": grown,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="entries (default 1,000,000)")
    parser.add_argument("--db", type=Path, help="SQLite file to make or reuse")
    parser.add_argument("--keep", action="store_true", help="keep the database file")
    parser.add_argument("--runs", type=int, default=1, help="builds to time (fresh process each)")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(asyncio.run(_measure(args.db))))
        return
    db = args.db or Path(tempfile.mkdtemp(prefix="rankline-probe-")) / "probe.db"
    if (
        not db.exists()
        or sqlite3.connect(db).execute("PRAGMA user_version").fetchone()[0] != args.n
    ):
        started = time.perf_counter()
        make_database(db, args.n)
        print(f"made {db} with {args.n:,} standings in {time.perf_counter() - started:.1f} s")
    try:
        for _ in range(args.runs):
            command = [sys.executable, __file__, "--measure", "--db", str(db), "--n", str(args.n)]
            result = json.loads(subprocess.run(command, check=True, capture_output=True).stdout)
            n = result["entries"]
            print(
                f"built {n:,} entries in {result['seconds']:.2f} s"
                f" ({n / result['seconds']:,.0f} entries/s;"
                f" server logs {result['logged_rate']:,.0f}/s;"
                f" cpu {result['cpu_seconds']:.2f} s, {n / result['cpu_seconds']:,.0f}/s,"
                f" children's cpu {result['children_cpu_seconds']:.2f} s);"
                f" memory {result['rss_bytes'] / n:.1f} B/entry (RSS growth / entries)"
            )
    finally:
        if not args.keep and args.db is None:
            db.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
