"""Disaster recovery: rebuild the SQL standings from the score events alone.

``rl_score_events`` holds every accepted submission once, in arrival order (id ascending);
the standings are a projection of it. ``replay`` empties the standings of the boards it
replays (in batches), reads their events in id order a chunk at a time, fans each out to its
leaderboards as the writer did when the submission was written (``FanOut``: windows, the
periods containing ``at``, scopes) and applies the board's policy (``policies.combine``) in
order. The standings it holds are written in key order, in bulk, at the end, or earlier
whenever ``max_held`` of them are held (later events then read theirs back from SQL first).

What the original write did is reproduced, not what a write now would do:

- A period is closed for an event when it was closed at the event's ``received_at`` (the
  writer decided it at its commit, a few milliseconds later). When the event's ``applied``
  flag says its primary leaderboard did not change although the replay finds the policy
  would have changed it there, the commit came after that period closed: the event is
  replayed as of that close, so every period that closed by then is closed for it too.
- Each standing's revision is 1 at its first change and grows by one with every change,
  as the writer's do: with the whole log, the revisions are those the original writes left.
- The board definitions are the stored ones; events are not checked against them again
  (a score accepted before ``min_score`` changed stays). Rating boards take no score events:
  they are not replayed.

Entries removed by hand and periods reset (``rl_removals``) are taken off again at the
point of the log they were made, and the events of voided matches (``rl_voids``) are left
out, so a replay ends where the moderated standings were.

Banned players' events are replayed and their standings written, as the writer does (reads
and the index leave them out). Erased players have no events left, hence no standings.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import msgspec

from rankline.boards import Board, Target
from rankline.errors import InvalidInput
from rankline.fanout import FanOut
from rankline.policies import StandingScore, combine
from rankline.settings import Settings
from rankline.store.definitions import stored_boards
from rankline.store.moderation import (
    Removal,
    delete_removed,
    recorded_removals,
    voided_pairs,
)
from rankline.store.opening import open_store
from rankline.store.replay import (
    LoggedEvent,
    PeriodBounds,
    PeriodKey,
    add_missing_periods,
    count_standings,
    empty_standings,
    event_range,
    events_after,
)
from rankline.store.sql import SqlStore
from rankline.types import GLOBAL_SCOPE, BoardId, LeaderboardId, Micros, PlayerId, StandingRow

Progress = Callable[[int, int], None]
"""Called with (events read, events to read)."""

EVENT_CHUNK = 10_000
"""Events read per query (keyset pages on the primary key)."""
WRITE_CHUNK = 50_000
"""Standings written per transaction."""
DELETE_CHUNK = 5_000
"""Standings deleted per transaction when a board's standings are emptied."""
MAX_HELD = 1_000_000
"""Standings held in memory before they are written (about 300 bytes each)."""

_StandingKey = tuple[LeaderboardId, PlayerId]
_unjson = msgspec.json.Decoder(dict[str, str])
_Planned = tuple[Board, LoggedEvent, list[Target]]


@dataclass
class ReplayReport:
    boards: list[BoardId] = field(default_factory=list)
    """The boards replayed."""
    skipped_boards: list[BoardId] = field(default_factory=list)
    """Rating boards, which take no score events."""
    events: int = 0
    """Events read and replayed."""
    removed: int = 0
    """Standings removed before the replay."""
    standings: int = 0
    """Standings written."""
    leaderboards: int = 0
    """Leaderboards holding the standings written."""
    periods_added: int = 0
    """Periods recorded that ``rl_periods`` was missing."""
    late_closes: int = 0
    """Events whose period had closed by the time their write committed (see above)."""
    unexplained: int = 0
    """Events whose recorded ``applied`` the replay could not reproduce: the board's
    definition (its grace, its seasons) changed since, or the log is incomplete."""
    orphans: int = 0
    """Events of boards that no longer exist (left alone)."""
    removals: int = 0
    """Removals made by hand (entries removed, periods reset) taken off again."""
    voided: int = 0
    """Events of voided matches (left out)."""


@dataclass(slots=True)
class HeldStanding:
    """A standing as a replay builds it."""

    score: int
    achieved_at: Micros
    revision: int
    subscore: int | None


Standings = dict[_StandingKey, HeldStanding]
"""The standings a replay holds, by (leaderboard, player)."""


class _Held:
    """The standings being built, and which of them are in SQL already (written by an
    earlier flush)."""

    def __init__(self) -> None:
        self.rows: Standings = {}
        self.stored: set[_StandingKey] = set()
        self.flushed = False
        """Whether any standing was written: until then, every standing starts anew."""


