"""The write RPCs answered directly (``direct``): ``SubmitScore`` and ``SubmitScores``.

The message's body is taken as the HTTP operation's JSON body would be (the same schema, so
the same refusals at the same places), the call's deadline is the write's deadline, and the
write path is the same: ``writing.batches`` prepares and answers, the group commit or the
ingestion log takes. A request message larger than ``RANKLINE_MAX_BODY_BYTES`` is refused
as HTTP refuses such a body."""

from __future__ import annotations

from typing import Any

from rankline.access.admission import own_player_id, player_may
from rankline.bodies import BOARD_ID, check_id, given_as
from rankline.grpc.direct import Call, answered
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.writing.batches import player_score, take_score
from rankline.writing.requests import ScoreIn, given_batch_items


def _as_player(call: Call) -> bool:
    """Whether a player token calls as the player (403 where it may not call at all)."""
    rule = call.rule
    return player_may(rule.auth, rule.for_players, rule.operation)


async def submit_score(call: Call, request: pb.SubmitScoreRequest) -> pb.SubmitScoreResponse:
    """``POST /v1/boards/{board_id}/scores``: a key's submission, or a player's own."""
    caller = await call.admit(request.board_id)
    service = call.direct.service
    player = caller.player
    if player is not None and _as_player(call):
        given = call.given(request)
        given["player_id"] = own_player_id(given.get("player_id"), player)
        board_id = check_id(request.board_id, BOARD_ID, "board_id")
        item = given_as(given, ScoreIn)
        # answered once written (never accepted): the board's rules decide first
        deadline = call.deadline()
        written = await player_score(service.client_writes, board_id, item, player, deadline)
        return pb.SubmitScoreResponse(result=answered(written, pb.SubmitOut))
    board_id = check_id(request.board_id, BOARD_ID, "board_id")
    item = given_as(call.given(request), ScoreIn)
    deadline = call.deadline()
    asynchronous = request.respond_async
    taken = await take_score(service.scores, service.ingest, board_id, item, deadline, asynchronous)
    if isinstance(taken, str):
        return pb.SubmitScoreResponse(accepted=pb.AcceptedOut(accepted=1, token=taken))
    return pb.SubmitScoreResponse(result=answered(taken, pb.SubmitOut))


async def submit_scores(call: Call, request: pb.SubmitScoresRequest) -> pb.SubmitScoresResponse:
    """``POST /v1/scores/batch``: up to 1,000 submissions, each answered on its own."""
    caller = await call.admit()
    if caller.player is not None:
        _as_player(call)  # a batch is not for players: 403
    service = call.direct.service
    deadline = call.deadline()
    asynchronous = request.respond_async
    batches = service.score_batches
    batches.admit(1, deadline, asynchronous)  # its deadline passed meanwhile: refused unread
    items: list[Any] = given_batch_items(call.batch(request, "scores"))
    answer = await batches.answer(items, caller.scope, deadline, asynchronous)
    if answer.status == 202:
        return pb.SubmitScoresResponse(accepted=answered(answer.body, pb.AcceptedOut))
    return pb.SubmitScoresResponse(result=answered(answer.body, pb.BatchOut))
