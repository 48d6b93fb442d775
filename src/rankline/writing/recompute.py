"""One board's standings of some players recomputed from their score events, as
``rankline replay`` would rebuild them: a voided match's events left out, the removals made by
hand taken off at the point of the log they were made (``rankline.moderation.entries`` voids a
match with it).

Unlike the whole replay, the closing of a period is decided at each event's ``received_at``
alone: once an earlier event is voided, a later event's recorded ``applied`` no longer tells
whether its commit came after a close. The recomputed ``applied`` of each event whose flag
changes is returned, for the void to record, so a later replay agrees.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from rankline.boards import Board
from rankline.fanout import FanOut
from rankline.store.moderation import player_events, recorded_removals
from rankline.store.sql import SqlStore
from rankline.types import LeaderboardId, MatchId, PlayerId, StandingRow
from rankline.writing.replay import event_outcome

_unjson = msgspec.json.Decoder(dict[str, str])


@dataclass
class Recomputed:
    rows: list[StandingRow] = field(default_factory=list)
    """The players' standings on the board, in key order."""
    applied: dict[int, bool] = field(default_factory=dict)
    """Event id -> its recomputed ``applied``, where that differs from the recorded one."""
    last_event: int = 0
    """The newest of the players' events read: the void checks none came after it."""


async def recompute_players(
    store: SqlStore, board: Board, players: Sequence[PlayerId], voided: set[MatchId]
) -> Recomputed:
    """The standings of ``players`` on ``board`` from their events, ``voided`` matches left
    out."""
    wanted = set(players)
    removals = deque(
        r
        for r in await recorded_removals(store, [board.id])
        if r.player is None or r.player in wanted
    )
    state: dict[tuple[LeaderboardId, PlayerId], list[Any]] = {}
    result = Recomputed()
    fanout = FanOut()

    def take_off(before: int) -> None:
        while removals and removals[0].after_event < before:
            removal = removals.popleft()
            for key in [k for k in state if removal.matches(*k)]:
                del state[key]

    for row in await player_events(store, board.id, players):
        event_id: int = row[0]
        player: PlayerId = row[2]
        score, at, received_at, applied = row[3], row[4], row[5], bool(row[6])
        take_off(event_id)
        result.last_event = event_id
        if row[9] in voided:
            continue
        scopes = {} if row[7] == "{}" else _unjson.decode(row[7])
        targets = fanout.targets(board, at, scopes, received_at)
        outcome = event_outcome(board, player, (score, row[8]), at, targets, state)
        if outcome is None:
            continue
        changes, primary = outcome
        if primary != applied:
            result.applied[event_id] = primary
        for target, entry in changes:
            key = (target.leaderboard, player)
            held = state.get(key)
            revision = 1 if held is None else held[2] + 1
            state[key] = [entry.score, entry.achieved_at, revision, entry.subscore]
    take_off(1 << 63)
    for lb, p in sorted(state):
        score, at, revision, subscore = state[lb, p]
        result.rows.append((lb, p, score, at, revision, subscore))
    return result
