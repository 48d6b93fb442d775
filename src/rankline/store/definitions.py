"""The boards the durable store defines, as ``Board`` values (for the offline commands)."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from rankline.boards import Board, BoardSpec
from rankline.errors import NotFound
from rankline.store.sql import SqlStore
from rankline.types import BoardId


async def stored_boards(
    store: SqlStore, board_ids: Sequence[BoardId] | None = None
) -> dict[BoardId, Board]:
    """Every board of ``store`` by id, or the boards named (in the order given, once each);
    ``NotFound`` names one that does not exist."""
    stored = {}
    for definition in await store.load_boards():
        board = Board(msgspec.convert(definition, BoardSpec))
        stored[board.id] = board
    if board_ids is None:
        return stored
    missing = [b for b in board_ids if b not in stored]
    if missing:
        raise NotFound(f"no board {missing[0]!r} in the durable store")
    return {b: stored[b] for b in dict.fromkeys(board_ids)}
