"""Match batches, whatever edge they came by (HTTP's JSON body, gRPC's message): each item
prepared on its own against its board (``Matches.prepare_match``; its error is its own
result, located under its index: ``["body", "matches", 3, "at"]``), then the prepared ones
taken together, synchronously (200, each item's outcome) or, with ``respond_async``,
durably into the log (202 with a token). The answer is assembled as a score batch's
(``rankline.writing.batches``), as the built-in values both edges render."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rankline.errors import RanklineError
from rankline.ratings.matches import Match, Matches
from rankline.ratings.requests import MatchBatchItemIn
from rankline.writing.batches import BatchAnswer, KeyScope, accepted_into, located, outcomes_into


async def answer_matches(
    matches: Matches,
    items: Sequence[MatchBatchItemIn | RanklineError],
    key_scope: KeyScope | None,
    asynchronous: bool,
) -> BatchAnswer:
    """Answer a batch: ``items`` decoded (or the error of each that could not be), by a key
    limited to ``key_scope``'s boards (None: all)."""
    results: list[dict[str, Any]] = [{} for _ in items]
    ready: list[tuple[int, Match]] = []
    for index, item in enumerate(items):
        try:
            if isinstance(item, RanklineError):
                raise item
            board = item.board
            if key_scope is not None and not key_scope.allows(board):
                raise key_scope.refuse(board)
            ready.append((index, await matches.prepare_match(board, item)))
        except RanklineError as exc:
            results[index] = {"index": index, "error": located(exc, index, "matches").problem()}
    indexes = [index for index, _ in ready]
    prepared = [match for _, match in ready]
    if asynchronous:
        token = await matches.accept(prepared)
        return BatchAnswer(accepted_into(results, indexes, token), 202)
    outcomes = await matches.submit(prepared) if ready else []
    return BatchAnswer(await outcomes_into(results, indexes, outcomes), 200)
