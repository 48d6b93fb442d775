"""The RPCs of rankline.v1 and the HTTP operation each one twins: an RPC is answered as that
operation's endpoint (``rankline.http.routes.ENDPOINTS``) answers, through its request wrapper
and handler (``bridge``), or, for the hot ones, by the same service calls under the auth and
limits the endpoint declares (``direct``), so every rule (auth, validation, rate limits,
idempotency) is the HTTP API's own.

An RPC's request carries the operation's path parameters and query parameters as fields of
the same names, its body as ``body``, and ``respond_async`` for ``Prefer: respond-async``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from google.protobuf.message import Message

from rankline.grpc.gen.rankline.v1 import rankline_pb2
from rankline.http.endpoint import Endpoint
from rankline.http.query_credential import NAME as CREDENTIAL
from rankline.http.routes import ENDPOINTS

SERVICE = "rankline.v1.Rankline"
DESCRIPTOR = rankline_pb2.DESCRIPTOR.services_by_name["Rankline"]

RPCS: dict[str, tuple[str, str]] = {
    "ListBoards": ("GET", "/v1/boards"),
    "PutBoard": ("PUT", "/v1/boards/{board_id}"),
    "GetBoard": ("GET", "/v1/boards/{board_id}"),
    "DeleteBoard": ("DELETE", "/v1/boards/{board_id}"),
    "SubmitScore": ("POST", "/v1/boards/{board_id}/scores"),
    "SubmitScores": ("POST", "/v1/scores/batch"),
    "GetTop": ("GET", "/v1/boards/{board_id}/top"),
    "GetPlayer": ("GET", "/v1/boards/{board_id}/players/{player_id}"),
    "GetAround": ("GET", "/v1/boards/{board_id}/players/{player_id}/around"),
    "GetRankOf": ("GET", "/v1/boards/{board_id}/rank-of"),
    "GetFriends": ("POST", "/v1/boards/{board_id}/players/{player_id}/friends"),
    "GetRanks": ("POST", "/v1/boards/{board_id}/ranks"),
    "ListPeriods": ("GET", "/v1/boards/{board_id}/periods"),
    "Watch": ("GET", "/v1/boards/{board_id}/stream"),
    "PutProfile": ("PUT", "/v1/players/{player_id}"),
    "GetProfile": ("GET", "/v1/players/{player_id}"),
    "ErasePlayer": ("DELETE", "/v1/players/{player_id}"),
    "GetHistory": ("GET", "/v1/players/{player_id}/history"),
    "PutFriendList": ("PUT", "/v1/players/{player_id}/friends"),
    "GetFriendList": ("GET", "/v1/players/{player_id}/friends"),
    "BanPlayer": ("POST", "/v1/players/{player_id}/ban"),
    "UnbanPlayer": ("DELETE", "/v1/players/{player_id}/ban"),
    "GetStoredFriends": ("GET", "/v1/boards/{board_id}/players/{player_id}/friends"),
    "SubmitMatch": ("POST", "/v1/boards/{board_id}/matches"),
    "SubmitMatches": ("POST", "/v1/matches/batch"),
    "GetRating": ("GET", "/v1/boards/{board_id}/players/{player_id}/rating"),
    "ListTournaments": ("GET", "/v1/tournaments"),
    "PutTournament": ("PUT", "/v1/tournaments/{tournament_id}"),
    "GetTournament": ("GET", "/v1/tournaments/{tournament_id}"),
    "DeleteTournament": ("DELETE", "/v1/tournaments/{tournament_id}"),
    "JoinTournament": ("POST", "/v1/tournaments/{tournament_id}/join"),
    "SubmitTournamentScore": ("POST", "/v1/tournaments/{tournament_id}/scores"),
    "GetTournamentTop": ("GET", "/v1/tournaments/{tournament_id}/top"),
    "GetTournamentPlayer": ("GET", "/v1/tournaments/{tournament_id}/players/{player_id}"),
    "GetTournamentAround": ("GET", "/v1/tournaments/{tournament_id}/players/{player_id}/around"),
    "GetTournamentResults": ("GET", "/v1/tournaments/{tournament_id}/results"),
    "ListDeliveries": ("GET", "/v1/boards/{board_id}/deliveries"),
    "ListSnapshots": ("GET", "/v1/boards/{board_id}/snapshots"),
    "RemoveEntry": ("DELETE", "/v1/boards/{board_id}/players/{player_id}"),
    "ResetBoard": ("POST", "/v1/boards/{board_id}/reset"),
    "VoidMatch": ("POST", "/v1/boards/{board_id}/matches/{match_id}/void"),
    "ListAuditEntries": ("GET", "/v1/audit"),
    "ListDeadLetters": ("GET", "/v1/dead-letters"),
    "GetMe": ("GET", "/v1/boards/{board_id}/me"),
    "GetMeAround": ("GET", "/v1/boards/{board_id}/me/around"),
    "GetMeFriends": ("GET", "/v1/boards/{board_id}/me/friends"),
}
"""Each RPC and its HTTP operation (method, path template)."""

EXCLUDED: dict[tuple[str, str], str] = {
    ("GET", "/v1/boards/{board_id}/export"): "a file download (CSV or JSON lines), not a "
    "message: over gRPC, page through GetTop, or run `rankline export`",
    **{
        operation: "keys are an operator's business, not a game server's: they are managed "
        "over HTTP (/v1/keys), from the console or with `rankline keys`"
        for operation in (
            ("POST", "/v1/keys"),
            ("GET", "/v1/keys"),
            ("DELETE", "/v1/keys/{key_id}"),
        )
    },
}
"""HTTP operations with no RPC, and why. Conditional reads (``If-None-Match``/304) are HTTP
caching and have no gRPC form; the read itself is an RPC."""

Shape = Literal["plain", "accepted", "created", "empty", "stream"]


@dataclass(frozen=True)
class Operation:
    """One RPC: its endpoint, its messages, and how its answer is shaped: ``plain`` (the
    endpoint's body), ``accepted`` (a ``result``/``accepted`` oneof), ``created`` (the body as
    ``result`` and HTTP's 201 as ``created``), ``empty`` (204), ``stream`` (Watch)."""

    name: str
    endpoint: Endpoint
    request: type[Message]
    response: type[Message]
    shape: Shape
    path_names: tuple[str, ...]
    query_names: tuple[str, ...]


def _shape(name: str, endpoint: Endpoint) -> Shape:
    if name == "Watch":
        return "stream"
    if endpoint.status == 204:
        return "empty"
    if endpoint.accepted is not None:
        return "accepted"
    if endpoint.also:
        return "created"
    return "plain"


def _class(full_name: str) -> type[Message]:
    kind: type[Message] = getattr(rankline_pb2, full_name.rsplit(".", 1)[-1], None) or _wkt(
        full_name
    )
    return kind


def _wkt(full_name: str) -> type[Message]:
    from google.protobuf import empty_pb2

    if full_name != "google.protobuf.Empty":
        raise LookupError(full_name)
    return empty_pb2.Empty


def operations() -> dict[str, Operation]:
    """Every RPC of the service, by name. An RPC carries its credential in the call's
    ``authorization`` metadata, never in a field: the stream's ``access_token`` query
    parameter, which exists for browsers, has none."""
    table = {(e.method, e.path): e for e in ENDPOINTS}
    found = {}
    for method in DESCRIPTOR.methods:
        endpoint = table[RPCS[method.name]]
        found[method.name] = Operation(
            method.name,
            endpoint,
            _class(method.input_type.full_name),
            _class(method.output_type.full_name),
            _shape(method.name, endpoint),
            tuple(p.name for p in endpoint.params if p.where == "path"),
            tuple(p.name for p in endpoint.params if p.where == "query" and p.name != CREDENTIAL),
        )
    return found
