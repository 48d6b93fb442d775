"""Applying matches to rating boards, in the board's one serial order.

Matches reach this module only from the ingestion log's applier (``rankline.writing.ingest``), which
owns a partition alone and hands its records over in log order; so every match of a board is
applied in one order, the same in every process, after a restart and in a replay. Each step
is one SQL transaction: the matches (numbered 1, 2, … per board), each player's rating before
and after, the new rating states and the leaderboard scores (the displayed rating, rounded)
commit together, and only then does the ranking index take the changes. A match already
stored (the step ran before a crash, and runs again) is skipped by its ``match_id``: applied
exactly once. A second payload under a stored ``match_id`` is not applied (the edge answers
409).

    applier = MatchApplier(store, gateway, clock, commit_lock, feed=feed, ready=lambda: True)
    await applier.apply([(board, payload), ...])    # in log order
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from rankline.boards import Board, BoardSpec
from rankline.errors import IndexUnavailable, Unavailable, WriteConflict
from rankline.fanout import FanOut
from rankline.index.base import IndexWriter
from rankline.log.base import LogRecord
from rankline.ordering import encode
from rankline.rating import RatingState, RatingSystem, score_of, system_of
from rankline.store.errors import mapped_errors
from rankline.store.ratings import RatingRow, RatingRows, StateKey, StoredMatch
from rankline.store.sql import SqlStore
from rankline.types import (
    GLOBAL_SCOPE,
    Clock,
    IndexChange,
    LeaderboardId,
    Micros,
    PlayerId,
    revision_of,
)

log = logging.getLogger("rankline.ratings.rated")
_RETRIES = 5
MATCH_KEY = "match"
"""The middle part of a match record's log key (``board/match/digest``), which tells a match
record from a score record in a partition."""


class MatchPlayer(msgspec.Struct, array_like=True, frozen=True):
    player: str
    place: int
    team: str | None = None
    scopes: dict[str, str] = msgspec.field(default_factory=dict)


class MatchPayload(msgspec.Struct, array_like=True, frozen=True):
    """A match as the log keeps it (its board is the record's)."""

    match_id: str
    at: int
    received_at: int
    at_given: bool
    results: list[MatchPlayer]


_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder(MatchPayload).decode
_json = msgspec.json.Encoder()
_state_of = msgspec.json.Decoder(RatingState).decode


def digest_of(match: MatchPayload) -> str:
    """What a retry repeats: ``at`` only when the client gave it."""
    identity = _json.encode([match.match_id, match.at if match.at_given else None, match.results])
    return hashlib.sha256(identity).hexdigest()[:40]


def match_record(board: str, match: MatchPayload) -> LogRecord:
    return LogRecord(board, f"{board}/{MATCH_KEY}/{digest_of(match)}", _encode(match))


def is_match_record(record: LogRecord) -> bool:
    return record.key.split("/", 2)[1:2] == [MATCH_KEY]


def decode_match(record: LogRecord) -> MatchPayload:
    return _decode(record.payload)


def state_text(state: RatingState) -> str:
    return _json.encode(state).decode()


def parse_state(text: str) -> RatingState:
    return _state_of(text)


@dataclass(slots=True)
class _Step:
    """One board's share of a step: its states as they evolve, what to write."""

    board: Board
    system: RatingSystem
    stored: dict[StateKey, str]
    states: dict[StateKey, RatingState] = field(default_factory=dict)
    changed: set[StateKey] = field(default_factory=set)
    matches: list[StoredMatch] = field(default_factory=list)
    ratings: list[RatingRow] = field(default_factory=list)
    entries: dict[tuple[LeaderboardId, PlayerId], tuple[int, Micros] | None] = field(
        default_factory=dict
    )
    """Each touched standing's new (score, achieved_at), or None for a provisional player."""
    periods: dict[tuple[str, str, str], tuple[Micros | None, Micros | None]] = field(
        default_factory=dict
    )

    texts: dict[StateKey, str] = field(default_factory=dict)
    """Each state of ``states`` as JSON (encoded once: the next match's "previous")."""

    def state(self, key: StateKey) -> RatingState:
        found = self.states.get(key)
        if found is None:
            text = self.stored.get(key)
            found = self.system.initial() if text is None else parse_state(text)
            self.states[key] = found
            self.texts[key] = state_text(found) if text is None else text
        return found

    def put(self, key: StateKey, state: RatingState) -> tuple[str, str]:
        """Keep ``state`` as the key's new one; its (previous, new) JSON."""
        previous = self.texts[key]
        new = self.texts[key] = state_text(state)
        self.states[key] = state
        self.changed.add(key)
        return previous, new


@dataclass(slots=True)
class _Plan:
    definition: str
    """The board's definition (JSON text) the step was rated under."""
    step: _Step | None


def _by_board(items: Sequence[tuple[Board, MatchPayload]]) -> dict[str, list[MatchPayload]]:
    by_board: dict[str, list[MatchPayload]] = {}
    for board, match in items:
        by_board.setdefault(board.id, []).append(match)
    return by_board


def _rating_board(definition: str | None) -> Board | None:
    """The board a stored definition describes, when it takes matches now."""
    if definition is None:
        return None
    board = Board(msgspec.json.decode(definition, type=BoardSpec))
    if board.frozen or board.policy != "rating" or board.spec.rating is None:
        return None
    return board


def rate_match(
    system: RatingSystem, states: Sequence[RatingState], match: MatchPayload
) -> list[RatingState]:
    """The players' states after ``match`` (the one computation a replay repeats)."""
    places = [p.place for p in match.results]
    teams = [p.team for p in match.results]
    return system.rate(states, places, teams, match.at)


MatchKey = tuple[str, str]
"""A match's board and ``match_id``."""


class Handoff:
    """What the applier rated, handed to the requests of this process that wait for it.

    A request waiting for its matches to be rated registers them (``want``); once the step
    that rated them has committed, the applier leaves each one's digest and rating changes on
    the board's primary window here (``deliver``), so the request answers without reading
    back what was just written. Only what is waited for is kept, until released; a match
    rated elsewhere (another process, a step before a restart) is read from SQL as before.
    """

    def __init__(self) -> None:
        self._wanted: dict[MatchKey, int] = {}
        self._ready: dict[MatchKey, tuple[str, list[RatingRow]]] = {}

    def want(self, keys: Sequence[MatchKey]) -> None:
        for key in keys:
            self._wanted[key] = self._wanted.get(key, 0) + 1

    def release(self, keys: Sequence[MatchKey]) -> None:
        for key in keys:
            left = self._wanted.get(key, 0) - 1
            if left > 0:
                self._wanted[key] = left
            else:
                self._wanted.pop(key, None)
                self._ready.pop(key, None)

    def found(self, keys: Sequence[MatchKey]) -> dict[MatchKey, tuple[str, list[RatingRow]]]:
        return {key: self._ready[key] for key in keys if key in self._ready}

    def deliver(self, step: _Step) -> None:
        board = step.board
        wanted = [m for m in step.matches if (board.id, m.match_id) in self._wanted]
        if not wanted:
            return
        rows: dict[str, list[RatingRow]] = {m.match_id: [] for m in wanted}
        window = board.primary_window
        for row in step.ratings:
            if row.window == window and row.match_id in rows:
                rows[row.match_id].append(row)
        for m in wanted:
            self._ready[board.id, m.match_id] = (m.digest, rows[m.match_id])


class MatchApplier:
    """Applies matches of rating boards, a step (a run of log records) per transaction."""

    def __init__(
        self,
        store: SqlStore,
        index: IndexWriter,
        clock: Clock,
        commit_lock: asyncio.Lock,
        *,
        ready: Callable[[], bool],
        feed: Any = None,
        handoff: Handoff | None = None,
    ) -> None:
        self._store = store
        self._index = index
        self._clock = clock
        self._lock = commit_lock
        self._ready = ready
        """Whether the index is built (the writer runs): the index must not take changes
        before it is."""
        self._feed = feed
        self._handoff = handoff or Handoff()
        self._fanout = FanOut()
        self.applied = 0

    async def apply(self, items: Sequence[tuple[Board, MatchPayload]]) -> None:
        """Apply the matches in the order given; ``Unavailable`` when the store or index
        cannot take them now (nothing of the step is kept; it runs again)."""
        if not items:
            return
        if not self._ready():
            raise IndexUnavailable("the ranking index is being built; matches wait")
        async with self._lock:
            for attempt in range(_RETRIES):
                try:
                    planned = await self._plan(items)
                    steps: list[_Step] = []
                    async with self._store.transaction() as tx:
                        changes = await self._step(tx, items, planned, steps)
                    break
                except WriteConflict:
                    if attempt == _RETRIES - 1:
                        raise Unavailable("too many concurrent writers; retry") from None
                    await asyncio.sleep(0.005 * (attempt + 1))
            for step in steps:
                self._handoff.deliver(step)
            await self._index.apply(changes)
            if self._feed is not None and changes:
                self._feed.publish({change.leaderboard for change in changes})

    async def _plan(self, items: Sequence[tuple[Board, MatchPayload]]) -> dict[str, _Plan]:
        """Each board's step, rated before the write transaction from what a read
        connection shows, so that the transaction only writes: on SQLite it holds the
        store's one writer, which the log's appends wait for. Nothing else changes a
        board's ratings meanwhile: its partition's applier alone rates its matches, under
        the commit lock. The transaction reads each board's definition again (share-locked)
        and rates anew a board that changed since."""
        by_board = _by_board(items)
        now = self._clock.now()
        planned: dict[str, _Plan] = {}
        async with mapped_errors(), self._store.engine.connect() as conn:
            rows = RatingRows(conn)
            definitions = await rows.definitions(list(by_board))
            for board_id, matches in by_board.items():
                text = definitions.get(board_id)
                board = _rating_board(text)
                if text is not None and board is not None:
                    planned[board_id] = _Plan(text, await self._rated(rows, board, matches, now))
        return planned

    async def _step(
        self,
        tx: Any,
        items: Sequence[tuple[Board, MatchPayload]],
        planned: dict[str, _Plan],
        steps: list[_Step],
    ) -> list[IndexChange]:
        """Write each board's step (in ``steps``); the index changes they make."""
        rows = RatingRows(tx.conn)
        by_board = _by_board(items)
        definitions = await tx.board_definitions(list(by_board))
        now = self._clock.now()
        changes: list[IndexChange] = []
        for board_id, matches in by_board.items():
            text = definitions.get(board_id)
            board = _rating_board(text)
            if board is None:
                continue  # deleted or frozen meanwhile: its matches go nowhere
            plan = planned.get(board_id)
            if plan is not None and plan.definition == text:
                step = plan.step
            else:
                step = await self._rated(rows, board, matches, now)
            if step is not None:
                changes += await self._write(tx, rows, step)
                steps.append(step)
        return changes

    async def _rated(
        self, rows: RatingRows, board: Board, matches: list[MatchPayload], now: Micros
    ) -> _Step | None:
        """The board's step: its matches not stored yet, rated in order (None: none)."""
        assert board.spec.rating is not None
        system = system_of(board.spec.rating)
        existing = await rows.matches(board.id, [m.match_id for m in matches])
        fresh: list[tuple[MatchPayload, list[list[Any]]]] = []
        seen: set[str] = set(existing)
        wanted: set[StateKey] = set()
        for match in matches:
            if match.match_id in seen:
                continue  # applied before (a step run again), or a reused key: never twice
            seen.add(match.match_id)
            targets = [self._fanout.targets(board, match.at, p.scopes, now) for p in match.results]
            fresh.append((match, targets))
            for p, player_targets in zip(match.results, targets, strict=True):
                for target in player_targets:
                    lb = target.leaderboard
                    if not target.closed and lb.scope == GLOBAL_SCOPE:
                        wanted.add((lb.window, lb.period, p.player))
        if not fresh:
            return None
        step = _Step(board, system, await rows.states(board.id, sorted(wanted)))
        seq = await rows.last_seq(board.id)
        for match, targets in fresh:
            if self._rate(step, match, targets, seq + 1):
                seq += 1
        return step

    def _rate(self, step: _Step, match: MatchPayload, targets: list[list[Any]], seq: int) -> bool:
        """Rate one match into ``step``; False (and nothing changed) when it cannot be rated:
        a match that makes its system fail is logged and left out, never retried forever
        (which would hold up every later record of its partition)."""
        system = step.system
        periods: dict[tuple[str, str], None] = {}
        for player_targets in targets:
            for target in player_targets:
                if not target.closed:
                    periods[target.leaderboard.window, target.leaderboard.period] = None
        players = [p.player for p in match.results]
        rated = []
        try:
            for window, period in periods:
                keys = [(window, period, player) for player in players]
                after = rate_match(system, [step.state(key) for key in keys], match)
                rated.append((window, period, keys, after))
        except Exception:
            log.exception("match %r of board %r could not be rated", match.match_id, step.board.id)
            return False
        for player_targets in targets:
            for target in player_targets:
                lb = target.leaderboard
                if not target.closed:
                    bounds = (target.period.starts_at, target.period.ends_at)
                    step.periods[lb.board, lb.window, lb.period] = bounds
        for window, period, keys, after in rated:
            for key, new, p in zip(keys, after, match.results, strict=True):
                previous, text = step.put(key, new)
                provisional = system.provisional(new)
                step.ratings.append(
                    RatingRow(
                        step.board.id,
                        match.match_id,
                        p.player,
                        window,
                        period,
                        seq,
                        match.at,
                        p.place,
                        previous,
                        text,
                        provisional,
                    )
                )
        for p, player_targets in zip(match.results, targets, strict=True):
            for target in player_targets:
                lb = target.leaderboard
                if target.closed:
                    continue
                new = step.states[lb.window, lb.period, p.player]
                step.entries[lb, p.player] = (
                    None if system.provisional(new) else (score_of(new), match.at)
                )
        step.matches.append(
            StoredMatch(
                seq,
                match.match_id,
                digest_of(match),
                match.at,
                match.received_at,
                _json.encode(match.results).decode(),
            )
        )
        return True

    async def _write(self, tx: Any, rows: RatingRows, step: _Step) -> list[IndexChange]:
        inserted = {k: step.texts[k] for k in step.changed if k not in step.stored}
        updated = {k: step.texts[k] for k in step.changed if k in step.stored}
        await rows.write(step.board.id, step.matches, step.ratings, inserted, updated)
        await tx.add_periods([(*key, *bounds) for key, bounds in sorted(step.periods.items())])
        stored = await tx.read_standings(list(step.entries))
        writes = []
        removed = []
        for key in sorted(step.entries):
            entry, before = step.entries[key], stored.get(key)
            if entry is None:
                if before is not None:
                    removed.append(key)
                continue
            revision = 1 if before is None else revision_of(before) + 1
            (leaderboard, player), (score, achieved) = key, entry
            writes.append((leaderboard, player, score, achieved, revision, None))  # no subscore
        await tx.write_standings(writes)
        await rows.remove_standings(removed)
        self.applied += len(step.matches)
        banned = await tx.banned_players(sorted({player for _, player in step.entries}))
        order = step.board.order
        changes = [
            IndexChange(lb, player, encode(score, at, player, order), revision)
            for lb, player, score, at, revision, _ in writes
            if player not in banned
        ]
        changes += [IndexChange(lb, player, None, 0) for lb, player in removed]
        return changes


__all__ = [
    "MATCH_KEY",
    "Handoff",
    "MatchApplier",
    "MatchPayload",
    "MatchPlayer",
    "decode_match",
    "digest_of",
    "is_match_record",
    "match_record",
    "parse_state",
    "rate_match",
    "state_text",
]