async def replay(
    store: SqlStore,
    board_ids: Sequence[BoardId] | None = None,
    *,
    progress: Progress | None = None,
    max_held: int = MAX_HELD,
    event_chunk: int = EVENT_CHUNK,
) -> ReplayReport:
    """Rebuild the standings of the boards named (default: every board) from their score
    events. ``NotFound`` names a board that does not exist. Nothing else may write these
    boards meanwhile (stop the servers): the standings are emptied first."""
    boards = await stored_boards(store, board_ids)
    report = ReplayReport()
    replayed: dict[BoardId, Board] = {}
    for board in boards.values():
        if board.policy == "rating":
            report.skipped_boards.append(board.id)
        else:
            replayed[board.id] = board
            report.boards.append(board.id)
    if not replayed:
        return report
    wanted = None if board_ids is None else sorted(replayed)
    last_id, total = await event_range(store, wanted)
    for board_id in sorted(replayed):
        report.removed += await empty_standings(store, board_id, DELETE_CHUNK)
    held = _Held()
    leaderboards: set[LeaderboardId] = set()
    periods: dict[PeriodKey, PeriodBounds] = {}
    fanout = FanOut()
    pending = deque(await recorded_removals(store, sorted(replayed)))
    voided = await voided_pairs(store, sorted(replayed))
    after = 0
    if progress is not None:
        progress(0, total)
    while after < last_id:
        chunk = await events_after(store, wanted, after, last_id, event_chunk)
        if not chunk:
            break
        after = chunk[-1].id
        planned: list[_Planned] = []
        for row in chunk:
            on = replayed.get(row.board_id)
            if on is None:
                report.orphans += board_ids is None
                continue
            if (row.board_id, row.match_id) in voided:
                report.voided += 1
                continue
            targets = fanout.targets(on, row.at, _scopes(row.scopes), row.received_at)
            planned.append((on, row, targets))
        if held.flushed:
            await _read_back(store, held, planned)
        for i, (board, row, targets) in enumerate(planned):
            if pending and pending[0].after_event < row.id:
                await _take_off(store, held, pending, row.id, planned[i:], report)
            for target in _apply(board, row, targets, held, report):
                lb = target.leaderboard
                if lb not in leaderboards:
                    leaderboards.add(lb)
                    key = (lb.board, lb.window, lb.period)
                    periods.setdefault(key, (target.period.starts_at, target.period.ends_at))
        report.events += len(chunk)
        if len(held.rows) >= max_held:
            await _flush(store, held)
        if progress is not None:
            progress(report.events, total)
    if pending:
        await _take_off(store, held, pending, last_id + 1, [], report)
    await _flush(store, held)
    report.standings = await count_standings(store, sorted(replayed))
    report.leaderboards = len(leaderboards)
    report.periods_added = await add_missing_periods(store, periods)
    return report


async def replay_store(
    settings: Settings,
    board_ids: Sequence[BoardId] | None = None,
    *,
    progress: Progress | None = None,
) -> ReplayReport:
    """``rankline replay``: ``replay`` on the durable store the settings name (the embedded
    SQLite is migrated first, as ``serve`` does)."""
    async with open_store(settings) as store:
        return await replay(store, board_ids, progress=progress)


def _scopes(text: str) -> dict[str, str]:
    return {} if text == "{}" else _unjson.decode(text)


def _apply(
    board: Board, row: LoggedEvent, targets: list[Target], held: _Held, report: ReplayReport
) -> list[Target]:
    """Replay one event on its targets, as ``writer._evaluate`` did at its commit; the
    targets it changed."""
    player = row.player_id
    state = held.rows
    done = as_committed(board, row, targets, state)
    if done is None:
        report.unexplained += 1
        return []
    report.late_closes += done.late
    report.unexplained += not done.explained
    for target, entry in done.changes:
        key = (target.leaderboard, player)
        current = state.get(key)
        if current is None:
            state[key] = HeldStanding(entry.score, entry.achieved_at, 1, entry.subscore)
        else:
            current.score, current.achieved_at = entry.score, entry.achieved_at
            current.revision += 1
            current.subscore = entry.subscore
    return [target for target, _ in done.changes]


class Committed(NamedTuple):
    """One event as its write committed: the entries it set on its targets, and when the
    commit is taken to have been (see the module: its ``received_at``, or the close its
    recorded ``applied`` says had passed by then)."""

    changes: list[tuple[Target, StandingScore]]
    now: Micros
    late: bool
    """Replayed as of a close after its ``received_at``."""
    explained: bool
    """Whether the recorded ``applied`` is what the replay finds."""


