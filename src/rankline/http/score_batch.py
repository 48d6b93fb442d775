"""Score submissions at the edge: one (``prepare_score``) and a batch (``answer_scores``).

A batch's items are grouped by board; each board is resolved, and the key's scope checked,
once; each item is checked in a plain loop (``Scores.check``: no coroutine per item). An item
the quick check refuses, or one to a board it does not take (not loaded yet, with cohorts,
of a tournament), goes the way of a single submission (``prepare_score``), whose answer is
the one given: the answers are those of checking every item on its own. Every item of a
request shares its receive time.

Synchronously, the prepared items go to the group commit in the request's order (200, each
item's outcome); with ``Prefer: respond-async``, into the log as one record per board
(``AsyncIngest.accept_items``; 202 with a token).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from rankline.answers import SubmitOut
from rankline.boards import Board
from rankline.callers import Player
from rankline.errors import RanklineError
from rankline.http import endpoint as e
from rankline.http import schemas as s
from rankline.http.body import body_time, check_metadata, located
from rankline.http.responses import json_response
from rankline.service import Rankline
from rankline.types import Micros
from rankline.writing.admission import Deadline
from rankline.writing.records import Item, item_of
from rankline.writing.writer import Submission

_SLICE = 250
"""Items checked, or answered, between two turns of the event loop."""


def admit(request: Request, service: Rankline, size: int) -> Deadline:
    """The request's deadline, once ``size`` submissions of it would be taken now
    (``TooManyRequests`` else): by the writer, or with ``Prefer: respond-async`` by the log."""
    deadline = e.write_deadline(request)
    if e.respond_async(request):
        service.ingest.admit(deadline)
    else:
        service.scores.admit(size, deadline)
    return deadline


async def prepare_score(
    service: Rankline, board_id: str, item: s.ScoreIn, now: Micros | None = None
) -> Submission:
    """Check one submission against its board (422, 404 or 409 when it cannot be taken)."""
    at = body_time(item.at)
    check_metadata(item.metadata, service.settings.max_metadata_bytes)
    return await service.scores.prepare(
        board_id,
        player=item.player_id,
        match_id=item.match_id,
        score=item.score,
        at=at,
        scopes=item.scopes,
        metadata=item.metadata,
        subscore=item.subscore,
        now=now,
    )


async def player_score(
    service: Rankline, board_id: str, item: s.ScoreIn, player: Player, deadline: Deadline
) -> SubmitOut:
    """A player's own submission, with their token: written only if the board's client
    writes allow it (``rankline.writing.client_rules``), within the request's deadline as a
    server's write."""
    at = body_time(item.at)
    check_metadata(item.metadata, service.settings.max_metadata_bytes)
    return await service.client_writes.submit(
        player,
        board_id,
        named=item.player_id,
        match_id=item.match_id,
        score=item.score,
        at=at,
        scopes=item.scopes,
        metadata=item.metadata,
        subscore=item.subscore,
        deadline=deadline,
    )


def _quick(
    service: Rankline, board: Board, item: s.BatchItemIn, now: Micros, max_metadata: int
) -> Submission | None:
    """The item checked without a wait, or None when ``prepare_score`` must answer it."""
    try:
        at = body_time(item.at)
        if item.metadata:
            check_metadata(item.metadata, max_metadata)
        return service.scores.check(
            board,
            item.player_id,
            item.match_id,
            item.score,
            at,
            item.scopes,
            item.metadata,
            item.subscore,
            now,
        )
    except RanklineError:
        return None


async def answer_scores(
    request: Request, items: Sequence[s.BatchItemIn | RanklineError], service: Rankline
) -> Response:
    """Answer a score batch: ``items`` decoded (or the error of each that could not be).

    Admitted first (429 before its items are checked, when it would not be written within
    its deadline), and the items are checked a slice at a time, so that a large batch never
    holds the event loop for long."""
    deadline = admit(request, service, len(items))
    asynchronous = e.respond_async(request)
    scope = e.key_scope(request)
    boards = service.boards
    max_metadata = service.settings.max_metadata_bytes
    now = service.scores.now()
    results: list[dict[str, Any]] = [{} for _ in items]
    ready: list[tuple[int, Submission]] = []
    groups: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        if isinstance(item, RanklineError):
            results[index] = {"index": index, "error": located(item, index).problem()}
        else:
            groups.setdefault(item.board, []).append(index)
    for board_id, indexes in groups.items():
        if scope is not None and not scope.allows(board_id):
            for index in indexes:
                error = located(scope.refuse(board_id), index)
                results[index] = {"index": index, "error": error.problem()}
            continue
        board = boards.cached(board_id)
        for index in indexes:
            if len(ready) % _SLICE == _SLICE - 1:
                await asyncio.sleep(0)  # let reads through
            item = items[index]
            assert not isinstance(item, RanklineError)
            sub = None if board is None else _quick(service, board, item, now, max_metadata)
            if sub is None:
                try:
                    sub = await prepare_score(service, board_id, item, now)
                except RanklineError as exc:
                    results[index] = {"index": index, "error": located(exc, index).problem()}
                    continue
                finally:
                    board = boards.cached(board_id)  # perhaps loaded again meanwhile
            ready.append((index, sub))
    if len(groups) > 1:
        ready.sort(key=lambda prepared: prepared[0])
    if asynchronous:
        return await _accept(service, results, ready, now, deadline)
    outcomes = await service.scores.submit([sub for _, sub in ready], deadline) if ready else []
    for n, ((index, _), outcome) in enumerate(zip(ready, outcomes, strict=True)):
        if n % _SLICE == _SLICE - 1:
            await asyncio.sleep(0)  # the answers too are built a slice at a time
        if isinstance(outcome, RanklineError):
            results[index] = {"index": index, "error": outcome.problem()}
        else:
            results[index] = {"index": index, **msgspec.to_builtins(outcome)}
    return json_response({"results": results})


async def _accept(
    service: Rankline,
    results: list[dict[str, Any]],
    ready: list[tuple[int, Submission]],
    now: Micros,
    deadline: Deadline,
) -> Response:
    by_board: dict[str, list[Item]] = {}
    for _, sub in ready:
        by_board.setdefault(sub.board.id, []).append(item_of(sub))
    token = await service.ingest.accept_items(by_board, now, deadline) if ready else ""
    for index, _ in ready:
        results[index] = {"index": index, "accepted": True}
    for result in results:
        result.setdefault("accepted", False)
    return json_response({"accepted": len(ready), "token": token, "results": results}, 202)
