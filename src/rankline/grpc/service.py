"""The handlers of rankline.v1's RPCs: every one calls the service directly (``direct``), the
unary ones by ``DIRECT``, ``Watch`` by ``STREAMED``. Each RPC is admitted under its
operation's ``Rule`` (``rankline.access.admission``), given by whoever builds the server."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import grpc
from google.protobuf.message import Message

from rankline.access.admission import Admission, Rule
from rankline.grpc import (
    board_reads,
    board_writes,
    log_reads,
    match_writes,
    player_reads,
    player_writes,
    reads,
    tournament_reads,
    tournament_writes,
    watch,
    writes,
)
from rankline.grpc.direct import Direct, Method, Streamed, streaming, unary
from rankline.grpc.rpcs import SERVICE, rpcs
from rankline.service import Rankline

DIRECT: dict[str, Method] = {
    "GetPlayer": reads.get_player,
    "GetMe": reads.get_me,
    "GetAround": reads.get_around,
    "GetMeAround": reads.get_me_around,
    "GetTop": reads.get_top,
    "ListBoards": board_reads.list_boards,
    "GetBoard": board_reads.get_board,
    "GetRankOf": board_reads.get_rank_of,
    "GetFriends": board_reads.get_friends,
    "GetRanks": board_reads.get_ranks,
    "ListPeriods": board_reads.list_periods,
    "ListSnapshots": board_reads.list_snapshots,
    "ListDeliveries": board_reads.list_deliveries,
    "GetProfile": player_reads.get_profile,
    "GetHistory": player_reads.get_history,
    "GetFriendList": player_reads.get_friend_list,
    "GetStoredFriends": player_reads.get_stored_friends,
    "GetMeFriends": player_reads.get_me_friends,
    "GetRating": player_reads.get_rating,
    "ListTournaments": tournament_reads.list_tournaments,
    "GetTournament": tournament_reads.get_tournament,
    "GetTournamentTop": tournament_reads.get_tournament_top,
    "GetTournamentPlayer": tournament_reads.get_tournament_player,
    "GetTournamentAround": tournament_reads.get_tournament_around,
    "GetTournamentResults": tournament_reads.get_tournament_results,
    "ListAuditEntries": log_reads.list_audit_entries,
    "ListDeadLetters": log_reads.list_dead_letters,
    "SubmitScore": writes.submit_score,
    "SubmitScores": writes.submit_scores,
    "PutBoard": board_writes.put_board,
    "DeleteBoard": board_writes.delete_board,
    "RemoveEntry": board_writes.remove_entry,
    "ResetBoard": board_writes.reset_board,
    "VoidMatch": board_writes.void_match,
    "PutProfile": player_writes.put_profile,
    "ErasePlayer": player_writes.erase_player,
    "PutFriendList": player_writes.put_friend_list,
    "BanPlayer": player_writes.ban_player,
    "UnbanPlayer": player_writes.unban_player,
    "PutTournament": tournament_writes.put_tournament,
    "DeleteTournament": tournament_writes.delete_tournament,
    "JoinTournament": tournament_writes.join_tournament,
    "SubmitTournamentScore": tournament_writes.submit_tournament_score,
    "SubmitMatch": match_writes.submit_match,
    "SubmitMatches": match_writes.submit_matches,
}
"""The unary RPCs, and the call to the service each one makes."""

STREAMED: dict[str, Streamed] = {"Watch": watch.watch}
"""The server-streaming RPCs."""


def handler(
    service: Rankline,
    admission: Admission,
    rules: Mapping[str, Rule],
    waited: Callable[[], float] | None = None,
) -> grpc.GenericRpcHandler:
    """Every RPC of rankline.v1.Rankline, each admitted by ``admission`` under its rule in
    ``rules`` (one for every RPC) and answered by ``service``; ``waited``: how long a call may
    have waited for the event loop before it was seen (``Direct``; None: not known)."""
    methods: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
    direct = Direct(service, admission, waited)
    for name, rpc in rpcs().items():
        rule = rules[name]
        parse = rpc.request.FromString
        method = DIRECT.get(name)
        if method is not None:
            methods[name] = grpc.unary_unary_rpc_method_handler(
                unary(direct, rule, method, name),
                request_deserializer=parse,
                response_serializer=_serialize,
            )
        elif name in STREAMED:
            methods[name] = grpc.unary_stream_rpc_method_handler(
                streaming(direct, rule, STREAMED[name], name),
                request_deserializer=parse,
                response_serializer=_serialize,
            )
        else:
            raise LookupError(f"the RPC {name} has no handler")
    return grpc.method_handlers_generic_handler(SERVICE, methods)


def _serialize(message: Message) -> bytes:
    return message.SerializeToString()
