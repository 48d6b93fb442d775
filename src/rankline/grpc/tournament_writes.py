"""The tournament write RPCs answered directly (``direct``): ``PutTournament``,
``DeleteTournament``, ``JoinTournament`` and ``SubmitTournamentScore``.

Each takes the tournament id as the HTTP operation's path (checked, then one the caller's
key may write: ``access.scopes.writable``), a definition's or a deletion's reason as its
``?reason=`` (``reads.asked``, ``Call.attribution``) and the message's body as the JSON body
(``Call.body``), in that order, and calls the ``service.tournaments`` method the HTTP
handler calls: the same answers, the same errors at the same places."""

from __future__ import annotations

import msgspec
from google.protobuf import empty_pb2

from rankline.access.admission import Caller
from rankline.access.scopes import writable
from rankline.audit.reasons import ReasonRequest
from rankline.bodies import BOARD_ID, check_id
from rankline.grpc.direct import Call, answered
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.grpc.reads import asked
from rankline.tournaments.competition import TournamentSpec
from rankline.tournaments.requests import JoinIn, TournamentScoreIn


def _id(caller: Caller, tournament_id: str) -> str:
    """The message's tournament id, checked as the path's, and one the caller may write."""
    return writable(caller.scope, check_id(tournament_id, BOARD_ID, "tournament_id"))


async def put_tournament(call: Call, request: pb.PutTournamentRequest) -> pb.PutTournamentResponse:
    """``PUT /v1/tournaments/{tournament_id}``: ``created`` is HTTP's 201."""
    tournament_id = _id(await call.admit(), request.tournament_id)
    by = call.attribution(asked(ReasonRequest, request))
    spec = call.body(request, TournamentSpec)
    tournaments = call.direct.service.tournaments
    tournament, created = await tournaments.put(tournament_id, spec, by)
    described = msgspec.to_builtins(await tournaments.describe(tournament))
    return answered({"result": described, "created": created}, pb.PutTournamentResponse)


async def delete_tournament(call: Call, request: pb.DeleteTournamentRequest) -> empty_pb2.Empty:
    """``DELETE /v1/tournaments/{tournament_id}``."""
    tournament_id = _id(await call.admit(), request.tournament_id)
    by = call.attribution(asked(ReasonRequest, request))
    await call.direct.service.tournaments.delete(tournament_id, by)
    return empty_pb2.Empty()


async def join_tournament(call: Call, request: pb.JoinTournamentRequest) -> pb.JoinOut:
    """``POST /v1/tournaments/{tournament_id}/join``."""
    tournament_id = _id(await call.admit(), request.tournament_id)
    given = call.body(request, JoinIn)
    joined = await call.direct.service.tournaments.join(tournament_id, given.player_id)
    return answered(joined, pb.JoinOut)


async def submit_tournament_score(
    call: Call, request: pb.SubmitTournamentScoreRequest
) -> pb.SubmitOut:
    """``POST /v1/tournaments/{tournament_id}/scores``."""
    tournament_id = _id(await call.admit(), request.tournament_id)
    item = call.body(request, TournamentScoreIn)
    return answered(await call.direct.service.tournaments.submit(tournament_id, item), pb.SubmitOut)
