"""What the SQL standings cost per submission at N players, layout by layout, in plain sqlite3.

    rankline bench probe projection [--players 10000000] [--batch 5000]
        [--seconds 30] [--data-dir DIR] [--layouts key,key+rank,standings,store]

The standings are a projection behind the log: however they are scheduled, each submission
that changes a standing has to update it in SQL. This measures that update alone, with no
Python of rankline's around it, for layouts from the least a projection can be to rankline's
own tables:

- key: one B-tree keyed (board, window, period, scope, player), WITHOUT ROWID: the least a
  projection that finds a player's standing can be;
- key+rank: the same with the rank index (board, window, period, scope, score, achieved_at,
  player), which the SQL fallback counts ranks in while the ranking index cannot answer,
  and which closing a period, `rankline verify` and `rankline rebuild` read in rank order;
- standings: rankline's `rl_standings` (a rowid table, its primary key, rank and player
  indexes), created from rankline's schema;
- store: `rl_standings` and `rl_score_events` (each submission also inserts its event, under
  the unique key on (board, match_id, player) and the player index): what the group commit
  writes per submission.

Each layout gets a SQLite file with N standings of one all-time board (and, for store, one
event per player), filled in key order, then runs transactions of --batch random players
sorted by key (an applier coalescing and ordering a batch), each player's standing replaced
by a new score, for --seconds. The connection is set up as the server's group commit
(WAL, synchronous=FULL, its cache size, a passive checkpoint every few thousand changed
rows). Prints events/s and the CPU per event of this process, which runs SQLite itself.
The files are kept in --data-dir (default: a temporary directory) and reused when present;
a reused file holds what earlier rounds wrote (the store layout's events grow by each
round's), so rounds on one file are alike, not identical.
"""

from __future__ import annotations

import contextlib
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import create_engine

from rankline.settings import Settings
from rankline.store import schema
from rankline.store.sql import _CHECKPOINT_ROWS

LAYOUTS = ("key", "key+rank", "standings", "store")
_FILLED = 1
"""The file's ``user_version`` once its fill (and, for key+rank, its rank index) is done."""
_KEY = "board_id, window, period, scope, player_id"
_RANK = "board_id, window, period, scope, score, achieved_at, player_id"


def _player(i: int) -> str:
    return f"player-{i:09d}"


def _create(path: Path, layout: str) -> None:
    if layout.startswith("key"):
        db = sqlite3.connect(path)
        db.execute(
            "CREATE TABLE rl_standings (board_id TEXT, window TEXT, period TEXT, scope TEXT,"
            " player_id TEXT, score INTEGER, achieved_at INTEGER, revision INTEGER,"
            f" subscore INTEGER, PRIMARY KEY ({_KEY})) WITHOUT ROWID"
        )
        db.close()
        return
    engine = create_engine(f"sqlite:///{path.as_posix()}")
    tables = [schema.standings] + ([schema.score_events] if layout == "store" else [])
    schema.metadata.create_all(engine, tables=tables)
    engine.dispose()


