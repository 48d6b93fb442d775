"""The board write RPCs answered directly (``direct``): a board defined or deleted
(``PutBoard``, ``DeleteBoard``) and the moderation of its entries (``RemoveEntry``,
``ResetBoard``, ``VoidMatch``). Each calls the service method its HTTP operation's handler
calls, in the same order of checks: the path's ids, the change's attribution
(``Call.attribution``), then the body as the operation's JSON body would be decoded
(``Call.body``): the same answers, the same errors at the same places."""

from __future__ import annotations

from google.protobuf import empty_pb2

from rankline.audit.reasons import ReasonRequest
from rankline.boards import BoardSpec, shown
from rankline.bodies import BOARD_ID, MATCH_ID, check_id
from rankline.grpc.direct import Call, answered
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.grpc.reads import asked
from rankline.moderation.requests import RemoveRequest, ResetIn, VoidIn


async def put_board(call: Call, request: pb.PutBoardRequest) -> pb.PutBoardResponse:
    """``PUT /v1/boards/{board_id}``: ``created`` for HTTP's 201."""
    await call.admit(request.board_id)
    board_id = check_id(request.board_id, BOARD_ID, "board_id")
    by = call.attribution(asked(ReasonRequest, request))
    spec = call.body(request, BoardSpec)
    board, created = await call.direct.service.board_changes.put(board_id, spec, by)
    return pb.PutBoardResponse(result=answered(shown(board), pb.BoardSpec), created=created)


async def delete_board(call: Call, request: pb.DeleteBoardRequest) -> empty_pb2.Empty:
    """``DELETE /v1/boards/{board_id}``."""
    await call.admit(request.board_id)
    board_id = check_id(request.board_id, BOARD_ID, "board_id")
    by = call.attribution(asked(ReasonRequest, request))
    await call.direct.service.board_changes.delete(board_id, by=by)
    return empty_pb2.Empty()


async def remove_entry(call: Call, request: pb.RemoveEntryRequest) -> pb.RemovedOut:
    """``DELETE /v1/boards/{board_id}/players/{player_id}``."""
    await call.admit(request.board_id)
    ask = asked(RemoveRequest, request)
    answer = await call.direct.service.moderation.remove(call.actor(), ask)
    return answered(answer, pb.RemovedOut)


async def reset_board(call: Call, request: pb.ResetBoardRequest) -> pb.RemovedOut:
    """``POST /v1/boards/{board_id}/reset``."""
    await call.admit(request.board_id)
    board_id = check_id(request.board_id, BOARD_ID, "board_id")
    given = call.body(request, ResetIn)
    answer = await call.direct.service.moderation.reset(call.actor(), board_id, given)
    return answered(answer, pb.RemovedOut)


async def void_match(call: Call, request: pb.VoidMatchRequest) -> pb.VoidedOut:
    """``POST /v1/boards/{board_id}/matches/{match_id}/void`` (its body optional)."""
    await call.admit(request.board_id)
    board_id = check_id(request.board_id, BOARD_ID, "board_id")
    match_id = check_id(request.match_id, MATCH_ID, "match id")
    given = call.body(request, VoidIn)
    answer = await call.direct.service.moderation.void(call.actor(), board_id, match_id, given)
    return answered(answer, pb.VoidedOut)
