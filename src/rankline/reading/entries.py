"""Entries and player views as answers show them: ranks, names, metadata, dense ranks and
movement joined to the keys an index read returned."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from msgspec.structs import asdict

from rankline.answers import Entry, FriendEntry, PlayerStanding
from rankline.boards import Board
from rankline.index.base import IndexReader
from rankline.reading.metadata import Held
from rankline.runtime.clock import format_time
from rankline.types import LeaderboardId, Micros, Movement, PlayerId, Position, Score, SortKey

Names = dict[PlayerId, str | None]
Metadata = dict[SortKey, Held] | None
"""The metadata behind each entry's key, when the read carries it (None: it does not)."""


async def movement(
    board: Board, index: IndexReader, leaderboard: LeaderboardId, position: Position
) -> Movement:
    """The player's movement as an answer shows it: the best rank counts the rank now."""
    moved = await index.movement(leaderboard, board.keys.player_of(position.key))
    if moved.best is None:
        return moved
    return moved._replace(best=min(moved.best, position.offset + 1))


async def dense_of(
    board: Board, index: IndexReader, leaderboard: LeaderboardId, keys: Sequence[SortKey]
) -> list[int | None]:
    """The dense rank of each of ``keys`` (all None on a board without dense ranks): one
    more than the count of distinct better values (the score, and the subscore on a board
    with one: the keys' first ``board.keys.prefix`` bytes)."""
    if not board.dense or not keys:
        return [None] * len(keys)
    size = board.keys.prefix
    before = await index.distinct_before(leaderboard, [key[:size] for key in keys])
    return [count + 1 for count in before]


async def dense_run(
    board: Board,
    index: IndexReader,
    leaderboard: LeaderboardId,
    keys: Sequence[SortKey],
    offset: int,
) -> list[int | None]:
    """The dense ranks of consecutive ``keys`` read from ``offset``: one count for the
    first (none from the top), then one more at each new value (``dense_of``)."""
    if not board.dense or not keys:
        return [None] * len(keys)
    size = board.keys.prefix
    dense = 0
    if offset > 0:
        (dense,) = await index.distinct_before(leaderboard, [keys[0][:size]])
    ranks: list[int | None] = []
    last = None
    for key in keys:
        prefix = key[:size]
        if prefix != last:
            dense, last = dense + 1, prefix
        ranks.append(dense)
    return ranks


def entry(
    board: Board,
    rank: int,
    key: SortKey,
    names: Names,
    total: int,
    dense: int | None = None,
    meta: Metadata = None,
) -> Entry:
    score, subscore, at, player = board.keys.decode(key)
    return Entry(
        rank=rank,
        player_id=player,
        score=score,
        achieved_at=format_time(at),
        display_name=names.get(player),
        tier=board.tier_of(rank, total) if board.tiers else None,
        dense_rank=dense,
        subscore=subscore,
        metadata=None if meta is None else meta.get(key),
    )


def entries(
    board: Board,
    keys: Sequence[SortKey],
    decoded: Sequence[tuple[Score, Score | None, Micros, PlayerId]],
    ranks: Iterable[int],
    names: Names,
    total: int,
    dense: Sequence[int | None],
    meta: Metadata = None,
) -> list[Entry]:
    """``entry`` of each of ``keys`` at its rank (``decoded``: the keys'
    ``board.keys.decode_many``), in one pass: answers of many entries spent most of their
    Python calls making them one at a time."""
    tier_of = board.tier_of if board.tiers else None
    return [
        Entry(
            rank=rank,
            player_id=player,
            score=score,
            achieved_at=format_time(at),
            display_name=names.get(player),
            tier=None if tier_of is None else tier_of(rank, total),
            dense_rank=dense_rank,
            subscore=subscore,
            metadata=None if meta is None else meta.get(key),
        )
        for rank, key, (score, subscore, at, player), dense_rank in zip(
            ranks, keys, decoded, dense, strict=True
        )
    ]


def friend_entries(
    board: Board,
    keys: Sequence[SortKey],
    decoded: Sequence[tuple[Score, Score | None, Micros, PlayerId]],
    ranks: Iterable[int],
    names: Names,
    total: int,
    dense: Sequence[int | None],
    meta: Metadata = None,
) -> list[FriendEntry]:
    """``entries`` among friends: each also numbered in the list (``friends_rank``)."""
    made = entries(board, keys, decoded, ranks, names, total, dense, meta)
    return [FriendEntry(**asdict(one), friends_rank=i) for i, one in enumerate(made, 1)]


def standing(
    board: Board,
    position: Position,
    names: Names,
    moved: Movement,
    dense: int | None = None,
    meta: Metadata = None,
) -> PlayerStanding:
    score, subscore, at, player = board.keys.decode(position.key)
    total = position.total
    return PlayerStanding(
        player_id=player,
        score=score,
        rank=position.offset + 1,
        competition_rank=position.better + 1,
        percentile=round(100.0 * (total - position.offset - 1) / total, 4),
        achieved_at=format_time(at),
        display_name=names.get(player),
        tier=board.tier_of(position.offset + 1, total) if board.tiers else None,
        dense_rank=dense,
        previous_rank=moved.previous,
        best_rank=moved.best,
        subscore=subscore,
        metadata=None if meta is None else meta.get(position.key),
    )


__all__ = [
    "Metadata",
    "Names",
    "dense_of",
    "dense_run",
    "entries",
    "entry",
    "friend_entries",
    "movement",
    "standing",
]
