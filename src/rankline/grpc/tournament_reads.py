"""The tournament read RPCs answered directly (``direct``): ``ListTournaments``,
``GetTournament``, ``GetTournamentTop``, ``GetTournamentPlayer``, ``GetTournamentAround``
and ``GetTournamentResults``. Each calls the service method its HTTP operation's handler
calls, with the typed request built from the message's fields (``reads.asked``): the same
answers, the same errors at the same places. An edition's reads are the reads of the
tournament's board (``read()``)."""

from __future__ import annotations

import msgspec
import orjson

from rankline.bodies import BOARD_ID, check_id
from rankline.grpc.direct import Call, answered
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.grpc.reads import asked
from rankline.tournaments import requests as t


async def list_tournaments(call: Call, request: pb.ListTournamentsRequest) -> pb.TournamentsOut:
    """``GET /v1/tournaments``."""
    await call.admit()
    listing = await call.direct.service.tournaments.listing()
    return answered(msgspec.to_builtins({"tournaments": listing}), pb.TournamentsOut)


async def get_tournament(call: Call, request: pb.GetTournamentRequest) -> pb.TournamentOut:
    """``GET /v1/tournaments/{tournament_id}``."""
    await call.admit()
    tournament_id = check_id(request.tournament_id, BOARD_ID, "tournament_id")
    tournaments = call.direct.service.tournaments
    described = await tournaments.describe(await tournaments.get(tournament_id))
    return answered(msgspec.to_builtins(described), pb.TournamentOut)


async def get_tournament_top(call: Call, request: pb.GetTournamentTopRequest) -> pb.TopOut:
    """``GET /v1/tournaments/{tournament_id}/top``."""
    await call.admit()
    ask = asked(t.TournamentTopRequest, request)
    body, _ = await call.direct.service.reads.top(ask.read())
    return answered(orjson.loads(body), pb.TopOut)


async def get_tournament_player(call: Call, request: pb.GetTournamentPlayerRequest) -> pb.PlayerOut:
    """``GET /v1/tournaments/{tournament_id}/players/{player_id}``."""
    await call.admit()
    ask = asked(t.TournamentPlayerRequest, request).read()  # scope=cohort: the player's
    return answered(await call.direct.service.reads.player(ask), pb.PlayerOut)


async def get_tournament_around(call: Call, request: pb.GetTournamentAroundRequest) -> pb.AroundOut:
    """``GET /v1/tournaments/{tournament_id}/players/{player_id}/around``."""
    await call.admit()
    ask = asked(t.TournamentAroundRequest, request).read()  # scope=cohort: the player's
    return answered(await call.direct.service.reads.around(ask), pb.AroundOut)


async def get_tournament_results(
    call: Call, request: pb.GetTournamentResultsRequest
) -> pb.ResultsOut:
    """``GET /v1/tournaments/{tournament_id}/results`` (an ended edition's)."""
    await call.admit()
    body = await call.direct.service.tournaments.results(asked(t.ResultsRequest, request))
    return answered(orjson.loads(body), pb.ResultsOut)
