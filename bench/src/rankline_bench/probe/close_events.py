"""What period-close events cost: the archiving of a period with and without a board
webhook, the events' size, and sending them.

    rankline bench probe close-events [--players 100000] [--regions 10] [--tops 100,1000]

On the embedded SQLite store in a temporary directory (or ``--database-url``, a PostgreSQL or
MariaDB database made and migrated when missing; the probe's boards are deleted at the end).
Each variant is a board of its own with the same standings: ``--players`` players on one
daily period, each on the global leaderboard and on one of ``--regions`` region scopes.
Its period is archived as the scheduler does (claim, then ``archive_period``): without a
webhook, then with one for each ``--tops`` (the archiving transaction then writes one event
per scope, built from the archive). Prints the archiving's wall time, the events' own share
(deleted and written again from the archive, alone: the median of three), the events written
and their bodies' bytes; then sends every variant's events to a receiver on loopback that
answers 204 (``rankline.lifecycle.webhooks.Sender``, as the workers do) and prints the time
per event.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import msgspec
from sqlalchemy import func, insert, select

from rankline.boards import Board, BoardSpec
from rankline.lifecycle.closing import close_event
from rankline.lifecycle.webhooks import Sender
from rankline.periods import parse_period
from rankline.runtime.clock import SystemClock, to_micros
from rankline.settings import Settings
from rankline.store import archive as store_archive
from rankline.store import deliveries
from rankline.store import schema as t
from rankline.store.archive import PeriodKey
from rankline.store.deliveries import BoardDeliveries, BoardDelivery
from rankline.store.opening import open_store
from rankline.store.sql import SqlStore

AT = to_micros(datetime(2026, 11, 21, 12, tzinfo=UTC))
CLOSED = to_micros(datetime(2026, 11, 23, tzinfo=UTC))
_CHUNK = 5000


@dataclass(frozen=True)
class Options:
    players: int = 100_000
    regions: int = 10
    tops: str = "100,1000"
    database_url: str | None = None

    def top_values(self) -> list[int]:
        values = [int(v) for v in self.tops.split(",") if v.strip()]
        if not values or any(not 1 <= v <= 1000 for v in values):
            raise ValueError("--tops: comma-separated numbers from 1 to 1000")
        return values


def _board(board_id: str, top: int | None) -> Board:
    spec: dict[str, object] = {"windows": ["daily"], "scopes": ["region"]}
    if top is not None:
        spec["webhook"] = {"url": "http://127.0.0.1:9/", "secret": "s", "top": top}
    return Board.define(board_id, msgspec.convert(spec, BoardSpec))


async def _load(store: SqlStore, board: Board, options: Options, seed: int) -> None:
    period = parse_period("daily", "2026-11-21", board.calendar)
    scores = random.Random(seed)
    rows = []
    for i in range(options.players):
        score, at = scores.randrange(1, 10**9), AT + i
        for scope in ("global", f"region:r{i % options.regions}"):
            rows.append(
                {
                    "board_id": board.id,
                    "window": "daily",
                    "period": period.name,
                    "scope": scope,
                    "player_id": f"p:{i}",
                    "score": score,
                    "achieved_at": at,
                    "revision": 1,
                    "subscore": None,
                }
            )
    async with store.engine.begin() as conn:
        for start in range(0, len(rows), _CHUNK):
            await conn.execute(insert(t.standings), rows[start : start + _CHUNK])
        await conn.execute(
            insert(t.periods).values(
                board_id=board.id,
                window="daily",
                period=period.name,
                starts_at=period.starts_at,
                ends_at=period.ends_at,
                state=store_archive.OPEN,
            )
        )


async def _archive(store: SqlStore, board: Board) -> float:
    key = PeriodKey(board.id, "daily", "2026-11-21")
    period = parse_period("daily", "2026-11-21", board.calendar)
    until = CLOSED + 900_000_000
    assert await store_archive.claim(store, key, CLOSED, until)
    started = time.perf_counter()
    done = await store_archive.archive_period(
        store, key, board.keys, CLOSED, until, close_event(board, period)
    )
    elapsed = time.perf_counter() - started
    assert done is not None
    return elapsed


async def _enqueue_again(store: SqlStore, board: Board) -> float:
    """The events' own share: deleted, then written again from the archive, alone in a
    transaction (the median of three)."""
    d = t.board_deliveries
    period = parse_period("daily", "2026-11-21", board.calendar)
    event = close_event(board, period)
    assert event is not None
    times = []
    for _ in range(3):
        async with store.engine.begin() as conn:
            await conn.execute(d.delete().where(d.c.board_id == board.id))
        async with store.engine.begin() as conn:
            started = time.perf_counter()
            await deliveries.enqueue(conn, board.id, "daily", period.name, event, CLOSED)
            times.append(time.perf_counter() - started)
    return sorted(times)[1]


async def _events(store: SqlStore, board_id: str) -> tuple[int, int]:
    d = t.board_deliveries
    query = select(func.count(), func.coalesce(func.sum(func.length(d.c.body)), 0)).where(
        d.c.board_id == board_id
    )
    async with store.engine.connect() as conn:
        count, size = (await conn.execute(query)).one()
    return int(count), int(size)


class _Receiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


async def _send(store: SqlStore, board_ids: list[str]) -> tuple[int, float]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    d = t.board_deliveries
    async with store.engine.begin() as conn:  # the probe's receiver, not the board's URL
        await conn.execute(d.update().where(d.c.board_id.in_(board_ids)).values(webhook_url=url))

    async def secret(delivery: BoardDelivery) -> str:
        return "s"

    sender = Sender(BoardDeliveries(store), secret, SystemClock())
    sent = 0
    started = time.perf_counter()
    try:
        while batch := await sender.send_due():
            sent += sum(1 for _, ok in batch if ok)
    finally:
        server.shutdown()
        server.server_close()
    return sent, time.perf_counter() - started


async def _run(options: Options, settings: Settings) -> None:
    tops = options.top_values()
    variants: list[int | None] = [None, *tops]
    print(
        f"close-events probe: {options.players:,} players on one daily period, "
        f"{options.regions} region scopes (+ global): {2 * options.players:,} archived entries"
    )
    print(
        f"{'variant':22} {'archiving':>10} {'events alone':>13} {'events':>7} {'bytes':>12} "
        f"{'per event':>10}"
    )
    async with open_store(settings, schema="upgraded") as store:
        ids = []
        try:
            for n, top in enumerate(variants):
                board = _board(f"probe-close-{n}", top)
                ids.append(board.id)
                await _load(store, board, options, seed=7)
                elapsed = await _archive(store, board)
                alone = (
                    "-" if top is None else f"{await _enqueue_again(store, board) * 1000:.0f} ms"
                )
                count, size = await _events(store, board.id)
                name = "no webhook" if top is None else f"webhook, top {top}"
                per = f"{size / count:,.0f} B" if count else "-"
                print(
                    f"{name:22} {elapsed * 1000:7.0f} ms {alone:>13} {count:7} {size:12,} {per:>10}"
                )
            sent, seconds = await _send(store, ids)
            print(
                f"sending {sent} events to a loopback receiver: {seconds / sent * 1000:.1f} ms each"
            )
        finally:
            for board_id in ids:
                await store.delete_board(board_id)


def run(options: Options) -> None:
    options.top_values()
    if options.database_url is not None:
        asyncio.run(_run(options, Settings(database_url=options.database_url)))
        return
    with tempfile.TemporaryDirectory(prefix="rankline-close-") as tmp:
        asyncio.run(_run(options, Settings(data_dir=Path(tmp) / "data")))
