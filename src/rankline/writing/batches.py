"""Score submissions as the edges hand them over: one (``take_score``; a player's own,
``player_score``) and a batch (``ScoreBatch``), whatever edge they came by (HTTP's JSON
body, gRPC's message).

A batch's items are grouped by board; each board is resolved, and the key's scope checked,
once; each item is checked in a plain loop (``Scores.check``: no coroutine per item). An item
the quick check refuses, or one to a board it does not take (not loaded yet, with cohorts,
of a tournament), goes the way of a single submission (``prepare_score``), whose answer is
the one given: the answers are those of checking every item on its own. Every item of a
request shares its receive time.

Synchronously, the prepared items go to the group commit in the request's order (200, each
item's outcome); with ``respond_async``, into the log as one record per board
(``AsyncIngest.accept_items``; 202 with a token). The answer is built here once, as the
built-in values both edges render (``BatchAnswer``).

An item's error names its places as if the item were the body (``["body", "at"]``), and
the batch's answer moves them under the item (``located``: ``["body", "scores", 3, "at"]``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol, TypeVar

import msgspec

from rankline.answers import SubmitOut
from rankline.bodies import body_time
from rankline.callers import Player
from rankline.errors import RanklineError
from rankline.registry import Boards
from rankline.types import Micros
from rankline.writing.admission import Deadline
from rankline.writing.client_rules import ClientWrites
from rankline.writing.ingest import AsyncIngest
from rankline.writing.records import Item, item_of
from rankline.writing.scores import Scores
from rankline.writing.writer import Submission

E = TypeVar("E", bound=RanklineError)
_SLICE = 250
"""Items checked, or answered, between two turns of the event loop."""


class ScoreItem(Protocol):
    """One submission as an edge decoded it (HTTP's ``ScoreIn``)."""

    @property
    def player_id(self) -> str: ...
    @property
    def score(self) -> int: ...
    @property
    def match_id(self) -> str: ...
    @property
    def at(self) -> str | None: ...
    @property
    def scopes(self) -> dict[str, str] | None: ...
    @property
    def metadata(self) -> dict[str, Any] | None: ...
    @property
    def subscore(self) -> int | None: ...


class BatchItem(ScoreItem, Protocol):
    """One item of a batch: a submission and its board (HTTP's ``BatchItemIn``)."""

    @property
    def board(self) -> str: ...


class KeyScope(Protocol):
    """The boards a caller's key may write (``rankline.access.scopes.BoardScope``)."""

    def allows(self, board_id: str) -> bool: ...
    def refuse(self, board_id: str) -> RanklineError: ...


class BatchAnswer(NamedTuple):
    """A batch's answer: its body as built-in values and its status (200, or 202 when
    accepted into the log)."""

    body: dict[str, Any]
    status: int


def located(error: E, index: int, items: str = "scores") -> E:
    """``error`` about a batch item as if it were the body, with the places it names moved
    under the item's index in the body's list of ``items`` (``["body", "scores", index,
    ...]``)."""
    for item in error.errors or []:
        loc = item["loc"]
        if loc and loc[0] == "body":
            item["loc"] = ["body", items, index, *loc[1:]]
    return error


def failed(index: int, error: RanklineError) -> dict[str, Any]:
    """An item's result when it was refused."""
    return {"index": index, "error": located(error, index).problem()}


async def outcomes_into(
    results: list[dict[str, Any]], indexes: Sequence[int], outcomes: Sequence[Any]
) -> dict[str, Any]:
    """The synchronous answer: each written item's outcome (a struct, or its error) at its
    index among ``results``, which hold the refused ones; built a slice at a time, so that a
    large batch's answer does not hold the event loop for long."""
    for n, (index, outcome) in enumerate(zip(indexes, outcomes, strict=True)):
        if n % _SLICE == _SLICE - 1:
            await asyncio.sleep(0)  # let reads through
        if isinstance(outcome, RanklineError):
            results[index] = {"index": index, "error": outcome.problem()}
        else:
            results[index] = {"index": index, **msgspec.to_builtins(outcome)}
    return {"results": results}


def accepted_into(
    results: list[dict[str, Any]], indexes: Sequence[int], token: str
) -> dict[str, Any]:
    """The asynchronous answer: the items accepted into the log, with its token."""
    for index in indexes:
        results[index] = {"index": index, "accepted": True}
    for result in results:
        result.setdefault("accepted", False)
    return {"accepted": len(indexes), "token": token, "results": results}


async def prepare_score(
    scores: Scores, board_id: str, item: ScoreItem, now: Micros | None = None
) -> Submission:
    """Check one submission against its board (422, 404 or 409 when it cannot be taken)."""
    return await scores.prepare(
        board_id,
        player=item.player_id,
        match_id=item.match_id,
        score=item.score,
        at=body_time(item.at),
        scopes=item.scopes,
        metadata=item.metadata,
        subscore=item.subscore,
        now=now,
    )


async def take_score(
    scores: Scores,
    ingest: AsyncIngest,
    board_id: str,
    item: ScoreItem,
    deadline: Deadline,
    asynchronous: bool,
) -> SubmitOut | str:
    """One submission of a key: checked (``prepare_score``), then written within ``deadline``
    and answered (its ``SubmitOut``) or, ``asynchronous``, durable in the log (its token: the
    edges answer 202). A submission refused on the way raises its error."""
    submission = await prepare_score(scores, board_id, item)
    if asynchronous:
        return await ingest.accept([submission], deadline)
    [result] = await scores.submit([submission], deadline)
    if isinstance(result, RanklineError):
        raise result
    return result


async def player_score(
    client_writes: ClientWrites,
    board_id: str,
    item: ScoreItem,
    player: Player,
    deadline: Deadline | None = None,
) -> SubmitOut:
    """A player's own submission, with their token: written only if the board's client
    writes allow it (``rankline.writing.client_rules``), within ``deadline`` as a server's
    write."""
    return await client_writes.submit(
        player,
        board_id,
        named=item.player_id,
        match_id=item.match_id,
        score=item.score,
        at=body_time(item.at),
        scopes=item.scopes,
        metadata=item.metadata,
        subscore=item.subscore,
        deadline=deadline,
    )


class ScoreBatch:
    """Score batches of one process: its scores, boards and ingestion log."""

    def __init__(self, scores: Scores, boards: Boards, ingest: AsyncIngest) -> None:
        self._scores = scores
        self._boards = boards
        self._ingest = ingest

    def admit(self, size: int, deadline: Deadline, asynchronous: bool) -> None:
        """``TooManyRequests`` unless ``size`` submissions would be taken within
        ``deadline`` now: by the writer, or (``asynchronous``) by the log."""
        if asynchronous:
            self._ingest.admit(deadline)
        else:
            self._scores.admit(size, deadline)

    def _quick(self, board: Any, item: BatchItem, now: Micros) -> Submission | None:
        """The item checked without a wait, or None when ``prepare_score`` must answer it."""
        try:
            return self._scores.check(
                board,
                item.player_id,
                item.match_id,
                item.score,
                body_time(item.at),
                item.scopes,
                item.metadata,
                item.subscore,
                now,
            )
        except RanklineError:
            return None

    async def answer(
        self,
        items: Sequence[BatchItem | RanklineError],
        key_scope: KeyScope | None,
        deadline: Deadline,
        asynchronous: bool,
    ) -> BatchAnswer:
        """Answer a batch: ``items`` decoded (or the error of each that could not be), by
        a key limited to ``key_scope``'s boards (None: all).

        Admitted first (429 before its items are checked, when it would not be written
        within its deadline), and the items are checked a slice at a time, so that a large
        batch never holds the event loop for long."""
        self.admit(len(items), deadline, asynchronous)
        boards, scores = self._boards, self._scores
        now = scores.now()
        results: list[dict[str, Any]] = [{} for _ in items]
        ready: list[tuple[int, Submission]] = []
        groups: dict[str, list[int]] = {}
        for index, item in enumerate(items):
            if isinstance(item, RanklineError):
                results[index] = failed(index, item)
            else:
                groups.setdefault(item.board, []).append(index)
        for board_id, indexes in groups.items():
            if key_scope is not None and not key_scope.allows(board_id):
                for index in indexes:
                    results[index] = failed(index, key_scope.refuse(board_id))
                continue
            board = boards.cached(board_id)
            for index in indexes:
                if len(ready) % _SLICE == _SLICE - 1:
                    await asyncio.sleep(0)  # let reads through
                item = items[index]
                assert not isinstance(item, RanklineError)
                sub = None if board is None else self._quick(board, item, now)
                if sub is None:
                    try:
                        sub = await prepare_score(scores, board_id, item, now)
                    except RanklineError as exc:
                        results[index] = failed(index, exc)
                        continue
                    finally:
                        board = boards.cached(board_id)  # perhaps loaded again meanwhile
                ready.append((index, sub))
        if len(groups) > 1:
            ready.sort(key=lambda prepared: prepared[0])
        indexes = [index for index, _ in ready]
        if asynchronous:
            by_board: dict[str, list[Item]] = {}
            for _, sub in ready:
                by_board.setdefault(sub.board.id, []).append(item_of(sub))
            token = await self._ingest.accept_items(by_board, now, deadline) if ready else ""
            return BatchAnswer(accepted_into(results, indexes, token), 202)
        outcomes = await scores.submit([sub for _, sub in ready], deadline) if ready else []
        return BatchAnswer(await outcomes_into(results, indexes, outcomes), 200)
