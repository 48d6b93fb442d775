"""The store's side of an export (``rankline.reading.export``): a leaderboard's standings a
page at a time in player order, and the submission that set each."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from sqlalchemy import ColumnElement, and_, func, select, tuple_

from rankline.store import schema as t
from rankline.store.errors import mapped_errors
from rankline.store.sql import SqlStore, unbanned
from rankline.types import LeaderboardId, MatchId, Micros, PlayerId, Score

_s, _e = t.standings, t.score_events


class ExportedStanding(NamedTuple):
    """A standing as an export writes it."""

    player_id: PlayerId
    score: Score
    achieved_at: Micros
    subscore: Score | None


class SettingEvent(NamedTuple):
    """The submission that set a standing (the player's score event at its ``achieved_at``)."""

    match_id: MatchId
    score: Score
    subscore: Score | None
    scopes: str
    """As stored: a JSON object."""
    metadata: str
    """As stored: a JSON object."""


def _where(leaderboard: LeaderboardId) -> ColumnElement[bool]:
    return and_(
        _s.c.board_id == leaderboard.board,
        _s.c.window == leaderboard.window,
        _s.c.period == leaderboard.period,
        _s.c.scope == leaderboard.scope,
        unbanned(_s.c.player_id),
    )


async def count_exported(store: SqlStore, leaderboard: LeaderboardId) -> int:
    """How many standings an export of the leaderboard writes (banned players left out)."""
    query = select(func.count()).select_from(_s).where(_where(leaderboard))
    async with mapped_errors(), store.engine.connect() as conn:
        return int((await conn.execute(query)).scalar_one())


async def exported_after(
    store: SqlStore, leaderboard: LeaderboardId, after: PlayerId, limit: int
) -> list[ExportedStanding]:
    """The next ``limit`` standings of the leaderboard after player ``after``, in player
    order (banned players left out)."""
    query = (
        select(_s.c.player_id, _s.c.score, _s.c.achieved_at, _s.c.subscore)
        .where(_where(leaderboard), _s.c.player_id > after)
        .order_by(_s.c.player_id)
        .limit(limit)
    )
    make = ExportedStanding._make
    async with mapped_errors(), store.engine.connect() as conn:
        return [make(row) for row in await conn.execute(query)]


async def setting_events(
    store: SqlStore, leaderboard: LeaderboardId, standings: Sequence[ExportedStanding]
) -> dict[tuple[PlayerId, Micros], SettingEvent]:
    """The newest score event on the leaderboard's board of each (player, achieved_at) of
    ``standings``."""
    wanted = [(standing.player_id, standing.achieved_at) for standing in standings]
    query = (
        select(
            _e.c.player_id,
            _e.c.at,
            _e.c.match_id,
            _e.c.score,
            _e.c.subscore,
            _e.c.scopes,
            _e.c.metadata,
        )
        .where(_e.c.board_id == leaderboard.board, tuple_(_e.c.player_id, _e.c.at).in_(wanted))
        .order_by(_e.c.id)
    )
    found: dict[tuple[PlayerId, Micros], SettingEvent] = {}
    async with mapped_errors(), store.engine.connect() as conn:
        for player, at, *event in await conn.execute(query):
            found[player, at] = SettingEvent(*event)
    return found
