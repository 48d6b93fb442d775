"""The shape every batch endpoint answers in: each item prepared on its own (its error is its
own result, located under its index), then the prepared ones taken together, synchronously
(200, each item's outcome) or, with ``Prefer: respond-async``, durably into the log (202 with
a token), assembled as the write path assembles a score batch's
(``rankline.writing.batches``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar

from starlette.requests import Request
from starlette.responses import Response

from rankline.errors import RanklineError
from rankline.http import endpoint as e
from rankline.http.responses import json_response
from rankline.writing.batches import accepted_into, outcomes_into


class _Item(Protocol):
    @property
    def board(self) -> str: ...


Item = TypeVar("Item", bound=_Item)
Prepared = TypeVar("Prepared")


async def answer_batch(
    request: Request,
    items: Sequence[Item | RanklineError],
    *,
    prepare: Callable[[str, Item], Awaitable[Prepared]],
    locate: Callable[[RanklineError, int], RanklineError],
    accept: Callable[[list[Prepared]], Awaitable[str]],
    submit: Callable[[list[Prepared]], Awaitable[Sequence[Any]]],
) -> Response:
    """Answer a batch: ``items`` decoded (or the error of each that could not be),
    ``prepare`` validates one (given its board), ``accept`` appends the prepared ones to
    the log (the token) and ``submit`` takes them synchronously (an outcome, a struct or an
    error, each)."""
    scope = e.key_scope(request)
    results: list[dict[str, Any]] = [{} for _ in items]
    ready: list[tuple[int, Prepared]] = []
    for index, item in enumerate(items):
        try:
            if isinstance(item, RanklineError):
                raise item
            board = item.board
            if scope is not None and not scope.allows(board):
                raise scope.refuse(board)
            ready.append((index, await prepare(board, item)))
        except RanklineError as exc:
            results[index] = {"index": index, "error": locate(exc, index).problem()}
    indexes = [index for index, _ in ready]
    if e.respond_async(request):
        token = await accept([prepared for _, prepared in ready])
        return json_response(accepted_into(results, indexes, token), 202)
    outcomes = await submit([prepared for _, prepared in ready]) if ready else []
    return json_response(await outcomes_into(results, indexes, outcomes))
