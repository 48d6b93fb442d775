"""The v1 routes of rating boards: match results (one, or a batch) and a player's rating. Each
parses its input, calls ``service.matches`` and renders the answer. ``routes.ENDPOINTS``
includes ``MATCH_ENDPOINTS``."""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from rankline.errors import RanklineError
from rankline.http import endpoint as e
from rankline.http import schemas as s
from rankline.http.body import decode_as, read_body
from rankline.http.responses import json_response
from rankline.ratings.matches import Matches, MatchOut, PlayerRatingOut, RatingHistoryOut
from rankline.ratings.requests import (
    MatchBatchDoc,
    MatchBatchIn,
    MatchBatchItemIn,
    MatchIn,
    RatingRequest,
)
from rankline.writing.match_batches import answer_matches


class MatchBatchOut(msgspec.Struct):
    """One result per item, by ``index``: the match's answer, or its ``error`` (a problem)."""

    results: list[dict[str, Any]]


def _matches(request: Request) -> Matches:
    return e.service_of(request).matches


async def post_match(request: Request) -> Response:
    item = await e.body_of(request, MatchIn)
    taken = await _matches(request).take(e.board_id(request), item, e.respond_async(request))
    if isinstance(taken, str):
        return json_response(s.AcceptedOut(accepted=1, token=taken), 202)
    return json_response(taken)


async def post_match_batch(request: Request) -> Response:
    data = await read_body(request, e.settings_of(request).max_body_bytes)
    items: list[MatchBatchItemIn | RanklineError] = []
    for raw in decode_as(data, MatchBatchIn).matches:
        try:
            items.append(decode_as(bytes(raw), MatchBatchItemIn))
        except RanklineError as exc:
            items.append(exc)
    asynchronous = e.respond_async(request)
    answer = await answer_matches(_matches(request), items, e.key_scope(request), asynchronous)
    return json_response(answer.body, answer.status)


async def player_rating(request: Request) -> Response:
    ask = e.ask(request, RatingRequest)
    return json_response(await _matches(request).player(ask))


MATCH_ENDPOINTS: tuple[e.Endpoint, ...] = (
    e.Endpoint(
        "POST",
        "/v1/boards/{board_id}/matches",
        post_match,
        "Submit a match result to a rating board",
        auth="board",
        body=MatchIn,
        response=MatchOut,
        accepted=s.AcceptedOut,
        params=(e.BOARD, e.PREFER),
        tag="ratings",
        rpc="SubmitMatch",
    ),
    e.Endpoint(
        "POST",
        "/v1/matches/batch",
        post_match_batch,
        "Submit up to 1,000 match results",
        auth="server",
        body=MatchBatchDoc,
        response=MatchBatchOut,
        accepted=s.AcceptedOut,
        params=(e.PREFER,),
        tag="ratings",
        rpc="SubmitMatches",
    ),
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/players/{player_id}/rating",
        player_rating,
        "A player's rating on a rating board (provisional players too)",
        response=PlayerRatingOut,
        request=RatingRequest,
        params=(e.BOARD, e.PLAYER),
        tag="ratings",
        rpc="GetRating",
    ),
)

__all__ = ["MATCH_ENDPOINTS", "RatingHistoryOut"]
