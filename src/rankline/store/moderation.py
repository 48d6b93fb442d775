"""Entries taken off by hand, in SQL: the standings deleted and the removal recorded
(``rl_removals``) with its audit entry, in one transaction (``rankline.moderation.entries``
does the rest: the index, the archive; ``rankline.writing.replay`` takes the recorded
removals off again at the same point of the log)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, delete, func, insert, select, true, update
from sqlalchemy.ext.asyncio import AsyncConnection

from rankline.errors import Conflict, NotFound, WriteConflict
from rankline.store import schema as t
from rankline.store.audit import AuditEntry, add_audit
from rankline.store.errors import mapped_errors
from rankline.store.ratings import RatingRows, Rerated
from rankline.store.sql import SqlStore
from rankline.store.tournaments import restart_counts, uncount_match
from rankline.types import BoardId, LeaderboardId, MatchId, Micros, PlayerId, StandingRow

_s, _r = t.standings, t.removals


@dataclass(frozen=True, slots=True)
class Removal:
    """What a removal takes off: on ``board``, the entries of ``player`` (every player when
    None: a reset), on the leaderboards the window, period and scope name (None: any)."""

    board: BoardId
    player: PlayerId | None = None
    window: str | None = None
    period: str | None = None
    scope: str | None = None
    after_event: int = 0
    """The newest score event of the board when the removal was made."""
    at: Micros = 0

    def matches(self, leaderboard: LeaderboardId, player: PlayerId) -> bool:
        return (
            leaderboard.board == self.board
            and (self.player is None or player == self.player)
            and (self.window is None or leaderboard.window == self.window)
            and (self.period is None or leaderboard.period == self.period)
            and (self.scope is None or leaderboard.scope == self.scope)
        )


def _where(removal: Removal) -> ColumnElement[bool]:
    conditions: list[ColumnElement[bool]] = [_s.c.board_id == removal.board]
    for column, value in (
        (_s.c.player_id, removal.player),
        (_s.c.window, removal.window),
        (_s.c.period, removal.period),
        (_s.c.scope, removal.scope),
    ):
        if value is not None:
            conditions.append(column == value)
    return and_(true(), *conditions)


async def remove_entries(
    store: SqlStore, removal: Removal, audit: Callable[[int], AuditEntry]
) -> list[tuple[LeaderboardId, PlayerId]]:
    """Delete the standings ``removal`` names, record it and ``audit(count removed)``, all
    in one transaction; the (leaderboard, player) pairs removed. ``NotFound`` (and nothing
    recorded) when a player's removal finds no entry. A reset of a whole period (every
    player and scope) restarts the submission counts of a tournament's edition too."""
    async with store.transaction() as tx:
        conn = tx.conn
        newest = await conn.execute(
            select(func.max(t.score_events.c.id)).where(t.score_events.c.board_id == removal.board)
        )
        after = int(newest.scalar_one() or 0)
        found = await conn.execute(
            select(_s.c.window, _s.c.period, _s.c.scope, _s.c.player_id).where(_where(removal))
        )
        removed = [
            (LeaderboardId(removal.board, w, p, s), player) for w, p, s, player in found.all()
        ]
        if not removed and removal.player is not None:
            raise NotFound(f"player {removal.player!r} has no entry there on {removal.board!r}")
        await conn.execute(delete(_s).where(_where(removal)))
        if removal.player is None and removal.scope is None and removal.period is not None:
            await restart_counts(conn, removal.board, removal.period)  # a tournament's edition
        await conn.execute(
            insert(_r),
            [
                {
                    "board_id": removal.board,
                    "player_id": removal.player,
                    "window": removal.window,
                    "period": removal.period,
                    "scope": removal.scope,
                    "after_event": after,
                    "at": removal.at,
                }
            ],
        )
        await add_audit(conn, audit(len(removed)))
    return sorted(removed)


