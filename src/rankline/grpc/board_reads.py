"""The board read RPCs answered directly (``direct``) beside the hot ones (``reads``):
``ListBoards``, ``GetBoard``, ``GetRankOf``, ``GetFriends``, ``GetRanks``, ``ListPeriods``,
``ListSnapshots`` and ``ListDeliveries``. Each calls the service method its HTTP operation's
handler calls, with the typed request built from the message's fields (``reads.asked``) and
a body as the operation's JSON body would be decoded (``Call.body``): the same answers, the
same errors at the same places."""

from __future__ import annotations

from rankline.boards import shown
from rankline.bodies import BOARD_ID, check_id
from rankline.grpc.direct import Call, answered
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.grpc.reads import asked
from rankline.lifecycle.requests import DeliveriesRequest
from rankline.reading import requests as r


async def list_boards(call: Call, request: pb.ListBoardsRequest) -> pb.BoardsOut:
    """``GET /v1/boards``."""
    await call.admit()
    boards = await call.direct.service.boards.listed()
    return answered({"boards": [shown(b) for b in boards]}, pb.BoardsOut)


async def get_board(call: Call, request: pb.GetBoardRequest) -> pb.BoardSpec:
    """``GET /v1/boards/{board_id}``."""
    await call.admit(request.board_id)
    board_id = check_id(request.board_id, BOARD_ID, "board_id")
    board = await call.direct.service.boards.find(board_id)
    return answered(shown(board), pb.BoardSpec)


async def get_rank_of(call: Call, request: pb.GetRankOfRequest) -> pb.RankOfOut:
    """``GET /v1/boards/{board_id}/rank-of``."""
    await call.admit(request.board_id)
    await call.settled(request.after)
    answer = await call.direct.service.reads.rank_of(asked(r.RankOfRequest, request))
    return answered(answer, pb.RankOfOut)


async def get_friends(call: Call, request: pb.GetFriendsRequest) -> pb.FriendsOut:
    """``POST /v1/boards/{board_id}/players/{player_id}/friends``."""
    await call.admit(request.board_id)
    await call.settled(request.after)
    ask = asked(r.FriendsRequest, request)
    given = call.body(request, r.FriendsIn)
    answer = await call.direct.service.reads.friends(ask, given.friends, given.k)
    return answered(answer, pb.FriendsOut)


async def get_ranks(call: Call, request: pb.GetRanksRequest) -> pb.RanksOut:
    """``POST /v1/boards/{board_id}/ranks``."""
    await call.admit(request.board_id)
    await call.settled(request.after)
    ask = asked(r.RanksRequest, request)
    given = call.body(request, r.RanksIn)
    answer = await call.direct.service.reads.ranks(ask, given.player_ids)
    return answered(answer, pb.RanksOut)


async def list_periods(call: Call, request: pb.ListPeriodsRequest) -> pb.PeriodsOut:
    """``GET /v1/boards/{board_id}/periods``."""
    await call.admit(request.board_id)
    answer = await call.direct.service.reads.periods(asked(r.PeriodsRequest, request))
    return answered(answer, pb.PeriodsOut)


async def list_snapshots(call: Call, request: pb.ListSnapshotsRequest) -> pb.SnapshotsOut:
    """``GET /v1/boards/{board_id}/snapshots``."""
    await call.admit(request.board_id)
    ask = asked(r.SnapshotsRequest, request)
    return answered(await call.direct.service.snapshot_reads.listing(ask), pb.SnapshotsOut)


async def list_deliveries(call: Call, request: pb.ListDeliveriesRequest) -> pb.DeliveriesOut:
    """``GET /v1/boards/{board_id}/deliveries`` (a server key allowed the board)."""
    await call.admit(request.board_id)
    ask = asked(DeliveriesRequest, request)
    answer = await call.direct.service.board_events.deliveries(ask)
    return answered(answer, pb.DeliveriesOut)
