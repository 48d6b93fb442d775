"""Score submissions at the HTTP edge: one (``take_score``, a player's own:
``player_score``) and a batch (``answer_scores``). The rules are the write path's
(``rankline.writing.batches``); here the request gives the deadline, ``Prefer:
respond-async`` and the caller's key scope, and the answer is rendered."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.requests import Request
from starlette.responses import Response

from rankline.answers import SubmitOut
from rankline.callers import Player
from rankline.errors import RanklineError
from rankline.http import endpoint as e
from rankline.http import schemas as s
from rankline.http.responses import json_response
from rankline.service import Rankline
from rankline.writing import batches
from rankline.writing.admission import Deadline


def admit(request: Request, service: Rankline, size: int) -> Deadline:
    """The request's deadline, once ``size`` submissions of it would be taken now
    (``TooManyRequests`` else): by the writer, or with ``Prefer: respond-async`` by the log."""
    deadline = e.write_deadline(request)
    service.score_batches.admit(size, deadline, e.respond_async(request))
    return deadline


async def take_score(
    service: Rankline, board_id: str, item: s.ScoreIn, deadline: Deadline, asynchronous: bool
) -> SubmitOut | str:
    """One key's submission, written and answered or (``asynchronous``) durable in the log,
    its token (``writing.batches.take_score``)."""
    return await batches.take_score(
        service.scores, service.ingest, board_id, item, deadline, asynchronous
    )


async def player_score(
    service: Rankline, board_id: str, item: s.ScoreIn, player: Player, deadline: Deadline
) -> SubmitOut:
    """A player's own submission, with their token (``writing.batches.player_score``)."""
    return await batches.player_score(service.client_writes, board_id, item, player, deadline)


async def answer_scores(
    request: Request, items: Sequence[s.BatchItemIn | RanklineError], service: Rankline
) -> Response:
    """Answer a score batch: ``items`` decoded (or the error of each that could not be)."""
    answer = await service.score_batches.answer(
        items, e.key_scope(request), e.write_deadline(request), e.respond_async(request)
    )
    return json_response(answer.body, answer.status)
