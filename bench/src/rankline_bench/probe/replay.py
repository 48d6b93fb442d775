"""How long ``rankline replay`` takes per million score events on the embedded SQLite.

Makes a throwaway store (a temporary directory unless --data-dir), one ``best`` board with
the windows and scope given, and N events spread over P players and D days, written
straight into ``rl_score_events`` as the writer would have recorded them (``applied`` set
as the policy decided). Then times ``rankline.writing.replay.replay`` over them and prints events/s.

    rankline bench probe replay --events 1000000
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
from sqlalchemy import insert

from rankline.boards import Board, BoardSpec
from rankline.store import schema as t
from rankline.store.opening import open_store, store_settings
from rankline.store.sql import SqlStore
from rankline.writing import replay

DAY = 86_400_000_000
START = 1_795_000_000_000_000  # 2026-11-18 (a Wednesday)


@dataclass(frozen=True)
class Options:
    events: int = 1_000_000
    players: int = 100_000
    days: int = 7
    windows: str = "all_time,daily,weekly"
    data_dir: Path | None = None


def run(options: Options) -> None:
    if options.data_dir is not None:
        asyncio.run(main(options, options.data_dir))
        return
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(options, Path(tmp)))


async def main(args: Options, data_dir: Path) -> None:
    url = f"sqlite+aiosqlite:///{data_dir / 'rankline.db'}"
    async with open_store(store_settings(url), schema="upgraded") as store:
        await _measure(args, store)


async def _measure(args: Options, store: SqlStore) -> None:
    windows: Any = args.windows.split(",")  # BoardSpec checks them
    spec = BoardSpec(id="arena", windows=windows, scopes=["region"])
    board = Board(spec)
    async with store.engine.begin() as conn:
        await conn.execute(
            insert(t.boards).values(
                id="arena", definition=_definition(board), created_at=START, updated_at=START
            )
        )
    rng = random.Random(1)
    best: dict[str, int] = {}
    written = 0
    while written < args.events:
        rows = []
        for n in range(written, min(written + 50_000, args.events)):
            player = f"p{rng.randrange(args.players)}"
            score = rng.randrange(1_000_000)
            at = START + n * (args.days * DAY // args.events)
            applied = score > best.get(player, -1)
            if applied:
                best[player] = score
            rows.append(
                {
                    "board_id": "arena",
                    "player_id": player,
                    "match_id": f"m{n}",
                    "score": score,
                    "at": at,
                    "received_at": at,
                    "applied": applied,
                    "scopes": f'{{"region":"{rng.choice(["EU", "US", "AS"])}"}}',
                    "metadata": "{}",
                }
            )
        async with store.engine.begin() as conn:
            await conn.execute(insert(t.score_events), rows)
        written += len(rows)
    print(f"{written:,} events of {len(best):,} players over {args.days} days", file=sys.stderr)
    started = time.perf_counter()
    report = await replay.replay(store)
    elapsed = time.perf_counter() - started
    print(
        f"replayed {report.events:,} events into {report.standings:,} standings on "
        f"{report.leaderboards} leaderboards in {elapsed:.1f} s: "
        f"{report.events / elapsed:,.0f} events/s, {elapsed * 1e6 / report.events:.0f} s "
        f"per million (unexplained: {report.unexplained})",
        file=sys.stderr,
    )


def _definition(board: Board) -> str:
    return msgspec.json.encode(board.to_json()).decode()
