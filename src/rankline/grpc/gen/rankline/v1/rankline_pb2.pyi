from google.protobuf import empty_pb2 as _empty_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListBoardsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PutBoardRequest(_message.Message):
    __slots__ = ("board_id", "body", "reason")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    body: BoardSpec
    reason: str
    def __init__(self, board_id: _Optional[str] = ..., body: _Optional[_Union[BoardSpec, _Mapping]] = ..., reason: _Optional[str] = ...) -> None: ...

class PutBoardResponse(_message.Message):
    __slots__ = ("result", "created")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    result: BoardSpec
    created: bool
    def __init__(self, result: _Optional[_Union[BoardSpec, _Mapping]] = ..., created: _Optional[bool] = ...) -> None: ...

class GetBoardRequest(_message.Message):
    __slots__ = ("board_id",)
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    def __init__(self, board_id: _Optional[str] = ...) -> None: ...

class DeleteBoardRequest(_message.Message):
    __slots__ = ("board_id", "reason")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    reason: str
    def __init__(self, board_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class SubmitScoreRequest(_message.Message):
    __slots__ = ("board_id", "respond_async", "body")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    RESPOND_ASYNC_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    respond_async: bool
    body: ScoreIn
    def __init__(self, board_id: _Optional[str] = ..., respond_async: _Optional[bool] = ..., body: _Optional[_Union[ScoreIn, _Mapping]] = ...) -> None: ...

class SubmitScoreResponse(_message.Message):
    __slots__ = ("result", "accepted")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    result: SubmitOut
    accepted: AcceptedOut
    def __init__(self, result: _Optional[_Union[SubmitOut, _Mapping]] = ..., accepted: _Optional[_Union[AcceptedOut, _Mapping]] = ...) -> None: ...

class SubmitScoresRequest(_message.Message):
    __slots__ = ("respond_async", "body")
    RESPOND_ASYNC_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    respond_async: bool
    body: BatchDoc
    def __init__(self, respond_async: _Optional[bool] = ..., body: _Optional[_Union[BatchDoc, _Mapping]] = ...) -> None: ...

class SubmitScoresResponse(_message.Message):
    __slots__ = ("result", "accepted")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    result: BatchOut
    accepted: AcceptedOut
    def __init__(self, result: _Optional[_Union[BatchOut, _Mapping]] = ..., accepted: _Optional[_Union[AcceptedOut, _Mapping]] = ...) -> None: ...

class GetTopRequest(_message.Message):
    __slots__ = ("board_id", "window", "period", "scope", "after", "limit", "offset", "tier", "metadata", "cursor", "at")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    window: str
    period: str
    scope: str
    after: str
    limit: int
    offset: int
    tier: str
    metadata: bool
    cursor: str
    at: str
    def __init__(self, board_id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., after: _Optional[str] = ..., limit: _Optional[int] = ..., offset: _Optional[int] = ..., tier: _Optional[str] = ..., metadata: _Optional[bool] = ..., cursor: _Optional[str] = ..., at: _Optional[str] = ...) -> None: ...

class GetPlayerRequest(_message.Message):
    __slots__ = ("board_id", "player_id", "window", "period", "scope", "after", "metadata")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    player_id: str
    window: str
    period: str
    scope: str
    after: str
    metadata: bool
    def __init__(self, board_id: _Optional[str] = ..., player_id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., after: _Optional[str] = ..., metadata: _Optional[bool] = ...) -> None: ...

class GetAroundRequest(_message.Message):
    __slots__ = ("board_id", "player_id", "window", "period", "scope", "after", "k", "metadata")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    player_id: str
    window: str
    period: str
    scope: str
    after: str
    k: int
    metadata: bool
    def __init__(self, board_id: _Optional[str] = ..., player_id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., after: _Optional[str] = ..., k: _Optional[int] = ..., metadata: _Optional[bool] = ...) -> None: ...

class GetRankOfRequest(_message.Message):
    __slots__ = ("board_id", "window", "period", "scope", "after", "score", "subscore")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    window: str
    period: str
    scope: str
    after: str
    score: int
    subscore: int
    def __init__(self, board_id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., after: _Optional[str] = ..., score: _Optional[int] = ..., subscore: _Optional[int] = ...) -> None: ...

class GetFriendsRequest(_message.Message):
    __slots__ = ("board_id", "player_id", "window", "period", "scope", "after", "body", "metadata")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    player_id: str
    window: str
    period: str
    scope: str
    after: str
    body: FriendsIn
    metadata: bool
    def __init__(self, board_id: _Optional[str] = ..., player_id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., after: _Optional[str] = ..., body: _Optional[_Union[FriendsIn, _Mapping]] = ..., metadata: _Optional[bool] = ...) -> None: ...

class GetRanksRequest(_message.Message):
    __slots__ = ("board_id", "window", "period", "scope", "after", "body", "metadata")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    window: str
    period: str
    scope: str
    after: str
    body: RanksIn
    metadata: bool
    def __init__(self, board_id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., after: _Optional[str] = ..., body: _Optional[_Union[RanksIn, _Mapping]] = ..., metadata: _Optional[bool] = ...) -> None: ...

class ListPeriodsRequest(_message.Message):
    __slots__ = ("board_id", "window")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    window: str
    def __init__(self, board_id: _Optional[str] = ..., window: _Optional[str] = ...) -> None: ...

class ListDeliveriesRequest(_message.Message):
    __slots__ = ("board_id", "window", "period", "limit")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    window: str
    period: str
    limit: int
    def __init__(self, board_id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class WatchRequest(_message.Message):
    __slots__ = ("board_id", "window", "period", "scope", "after", "limit", "players", "metadata")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    window: str
    period: str
    scope: str
    after: str
    limit: int
    players: str
    metadata: bool
    def __init__(self, board_id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., after: _Optional[str] = ..., limit: _Optional[int] = ..., players: _Optional[str] = ..., metadata: _Optional[bool] = ...) -> None: ...

class PutProfileRequest(_message.Message):
    __slots__ = ("player_id", "body")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    body: ProfileIn
    def __init__(self, player_id: _Optional[str] = ..., body: _Optional[_Union[ProfileIn, _Mapping]] = ...) -> None: ...

class PutProfileResponse(_message.Message):
    __slots__ = ("result", "created")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    result: ProfileOut
    created: bool
    def __init__(self, result: _Optional[_Union[ProfileOut, _Mapping]] = ..., created: _Optional[bool] = ...) -> None: ...

class GetProfileRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class ErasePlayerRequest(_message.Message):
    __slots__ = ("player_id", "reason")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    reason: str
    def __init__(self, player_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class GetHistoryRequest(_message.Message):
    __slots__ = ("player_id", "board", "limit", "cursor")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    board: str
    limit: int
    cursor: str
    def __init__(self, player_id: _Optional[str] = ..., board: _Optional[str] = ..., limit: _Optional[int] = ..., cursor: _Optional[str] = ...) -> None: ...

class PutFriendListRequest(_message.Message):
    __slots__ = ("player_id", "body")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    body: FriendListIn
    def __init__(self, player_id: _Optional[str] = ..., body: _Optional[_Union[FriendListIn, _Mapping]] = ...) -> None: ...

class GetFriendListRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class BanPlayerRequest(_message.Message):
    __slots__ = ("player_id", "reason")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    reason: str
    def __init__(self, player_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class UnbanPlayerRequest(_message.Message):
    __slots__ = ("player_id", "reason")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    reason: str
    def __init__(self, player_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class GetStoredFriendsRequest(_message.Message):
    __slots__ = ("board_id", "player_id", "window", "period", "scope", "after", "k", "metadata")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    player_id: str
    window: str
    period: str
    scope: str
    after: str
    k: int
    metadata: bool
    def __init__(self, board_id: _Optional[str] = ..., player_id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., after: _Optional[str] = ..., k: _Optional[int] = ..., metadata: _Optional[bool] = ...) -> None: ...

class SubmitMatchRequest(_message.Message):
    __slots__ = ("board_id", "respond_async", "body")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    RESPOND_ASYNC_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    respond_async: bool
    body: MatchIn
    def __init__(self, board_id: _Optional[str] = ..., respond_async: _Optional[bool] = ..., body: _Optional[_Union[MatchIn, _Mapping]] = ...) -> None: ...

class SubmitMatchResponse(_message.Message):
    __slots__ = ("result", "accepted")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    result: MatchOut
    accepted: AcceptedOut
    def __init__(self, result: _Optional[_Union[MatchOut, _Mapping]] = ..., accepted: _Optional[_Union[AcceptedOut, _Mapping]] = ...) -> None: ...

class SubmitMatchesRequest(_message.Message):
    __slots__ = ("respond_async", "body")
    RESPOND_ASYNC_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    respond_async: bool
    body: MatchBatchDoc
    def __init__(self, respond_async: _Optional[bool] = ..., body: _Optional[_Union[MatchBatchDoc, _Mapping]] = ...) -> None: ...

class SubmitMatchesResponse(_message.Message):
    __slots__ = ("result", "accepted")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    result: MatchBatchOut
    accepted: AcceptedOut
    def __init__(self, result: _Optional[_Union[MatchBatchOut, _Mapping]] = ..., accepted: _Optional[_Union[AcceptedOut, _Mapping]] = ...) -> None: ...

class GetRatingRequest(_message.Message):
    __slots__ = ("board_id", "player_id", "window", "period", "scope")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    player_id: str
    window: str
    period: str
    scope: str
    def __init__(self, board_id: _Optional[str] = ..., player_id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ...) -> None: ...

class ListTournamentsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PutTournamentRequest(_message.Message):
    __slots__ = ("tournament_id", "body", "reason")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    body: TournamentSpec
    reason: str
    def __init__(self, tournament_id: _Optional[str] = ..., body: _Optional[_Union[TournamentSpec, _Mapping]] = ..., reason: _Optional[str] = ...) -> None: ...

class PutTournamentResponse(_message.Message):
    __slots__ = ("result", "created")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    result: TournamentOut
    created: bool
    def __init__(self, result: _Optional[_Union[TournamentOut, _Mapping]] = ..., created: _Optional[bool] = ...) -> None: ...

class GetTournamentRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class DeleteTournamentRequest(_message.Message):
    __slots__ = ("tournament_id", "reason")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    reason: str
    def __init__(self, tournament_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class JoinTournamentRequest(_message.Message):
    __slots__ = ("tournament_id", "body")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    body: JoinIn
    def __init__(self, tournament_id: _Optional[str] = ..., body: _Optional[_Union[JoinIn, _Mapping]] = ...) -> None: ...

class SubmitTournamentScoreRequest(_message.Message):
    __slots__ = ("tournament_id", "body")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    body: TournamentScoreIn
    def __init__(self, tournament_id: _Optional[str] = ..., body: _Optional[_Union[TournamentScoreIn, _Mapping]] = ...) -> None: ...

class GetTournamentTopRequest(_message.Message):
    __slots__ = ("tournament_id", "edition", "scope", "limit", "offset")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    EDITION_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    edition: str
    scope: str
    limit: int
    offset: int
    def __init__(self, tournament_id: _Optional[str] = ..., edition: _Optional[str] = ..., scope: _Optional[str] = ..., limit: _Optional[int] = ..., offset: _Optional[int] = ...) -> None: ...

class GetTournamentPlayerRequest(_message.Message):
    __slots__ = ("tournament_id", "edition", "scope", "player_id")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    EDITION_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    edition: str
    scope: str
    player_id: str
    def __init__(self, tournament_id: _Optional[str] = ..., edition: _Optional[str] = ..., scope: _Optional[str] = ..., player_id: _Optional[str] = ...) -> None: ...

class GetTournamentAroundRequest(_message.Message):
    __slots__ = ("tournament_id", "edition", "scope", "player_id", "k")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    EDITION_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    edition: str
    scope: str
    player_id: str
    k: int
    def __init__(self, tournament_id: _Optional[str] = ..., edition: _Optional[str] = ..., scope: _Optional[str] = ..., player_id: _Optional[str] = ..., k: _Optional[int] = ...) -> None: ...

class GetTournamentResultsRequest(_message.Message):
    __slots__ = ("tournament_id", "edition")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    EDITION_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    edition: str
    def __init__(self, tournament_id: _Optional[str] = ..., edition: _Optional[str] = ...) -> None: ...

class RemoveEntryRequest(_message.Message):
    __slots__ = ("board_id", "player_id", "window", "period", "scope", "reason")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    player_id: str
    window: str
    period: str
    scope: str
    reason: str
    def __init__(self, board_id: _Optional[str] = ..., player_id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ResetBoardRequest(_message.Message):
    __slots__ = ("board_id", "body")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    body: ResetIn
    def __init__(self, board_id: _Optional[str] = ..., body: _Optional[_Union[ResetIn, _Mapping]] = ...) -> None: ...

class VoidMatchRequest(_message.Message):
    __slots__ = ("board_id", "match_id", "body")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    match_id: str
    body: VoidIn
    def __init__(self, board_id: _Optional[str] = ..., match_id: _Optional[str] = ..., body: _Optional[_Union[VoidIn, _Mapping]] = ...) -> None: ...

class ListAuditEntriesRequest(_message.Message):
    __slots__ = ("board", "player", "limit", "cursor")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    board: str
    player: str
    limit: int
    cursor: str
    def __init__(self, board: _Optional[str] = ..., player: _Optional[str] = ..., limit: _Optional[int] = ..., cursor: _Optional[str] = ...) -> None: ...

class ListDeadLettersRequest(_message.Message):
    __slots__ = ("board", "limit")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    board: str
    limit: int
    def __init__(self, board: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class GetMeRequest(_message.Message):
    __slots__ = ("board_id", "window", "period", "scope", "after", "metadata")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    window: str
    period: str
    scope: str
    after: str
    metadata: bool
    def __init__(self, board_id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., after: _Optional[str] = ..., metadata: _Optional[bool] = ...) -> None: ...

class GetMeAroundRequest(_message.Message):
    __slots__ = ("board_id", "window", "period", "scope", "after", "metadata", "k")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    window: str
    period: str
    scope: str
    after: str
    metadata: bool
    k: int
    def __init__(self, board_id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., after: _Optional[str] = ..., metadata: _Optional[bool] = ..., k: _Optional[int] = ...) -> None: ...

class GetMeFriendsRequest(_message.Message):
    __slots__ = ("board_id", "window", "period", "scope", "after", "metadata", "k")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    window: str
    period: str
    scope: str
    after: str
    metadata: bool
    k: int
    def __init__(self, board_id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., after: _Optional[str] = ..., metadata: _Optional[bool] = ..., k: _Optional[int] = ...) -> None: ...

class WatchEvent(_message.Message):
    __slots__ = ("top", "player", "error")
    TOP_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    top: TopOut
    player: PlayerOut
    error: Problem
    def __init__(self, top: _Optional[_Union[TopOut, _Mapping]] = ..., player: _Optional[_Union[PlayerOut, _Mapping]] = ..., error: _Optional[_Union[Problem, _Mapping]] = ...) -> None: ...

class Problem(_message.Message):
    __slots__ = ("type", "title", "status", "detail", "errors", "existing", "reason")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    EXISTING_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    type: str
    title: str
    status: int
    detail: str
    errors: _containers.RepeatedCompositeFieldContainer[ProblemError]
    existing: StoredSubmissionOut
    reason: str
    def __init__(self, type: _Optional[str] = ..., title: _Optional[str] = ..., status: _Optional[int] = ..., detail: _Optional[str] = ..., errors: _Optional[_Iterable[_Union[ProblemError, _Mapping]]] = ..., existing: _Optional[_Union[StoredSubmissionOut, _Mapping]] = ..., reason: _Optional[str] = ...) -> None: ...

class ProblemError(_message.Message):
    __slots__ = ("loc", "msg")
    LOC_FIELD_NUMBER: _ClassVar[int]
    MSG_FIELD_NUMBER: _ClassVar[int]
    loc: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Value]
    msg: str
    def __init__(self, loc: _Optional[_Iterable[_Union[_struct_pb2.Value, _Mapping]]] = ..., msg: _Optional[str] = ...) -> None: ...

class StoredSubmissionOut(_message.Message):
    __slots__ = ("board", "player_id", "match_id", "score", "at", "scopes", "metadata")
    class ScopesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    BOARD_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    board: str
    player_id: str
    match_id: str
    score: int
    at: str
    scopes: _containers.ScalarMap[str, str]
    metadata: _struct_pb2.Struct
    def __init__(self, board: _Optional[str] = ..., player_id: _Optional[str] = ..., match_id: _Optional[str] = ..., score: _Optional[int] = ..., at: _Optional[str] = ..., scopes: _Optional[_Mapping[str, str]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class BoardsOut(_message.Message):
    __slots__ = ("boards",)
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    boards: _containers.RepeatedCompositeFieldContainer[BoardSpec]
    def __init__(self, boards: _Optional[_Iterable[_Union[BoardSpec, _Mapping]]] = ...) -> None: ...

class BoardSpec(_message.Message):
    __slots__ = ("id", "title", "order", "policy", "windows", "seasons", "scopes", "retention_days", "grace_seconds", "min_score", "max_score", "status", "rating", "metadata", "shards", "tiers", "dense_rank", "cohort_size", "schedule", "subscore", "timezone", "webhook", "entry_metadata", "snapshots", "client_writes")
    ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    WINDOWS_FIELD_NUMBER: _ClassVar[int]
    SEASONS_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    RETENTION_DAYS_FIELD_NUMBER: _ClassVar[int]
    GRACE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    MIN_SCORE_FIELD_NUMBER: _ClassVar[int]
    MAX_SCORE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SHARDS_FIELD_NUMBER: _ClassVar[int]
    TIERS_FIELD_NUMBER: _ClassVar[int]
    DENSE_RANK_FIELD_NUMBER: _ClassVar[int]
    COHORT_SIZE_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    TIMEZONE_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    ENTRY_METADATA_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOTS_FIELD_NUMBER: _ClassVar[int]
    CLIENT_WRITES_FIELD_NUMBER: _ClassVar[int]
    id: str
    title: str
    order: str
    policy: str
    windows: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Value]
    seasons: _containers.RepeatedCompositeFieldContainer[SeasonSpec]
    scopes: _containers.RepeatedScalarFieldContainer[str]
    retention_days: RetentionDays
    grace_seconds: int
    min_score: int
    max_score: int
    status: str
    rating: _struct_pb2.Struct
    metadata: _struct_pb2.Struct
    shards: int
    tiers: _containers.RepeatedCompositeFieldContainer[TierSpec]
    dense_rank: bool
    cohort_size: int
    schedule: ScheduleSpec
    subscore: str
    timezone: str
    webhook: BoardWebhookSpec
    entry_metadata: bool
    snapshots: SnapshotSpec
    client_writes: ClientWritesSpec
    def __init__(self, id: _Optional[str] = ..., title: _Optional[str] = ..., order: _Optional[str] = ..., policy: _Optional[str] = ..., windows: _Optional[_Iterable[_Union[_struct_pb2.Value, _Mapping]]] = ..., seasons: _Optional[_Iterable[_Union[SeasonSpec, _Mapping]]] = ..., scopes: _Optional[_Iterable[str]] = ..., retention_days: _Optional[_Union[RetentionDays, _Mapping]] = ..., grace_seconds: _Optional[int] = ..., min_score: _Optional[int] = ..., max_score: _Optional[int] = ..., status: _Optional[str] = ..., rating: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., shards: _Optional[int] = ..., tiers: _Optional[_Iterable[_Union[TierSpec, _Mapping]]] = ..., dense_rank: _Optional[bool] = ..., cohort_size: _Optional[int] = ..., schedule: _Optional[_Union[ScheduleSpec, _Mapping]] = ..., subscore: _Optional[str] = ..., timezone: _Optional[str] = ..., webhook: _Optional[_Union[BoardWebhookSpec, _Mapping]] = ..., entry_metadata: _Optional[bool] = ..., snapshots: _Optional[_Union[SnapshotSpec, _Mapping]] = ..., client_writes: _Optional[_Union[ClientWritesSpec, _Mapping]] = ...) -> None: ...

class ClientWritesSpec(_message.Message):
    __slots__ = ("max_per_minute", "max_gain", "validator")
    MAX_PER_MINUTE_FIELD_NUMBER: _ClassVar[int]
    MAX_GAIN_FIELD_NUMBER: _ClassVar[int]
    VALIDATOR_FIELD_NUMBER: _ClassVar[int]
    max_per_minute: int
    max_gain: int
    validator: ValidatorSpec
    def __init__(self, max_per_minute: _Optional[int] = ..., max_gain: _Optional[int] = ..., validator: _Optional[_Union[ValidatorSpec, _Mapping]] = ...) -> None: ...

class ValidatorSpec(_message.Message):
    __slots__ = ("url", "secret", "timeout_ms", "on_error")
    URL_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    ON_ERROR_FIELD_NUMBER: _ClassVar[int]
    url: str
    secret: str
    timeout_ms: int
    on_error: str
    def __init__(self, url: _Optional[str] = ..., secret: _Optional[str] = ..., timeout_ms: _Optional[int] = ..., on_error: _Optional[str] = ...) -> None: ...

class BoardWebhookSpec(_message.Message):
    __slots__ = ("url", "secret", "top")
    URL_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    url: str
    secret: str
    top: int
    def __init__(self, url: _Optional[str] = ..., secret: _Optional[str] = ..., top: _Optional[int] = ...) -> None: ...

class SeasonSpec(_message.Message):
    __slots__ = ("id", "start", "end")
    ID_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    id: str
    start: str
    end: str
    def __init__(self, id: _Optional[str] = ..., start: _Optional[str] = ..., end: _Optional[str] = ...) -> None: ...

class RetentionDays(_message.Message):
    __slots__ = ("daily", "weekly", "monthly", "season")
    DAILY_FIELD_NUMBER: _ClassVar[int]
    WEEKLY_FIELD_NUMBER: _ClassVar[int]
    MONTHLY_FIELD_NUMBER: _ClassVar[int]
    SEASON_FIELD_NUMBER: _ClassVar[int]
    daily: int
    weekly: int
    monthly: int
    season: int
    def __init__(self, daily: _Optional[int] = ..., weekly: _Optional[int] = ..., monthly: _Optional[int] = ..., season: _Optional[int] = ...) -> None: ...

class TierSpec(_message.Message):
    __slots__ = ("name", "top_percent", "top_rank")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOP_PERCENT_FIELD_NUMBER: _ClassVar[int]
    TOP_RANK_FIELD_NUMBER: _ClassVar[int]
    name: str
    top_percent: float
    top_rank: int
    def __init__(self, name: _Optional[str] = ..., top_percent: _Optional[float] = ..., top_rank: _Optional[int] = ...) -> None: ...

class ScheduleSpec(_message.Message):
    __slots__ = ("starts_at", "ends_at", "every_seconds")
    STARTS_AT_FIELD_NUMBER: _ClassVar[int]
    ENDS_AT_FIELD_NUMBER: _ClassVar[int]
    EVERY_SECONDS_FIELD_NUMBER: _ClassVar[int]
    starts_at: str
    ends_at: str
    every_seconds: int
    def __init__(self, starts_at: _Optional[str] = ..., ends_at: _Optional[str] = ..., every_seconds: _Optional[int] = ...) -> None: ...

class ScoreIn(_message.Message):
    __slots__ = ("player_id", "score", "match_id", "at", "scopes", "metadata", "subscore")
    class ScopesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    score: int
    match_id: str
    at: str
    scopes: _containers.ScalarMap[str, str]
    metadata: _struct_pb2.Struct
    subscore: int
    def __init__(self, player_id: _Optional[str] = ..., score: _Optional[int] = ..., match_id: _Optional[str] = ..., at: _Optional[str] = ..., scopes: _Optional[_Mapping[str, str]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., subscore: _Optional[int] = ...) -> None: ...

class SubmitOut(_message.Message):
    __slots__ = ("player_id", "match_id", "applied", "duplicate", "previous_score", "score", "standings", "previous_subscore", "subscore")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_SCORE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    match_id: str
    applied: bool
    duplicate: bool
    previous_score: int
    score: int
    standings: _containers.RepeatedCompositeFieldContainer[StandingOut]
    previous_subscore: int
    subscore: int
    def __init__(self, player_id: _Optional[str] = ..., match_id: _Optional[str] = ..., applied: _Optional[bool] = ..., duplicate: _Optional[bool] = ..., previous_score: _Optional[int] = ..., score: _Optional[int] = ..., standings: _Optional[_Iterable[_Union[StandingOut, _Mapping]]] = ..., previous_subscore: _Optional[int] = ..., subscore: _Optional[int] = ...) -> None: ...

class StandingOut(_message.Message):
    __slots__ = ("window", "period", "scope", "score", "rank", "applied", "reason", "subscore")
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    window: str
    period: str
    scope: str
    score: int
    rank: int
    applied: bool
    reason: str
    subscore: int
    def __init__(self, window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., score: _Optional[int] = ..., rank: _Optional[int] = ..., applied: _Optional[bool] = ..., reason: _Optional[str] = ..., subscore: _Optional[int] = ...) -> None: ...

class AcceptedOut(_message.Message):
    __slots__ = ("accepted", "token", "results")
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    accepted: int
    token: str
    results: _containers.RepeatedCompositeFieldContainer[AcceptedItemOut]
    def __init__(self, accepted: _Optional[int] = ..., token: _Optional[str] = ..., results: _Optional[_Iterable[_Union[AcceptedItemOut, _Mapping]]] = ...) -> None: ...

class AcceptedItemOut(_message.Message):
    __slots__ = ("index", "accepted", "error")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    index: int
    accepted: bool
    error: Problem
    def __init__(self, index: _Optional[int] = ..., accepted: _Optional[bool] = ..., error: _Optional[_Union[Problem, _Mapping]] = ...) -> None: ...

class BatchDoc(_message.Message):
    __slots__ = ("scores",)
    SCORES_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.RepeatedCompositeFieldContainer[BatchScoreIn]
    def __init__(self, scores: _Optional[_Iterable[_Union[BatchScoreIn, _Mapping]]] = ...) -> None: ...

class BatchOut(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[BatchResultOut]
    def __init__(self, results: _Optional[_Iterable[_Union[BatchResultOut, _Mapping]]] = ...) -> None: ...

class BatchResultOut(_message.Message):
    __slots__ = ("index", "player_id", "match_id", "applied", "duplicate", "previous_score", "score", "standings", "error")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_SCORE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    index: int
    player_id: str
    match_id: str
    applied: bool
    duplicate: bool
    previous_score: int
    score: int
    standings: _containers.RepeatedCompositeFieldContainer[StandingOut]
    error: Problem
    def __init__(self, index: _Optional[int] = ..., player_id: _Optional[str] = ..., match_id: _Optional[str] = ..., applied: _Optional[bool] = ..., duplicate: _Optional[bool] = ..., previous_score: _Optional[int] = ..., score: _Optional[int] = ..., standings: _Optional[_Iterable[_Union[StandingOut, _Mapping]]] = ..., error: _Optional[_Union[Problem, _Mapping]] = ...) -> None: ...

class TopOut(_message.Message):
    __slots__ = ("board", "window", "period", "scope", "total", "as_of", "period_ends_at", "closes_at", "degraded", "archived", "tier", "tier_total", "entries", "next", "taken_at")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    PERIOD_ENDS_AT_FIELD_NUMBER: _ClassVar[int]
    CLOSES_AT_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    TIER_TOTAL_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_FIELD_NUMBER: _ClassVar[int]
    TAKEN_AT_FIELD_NUMBER: _ClassVar[int]
    board: str
    window: str
    period: str
    scope: str
    total: int
    as_of: str
    period_ends_at: str
    closes_at: str
    degraded: bool
    archived: bool
    tier: str
    tier_total: int
    entries: _containers.RepeatedCompositeFieldContainer[Entry]
    next: str
    taken_at: str
    def __init__(self, board: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., total: _Optional[int] = ..., as_of: _Optional[str] = ..., period_ends_at: _Optional[str] = ..., closes_at: _Optional[str] = ..., degraded: _Optional[bool] = ..., archived: _Optional[bool] = ..., tier: _Optional[str] = ..., tier_total: _Optional[int] = ..., entries: _Optional[_Iterable[_Union[Entry, _Mapping]]] = ..., next: _Optional[str] = ..., taken_at: _Optional[str] = ...) -> None: ...

class Entry(_message.Message):
    __slots__ = ("rank", "player_id", "score", "achieved_at", "subscore", "display_name", "tier", "dense_rank", "metadata")
    RANK_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    ACHIEVED_AT_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    DENSE_RANK_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    rank: int
    player_id: str
    score: int
    achieved_at: str
    subscore: int
    display_name: str
    tier: str
    dense_rank: int
    metadata: _struct_pb2.Struct
    def __init__(self, rank: _Optional[int] = ..., player_id: _Optional[str] = ..., score: _Optional[int] = ..., achieved_at: _Optional[str] = ..., subscore: _Optional[int] = ..., display_name: _Optional[str] = ..., tier: _Optional[str] = ..., dense_rank: _Optional[int] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class PlayerOut(_message.Message):
    __slots__ = ("board", "window", "period", "scope", "total", "as_of", "period_ends_at", "closes_at", "degraded", "archived", "player_id", "score", "rank", "competition_rank", "percentile", "achieved_at", "subscore", "display_name", "tier", "dense_rank", "previous_rank", "best_rank", "metadata")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    PERIOD_ENDS_AT_FIELD_NUMBER: _ClassVar[int]
    CLOSES_AT_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    COMPETITION_RANK_FIELD_NUMBER: _ClassVar[int]
    PERCENTILE_FIELD_NUMBER: _ClassVar[int]
    ACHIEVED_AT_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    DENSE_RANK_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_RANK_FIELD_NUMBER: _ClassVar[int]
    BEST_RANK_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    board: str
    window: str
    period: str
    scope: str
    total: int
    as_of: str
    period_ends_at: str
    closes_at: str
    degraded: bool
    archived: bool
    player_id: str
    score: int
    rank: int
    competition_rank: int
    percentile: float
    achieved_at: str
    subscore: int
    display_name: str
    tier: str
    dense_rank: int
    previous_rank: int
    best_rank: int
    metadata: _struct_pb2.Struct
    def __init__(self, board: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., total: _Optional[int] = ..., as_of: _Optional[str] = ..., period_ends_at: _Optional[str] = ..., closes_at: _Optional[str] = ..., degraded: _Optional[bool] = ..., archived: _Optional[bool] = ..., player_id: _Optional[str] = ..., score: _Optional[int] = ..., rank: _Optional[int] = ..., competition_rank: _Optional[int] = ..., percentile: _Optional[float] = ..., achieved_at: _Optional[str] = ..., subscore: _Optional[int] = ..., display_name: _Optional[str] = ..., tier: _Optional[str] = ..., dense_rank: _Optional[int] = ..., previous_rank: _Optional[int] = ..., best_rank: _Optional[int] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class AroundOut(_message.Message):
    __slots__ = ("board", "window", "period", "scope", "total", "as_of", "period_ends_at", "closes_at", "degraded", "archived", "player", "entries")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    PERIOD_ENDS_AT_FIELD_NUMBER: _ClassVar[int]
    CLOSES_AT_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    board: str
    window: str
    period: str
    scope: str
    total: int
    as_of: str
    period_ends_at: str
    closes_at: str
    degraded: bool
    archived: bool
    player: PlayerStanding
    entries: _containers.RepeatedCompositeFieldContainer[Entry]
    def __init__(self, board: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., total: _Optional[int] = ..., as_of: _Optional[str] = ..., period_ends_at: _Optional[str] = ..., closes_at: _Optional[str] = ..., degraded: _Optional[bool] = ..., archived: _Optional[bool] = ..., player: _Optional[_Union[PlayerStanding, _Mapping]] = ..., entries: _Optional[_Iterable[_Union[Entry, _Mapping]]] = ...) -> None: ...

class PlayerStanding(_message.Message):
    __slots__ = ("player_id", "score", "rank", "competition_rank", "percentile", "achieved_at", "subscore", "display_name", "tier", "dense_rank", "previous_rank", "best_rank", "metadata")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    COMPETITION_RANK_FIELD_NUMBER: _ClassVar[int]
    PERCENTILE_FIELD_NUMBER: _ClassVar[int]
    ACHIEVED_AT_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    DENSE_RANK_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_RANK_FIELD_NUMBER: _ClassVar[int]
    BEST_RANK_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    score: int
    rank: int
    competition_rank: int
    percentile: float
    achieved_at: str
    subscore: int
    display_name: str
    tier: str
    dense_rank: int
    previous_rank: int
    best_rank: int
    metadata: _struct_pb2.Struct
    def __init__(self, player_id: _Optional[str] = ..., score: _Optional[int] = ..., rank: _Optional[int] = ..., competition_rank: _Optional[int] = ..., percentile: _Optional[float] = ..., achieved_at: _Optional[str] = ..., subscore: _Optional[int] = ..., display_name: _Optional[str] = ..., tier: _Optional[str] = ..., dense_rank: _Optional[int] = ..., previous_rank: _Optional[int] = ..., best_rank: _Optional[int] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class RankOfOut(_message.Message):
    __slots__ = ("board", "window", "period", "scope", "total", "as_of", "period_ends_at", "closes_at", "degraded", "archived", "score", "rank", "competition_rank", "percentile", "tier", "dense_rank", "subscore")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    PERIOD_ENDS_AT_FIELD_NUMBER: _ClassVar[int]
    CLOSES_AT_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    COMPETITION_RANK_FIELD_NUMBER: _ClassVar[int]
    PERCENTILE_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    DENSE_RANK_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    board: str
    window: str
    period: str
    scope: str
    total: int
    as_of: str
    period_ends_at: str
    closes_at: str
    degraded: bool
    archived: bool
    score: int
    rank: int
    competition_rank: int
    percentile: float
    tier: str
    dense_rank: int
    subscore: int
    def __init__(self, board: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., total: _Optional[int] = ..., as_of: _Optional[str] = ..., period_ends_at: _Optional[str] = ..., closes_at: _Optional[str] = ..., degraded: _Optional[bool] = ..., archived: _Optional[bool] = ..., score: _Optional[int] = ..., rank: _Optional[int] = ..., competition_rank: _Optional[int] = ..., percentile: _Optional[float] = ..., tier: _Optional[str] = ..., dense_rank: _Optional[int] = ..., subscore: _Optional[int] = ...) -> None: ...

class FriendsIn(_message.Message):
    __slots__ = ("friends", "k")
    FRIENDS_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    friends: _containers.RepeatedScalarFieldContainer[str]
    k: int
    def __init__(self, friends: _Optional[_Iterable[str]] = ..., k: _Optional[int] = ...) -> None: ...

class FriendsOut(_message.Message):
    __slots__ = ("board", "window", "period", "scope", "total", "as_of", "period_ends_at", "closes_at", "degraded", "archived", "player", "friends_total", "entries")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    PERIOD_ENDS_AT_FIELD_NUMBER: _ClassVar[int]
    CLOSES_AT_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    FRIENDS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    board: str
    window: str
    period: str
    scope: str
    total: int
    as_of: str
    period_ends_at: str
    closes_at: str
    degraded: bool
    archived: bool
    player: FriendPlayer
    friends_total: int
    entries: _containers.RepeatedCompositeFieldContainer[FriendEntry]
    def __init__(self, board: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., total: _Optional[int] = ..., as_of: _Optional[str] = ..., period_ends_at: _Optional[str] = ..., closes_at: _Optional[str] = ..., degraded: _Optional[bool] = ..., archived: _Optional[bool] = ..., player: _Optional[_Union[FriendPlayer, _Mapping]] = ..., friends_total: _Optional[int] = ..., entries: _Optional[_Iterable[_Union[FriendEntry, _Mapping]]] = ...) -> None: ...

class FriendPlayer(_message.Message):
    __slots__ = ("player_id", "score", "rank", "competition_rank", "percentile", "achieved_at", "subscore", "display_name", "tier", "dense_rank", "previous_rank", "best_rank", "friends_rank", "metadata")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    COMPETITION_RANK_FIELD_NUMBER: _ClassVar[int]
    PERCENTILE_FIELD_NUMBER: _ClassVar[int]
    ACHIEVED_AT_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    DENSE_RANK_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_RANK_FIELD_NUMBER: _ClassVar[int]
    BEST_RANK_FIELD_NUMBER: _ClassVar[int]
    FRIENDS_RANK_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    score: int
    rank: int
    competition_rank: int
    percentile: float
    achieved_at: str
    subscore: int
    display_name: str
    tier: str
    dense_rank: int
    previous_rank: int
    best_rank: int
    friends_rank: int
    metadata: _struct_pb2.Struct
    def __init__(self, player_id: _Optional[str] = ..., score: _Optional[int] = ..., rank: _Optional[int] = ..., competition_rank: _Optional[int] = ..., percentile: _Optional[float] = ..., achieved_at: _Optional[str] = ..., subscore: _Optional[int] = ..., display_name: _Optional[str] = ..., tier: _Optional[str] = ..., dense_rank: _Optional[int] = ..., previous_rank: _Optional[int] = ..., best_rank: _Optional[int] = ..., friends_rank: _Optional[int] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class FriendEntry(_message.Message):
    __slots__ = ("rank", "player_id", "score", "achieved_at", "subscore", "display_name", "tier", "dense_rank", "friends_rank", "metadata")
    RANK_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    ACHIEVED_AT_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    DENSE_RANK_FIELD_NUMBER: _ClassVar[int]
    FRIENDS_RANK_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    rank: int
    player_id: str
    score: int
    achieved_at: str
    subscore: int
    display_name: str
    tier: str
    dense_rank: int
    friends_rank: int
    metadata: _struct_pb2.Struct
    def __init__(self, rank: _Optional[int] = ..., player_id: _Optional[str] = ..., score: _Optional[int] = ..., achieved_at: _Optional[str] = ..., subscore: _Optional[int] = ..., display_name: _Optional[str] = ..., tier: _Optional[str] = ..., dense_rank: _Optional[int] = ..., friends_rank: _Optional[int] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class RanksIn(_message.Message):
    __slots__ = ("player_ids",)
    PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
    player_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, player_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class RanksOut(_message.Message):
    __slots__ = ("board", "window", "period", "scope", "total", "as_of", "period_ends_at", "closes_at", "degraded", "archived", "entries")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    PERIOD_ENDS_AT_FIELD_NUMBER: _ClassVar[int]
    CLOSES_AT_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    board: str
    window: str
    period: str
    scope: str
    total: int
    as_of: str
    period_ends_at: str
    closes_at: str
    degraded: bool
    archived: bool
    entries: _containers.RepeatedCompositeFieldContainer[Entry]
    def __init__(self, board: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., total: _Optional[int] = ..., as_of: _Optional[str] = ..., period_ends_at: _Optional[str] = ..., closes_at: _Optional[str] = ..., degraded: _Optional[bool] = ..., archived: _Optional[bool] = ..., entries: _Optional[_Iterable[_Union[Entry, _Mapping]]] = ...) -> None: ...

class PeriodsOut(_message.Message):
    __slots__ = ("board", "as_of", "periods", "degraded", "archived")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    PERIODS_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    board: str
    as_of: str
    periods: _containers.RepeatedCompositeFieldContainer[PeriodOut]
    degraded: bool
    archived: bool
    def __init__(self, board: _Optional[str] = ..., as_of: _Optional[str] = ..., periods: _Optional[_Iterable[_Union[PeriodOut, _Mapping]]] = ..., degraded: _Optional[bool] = ..., archived: _Optional[bool] = ...) -> None: ...

class PeriodOut(_message.Message):
    __slots__ = ("window", "period", "starts_at", "ends_at", "state", "total")
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    STARTS_AT_FIELD_NUMBER: _ClassVar[int]
    ENDS_AT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    window: str
    period: str
    starts_at: str
    ends_at: str
    state: str
    total: int
    def __init__(self, window: _Optional[str] = ..., period: _Optional[str] = ..., starts_at: _Optional[str] = ..., ends_at: _Optional[str] = ..., state: _Optional[str] = ..., total: _Optional[int] = ...) -> None: ...

class ProfileIn(_message.Message):
    __slots__ = ("display_name", "avatar_url", "country", "metadata")
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    AVATAR_URL_FIELD_NUMBER: _ClassVar[int]
    COUNTRY_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    display_name: str
    avatar_url: str
    country: str
    metadata: _struct_pb2.Struct
    def __init__(self, display_name: _Optional[str] = ..., avatar_url: _Optional[str] = ..., country: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ProfileOut(_message.Message):
    __slots__ = ("player_id", "display_name", "avatar_url", "country", "metadata")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    AVATAR_URL_FIELD_NUMBER: _ClassVar[int]
    COUNTRY_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    avatar_url: str
    country: str
    metadata: _struct_pb2.Struct
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., avatar_url: _Optional[str] = ..., country: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class PlayerProfileOut(_message.Message):
    __slots__ = ("player_id", "display_name", "avatar_url", "country", "metadata", "banned", "standings", "degraded")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    AVATAR_URL_FIELD_NUMBER: _ClassVar[int]
    COUNTRY_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    BANNED_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    avatar_url: str
    country: str
    metadata: _struct_pb2.Struct
    banned: bool
    standings: _containers.RepeatedCompositeFieldContainer[ProfileStandingOut]
    degraded: bool
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., avatar_url: _Optional[str] = ..., country: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., banned: _Optional[bool] = ..., standings: _Optional[_Iterable[_Union[ProfileStandingOut, _Mapping]]] = ..., degraded: _Optional[bool] = ...) -> None: ...

class ProfileStandingOut(_message.Message):
    __slots__ = ("board", "window", "period", "scope", "score", "rank", "subscore")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    board: str
    window: str
    period: str
    scope: str
    score: int
    rank: int
    subscore: int
    def __init__(self, board: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., score: _Optional[int] = ..., rank: _Optional[int] = ..., subscore: _Optional[int] = ...) -> None: ...

class HistoryOut(_message.Message):
    __slots__ = ("player_id", "items", "next_cursor")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    items: _containers.RepeatedCompositeFieldContainer[HistoryItemOut]
    next_cursor: str
    def __init__(self, player_id: _Optional[str] = ..., items: _Optional[_Iterable[_Union[HistoryItemOut, _Mapping]]] = ..., next_cursor: _Optional[str] = ...) -> None: ...

class HistoryItemOut(_message.Message):
    __slots__ = ("board", "match_id", "score", "at", "received_at", "applied", "subscore")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_AT_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    board: str
    match_id: str
    score: int
    at: str
    received_at: str
    applied: bool
    subscore: int
    def __init__(self, board: _Optional[str] = ..., match_id: _Optional[str] = ..., score: _Optional[int] = ..., at: _Optional[str] = ..., received_at: _Optional[str] = ..., applied: _Optional[bool] = ..., subscore: _Optional[int] = ...) -> None: ...

class FriendListIn(_message.Message):
    __slots__ = ("friends",)
    FRIENDS_FIELD_NUMBER: _ClassVar[int]
    friends: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, friends: _Optional[_Iterable[str]] = ...) -> None: ...

class FriendListOut(_message.Message):
    __slots__ = ("player_id", "friends")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    FRIENDS_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    friends: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, player_id: _Optional[str] = ..., friends: _Optional[_Iterable[str]] = ...) -> None: ...

class BanOut(_message.Message):
    __slots__ = ("player_id", "banned", "banned_at")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    BANNED_FIELD_NUMBER: _ClassVar[int]
    BANNED_AT_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    banned: bool
    banned_at: str
    def __init__(self, player_id: _Optional[str] = ..., banned: _Optional[bool] = ..., banned_at: _Optional[str] = ...) -> None: ...

class MatchIn(_message.Message):
    __slots__ = ("match_id", "results", "at")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    results: _containers.RepeatedCompositeFieldContainer[MatchResultIn]
    at: str
    def __init__(self, match_id: _Optional[str] = ..., results: _Optional[_Iterable[_Union[MatchResultIn, _Mapping]]] = ..., at: _Optional[str] = ...) -> None: ...

class MatchResultIn(_message.Message):
    __slots__ = ("player_id", "place", "team", "scopes")
    class ScopesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    place: int
    team: str
    scopes: _containers.ScalarMap[str, str]
    def __init__(self, player_id: _Optional[str] = ..., place: _Optional[int] = ..., team: _Optional[str] = ..., scopes: _Optional[_Mapping[str, str]] = ...) -> None: ...

class MatchOut(_message.Message):
    __slots__ = ("board", "match_id", "duplicate", "at", "window", "period", "results")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    board: str
    match_id: str
    duplicate: bool
    at: str
    window: str
    period: str
    results: _containers.RepeatedCompositeFieldContainer[RatingResultOut]
    def __init__(self, board: _Optional[str] = ..., match_id: _Optional[str] = ..., duplicate: _Optional[bool] = ..., at: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., results: _Optional[_Iterable[_Union[RatingResultOut, _Mapping]]] = ...) -> None: ...

class RatingResultOut(_message.Message):
    __slots__ = ("player_id", "place", "team", "previous", "rating", "score", "rank", "provisional")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    place: int
    team: str
    previous: _struct_pb2.Struct
    rating: _struct_pb2.Struct
    score: int
    rank: int
    provisional: bool
    def __init__(self, player_id: _Optional[str] = ..., place: _Optional[int] = ..., team: _Optional[str] = ..., previous: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., rating: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., score: _Optional[int] = ..., rank: _Optional[int] = ..., provisional: _Optional[bool] = ...) -> None: ...

class MatchBatchDoc(_message.Message):
    __slots__ = ("matches",)
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[MatchBatchItemIn]
    def __init__(self, matches: _Optional[_Iterable[_Union[MatchBatchItemIn, _Mapping]]] = ...) -> None: ...

class MatchBatchOut(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[MatchBatchResultOut]
    def __init__(self, results: _Optional[_Iterable[_Union[MatchBatchResultOut, _Mapping]]] = ...) -> None: ...

class PlayerRatingOut(_message.Message):
    __slots__ = ("board", "window", "period", "scope", "player_id", "rating", "score", "rank", "provisional", "games")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    board: str
    window: str
    period: str
    scope: str
    player_id: str
    rating: _struct_pb2.Struct
    score: int
    rank: int
    provisional: bool
    games: int
    def __init__(self, board: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., player_id: _Optional[str] = ..., rating: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., score: _Optional[int] = ..., rank: _Optional[int] = ..., provisional: _Optional[bool] = ..., games: _Optional[int] = ...) -> None: ...

class TournamentsOut(_message.Message):
    __slots__ = ("tournaments",)
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    tournaments: _containers.RepeatedCompositeFieldContainer[TournamentOut]
    def __init__(self, tournaments: _Optional[_Iterable[_Union[TournamentOut, _Mapping]]] = ...) -> None: ...

class TournamentOut(_message.Message):
    __slots__ = ("starts_at", "ends_at", "id", "title", "order", "policy", "tiers", "subscore", "grace_seconds", "recurrence", "every_seconds", "max_size", "join_required", "max_submissions", "cohort_size", "rewards", "webhook", "metadata", "edition")
    STARTS_AT_FIELD_NUMBER: _ClassVar[int]
    ENDS_AT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    TIERS_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    GRACE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    RECURRENCE_FIELD_NUMBER: _ClassVar[int]
    EVERY_SECONDS_FIELD_NUMBER: _ClassVar[int]
    MAX_SIZE_FIELD_NUMBER: _ClassVar[int]
    JOIN_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    MAX_SUBMISSIONS_FIELD_NUMBER: _ClassVar[int]
    COHORT_SIZE_FIELD_NUMBER: _ClassVar[int]
    REWARDS_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    EDITION_FIELD_NUMBER: _ClassVar[int]
    starts_at: str
    ends_at: str
    id: str
    title: str
    order: str
    policy: str
    tiers: _containers.RepeatedCompositeFieldContainer[TierSpec]
    subscore: str
    grace_seconds: int
    recurrence: str
    every_seconds: int
    max_size: int
    join_required: bool
    max_submissions: int
    cohort_size: int
    rewards: _containers.RepeatedCompositeFieldContainer[RewardSpec]
    webhook: WebhookSpec
    metadata: _struct_pb2.Struct
    edition: EditionOut
    def __init__(self, starts_at: _Optional[str] = ..., ends_at: _Optional[str] = ..., id: _Optional[str] = ..., title: _Optional[str] = ..., order: _Optional[str] = ..., policy: _Optional[str] = ..., tiers: _Optional[_Iterable[_Union[TierSpec, _Mapping]]] = ..., subscore: _Optional[str] = ..., grace_seconds: _Optional[int] = ..., recurrence: _Optional[str] = ..., every_seconds: _Optional[int] = ..., max_size: _Optional[int] = ..., join_required: _Optional[bool] = ..., max_submissions: _Optional[int] = ..., cohort_size: _Optional[int] = ..., rewards: _Optional[_Iterable[_Union[RewardSpec, _Mapping]]] = ..., webhook: _Optional[_Union[WebhookSpec, _Mapping]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., edition: _Optional[_Union[EditionOut, _Mapping]] = ...) -> None: ...

class RewardSpec(_message.Message):
    __slots__ = ("reward", "ranks", "top_percent")
    REWARD_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    TOP_PERCENT_FIELD_NUMBER: _ClassVar[int]
    reward: _struct_pb2.Struct
    ranks: _containers.RepeatedScalarFieldContainer[int]
    top_percent: float
    def __init__(self, reward: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., ranks: _Optional[_Iterable[int]] = ..., top_percent: _Optional[float] = ...) -> None: ...

class WebhookSpec(_message.Message):
    __slots__ = ("url", "secret")
    URL_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    url: str
    secret: str
    def __init__(self, url: _Optional[str] = ..., secret: _Optional[str] = ...) -> None: ...

class EditionOut(_message.Message):
    __slots__ = ("edition", "starts_at", "ends_at", "closes_at", "state", "players")
    EDITION_FIELD_NUMBER: _ClassVar[int]
    STARTS_AT_FIELD_NUMBER: _ClassVar[int]
    ENDS_AT_FIELD_NUMBER: _ClassVar[int]
    CLOSES_AT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    edition: str
    starts_at: str
    ends_at: str
    closes_at: str
    state: str
    players: int
    def __init__(self, edition: _Optional[str] = ..., starts_at: _Optional[str] = ..., ends_at: _Optional[str] = ..., closes_at: _Optional[str] = ..., state: _Optional[str] = ..., players: _Optional[int] = ...) -> None: ...

class TournamentSpec(_message.Message):
    __slots__ = ("starts_at", "ends_at", "id", "title", "order", "policy", "tiers", "subscore", "grace_seconds", "recurrence", "every_seconds", "max_size", "join_required", "max_submissions", "cohort_size", "rewards", "webhook", "metadata")
    STARTS_AT_FIELD_NUMBER: _ClassVar[int]
    ENDS_AT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    TIERS_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    GRACE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    RECURRENCE_FIELD_NUMBER: _ClassVar[int]
    EVERY_SECONDS_FIELD_NUMBER: _ClassVar[int]
    MAX_SIZE_FIELD_NUMBER: _ClassVar[int]
    JOIN_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    MAX_SUBMISSIONS_FIELD_NUMBER: _ClassVar[int]
    COHORT_SIZE_FIELD_NUMBER: _ClassVar[int]
    REWARDS_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    starts_at: str
    ends_at: str
    id: str
    title: str
    order: str
    policy: str
    tiers: _containers.RepeatedCompositeFieldContainer[TierSpec]
    subscore: str
    grace_seconds: int
    recurrence: str
    every_seconds: int
    max_size: int
    join_required: bool
    max_submissions: int
    cohort_size: int
    rewards: _containers.RepeatedCompositeFieldContainer[RewardSpec]
    webhook: WebhookSpec
    metadata: _struct_pb2.Struct
    def __init__(self, starts_at: _Optional[str] = ..., ends_at: _Optional[str] = ..., id: _Optional[str] = ..., title: _Optional[str] = ..., order: _Optional[str] = ..., policy: _Optional[str] = ..., tiers: _Optional[_Iterable[_Union[TierSpec, _Mapping]]] = ..., subscore: _Optional[str] = ..., grace_seconds: _Optional[int] = ..., recurrence: _Optional[str] = ..., every_seconds: _Optional[int] = ..., max_size: _Optional[int] = ..., join_required: _Optional[bool] = ..., max_submissions: _Optional[int] = ..., cohort_size: _Optional[int] = ..., rewards: _Optional[_Iterable[_Union[RewardSpec, _Mapping]]] = ..., webhook: _Optional[_Union[WebhookSpec, _Mapping]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class JoinIn(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class JoinOut(_message.Message):
    __slots__ = ("tournament", "edition", "player_id", "joined", "players", "max_size")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    EDITION_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    JOINED_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MAX_SIZE_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    edition: str
    player_id: str
    joined: bool
    players: int
    max_size: int
    def __init__(self, tournament: _Optional[str] = ..., edition: _Optional[str] = ..., player_id: _Optional[str] = ..., joined: _Optional[bool] = ..., players: _Optional[int] = ..., max_size: _Optional[int] = ...) -> None: ...

class TournamentScoreIn(_message.Message):
    __slots__ = ("player_id", "score", "match_id", "at", "metadata", "subscore")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    score: int
    match_id: str
    at: str
    metadata: _struct_pb2.Struct
    subscore: int
    def __init__(self, player_id: _Optional[str] = ..., score: _Optional[int] = ..., match_id: _Optional[str] = ..., at: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., subscore: _Optional[int] = ...) -> None: ...

class ResultsOut(_message.Message):
    __slots__ = ("id", "tournament", "edition", "starts_at", "ends_at", "total", "results")
    ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    EDITION_FIELD_NUMBER: _ClassVar[int]
    STARTS_AT_FIELD_NUMBER: _ClassVar[int]
    ENDS_AT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    id: str
    tournament: str
    edition: str
    starts_at: str
    ends_at: str
    total: int
    results: _containers.RepeatedCompositeFieldContainer[ResultOut]
    def __init__(self, id: _Optional[str] = ..., tournament: _Optional[str] = ..., edition: _Optional[str] = ..., starts_at: _Optional[str] = ..., ends_at: _Optional[str] = ..., total: _Optional[int] = ..., results: _Optional[_Iterable[_Union[ResultOut, _Mapping]]] = ...) -> None: ...

class ResultOut(_message.Message):
    __slots__ = ("rank", "player_id", "score", "subscore", "reward")
    RANK_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    rank: int
    player_id: str
    score: int
    subscore: int
    reward: _struct_pb2.Struct
    def __init__(self, rank: _Optional[int] = ..., player_id: _Optional[str] = ..., score: _Optional[int] = ..., subscore: _Optional[int] = ..., reward: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class BatchScoreIn(_message.Message):
    __slots__ = ("board", "player_id", "score", "match_id", "at", "scopes", "metadata", "subscore")
    class ScopesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    BOARD_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SUBSCORE_FIELD_NUMBER: _ClassVar[int]
    board: str
    player_id: str
    score: int
    match_id: str
    at: str
    scopes: _containers.ScalarMap[str, str]
    metadata: _struct_pb2.Struct
    subscore: int
    def __init__(self, board: _Optional[str] = ..., player_id: _Optional[str] = ..., score: _Optional[int] = ..., match_id: _Optional[str] = ..., at: _Optional[str] = ..., scopes: _Optional[_Mapping[str, str]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., subscore: _Optional[int] = ...) -> None: ...

class MatchBatchItemIn(_message.Message):
    __slots__ = ("board", "match_id", "results", "at")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    board: str
    match_id: str
    results: _containers.RepeatedCompositeFieldContainer[MatchResultIn]
    at: str
    def __init__(self, board: _Optional[str] = ..., match_id: _Optional[str] = ..., results: _Optional[_Iterable[_Union[MatchResultIn, _Mapping]]] = ..., at: _Optional[str] = ...) -> None: ...

class MatchBatchResultOut(_message.Message):
    __slots__ = ("index", "board", "match_id", "duplicate", "at", "window", "period", "results", "error")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    index: int
    board: str
    match_id: str
    duplicate: bool
    at: str
    window: str
    period: str
    results: _containers.RepeatedCompositeFieldContainer[RatingResultOut]
    error: Problem
    def __init__(self, index: _Optional[int] = ..., board: _Optional[str] = ..., match_id: _Optional[str] = ..., duplicate: _Optional[bool] = ..., at: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., results: _Optional[_Iterable[_Union[RatingResultOut, _Mapping]]] = ..., error: _Optional[_Union[Problem, _Mapping]] = ...) -> None: ...

class DeliveriesOut(_message.Message):
    __slots__ = ("board", "deliveries")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    DELIVERIES_FIELD_NUMBER: _ClassVar[int]
    board: str
    deliveries: _containers.RepeatedCompositeFieldContainer[DeliveryOut]
    def __init__(self, board: _Optional[str] = ..., deliveries: _Optional[_Iterable[_Union[DeliveryOut, _Mapping]]] = ...) -> None: ...

class DeliveryOut(_message.Message):
    __slots__ = ("id", "window", "period", "scope", "state", "attempts", "created_at", "delivered_at", "next_attempt_at", "last_error")
    ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    DELIVERED_AT_FIELD_NUMBER: _ClassVar[int]
    NEXT_ATTEMPT_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    id: str
    window: str
    period: str
    scope: str
    state: str
    attempts: int
    created_at: str
    delivered_at: str
    next_attempt_at: str
    last_error: str
    def __init__(self, id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., state: _Optional[str] = ..., attempts: _Optional[int] = ..., created_at: _Optional[str] = ..., delivered_at: _Optional[str] = ..., next_attempt_at: _Optional[str] = ..., last_error: _Optional[str] = ...) -> None: ...

class ListSnapshotsRequest(_message.Message):
    __slots__ = ("board_id", "window", "period", "scope", "limit", "before")
    BOARD_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    board_id: str
    window: str
    period: str
    scope: str
    limit: int
    before: str
    def __init__(self, board_id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., limit: _Optional[int] = ..., before: _Optional[str] = ...) -> None: ...

class SnapshotSpec(_message.Message):
    __slots__ = ("every_seconds", "k", "keep_days")
    EVERY_SECONDS_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    KEEP_DAYS_FIELD_NUMBER: _ClassVar[int]
    every_seconds: int
    k: int
    keep_days: int
    def __init__(self, every_seconds: _Optional[int] = ..., k: _Optional[int] = ..., keep_days: _Optional[int] = ...) -> None: ...

class SnapshotOut(_message.Message):
    __slots__ = ("taken_at", "total", "entries")
    TAKEN_AT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    taken_at: str
    total: int
    entries: int
    def __init__(self, taken_at: _Optional[str] = ..., total: _Optional[int] = ..., entries: _Optional[int] = ...) -> None: ...

class SnapshotsOut(_message.Message):
    __slots__ = ("board", "window", "period", "scope", "snapshots")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOTS_FIELD_NUMBER: _ClassVar[int]
    board: str
    window: str
    period: str
    scope: str
    snapshots: _containers.RepeatedCompositeFieldContainer[SnapshotOut]
    def __init__(self, board: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., snapshots: _Optional[_Iterable[_Union[SnapshotOut, _Mapping]]] = ...) -> None: ...

class ResetIn(_message.Message):
    __slots__ = ("window", "scope", "reason")
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    window: str
    scope: str
    reason: str
    def __init__(self, window: _Optional[str] = ..., scope: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class RemovedOut(_message.Message):
    __slots__ = ("board", "player_id", "window", "period", "scope", "removed")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    board: str
    player_id: str
    window: str
    period: str
    scope: str
    removed: int
    def __init__(self, board: _Optional[str] = ..., player_id: _Optional[str] = ..., window: _Optional[str] = ..., period: _Optional[str] = ..., scope: _Optional[str] = ..., removed: _Optional[int] = ...) -> None: ...

class VoidIn(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class VoidedOut(_message.Message):
    __slots__ = ("board", "match_id", "players")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    board: str
    match_id: str
    players: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, board: _Optional[str] = ..., match_id: _Optional[str] = ..., players: _Optional[_Iterable[str]] = ...) -> None: ...

class AuditOut(_message.Message):
    __slots__ = ("items", "next")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    NEXT_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[AuditItemOut]
    next: str
    def __init__(self, items: _Optional[_Iterable[_Union[AuditItemOut, _Mapping]]] = ..., next: _Optional[str] = ...) -> None: ...

class AuditItemOut(_message.Message):
    __slots__ = ("id", "at", "actor", "action", "board", "player_id", "match_id", "reason", "detail")
    ID_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    id: str
    at: str
    actor: str
    action: str
    board: str
    player_id: str
    match_id: str
    reason: str
    detail: _struct_pb2.Struct
    def __init__(self, id: _Optional[str] = ..., at: _Optional[str] = ..., actor: _Optional[str] = ..., action: _Optional[str] = ..., board: _Optional[str] = ..., player_id: _Optional[str] = ..., match_id: _Optional[str] = ..., reason: _Optional[str] = ..., detail: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class DeadLettersOut(_message.Message):
    __slots__ = ("total", "items")
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    total: int
    items: _containers.RepeatedCompositeFieldContainer[DeadLetterOut]
    def __init__(self, total: _Optional[int] = ..., items: _Optional[_Iterable[_Union[DeadLetterOut, _Mapping]]] = ...) -> None: ...

class DeadLetterOut(_message.Message):
    __slots__ = ("id", "failed_at", "board", "player_id", "match_id", "reason", "submission")
    ID_FIELD_NUMBER: _ClassVar[int]
    FAILED_AT_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SUBMISSION_FIELD_NUMBER: _ClassVar[int]
    id: str
    failed_at: str
    board: str
    player_id: str
    match_id: str
    reason: str
    submission: _struct_pb2.Struct
    def __init__(self, id: _Optional[str] = ..., failed_at: _Optional[str] = ..., board: _Optional[str] = ..., player_id: _Optional[str] = ..., match_id: _Optional[str] = ..., reason: _Optional[str] = ..., submission: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...
