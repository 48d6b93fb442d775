"""The match write RPCs answered directly (``direct``): ``SubmitMatch`` and
``SubmitMatches``.

The message's body is taken as the HTTP operation's JSON body would be (the same schema,
decoded as JSON is: the same refusals at the same places, in the same order), and the write
path is the same: ``Matches.take`` prepares a match and takes it into the log, answered
once rated or, with ``respond_async``, once durable (``accepted``); a batch is answered by
``writing.match_batches``. As over HTTP, a match write has no deadline of its own: a
synchronous answer waits for the applier up to ``ratings.matches.SETTLE_SECONDS``."""

from __future__ import annotations

from typing import Any

from rankline.bodies import BOARD_ID, check_id, decoded_as
from rankline.grpc.direct import Call, answered
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.ratings.requests import MatchIn, given_match_items
from rankline.writing.match_batches import answer_matches


async def submit_match(call: Call, request: pb.SubmitMatchRequest) -> pb.SubmitMatchResponse:
    """``POST /v1/boards/{board_id}/matches``."""
    await call.admit(request.board_id)
    item = decoded_as(call.given(request), MatchIn)  # a result's error before their number
    board_id = check_id(request.board_id, BOARD_ID, "board_id")
    taken = await call.direct.service.matches.take(board_id, item, request.respond_async)
    if isinstance(taken, str):
        return pb.SubmitMatchResponse(accepted=pb.AcceptedOut(accepted=1, token=taken))
    return pb.SubmitMatchResponse(result=answered(taken, pb.MatchOut))


async def submit_matches(call: Call, request: pb.SubmitMatchesRequest) -> pb.SubmitMatchesResponse:
    """``POST /v1/matches/batch``: up to 1,000 matches, each answered on its own."""
    caller = await call.admit()
    items: list[Any] = given_match_items(call.batch(request, "matches"))
    matches = call.direct.service.matches
    answer = await answer_matches(matches, items, caller.scope, request.respond_async)
    if answer.status == 202:
        return pb.SubmitMatchesResponse(accepted=answered(answer.body, pb.AcceptedOut))
    return pb.SubmitMatchesResponse(result=answered(answer.body, pb.MatchBatchOut))