async def recorded_removals(store: SqlStore, boards: Sequence[BoardId]) -> list[Removal]:
    """The removals recorded on these boards, in the order they were made."""
    if not boards:
        return []
    query = (
        select(
            _r.c.board_id,
            _r.c.player_id,
            _r.c.window,
            _r.c.period,
            _r.c.scope,
            _r.c.after_event,
            _r.c.at,
        )
        .where(_r.c.board_id.in_(list(boards)))
        .order_by(_r.c.after_event, _r.c.id)
    )
    async with mapped_errors(), store.engine.connect() as conn:
        return [Removal(*row) for row in await conn.execute(query)]


async def delete_removed(store: SqlStore, removal: Removal) -> int:
    """Delete the standings ``removal`` names (a replay's, after a flush)."""
    async with mapped_errors(), store.engine.begin() as conn:
        result = await conn.execute(delete(_s).where(_where(removal)))
        return int(result.rowcount)


async def match_players(store: SqlStore, board: BoardId, match_id: MatchId) -> list[PlayerId]:
    """The players with a score event under ``match_id`` on ``board``."""
    e = t.score_events
    query = select(e.c.player_id).where(e.c.board_id == board, e.c.match_id == match_id)
    async with mapped_errors(), store.engine.connect() as conn:
        return sorted(row[0] for row in await conn.execute(query))


async def voided_matches(store: SqlStore, board: BoardId) -> set[MatchId]:
    v = t.voids
    async with mapped_errors(), store.engine.connect() as conn:
        rows = await conn.execute(select(v.c.match_id).where(v.c.board_id == board))
        return {row[0] for row in rows}


async def voided_pairs(store: SqlStore, boards: Sequence[BoardId]) -> set[tuple[BoardId, MatchId]]:
    """The (board, match id) of every match voided on these boards."""
    if not boards:
        return set()
    v = t.voids
    query = select(v.c.board_id, v.c.match_id).where(v.c.board_id.in_(list(boards)))
    async with mapped_errors(), store.engine.connect() as conn:
        return {(row[0], row[1]) for row in await conn.execute(query)}


async def player_standings(
    store: SqlStore, board: BoardId, players: Sequence[PlayerId]
) -> list[tuple[LeaderboardId, PlayerId]]:
    query = select(_s.c.window, _s.c.period, _s.c.scope, _s.c.player_id).where(_of(board, players))
    async with mapped_errors(), store.engine.connect() as conn:
        return sorted(
            (LeaderboardId(board, w, p, s), player) for w, p, s, player in await conn.execute(query)
        )


async def standing_rows(
    store: SqlStore, board: BoardId, players: Sequence[PlayerId]
) -> list[StandingRow]:
    """The standings of these players on ``board``, in key order."""
    async with mapped_errors(), store.engine.connect() as conn:
        return await _standings(conn, board, _of(board, players))


def _of(board: BoardId, players: Sequence[PlayerId]) -> ColumnElement[bool]:
    return (_s.c.board_id == board) & _s.c.player_id.in_(list(players))


async def _standings(
    conn: AsyncConnection, board: BoardId, where: ColumnElement[bool]
) -> list[StandingRow]:
    """The standing rows of ``board`` that ``where`` selects, in key order."""
    query = select(
        _s.c.window,
        _s.c.period,
        _s.c.scope,
        _s.c.player_id,
        _s.c.score,
        _s.c.achieved_at,
        _s.c.revision,
        _s.c.subscore,
    ).where(where)
    return sorted(
        (LeaderboardId(board, w, p, s), player, score, achieved, revision, subscore)
        for w, p, s, player, score, achieved, revision, subscore in await conn.execute(query)
    )


async def banned_of(store: SqlStore, players: Sequence[PlayerId]) -> set[PlayerId]:
    b = t.bans
    query = select(b.c.player_id).where(b.c.player_id.in_(list(players)))
    async with mapped_errors(), store.engine.connect() as conn:
        return {row[0] for row in await conn.execute(query)}


