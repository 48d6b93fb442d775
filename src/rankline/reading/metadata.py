"""Entry metadata for reads: the metadata of the submission that set each entry.

A read that asks for it (``?metadata=true``, or a board with ``entry_metadata``) joins it into
its entries the way display names are joined. The submission is found among the stored
score events (``rankline.store.submissions``): the player's events on the board whose ``at``
is the entry's ``achieved_at``; on a ``sum`` board the last of them (each one sets the time
again), on the others the first whose score (and subscore) is the entry's (a later equal
submission changes nothing). Rating boards have no score events: their entries carry
``{}``.

What an entry's key says (board, player, score, subscore, time) names one submission for
good, so a lookup is kept until the least recently used go (``CACHE_MAX``): a top page read
again costs dict lookups. While the durable store is down, entries not held here leave the
field out (the leaderboard itself is served from the index).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import Any

import msgspec

from rankline.boards import Board
from rankline.errors import Unavailable
from rankline.runtime.lru import LRUCache
from rankline.store.sql import SqlStore
from rankline.store.submissions import Candidate, candidates
from rankline.types import Micros, PlayerId, Score, SortKey

log = logging.getLogger("rankline.reading.metadata")

CACHE_MAX = 100_000
"""Entries whose metadata is kept, the least recently used going first."""
_BACKOFF_SECONDS = 1.0
"""After a failed lookup, reads go without the metadata they lack for this long instead of
waiting on a durable store that is down."""
_EMPTY: dict[str, Any] = {}
_decode = msgspec.json.Decoder(dict[str, Any])

Held = dict[str, Any]
_Key = tuple[str, PlayerId, Score, Score | None, Micros]


class EntryMetadata:
    """The metadata of the submission behind each entry, looked up in batches and kept."""

    def __init__(self, store: SqlStore, size: int = CACHE_MAX) -> None:
        self._store = store
        self._held: LRUCache[_Key, Held] = LRUCache(size)
        self._down_until = 0.0

    def forget(self, board: str | None = None) -> None:
        """Let go of what is held (of one board: its definition went away)."""
        if board is None:
            self._held.clear()
            return
        for key in [k for k in self._held if k[0] == board]:
            del self._held[key]

    async def of(self, board: Board, keys: Iterable[SortKey]) -> dict[SortKey, Held]:
        """The metadata behind each of ``keys`` (entries' keys of ``board``); a key missing
        from the answer has none known now (the durable store is down)."""
        decode = board.keys.decode
        found: dict[SortKey, Held] = {}
        missing: dict[_Key, SortKey] = {}
        for sort_key in keys:
            score, subscore, at, player = decode(sort_key)
            key = (board.id, player, score, subscore, at)
            held = self._held.get(key)
            if held is not None:
                found[sort_key] = held
            elif board.policy == "rating":
                found[sort_key] = _EMPTY
            else:
                missing[key] = sort_key
        if not missing:
            return found
        if time.monotonic() < self._down_until:
            return found
        try:
            rows = await candidates(self._store, board.id, [(k[1], k[4]) for k in missing])
        except Unavailable as exc:
            self._down_until = time.monotonic() + _BACKOFF_SECONDS
            log.warning("entry metadata unavailable (%s); answering without it", exc.detail)
            return found
        for key, (metadata, sure) in _choose(board, missing, rows).items():
            if sure:
                self._held[key] = metadata
            found[missing[key]] = metadata
        return found


def _choose(
    board: Board, missing: Iterable[_Key], rows: list[Candidate]
) -> dict[_Key, tuple[Held, bool]]:
    """For each entry, the metadata of the submission that set it, and whether one was
    found (``{}``, not kept, when none fits: a standing changed by hand)."""
    by_time: dict[tuple[PlayerId, Micros], list[Candidate]] = {}
    for row in rows:
        by_time.setdefault((row.player, row.at), []).append(row)
    chosen: dict[_Key, tuple[Held, bool]] = {}
    for key in missing:
        _, player, score, subscore, at = key
        found = sorted(by_time.get((player, at), ()), key=lambda c: c.id)
        if board.policy == "sum":
            fits = found[-1:]
        else:
            fits = [c for c in found if c.score == score and c.subscore == subscore][:1]
        chosen[key] = (_decode.decode(fits[0].metadata), True) if fits else (_EMPTY, False)
    return chosen


__all__ = ["EntryMetadata"]
