"""The v1 routes of rating boards: match results (one, or a batch) and a player's rating. Each
parses its input, calls ``service.matches`` and renders the answer. ``routes.ENDPOINTS``
includes ``MATCH_ENDPOINTS``."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta
from starlette.requests import Request
from starlette.responses import Response

from rankline.answers import Time
from rankline.boards import BOARD_ID_PATTERN
from rankline.errors import RanklineError
from rankline.http import endpoint as e
from rankline.http import schemas as s
from rankline.http.body import body_time, decode_as, located, read_body
from rankline.http.responses import json_response
from rankline.http.routes.match_batch import answer_batch
from rankline.ratings.matches import Match, Matches, MatchOut, PlayerRatingOut, RatingHistoryOut
from rankline.ratings.requests import RatingRequest

MAX_BATCH = 1000


class MatchResultIn(msgspec.Struct, forbid_unknown_fields=True):
    """One player's result in a match: ``place`` 1 is first; equal places draw."""

    player_id: s.PlayerIdStr
    place: Annotated[int, Meta(ge=1, le=10_000)]
    team: Annotated[str, Meta(min_length=1, max_length=64)] | None = None
    scopes: s.ScopeValues | None = None


class MatchIn(msgspec.Struct, forbid_unknown_fields=True):
    """One match result on a rating board."""

    match_id: s.MatchIdStr
    results: Annotated[list[MatchResultIn], Meta(min_length=2, max_length=100)]
    at: Time | None = None


class MatchBatchItemIn(MatchIn, forbid_unknown_fields=True, kw_only=True):
    board: Annotated[str, Meta(pattern=BOARD_ID_PATTERN)]


class MatchBatchIn(msgspec.Struct, forbid_unknown_fields=True):
    matches: Annotated[list[msgspec.Raw], Meta(max_length=MAX_BATCH)]


class MatchBatchDoc(msgspec.Struct):
    """Up to 1,000 matches, each a match plus its ``board``; each item succeeds or fails on
    its own."""

    matches: Annotated[
        list[Any],
        Meta(max_length=MAX_BATCH, description="Each item: the fields of a match plus `board`."),
    ]


class MatchBatchOut(msgspec.Struct):
    """One result per item, by ``index``: the match's answer, or its ``error`` (a problem)."""

    results: list[dict[str, Any]]


def _matches(request: Request) -> Matches:
    return e.service_of(request).matches


async def _prepare(matches: Matches, board_id: str, item: MatchIn) -> Match:
    at = body_time(item.at)
    results = [(r.player_id, r.place, r.team, r.scopes) for r in item.results]
    return await matches.prepare(board_id, item.match_id, at=at, results=results)


async def post_match(request: Request) -> Response:
    item = await e.body_of(request, MatchIn)
    matches = _matches(request)
    match = await _prepare(matches, e.board_id(request), item)
    if e.respond_async(request):
        token = await matches.accept([match])
        return json_response(s.AcceptedOut(accepted=1, token=token), 202)
    [result] = await matches.submit([match])
    if isinstance(result, RanklineError):
        raise result
    return json_response(result)


async def post_match_batch(request: Request) -> Response:
    data = await read_body(request, e.settings_of(request).max_body_bytes)
    items: list[MatchBatchItemIn | RanklineError] = []
    for raw in decode_as(data, MatchBatchIn).matches:
        try:
            items.append(decode_as(bytes(raw), MatchBatchItemIn))
        except RanklineError as exc:
            items.append(exc)
    matches = _matches(request)
    return await answer_batch(
        request,
        items,
        prepare=lambda board, item: _prepare(matches, board, item),
        locate=_located,
        accept=matches.accept,
        submit=matches.submit,
    )


def _located(error: RanklineError, index: int) -> RanklineError:
    """A batch item's error with the places it names under ``["body", "matches", index]``."""
    located(error, index)
    for item in error.errors or []:
        loc = item["loc"]
        if loc[:2] == ["body", "scores"]:
            item["loc"] = ["body", "matches", *loc[2:]]
    return error


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