async def void_match(
    store: SqlStore,
    board: BoardId,
    match_id: MatchId,
    at: Micros,
    players: Sequence[PlayerId],
    rows: Sequence[StandingRow],
    applied: dict[int, bool],
    last_event: int,
    audit: AuditEntry,
) -> list[StandingRow]:
    """In one transaction: record the void (``Conflict`` when the match is voided already;
    ``WriteConflict`` when one of the players has an event newer than ``last_event``),
    replace the players' standings on the board by ``rows``, correct the recorded
    ``applied`` of their later events, give back the submissions a tournament counted under
    the match, and write ``audit``. The standings replaced."""
    async with store.transaction() as tx:
        conn = tx.conn
        found = await conn.execute(
            select(t.voids.c.at).where(t.voids.c.board_id == board, t.voids.c.match_id == match_id)
        )
        if found.first() is not None:
            raise Conflict(f"match {match_id!r} on board {board!r} is voided already")
        e = t.score_events
        newest = await conn.execute(
            select(func.max(e.c.id)).where(e.c.board_id == board, e.c.player_id.in_(list(players)))
        )
        if int(newest.scalar_one() or 0) != last_event:
            raise WriteConflict("a submission of these players landed during the void")
        await conn.execute(insert(t.voids), [{"board_id": board, "match_id": match_id, "at": at}])
        mine = _of(board, players)
        replaced = await _standings(conn, board, mine)
        await conn.execute(delete(_s).where(mine))
        await tx.insert_standings(rows)
        await uncount_match(conn, board, match_id, players)  # on a tournament's board
        for flag in (True, False):
            ids = sorted(i for i, value in applied.items() if value is flag)
            if ids:
                await conn.execute(update(e).where(e.c.id.in_(ids)).values(applied=flag))
        await add_audit(conn, audit)
    return replaced


async def void_rated(
    store: SqlStore,
    board: BoardId,
    match_id: MatchId,
    at: Micros,
    rerated: Rerated,
    audit: AuditEntry,
) -> tuple[list[StandingRow], list[tuple[LeaderboardId, PlayerId]], set[PlayerId]]:
    """A rating board's void in one transaction: the void recorded (``Conflict`` when the
    match is voided already; ``WriteConflict`` when a match was rated since ``rerated`` was
    computed), the board's rating states and rating changes replaced by the
    rerated ones, every standing that changed moved to its next revision and those gone
    deleted, and ``audit`` written. The standings written, those deleted, and which of their
    players are banned."""
    async with store.transaction() as tx:
        conn = tx.conn
        v = t.voids
        found = await conn.execute(
            select(v.c.at).where(v.c.board_id == board, v.c.match_id == match_id)
        )
        if found.first() is not None:
            raise Conflict(f"match {match_id!r} on board {board!r} is voided already")
        rows = RatingRows(conn)
        if await rows.last_seq(board) != rerated.last_seq:
            raise WriteConflict("a match of the board was rated during the void")
        await conn.execute(insert(v), [{"board_id": board, "match_id": match_id, "at": at}])
        await rows.clear(board)
        await rows.write(board, [], rerated.ratings, rerated.states, {})
        old = {
            (leaderboard, player): (score, achieved, revision)
            for leaderboard, player, score, achieved, revision, _ in await _standings(
                conn, board, _s.c.board_id == board
            )
        }
        writes: list[StandingRow] = []
        for key, entry in sorted(rerated.entries.items()):
            before = old.get(key)
            if entry is None or (before is not None and before[:2] == entry):
                continue
            revision = 1 if before is None else before[2] + 1
            (leaderboard, player), (score, achieved) = key, entry
            writes.append((leaderboard, player, score, achieved, revision, None))
        gone = sorted(k for k in old if rerated.entries.get(k) is None)
        await tx.write_standings(writes)
        await rows.remove_standings(gone)
        banned = await tx.banned_players(sorted({player for _, player, *_ in writes}))
        await add_audit(conn, audit)
    return writes, gone, banned