def as_committed(
    board: Board, row: LoggedEvent, targets: list[Target], state: Standings
) -> Committed | None:
    """Event ``row`` on its ``targets`` as of its ``received_at``,
    given the standings held, corrected to the close that explains a recorded
    ``applied`` of False; None if the policy refuses it (as the writer would have)."""
    player, at, received_at, applied = row.player_id, row.at, row.received_at, bool(row.applied)
    value = (row.score, row.subscore)
    outcome = _outcome(board, player, value, at, targets, state)
    if outcome is None:
        return None
    changes, primary_applied = outcome
    if primary_applied and not applied:
        # The commit came after the primary's period closed: replay it as of that close.
        closes = _deciding_close(board, targets, changes)
        if closes is not None and closes > received_at:
            targets = board.targets(at, _scopes(row.scopes), closes)
            late = _outcome(board, player, value, at, targets, state)
            if late is not None and not late[1]:
                return Committed(late[0], closes, late=True, explained=True)
        return Committed(changes, received_at, late=False, explained=False)
    return Committed(changes, received_at, late=False, explained=primary_applied or not applied)


def _outcome(
    board: Board,
    player: PlayerId,
    value: tuple[int, int | None],
    at: Micros,
    targets: list[Target],
    state: Standings,
) -> tuple[list[tuple[Target, StandingScore]], bool] | None:
    """The entries the event sets on its targets, and whether the writer recorded it as
    applied (its primary leaderboard changed; without one, any); None if the policy refuses
    it (a sum leaving the 64-bit range, which the writer never stored)."""
    changes: list[tuple[Target, StandingScore]] = []
    primary: bool | None = None
    window = board.primary_window
    for target in targets:
        changed = False
        if not target.closed:
            held = state.get((target.leaderboard, player))
            current = (
                None if held is None else StandingScore(held.score, held.achieved_at, held.subscore)
            )
            try:
                score, subscore = value
                new = combine(
                    board.policy, board.order, current, score, at, subscore, board.sub_order
                )
            except InvalidInput:
                return None
            if new is not None:
                changes.append((target, new))
                changed = True
        lb = target.leaderboard
        if lb.window == window and lb.scope == GLOBAL_SCOPE:
            primary = changed
    return changes, bool(changes) if primary is None else primary


event_outcome = _outcome
"""What one event sets on its targets given the standings held (``rankline.writing.recompute``
replays one player's events with it)."""


def _deciding_close(
    board: Board, targets: list[Target], changes: list[tuple[Target, StandingScore]]
) -> Micros | None:
    """When the leaderboards that made the event count as applied closed: the primary's
    period (or, without a primary, the last of the changed ones); None for one that never
    closes."""
    window = board.primary_window
    primary = [
        t for t in targets if t.leaderboard.window == window and t.leaderboard.scope == GLOBAL_SCOPE
    ]
    deciding = primary or [target for target, _ in changes]
    closes = [t.period.closes_at(board.grace_seconds) for t in deciding]
    if not closes or any(c is None for c in closes):
        return None
    return max(c for c in closes if c is not None)


async def _read_back(store: SqlStore, held: _Held, planned: list[_Planned]) -> None:
    """After a flush: load from SQL the standings this chunk touches that are not held."""
    wanted = {
        (target.leaderboard, row.player_id)
        for _, row, targets in planned
        for target in targets
        if (target.leaderboard, row.player_id) not in held.rows
    }
    if not wanted:
        return
    async with store.transaction() as tx:
        found = await tx.read_standings(sorted(wanted))
    for key, (_, _, score, at, revision, subscore) in found.items():
        held.rows[key] = HeldStanding(score, at, revision, subscore)
        held.stored.add(key)


async def _take_off(
    store: SqlStore,
    held: _Held,
    pending: deque[Removal],
    before: int,
    rest: list[_Planned],
    report: ReplayReport,
) -> None:
    """Take off the entries of the removals made before the event ``before``, as they were
    when it was made; ``rest``, the events of the chunk still to replay, are read back
    again if standings had to be written first."""
    while pending and pending[0].after_event < before:
        removal = pending.popleft()
        report.removals += 1
        if held.flushed:
            await _flush(store, held)
            await delete_removed(store, removal)
            await _read_back(store, held, rest)
        else:
            for key in [k for k in held.rows if removal.matches(*k)]:
                del held.rows[key]


async def _flush(store: SqlStore, held: _Held) -> None:
    """Write every held standing in key order (insert the new, overwrite those written by
    an earlier flush) and let go of them."""
    keys = sorted(held.rows)
    for start in range(0, len(keys), WRITE_CHUNK):
        part = keys[start : start + WRITE_CHUNK]
        rows: list[StandingRow] = []
        old: list[StandingRow] = []
        for key in part:
            kept = held.rows[key]
            row = (*key, kept.score, kept.achieved_at, kept.revision, kept.subscore)
            (old if key in held.stored else rows).append(row)
        async with store.transaction() as tx:
            await tx.insert_standings(rows)
            await tx.set_standings(old)
    held.rows.clear()
    held.stored.clear()
    held.flushed = held.flushed or bool(keys)


__all__ = ["MAX_HELD", "ReplayReport", "replay"]
