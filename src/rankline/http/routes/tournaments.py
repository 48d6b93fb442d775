"""The v1 tournament routes: definitions, joins, scores, reads of an edition and results.
Each parses its input, calls one ``service.tournaments`` (or ``service.reads``) method and
renders the answer. ``routes.ENDPOINTS`` includes ``TOURNAMENT_ENDPOINTS``.

A tournament ranks on the board of the same id (window ``season``, one period per edition),
so its reads are the board reads of an edition."""

from __future__ import annotations

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from rankline.access.scopes import writable
from rankline.answers import AroundOut, PlayerOut, SubmitOut, TopOut
from rankline.audit.reasons import ReasonRequest
from rankline.http import endpoint as e
from rankline.http.audited import attribution
from rankline.http.body import check_id
from rankline.http.responses import JsonBody, json_response
from rankline.tournaments import requests as t
from rankline.tournaments.competition import TournamentSpec
from rankline.tournaments.editions import EditionOut, JoinOut, ResultsOut


class TournamentOut(TournamentSpec, kw_only=True):
    """A tournament definition (its webhook without the secret) and its current or next
    edition."""

    edition: EditionOut | None = None


class TournamentsOut(msgspec.Struct):
    tournaments: list[TournamentOut]


def _id(request: Request, *, write: bool = False) -> str:
    """The path's tournament id; to ``write``, one the caller's key may write (403 when it
    is limited to other boards)."""
    tournament_id = check_id(request.path_params["tournament_id"], e.BOARD_ID, "tournament_id")
    return writable(e.key_scope(request), tournament_id) if write else tournament_id


async def list_tournaments(request: Request) -> Response:
    return json_response({"tournaments": await e.service_of(request).tournaments.listing()})


async def get_tournament(request: Request) -> Response:
    tournaments = e.service_of(request).tournaments
    return json_response(await tournaments.describe(await tournaments.get(_id(request))))


async def put_tournament(request: Request) -> Response:
    tournament_id = _id(request, write=True)
    by = attribution(request)
    spec = await e.body_of(request, TournamentSpec)
    tournaments = e.service_of(request).tournaments
    tournament, created = await tournaments.put(tournament_id, spec, by)
    return json_response(await tournaments.describe(tournament), 201 if created else 200)


async def delete_tournament(request: Request) -> Response:
    tournament_id = _id(request, write=True)
    await e.service_of(request).tournaments.delete(tournament_id, attribution(request))
    return Response(status_code=204)


async def join(request: Request) -> Response:
    tournament_id = _id(request, write=True)
    given = await e.body_of(request, t.JoinIn)
    return json_response(
        await e.service_of(request).tournaments.join(tournament_id, given.player_id)
    )


async def post_score(request: Request) -> Response:
    tournament_id = _id(request, write=True)
    item = await e.body_of(request, t.TournamentScoreIn)
    return json_response(await e.service_of(request).tournaments.submit(tournament_id, item))


async def top(request: Request) -> Response:
    ask = e.ask(request, t.TournamentTopRequest)
    body, etag = await e.service_of(request).reads.top(ask.read())
    return JsonBody(body, 200, {"ETag": etag})


async def player(request: Request) -> Response:
    ask = e.ask(request, t.TournamentPlayerRequest).read()  # scope=cohort: the player's
    return json_response(await e.service_of(request).reads.player(ask))


async def around(request: Request) -> Response:
    ask = e.ask(request, t.TournamentAroundRequest).read()  # scope=cohort: the player's
    return json_response(await e.service_of(request).reads.around(ask))


async def results(request: Request) -> Response:
    ask = e.ask(request, t.ResultsRequest)
    return JsonBody(await e.service_of(request).tournaments.results(ask))


TOURNAMENT = e.path_param(t.ResultsRequest, "tournament_id")
_TAG = "tournaments"

TOURNAMENT_ENDPOINTS: tuple[e.Endpoint, ...] = (
    e.Endpoint(
        "GET",
        "/v1/tournaments",
        list_tournaments,
        "List tournaments",
        response=TournamentsOut,
        tag=_TAG,
        rpc="ListTournaments",
    ),
    e.Endpoint(
        "PUT",
        "/v1/tournaments/{tournament_id}",
        put_tournament,
        "Create or update a tournament",
        auth="server",
        body=TournamentSpec,
        response=TournamentOut,
        also=(201,),
        request=ReasonRequest,
        params=(TOURNAMENT,),
        tag=_TAG,
        rpc="PutTournament",
    ),
    e.Endpoint(
        "GET",
        "/v1/tournaments/{tournament_id}",
        get_tournament,
        "Get a tournament",
        response=TournamentOut,
        params=(TOURNAMENT,),
        tag=_TAG,
        rpc="GetTournament",
    ),
    e.Endpoint(
        "DELETE",
        "/v1/tournaments/{tournament_id}",
        delete_tournament,
        "Delete a tournament, its board, joins and results",
        auth="server",
        status=204,
        request=ReasonRequest,
        params=(TOURNAMENT,),
        tag=_TAG,
        rpc="DeleteTournament",
    ),
    e.Endpoint(
        "POST",
        "/v1/tournaments/{tournament_id}/join",
        join,
        "Join the current (or next) edition: 409 when full",
        auth="server",
        body=t.JoinIn,
        response=JoinOut,
        params=(TOURNAMENT,),
        tag=_TAG,
        rpc="JoinTournament",
    ),
    e.Endpoint(
        "POST",
        "/v1/tournaments/{tournament_id}/scores",
        post_score,
        "Submit a score: 409 outside the schedule, over max_submissions or without joining",
        auth="server",
        body=t.TournamentScoreIn,
        response=SubmitOut,
        params=(TOURNAMENT,),
        tag=_TAG,
        rpc="SubmitTournamentScore",
    ),
    e.Endpoint(
        "GET",
        "/v1/tournaments/{tournament_id}/top",
        top,
        "The top of an edition",
        response=TopOut,
        request=t.TournamentTopRequest,
        params=(TOURNAMENT, *e.declared(t.TournamentTopRequest, "edition", "scope"), e.DECLARED),
        tag=_TAG,
        rpc="GetTournamentTop",
    ),
    e.Endpoint(
        "GET",
        "/v1/tournaments/{tournament_id}/players/{player_id}",
        player,
        "A player's rank in an edition",
        response=PlayerOut,
        request=t.TournamentPlayerRequest,
        params=(TOURNAMENT, e.DECLARED, e.PLAYER),
        tag=_TAG,
        rpc="GetTournamentPlayer",
    ),
    e.Endpoint(
        "GET",
        "/v1/tournaments/{tournament_id}/players/{player_id}/around",
        around,
        "The players around a player in an edition",
        response=AroundOut,
        request=t.TournamentAroundRequest,
        params=(
            TOURNAMENT,
            *e.declared(t.TournamentAroundRequest, "edition", "scope"),
            e.PLAYER,
            e.DECLARED,
        ),
        tag=_TAG,
        rpc="GetTournamentAround",
    ),
    e.Endpoint(
        "GET",
        "/v1/tournaments/{tournament_id}/results",
        results,
        "An ended edition's results with rewards (the webhook's body)",
        response=ResultsOut,
        request=t.ResultsRequest,
        params=(TOURNAMENT,),
        tag=_TAG,
        rpc="GetTournamentResults",
    ),
)
