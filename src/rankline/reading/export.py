"""One leaderboard out of the durable store, in the format ``rankline import`` reads:
what ``rankline export`` does.

Each row is a standing of the leaderboard (banned players left out) with the scopes, match
id and metadata of the submission that set it (the player's score event on the board at the
standing's ``achieved_at``), so importing the file into an empty store gives the same
standing on that leaderboard, and on the others wherever the player's standings came from
those submissions. A standing no single submission set (a ``sum`` total) is written without
a match id: the import makes one. Rows come in player order, ``CHUNK`` standings per query,
so a leaderboard of any size streams in constant memory.

    async for line in export_lines(store, board, leaderboard, fmt="jsonl"):
        out.write(line)

``Exports`` serves the same lines to ``GET /v1/boards/{board_id}/export`` (the console's
download), so a file from the API is byte for byte the file ``rankline export`` writes.
"""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator, Callable
from typing import Any

import msgspec

from rankline.boards import Board
from rankline.errors import InvalidInput
from rankline.reading.requests import ExportRequest
from rankline.registry import Boards, resolve
from rankline.runtime.clock import format_time
from rankline.settings import Settings
from rankline.store.definitions import stored_boards
from rankline.store.export import count_exported, exported_after, setting_events
from rankline.store.opening import open_store
from rankline.store.sql import SqlStore
from rankline.types import Clock, LeaderboardId

FORMATS = ("csv", "jsonl")
CHUNK = 5000
"""Standings read per query."""

Progress = Callable[[int, int], None]
"""Called with (rows written, rows to write)."""

_json = msgspec.json.Encoder()
_unjson = msgspec.json.Decoder()


def leaderboard_of(
    board: Board, window: str | None, period: str | None, scope: str | None, now: int
) -> LeaderboardId:
    """The leaderboard the options name (defaults as on reads: the primary window's current
    period, global)."""
    return resolve(board, window, period, scope, now)[0]


async def export_lines(
    store: SqlStore,
    board: Board,
    leaderboard: LeaderboardId,
    *,
    fmt: str,
    metadata: bool = False,
    progress: Progress | None = None,
) -> AsyncIterator[str]:
    """The file's lines (each ending in a newline): a CSV header then a row per standing, or
    one JSON object per standing."""
    if fmt not in FORMATS:
        raise ValueError(f"the format is csv or jsonl, not {fmt!r}")
    total = await count_exported(store, leaderboard)
    dimensions = list(board.spec.scopes)
    columns = ["player_id", "score", "achieved_at", "match_id"]
    if board.spec.subscore is not None:
        columns.insert(2, "subscore")
    if fmt == "csv":
        yield _csv_line([*columns, *dimensions])
    done = 0
    after = ""
    while True:
        rows = await exported_after(store, leaderboard, after, CHUNK)
        if not rows:
            break
        after = rows[-1].player_id
        events = await setting_events(store, leaderboard, rows)
        for player, score, at, subscore in rows:
            found = events.get((player, at))
            item: dict[str, Any] = {"player_id": player, "score": score}
            if board.spec.subscore is not None:
                item["subscore"] = subscore
            item["achieved_at"] = format_time(at)
            scopes: dict[str, str] = {}
            extra: Any = {}
            if found is not None:
                if (found.score, found.subscore) == (score, subscore):
                    item["match_id"] = found.match_id
                scopes = _unjson.decode(found.scopes) if found.scopes != "{}" else {}
                extra = _unjson.decode(found.metadata) if found.metadata != "{}" else {}
            if fmt == "csv":
                values = [item.get(name) for name in columns]
                values += [scopes.get(name) for name in dimensions]
                yield _csv_line(["" if v is None else str(v) for v in values])
            else:
                if scopes:
                    item["scopes"] = scopes
                if metadata and extra:
                    item["metadata"] = extra
                yield _json.encode(item).decode() + "\n"
            done += 1
        if progress is not None:
            progress(done, total)


class Exports:
    """Leaderboards out of the service's store, as ``rankline export`` writes them."""

    def __init__(self, store: SqlStore, boards: Boards, clock: Clock) -> None:
        self._store = store
        self._boards = boards
        self._clock = clock

    async def open(self, ask: ExportRequest) -> AsyncIterator[str]:
        """The file's lines, once the board, leaderboard and format are known good (a bad one
        raises here, before any line): the first line is read before this returns."""
        board_id, window, period, scope = ask.board_id, ask.window, ask.period, ask.scope
        fmt, metadata = ask.format, ask.metadata
        if fmt not in FORMATS:
            raise InvalidInput.at(["query", "format"], "the format is csv or jsonl")
        board = await self._boards.find(board_id)
        leaderboard = leaderboard_of(board, window, period, scope, self._clock.now())
        lines = export_lines(self._store, board, leaderboard, fmt=fmt, metadata=metadata)
        first = await anext(lines, None)
        return _chained(first, lines)


async def _chained(first: str | None, rest: AsyncIterator[str]) -> AsyncIterator[str]:
    if first is not None:
        yield first
    async for line in rest:
        yield line


def _csv_line(values: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(values)
    return out.getvalue()


async def export_from_store(
    settings: Settings,
    board_id: str,
    window: str | None,
    period: str | None,
    scope: str | None,
    *,
    fmt: str,
    metadata: bool,
    write: Callable[[str], object],
    now: int,
    progress: Progress | None = None,
) -> int:
    """``rankline export``: the leaderboard's lines through ``write``; the rows written."""
    async with open_store(settings, schema="current") as store:
        board = (await stored_boards(store, [board_id]))[board_id]
        leaderboard = leaderboard_of(board, window, period, scope, now)
        rows = -1 if fmt == "csv" else 0
        async for line in export_lines(
            store, board, leaderboard, fmt=fmt, metadata=metadata, progress=progress
        ):
            write(line)
            rows += 1
        return rows
