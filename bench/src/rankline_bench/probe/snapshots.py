"""Measure top-K snapshots: the stored bytes per snapshot and per day, and the CPU a snapshot
takes.

Bulk-loads N bench players (``rankline_bench.load``) into a temporary SQLite store (or the
given PostgreSQL database), gives the bench board ``"snapshots": {"every_seconds": E, "k":
K}``, and takes ``--slots`` snapshots on a clock moved one interval at a time, as a worker's
``Snapshots.take_due`` does. It prints the CPU per snapshot (this process: the index read,
the encoding, the two SQL statements) and the table's size: SQLite's pages of
``rl_snapshots`` and its index (``dbstat``), or PostgreSQL's ``pg_total_relation_size``;
then the bytes per snapshot and per day of one leaderboard.

    rankline bench probe snapshots --n 200000 --k 100 --slots 500
    rankline bench probe snapshots --database-url postgresql+asyncpg://postgres@127.0.0.1/rl_snap
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import msgspec
import sqlalchemy as sa

from rankline.boards import SnapshotSpec
from rankline.runtime.clock import ManualClock
from rankline.service import Rankline
from rankline.settings import Settings
from rankline.store import admin
from rankline_bench import load


@dataclass(frozen=True)
class Options:
    n: int = 200_000
    k: int = 100
    every_seconds: int = 60
    slots: int = 500
    database_url: str | None = None


def run(options: Options) -> None:
    asyncio.run(main(options))


async def main(args: Options) -> None:
    tmp = tempfile.mkdtemp(prefix="rankline-snapshot-probe-")
    url = args.database_url or f"sqlite+aiosqlite:///{tmp}/rankline.db"
    now = int(time.time() * 1e6)
    try:
        if args.database_url:
            await admin.recreate_database(url)
        await load.prepare(url, now)
        await load.load(url, load.Dataset(args.n, now - 10**9), now)
        settings = Settings(data_dir=Path(tmp), database_url=url, snapshot_check_seconds=0)
        await _probe(args, settings, now)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


async def _probe(args: Options, settings: Settings, now: int) -> None:
    clock = ManualClock(now)
    service = Rankline(settings, clock=clock)
    await service.start(wait_ready=True)
    try:
        board = await service.boards.find(load.BOARD_ID)
        snapshots = SnapshotSpec(every_seconds=args.every_seconds, k=args.k, keep_days=3660)
        spec = msgspec.structs.replace(board.spec, snapshots=snapshots)
        await service.board_changes.put(load.BOARD_ID, spec)
        before = await _size(service)
        cpu = 0.0
        taken = 0
        for _ in range(args.slots):
            clock.advance(args.every_seconds)
            started = time.process_time()
            taken += len(await service.snapshots.take_due())
            cpu += time.process_time() - started
        stored = await _size(service) - before
    finally:
        await service.close()
    per = stored / max(taken, 1)
    day = 86_400 // args.every_seconds
    print(f"{taken} snapshots of k={args.k} (n={args.n:,}, every {args.every_seconds} s)")
    print(f"  {cpu / max(taken, 1) * 1e3:.2f} ms CPU per snapshot in this process")
    print(f"  {per:,.0f} bytes stored per snapshot ({per / args.k:.0f} per entry)")
    print(f"  {per * day / 1e6:,.1f} MB per day per leaderboard ({day} snapshots)")


async def _size(service: Rankline) -> int:
    """The bytes ``rl_snapshots`` and its index take."""
    engine = service.store.engine
    async with engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            query = "SELECT pg_total_relation_size('rl_snapshots')"
        else:
            query = (
                "SELECT SUM(pgsize) FROM dbstat "
                "WHERE name IN ('rl_snapshots', 'ix_rl_snapshots_taken', "
                "'sqlite_autoindex_rl_snapshots_1')"
            )
        found = (await conn.execute(sa.text(query))).scalar()
    return int(found or 0)
