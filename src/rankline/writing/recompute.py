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

import msgspec

from rankline.boards import Board, Target
from rankline.fanout import FanOut
from rankline.policies import StandingScore
from rankline.store.moderation import Removal, recorded_removals
from rankline.store.replay import LoggedEvent, player_events
from rankline.store.sql import SqlStore
from rankline.types import MatchId, Micros, PlayerId, StandingRow
from rankline.writing.replay import HeldStanding, Standings, as_committed, event_outcome

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

    def before(row: LoggedEvent, targets: list[Target], state: Standings) -> _Changes | None:
        done = as_committed(board, row, targets, state)
        if done is None:
            return None
        commits[row.id] = done.now
        return done.changes

    _replayed(board, events, removals, voided, fanout, lambda row: row.received_at, before)
    result = Recomputed()

    def after(row: LoggedEvent, targets: list[Target], state: Standings) -> _Changes | None:
        outcome = event_outcome(
            board, row.player_id, (row.score, row.subscore), row.at, targets, state
        )
        if outcome is None:
            return None
        changes, primary = outcome
        if primary != bool(row.applied):
            result.applied[row.id] = primary
        return changes

    state = _replayed(
        board,
        events,
        removals,
        voided | {void},
        fanout,
        lambda row: commits.get(row.id, row.received_at),
        after,
    )
    result.last_event = events[-1].id if events else 0
    for lb, p in sorted(state):
        kept = state[lb, p]
        result.rows.append((lb, p, kept.score, kept.achieved_at, kept.revision, kept.subscore))
    return result


_Changes = list[tuple[Target, StandingScore]]


def _replayed(
    board: Board,
    events: list[LoggedEvent],
    removals: list[Removal],
    voided: set[MatchId],
    fanout: FanOut,
    committed_at: Callable[[LoggedEvent], Micros],
    apply: Callable[[LoggedEvent, list[Target], Standings], _Changes | None],
) -> Standings:
    """The standings ``events`` leave (``voided`` matches left out, ``removals`` taken off
    where they were made), each event's entries as ``apply`` finds them on its targets as of
    ``committed_at(event)``."""
    pending = deque(removals)
    state: Standings = {}

    def take_off(before: int) -> None:
        while pending and pending[0].after_event < before:
            removal = pending.popleft()
            for key in [k for k in state if removal.matches(*k)]:
                del state[key]

    for row in events:
        take_off(row.id)
        if row.match_id in voided:
            continue
        scopes = {} if row.scopes == "{}" else _unjson.decode(row.scopes)
        targets = fanout.targets(board, row.at, scopes, committed_at(row))
        found = apply(row, targets, state)
        if found is None:
            continue
        for target, entry in found:
            key = (target.leaderboard, row.player_id)
            held = state.get(key)
            revision = 1 if held is None else held.revision + 1
            state[key] = HeldStanding(entry.score, entry.achieved_at, revision, entry.subscore)
    take_off(1 << 63)
    return state
