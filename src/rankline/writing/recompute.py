"""One board's standings of some players recomputed from their score events, as
``rankline replay`` would rebuild them: a voided match's events left out, the removals made by
hand taken off at the point of the log they were made (``rankline.moderation.entries`` voids a
match with it).

Each event lands where its write put it: on the leaderboards of the periods containing its
``at`` (``Board.targets``, the board's calendar), each closed or open as it was when the
write committed, by the rule the replay uses (``replay.as_committed``: its ``received_at``, or
the close after which its recorded ``applied`` says it committed). That flag tells only
against the standings it was recorded with, so the players' events are read twice: once
with the matches voided before (where every flag holds), to learn when each write committed,
then without the match voided now, each event as of that commit. The recomputed ``applied``
of each event whose flag changes is returned, for the void to record, so a later replay
agrees.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from rankline.boards import Board, Target
from rankline.fanout import FanOut
from rankline.policies import Entry
from rankline.store.moderation import Removal, player_events, recorded_removals
from rankline.store.sql import SqlStore
from rankline.types import LeaderboardId, MatchId, Micros, PlayerId, StandingRow
from rankline.writing.replay import as_committed, event_outcome

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
    store: SqlStore,
    board: Board,
    players: Sequence[PlayerId],
    voided: set[MatchId],
    void: MatchId,
) -> Recomputed:
    """The standings of ``players`` on ``board`` from their events, the matches ``voided``
    before and ``void`` left out."""
    wanted = set(players)
    removals = [
        r
        for r in await recorded_removals(store, [board.id])
        if r.player is None or r.player in wanted
    ]
    events = await player_events(store, board.id, players)
    fanout = FanOut()
    commits: dict[int, Micros] = {}

    def before(row: Any, targets: list[Target], state: _State) -> _Changes | None:
        done = as_committed(board, row, targets, state)
        if done is None:
            return None
        commits[row[0]] = done.now
        return done.changes

    _replayed(board, events, removals, voided, fanout, lambda row: row[5], before)
    result = Recomputed()

    def after(row: Any, targets: list[Target], state: _State) -> _Changes | None:
        outcome = event_outcome(board, row[2], (row[3], row[8]), row[4], targets, state)
        if outcome is None:
            return None
        changes, primary = outcome
        if primary != bool(row[6]):
            result.applied[row[0]] = primary
        return changes

    state = _replayed(
        board,
        events,
        removals,
        voided | {void},
        fanout,
        lambda row: commits.get(row[0], row[5]),
        after,
    )
    result.last_event = events[-1][0] if events else 0
    for lb, p in sorted(state):
        score, at, revision, subscore = state[lb, p]
        result.rows.append((lb, p, score, at, revision, subscore))
    return result


_State = dict[tuple[LeaderboardId, PlayerId], list[Any]]
_Changes = list[tuple[Target, Entry]]


def _replayed(
    board: Board,
    events: list[Any],
    removals: list[Removal],
    voided: set[MatchId],
    fanout: FanOut,
    committed_at: Callable[[Any], Micros],
    apply: Callable[[Any, list[Target], _State], _Changes | None],
) -> _State:
    """The standings ``events`` leave (``voided`` matches left out, ``removals`` taken off
    where they were made), each event's entries as ``apply`` finds them on its targets as of
    ``committed_at(event)``."""
    pending = deque(removals)
    state: _State = {}

    def take_off(before: int) -> None:
        while pending and pending[0].after_event < before:
            removal = pending.popleft()
            for key in [k for k in state if removal.matches(*k)]:
                del state[key]

    for row in events:
        take_off(row[0])
        if row[9] in voided:
            continue
        scopes = {} if row[7] == "{}" else _unjson.decode(row[7])
        targets = fanout.targets(board, row[4], scopes, committed_at(row))
        found = apply(row, targets, state)
        if found is None:
            continue
        for target, entry in found:
            key = (target.leaderboard, row[2])
            held = state.get(key)
            revision = 1 if held is None else held[2] + 1
            state[key] = [entry.score, entry.achieved_at, revision, entry.subscore]
    take_off(1 << 63)
    return state
