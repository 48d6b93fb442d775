"""The handlers of rankline.v1's RPCs: the reads, the hot writes and ``Watch`` call the
service directly (``direct``: ``DIRECT``, ``STREAMED``); each other one is answered by the
HTTP operation it twins (``bridge``), through the callable it is given for that. Each RPC is
admitted under its operation's ``Rule`` (``rankline.access.admission``), given by whoever
builds the server."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import grpc
from google.protobuf.message import Message

from rankline.access.admission import Admission, Rule
from rankline.grpc import (
    board_reads,
    bridge,
    log_reads,
    match_writes,
    player_reads,
    reads,
    tournament_reads,
    tournament_writes,
    watch,
    writes,
)
from rankline.grpc.bridge import AnswerViaHttp
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
    "PutTournament": tournament_writes.put_tournament,
    "DeleteTournament": tournament_writes.delete_tournament,
    "JoinTournament": tournament_writes.join_tournament,
    "SubmitTournamentScore": tournament_writes.submit_tournament_score,
    "SubmitMatch": match_writes.submit_match,
    "SubmitMatches": match_writes.submit_matches,
}
"""The RPCs that call the service directly, and how."""

STREAMED: dict[str, Streamed] = {"Watch": watch.watch}
"""The server-streaming RPCs, which call the service directly too."""


def handler(
    service: Rankline,
    admission: Admission,
    rules: Mapping[str, Rule],
    answer_via_http: AnswerViaHttp | None = None,
) -> grpc.GenericRpcHandler:
    """Every RPC of rankline.v1.Rankline, each admitted by ``admission`` under its rule in
    ``rules`` (one for every RPC), answered by ``service`` directly or, for the others,
    by ``answer_via_http``."""
    methods: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
    direct = Direct(service, admission)
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
        elif answer_via_http is not None:
            methods[name] = grpc.unary_unary_rpc_method_handler(
                bridge.unary(answer_via_http, rpc),
                request_deserializer=parse,
                response_serializer=_serialize,
            )
        else:
            raise LookupError(f"the RPC {name} has no handler")
    return grpc.method_handlers_generic_handler(SERVICE, methods)


def _serialize(message: Message) -> bytes:
    return message.SerializeToString()
