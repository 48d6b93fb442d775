"""The benchmark's data: N players on one board, made reproducibly and bulk-loaded into SQL.

Player ``p:i`` (0 <= i < N) has score ``(i * 2654435761 + seed) mod 1,000,000,007``: a
permutation of distinct scores spread over the whole range, so every rank is unique and
any test can work out the expected order. ``achieved_at`` is ``at0 + i`` microseconds.
The board is ``bench``: best policy, descending, all_time window, global scope only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from rankline.boards import Board, BoardSpec
from rankline.store import schema as t
from rankline.store.admin import vacuum_analyze
from rankline.store.opening import open_store, store_settings
from rankline.store.sql import SqlStore
from rankline.types import Micros, Order
from rankline_bench.bulk import BulkRow, load_first_scores

BOARD_ID = "bench"
RATED_BOARD_ID = "bench-rated"
"""The rating board the rated-match endpoint plays on (Elo, every player ranked at once)."""
MATCH_ID = "bench-load"
CHUNK = 100_000
_MULTIPLIER = 2_654_435_761
_MODULUS = 1_000_000_007  # a prime above every N, so the scores of p:0 .. p:N-1 differ


def bench_board(
    board_id: str = BOARD_ID,
    shards: int = 1,
    subscore: Order | None = None,
    dense_rank: bool = False,
) -> Board:
    spec = BoardSpec(
        windows=["all_time"],
        policy="best",
        order="desc",
        title="rankline bench",
        shards=shards,
        dense_rank=dense_rank,
        subscore=subscore,
    )
    return Board.define(board_id, spec)


def rated_board() -> Board:
    spec = BoardSpec(
        windows=["all_time"],
        policy="rating",
        order="desc",
        title="rankline bench, rated",
        rating={"system": "elo", "provisional_games": 0},
    )
    return Board.define(RATED_BOARD_ID, spec)


@dataclass(frozen=True)
class Dataset:
    n: int
    at0: Micros
    seed: int = 1

    def player(self, i: int) -> str:
        return f"p:{i}"

    def score(self, i: int) -> int:
        return (i * _MULTIPLIER + self.seed) % _MODULUS

    def subscore(self, i: int) -> int:
        """A subscore spread over the whole signed 64-bit range (for boards with one)."""
        return (i * _MULTIPLIER * _MODULUS) % (1 << 64) - (1 << 63)

    def rows(
        self, chunk: int = CHUNK, first: int = 0, end: int | None = None, *, subscores: bool = False
    ) -> Iterator[list[BulkRow]]:
        """Players ``first`` to ``end - 1`` (default: all), ``chunk`` at a time; with
        ``subscores``, each with its subscore."""
        end = self.n if end is None else min(end, self.n)
        for start in range(first, end, chunk):
            stop = min(start + chunk, end)
            if subscores:
                yield [
                    (f"p:{i}", self.score(i), self.at0 + i, self.subscore(i))
                    for i in range(start, stop)
                ]
            else:
                yield [(f"p:{i}", self.score(i), self.at0 + i) for i in range(start, stop)]

    def rank(self, i: int) -> int:
        """The expected rank of ``p:i`` (O(N); for tests and spot checks)."""
        mine = self.score(i)
        return 1 + sum(1 for j in range(self.n) if self.score(j) > mine)


async def prepare(url: str, now: Micros, boards: Sequence[Board] = ()) -> None:
    """Migrate the store and define the bench board and the rated one, or ``boards``
    (no entries)."""
    async with open_store(store_settings(url), schema="upgraded") as store:
        for board in boards or [bench_board(), rated_board()]:
            await store.save_board(board.id, board.to_json(), now)


async def load(
    url: str,
    data: Dataset,
    now: Micros,
    progress: Callable[[int], None] | None = None,
    first: int = 0,
    end: int | None = None,
    board: Board | None = None,
) -> int:
    """Bulk-load the players of ``data`` (those from ``first`` to ``end - 1``; default all)
    into the prepared store, on the bench board or ``board``."""
    store = SqlStore.from_settings(store_settings(url))
    board = board or bench_board()
    try:
        return await load_first_scores(
            store,
            board,
            data.rows(first=first, end=end, subscores=board.sub_order is not None),
            match_id=MATCH_ID,
            now=now,
            progress=progress,
            drop_indexes=True,  # a database of its own: nothing reads it meanwhile
        )
    finally:
        await store.close()


async def settle(url: str) -> None:
    """After a PostgreSQL load: VACUUM ANALYZE, as autovacuum would soon do, so the naive
    SQL rank is measured with fresh statistics and a visibility map (index-only scans)."""
    await vacuum_analyze(url, (t.standings, t.score_events))