def _fill(db: sqlite3.Connection, layout: str, n: int) -> None:
    rng = random.Random(1)

    def standings() -> Iterator[tuple[object, ...]]:
        for i in range(n):
            yield ("bench", "all_time", "all", "", _player(i), rng.randrange(10**9), i, 1, None)

    db.execute("BEGIN")
    db.executemany("INSERT INTO rl_standings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", standings())
    if layout == "store":
        db.executemany(
            "INSERT INTO rl_score_events (board_id, player_id, match_id, score, at,"
            " received_at, applied, scopes, metadata) VALUES (?, ?, ?, ?, 0, 0, 1, '[]', '{}')",
            (("bench", _player(i), f"fill-{i}", i) for i in range(n)),
        )
    db.execute("COMMIT")
    if layout == "key+rank":
        db.execute(f"CREATE INDEX ix_rank ON rl_standings ({_RANK})")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _open(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={Settings.model_construct().sqlite_synchronous}")
    db.execute(f"PRAGMA cache_size=-{Settings.model_construct().sqlite_cache_mb * 1024}")
    db.execute("PRAGMA wal_autocheckpoint=0")
    return db


def _filled(path: Path) -> bool:
    """Whether ``path`` is a file this probe finished filling (an interrupted fill leaves a
    file without the mark, which is made again)."""
    if not path.exists():
        return False
    with contextlib.closing(sqlite3.connect(path)) as db:
        return bool(db.execute("PRAGMA user_version").fetchone()[0] == _FILLED)


def measure(path: Path, layout: str, n: int, batch: int, seconds: float) -> dict[str, float]:
    if not _filled(path):
        for leftover in path.parent.glob(f"{path.name}*"):  # the file, its WAL and index
            leftover.unlink()
        _create(path, layout)
        db = _open(path)
        started = time.perf_counter()
        _fill(db, layout, n)
        db.execute(f"PRAGMA user_version = {_FILLED}")
        print(f"  {layout}: filled {n:,} in {time.perf_counter() - started:.0f} s", flush=True)
    else:
        db = _open(path)
    upsert = (
        "INSERT INTO rl_standings VALUES (?, ?, ?, ?, ?, ?, ?, 1, NULL) ON CONFLICT"
        f" ({_KEY}) DO UPDATE SET score = excluded.score, achieved_at = excluded.achieved_at,"
        " revision = rl_standings.revision + 1"
    )
    event = (
        "INSERT INTO rl_score_events (board_id, player_id, match_id, score, at, received_at,"
        " applied, scopes, metadata) VALUES (?, ?, ?, ?, ?, ?, 1, '[]', '{}')"
    )
    rng = random.Random()
    events = changed = checkpointed = 0
    times: list[float] = []
    cpu, started = time.process_time(), time.perf_counter()
    while time.perf_counter() - started < seconds:
        players = sorted({_player(rng.randrange(n)) for _ in range(batch)})
        now = time.time_ns() // 1000
        scores = [rng.randrange(10**9) for _ in players]
        rows = [
            ("bench", "all_time", "all", "", p, s, now)
            for p, s in zip(players, scores, strict=True)
        ]
        began = time.perf_counter()
        db.execute("BEGIN")
        if layout == "store":
            db.executemany(
                event,
                [
                    ("bench", p, f"m-{now}-{p}", s, now, now)
                    for p, s in zip(players, scores, strict=True)
                ],
            )
        db.executemany(upsert, rows)
        db.execute("COMMIT")
        changed += len(rows) * (2 if layout == "store" else 1)
        if changed - checkpointed >= _CHECKPOINT_ROWS:
            db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            checkpointed = changed
        times.append(time.perf_counter() - began)
        events += len(rows)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    db.close()
    return {
        "events_per_s": events / elapsed,
        "cpu_us_per_event": cpu / events * 1e6,
        "median_batch_ms": statistics.median(times) * 1000,
    }


@dataclass(frozen=True)
class Options:
    players: int = 10_000_000
    batch: int = 5000
    seconds: float = 30.0
    data_dir: Path | None = None
    layouts: str = ",".join(LAYOUTS)


def run(args: Options) -> None:
    layouts = args.layouts.split(",")
    if unknown := set(layouts) - set(LAYOUTS):
        raise ValueError(f"unknown layouts: {', '.join(sorted(unknown))}")
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.data_dir or Path(tmp)
        directory.mkdir(parents=True, exist_ok=True)
        for layout in layouts:
            path = directory / f"projection-{layout}-{args.players}.db"
            r = measure(path, layout, args.players, args.batch, args.seconds)
            print(
                f"{layout:>10}: {r['events_per_s']:>9,.0f} events/s,"
                f" {r['cpu_us_per_event']:6.1f} µs CPU per event,"
                f" batch median {r['median_batch_ms']:.0f} ms",
                flush=True,
            )
