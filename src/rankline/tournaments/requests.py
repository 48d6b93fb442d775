"""What a tournament's operations take: the bodies of a join and of a score (``JoinIn``,
``TournamentScoreIn``), and the reads' path and query, declared once
(``rankline.parameters``). A tournament ranks on the board of its id (window ``season``, one
period per edition), so each read is a board read's request (``read``)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from rankline.boards import BOARD_ID_PATTERN, Score64
from rankline.bodies import MatchIdStr, PlayerIdStr
from rankline.parameters import PATH, Limit, PlayerIdPath
from rankline.reading.requests import AroundRequest, K, Offset, PlayerRequest, TopRequest
from rankline.tournaments.competition import TOURNAMENT_WINDOW

TournamentIdPath = Annotated[
    str,
    Meta(
        pattern=BOARD_ID_PATTERN,
        description="The tournament id (also the id of the board it ranks on).",
        extra=PATH,
    ),
]


class JoinIn(msgspec.Struct, forbid_unknown_fields=True):
    player_id: PlayerIdStr


class TournamentScoreIn(msgspec.Struct, forbid_unknown_fields=True):
    """One score submission to a tournament (as on a board, without scopes)."""

    player_id: PlayerIdStr
    score: Score64
    match_id: MatchIdStr
    at: str | None = None
    metadata: dict[str, Any] | None = None
    subscore: Score64 | None = None
    """Required when the tournament has a subscore, refused otherwise."""


Edition = Annotated[str, Meta(description="The edition (1, 2, ...); default the current one.")]
CohortScope = Annotated[
    str,
    Meta(description="global (default), or cohort: the player's cohort, or cohort:<k>."),
]


class TournamentTopRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/tournaments/{tournament_id}/top`` (its page is checked first)."""

    limit: Limit = 100
    offset: Offset = 0
    tournament_id: TournamentIdPath
    edition: Edition | None = None
    scope: CohortScope | None = None

    def read(self) -> TopRequest:
        return TopRequest(
            board_id=self.tournament_id,
            window=TOURNAMENT_WINDOW,
            period=self.edition,
            scope=self.scope,
            limit=self.limit,
            offset=self.offset,
        )


class TournamentPlayerRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/tournaments/{tournament_id}/players/{player_id}``."""

    player_id: PlayerIdPath
    tournament_id: TournamentIdPath
    edition: Edition | None = None
    scope: CohortScope | None = None

    def read(self) -> PlayerRequest:
        return PlayerRequest(
            player_id=self.player_id,
            board_id=self.tournament_id,
            window=TOURNAMENT_WINDOW,
            period=self.edition,
            scope=self.scope,
        )


class TournamentAroundRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/tournaments/{tournament_id}/players/{player_id}/around``."""

    player_id: PlayerIdPath
    tournament_id: TournamentIdPath
    edition: Edition | None = None
    scope: CohortScope | None = None
    k: K = 5

    def read(self) -> AroundRequest:
        return AroundRequest(
            player_id=self.player_id,
            board_id=self.tournament_id,
            window=TOURNAMENT_WINDOW,
            period=self.edition,
            scope=self.scope,
            k=self.k,
        )


class ResultsRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/tournaments/{tournament_id}/results``."""

    tournament_id: TournamentIdPath
    edition: Annotated[str, Meta(description="The edition; default the last ended.")] | None = None
