"""How long ``rankline replay`` takes per million score events on the embedded SQLite.

Makes a throwaway store (a temporary directory unless --data-dir), one ``best`` board with
the windows and scope given, and N events spread over P players and D days, written
straight into ``rl_score_events`` as the writer would have recorded them (``applied`` set
as the policy decided). Then times ``rankline.writing.replay.replay`` over them and prints events/s.

    .venv/bin/python scripts/measure-replay.py --events 1000000
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import insert

from rankline.boards import Board, BoardSpec
from rankline.store import migrate
from rankline.store import schema as t
from rankline.store.sql import SqlStore
from rankline.writing import replay

DAY = 86_400_000_000
START = 1_795_000_000_000_000  # 2026-11-18 (a Wednesday)


async def main(args: argparse.Namespace, data_dir: Path) -> None:
    url = f"sqlite+aiosqlite:///{data_dir / 'rankline.db'}"
    store = SqlStore(url)
    await migrate.upgrade(store.engine)
    spec = BoardSpec(id="arena", windows=args.windows.split(","), scopes=["region"])
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
    await store.close()


def _definition(board: Board) -> str:
    import msgspec

    return msgspec.json.encode(board.to_json()).decode()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--windows", default="all_time,daily,weekly")
    parser.add_argument("--data-dir", type=Path)
    ns = parser.parse_args()
    if ns.data_dir is not None:
        asyncio.run(main(ns, ns.data_dir))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(main(ns, Path(tmp)))
