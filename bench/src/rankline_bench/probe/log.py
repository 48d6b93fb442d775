"""Append throughput of the ingestion log: batches of records into one log, timed.

    rankline bench probe log [--engine sqlite|sqlite-store|nats|kafka|URL]
        [--batches 50] [--batch 1000] [--payload 200] [--partitions 16]

sqlite (the default) makes a fresh, migrated SQLite store (synchronous=FULL, as served) in a
temporary directory and appends to the log where a server on it keeps it: a file of its own
beside the store. sqlite-store appends to a log kept in the store's own file (where an
earlier version kept it, and where a PostgreSQL or MariaDB store keeps it). nats uses
nats://127.0.0.1:4222. The log is dropped afterwards, on every engine. Prints rows/s over all
batches and the median batch time.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from rankline.log import LogOptions, LogRecord, open_log
from rankline.log.factory import embedded_log
from rankline.store.opening import open_store, store_settings


@dataclass(frozen=True)
class Options:
    engine: str = "sqlite"
    batches: int = 50
    batch: int = 1000
    payload: int = 200
    partitions: int = 16


def run(options: Options) -> None:
    asyncio.run(main(options))


async def main(args: Options) -> None:
    name = "probe" + uuid.uuid4().hex[:8]
    options = LogOptions(name=name, partitions=args.partitions)
    with tempfile.TemporaryDirectory() as tmp:
        database = f"sqlite+aiosqlite:///{(Path(tmp) / 'log.db').as_posix()}"
        first: dict[int, int] | None = None
        if args.engine in ("sqlite", "sqlite-store"):
            async with open_store(store_settings(database), schema="upgraded"):
                pass
            url = ""
            beside = embedded_log(database, name) if args.engine == "sqlite" else None
            if beside is not None:
                url, first = beside
        elif args.engine == "nats":
            url = "nats://127.0.0.1:4222"
        else:
            url = args.engine
        log = open_log(url, database, options, first_positions=first)
        await log.start()
        payload = b"x" * args.payload
        times: list[float] = []
        try:
            for b in range(args.batches):
                records = [
                    LogRecord(
                        board=f"board-{i % 100}", key=f"board-{i % 100}/p{i}/m{b}", payload=payload
                    )
                    for i in range(args.batch)
                ]
                started = time.perf_counter()
                await log.append(records)
                times.append(time.perf_counter() - started)
        finally:
            try:
                await log.drop()
            finally:
                await log.close()
    total = args.batches * args.batch
    print(
        f"{args.engine}: {total} records in {args.batches} batches of {args.batch} "
        f"({args.payload} B payload, {args.partitions} partitions): "
        f"{total / sum(times):,.0f} rows/s; median batch {statistics.median(times) * 1000:.1f} ms"
    )
