"""SQL for rating boards: matches in their serial order, their rating changes, rating states.

The applier (``rankline.ratings.rated``) writes through ``RatingRows`` inside the transaction that
also writes the standings, so a match, its players' new states and their leaderboard scores commit
together or not at all. ``RatingStore`` answers what is read outside that transaction: a match's
stored results (its answer, in any process), a player's rating history, and the matches of a board
in order (a replay).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import Table, delete, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from rankline.store import schema as t
from rankline.store.errors import mapped_errors
from rankline.store.sql import SqlStore, chunks
from rankline.types import BoardId, LeaderboardId, Micros, PlayerId

_m, _r, _st = t.matches, t.match_ratings, t.rating_states
_CHUNK = 400
_STATE_CHUNK = 500

StateKey = tuple[str, str, PlayerId]
"""(window, period, player) on one board."""


@dataclass(frozen=True, slots=True)
class StoredMatch:
    seq: int
    match_id: str
    digest: str
    at: Micros
    received_at: Micros
    results: str


@dataclass(frozen=True, slots=True)
class RatingRow:
    """One player's rating change from one match on one (window, period)."""

    board: BoardId
    match_id: str
    player: PlayerId
    window: str
    period: str
    seq: int
    at: Micros
    place: int
    previous: str
    rating: str
    provisional: bool
    received_at: Micros = 0
    """When the match was received (read with the history only)."""


def _rating_row(r: Sequence[object]) -> RatingRow:
    return RatingRow(*r)  # type: ignore[arg-type]


_RATING_COLUMNS = [
    _r.c.board_id,
    _r.c.match_id,
    _r.c.player_id,
    _r.c.window,
    _r.c.period,
    _r.c.seq,
    _r.c.at,
    _r.c.place,
    _r.c.previous,
    _r.c.rating,
    _r.c.provisional,
]


class RatingRows:
    """The applier's statements, in its transaction's connection (or, for its reads ahead of
    the transaction, a read connection)."""

    def __init__(self, conn: AsyncConnection) -> None:
        self._conn = conn

    async def definitions(self, board_ids: Sequence[BoardId]) -> dict[BoardId, str]:
        """The stored definitions (JSON text) of these boards, unlocked."""
        b = t.boards
        rows = await self._conn.execute(
            select(b.c.id, b.c.definition).where(b.c.id.in_(sorted(set(board_ids))))
        )
        return {r[0]: r[1] for r in rows}

    async def matches(self, board: BoardId, match_ids: Sequence[str]) -> dict[str, StoredMatch]:
        found: dict[str, StoredMatch] = {}
        for chunk in chunks(sorted(set(match_ids)), _CHUNK):
            rows = await self._conn.execute(
                select(
                    _m.c.seq, _m.c.match_id, _m.c.digest, _m.c.at, _m.c.received_at, _m.c.results
                ).where(_m.c.board_id == board, _m.c.match_id.in_(chunk))
            )
            for r in rows:
                found[r[1]] = StoredMatch(*r)
        return found

    async def last_seq(self, board: BoardId) -> int:
        row = await self._conn.execute(select(func.max(_m.c.seq)).where(_m.c.board_id == board))
        return int(row.scalar() or 0)

    async def states(self, board: BoardId, keys: Sequence[StateKey]) -> dict[StateKey, str]:
        """The stored states of these keys, read a period at a time (an IN list of players on
        one leaderboard period is a range of the primary key), as plain driver statements: an
        expanding IN of SQLAlchemy compiles anew for every length."""
        by_period: dict[tuple[str, str], list[PlayerId]] = {}
        for window, period, player in keys:
            by_period.setdefault((window, period), []).append(player)
        q = self._conn.dialect.identifier_preparer.quote
        found: dict[StateKey, str] = {}
        for (window, period), players in by_period.items():
            for chunk in chunks(sorted(set(players)), _STATE_CHUNK):
                b, w, p, *marks = self._marks(3 + len(chunk))
                sql = (
                    f"SELECT {q('player_id')}, {q('state')} FROM {q(_st.name)} "
                    f"WHERE {q('board_id')} = {b} AND {q('window')} = {w} "
                    f"AND {q('period')} = {p} AND {q('player_id')} IN ({', '.join(marks)})"
                )
                rows = await self._conn.exec_driver_sql(sql, (board, window, period, *chunk))
                for player, state in cast("list[tuple[str, str]]", rows.all()):
                    found[window, period, player] = state
        return found

    async def write(
        self,
        board: BoardId,
        matches: Sequence[StoredMatch],
        ratings: Sequence[RatingRow],
        inserted: dict[StateKey, str],
        updated: dict[StateKey, str],
    ) -> None:
        """Insert the matches and rating rows and insert or update the states, each as one
        driver-level executemany (the Core statements' per-row parameter processing cost
        more than the database did)."""
        await self._many(
            _m,
            ["board_id", "seq", "match_id", "digest", "at", "received_at", "results"],
            [(board, m.seq, m.match_id, m.digest, m.at, m.received_at, m.results) for m in matches],
        )
        await self._many(
            _r,
            [
                "board_id",
                "match_id",
                "player_id",
                "window",
                "period",
                "seq",
                "at",
                "place",
                "previous",
                "rating",
                "provisional",
            ],
            [
                (
                    r.board,
                    r.match_id,
                    r.player,
                    r.window,
                    r.period,
                    r.seq,
                    r.at,
                    r.place,
                    r.previous,
                    r.rating,
                    r.provisional,
                )
                for r in ratings
            ],
        )
        await self._many(
            _st,
            ["board_id", "window", "period", "player_id", "state"],
            [(board, w, p, pl, state) for (w, p, pl), state in inserted.items()],
        )
        if updated:
            q = self._conn.dialect.identifier_preparer.quote
            st, b, w, p, pl = self._marks(5)
            sql = (
                f"UPDATE {q(_st.name)} SET {q('state')} = {st} WHERE {q('board_id')} = {b} "
                f"AND {q('window')} = {w} AND {q('period')} = {p} AND {q('player_id')} = {pl}"
            )
            await self._conn.exec_driver_sql(
                sql, [(state, board, w, p, pl) for (w, p, pl), state in updated.items()]
            )

    def _marks(self, n: int) -> list[str]:
        """``n`` positional parameter markers in the driver's own style."""
        style = self._conn.dialect.paramstyle
        if style == "qmark":
            return ["?"] * n
        if style == "numeric_dollar":
            return [f"${i}" for i in range(1, n + 1)]
        if style == "numeric":
            return [f":{i}" for i in range(1, n + 1)]
        return ["%s"] * n

    async def _many(self, table: Table, columns: list[str], rows: list[tuple[Any, ...]]) -> None:
        if not rows:
            return
        q = self._conn.dialect.identifier_preparer.quote
        names = ", ".join(q(c) for c in columns)
        marks = ", ".join(self._marks(len(columns)))
        sql = f"INSERT INTO {q(table.name)} ({names}) VALUES ({marks})"
        await self._conn.exec_driver_sql(sql, rows)

    async def remove_standings(self, keys: Sequence[tuple[LeaderboardId, PlayerId]]) -> None:
        """Take players off leaderboards (a rated player who became provisional again)."""
        s = t.standings
        for lb, player in keys:
            await self._conn.execute(
                delete(s).where(
                    s.c.board_id == lb.board,
                    s.c.window == lb.window,
                    s.c.period == lb.period,
                    s.c.scope == lb.scope,
                    s.c.player_id == player,
                )
            )

    async def clear(self, board: BoardId) -> None:
        """Drop a board's rating states and match results (a replay writes them again)."""
        for table in (_st, _r):
            await self._conn.execute(delete(table).where(table.c.board_id == board))


@dataclass
class Rerated:
    """A rating board rated again without some matches (``without``): what a void writes."""

    states: dict[StateKey, str] = field(default_factory=dict)
    ratings: list[RatingRow] = field(default_factory=list)
    """Every remaining match's rating changes, in serial order."""
    entries: dict[tuple[LeaderboardId, PlayerId], tuple[int, Micros] | None] = field(
        default_factory=dict
    )
    """Each standing the matches set: (score, achieved_at), None for a provisional player."""
    last_seq: int = 0
    """The board's last match number when it was rated again (the void checks it holds)."""


class RatingStore:
    """What is read about rating boards outside the applier."""

    def __init__(self, store: SqlStore) -> None:
        self._store = store

    async def results(
        self, board: BoardId, window: str, match_ids: Sequence[str]
    ) -> dict[str, tuple[str, list[RatingRow]]]:
        """Of each of these matches that was applied: its digest and its players' rating
        changes on ``window`` (the board's primary window, whose answer it gives)."""
        found: dict[str, tuple[str, list[RatingRow]]] = {}
        async with mapped_errors(), self._store.engine.connect() as conn:
            for chunk in chunks(sorted(set(match_ids)), _CHUNK):
                rows = await conn.execute(
                    select(_m.c.match_id, _m.c.digest, *_RATING_COLUMNS)
                    .select_from(_m)
                    .outerjoin(
                        _r,
                        (_r.c.board_id == _m.c.board_id)
                        & (_r.c.match_id == _m.c.match_id)
                        & (_r.c.window == window),
                    )
                    .where(_m.c.board_id == board, _m.c.match_id.in_(chunk))
                )
                for r in rows:
                    _, match_rows = found.setdefault(r[0], (r[1], []))
                    if r[2] is not None:
                        match_rows.append(_rating_row(r[2:]))
        return found

    async def digests(self, board: BoardId, match_ids: Sequence[str]) -> dict[str, str]:
        """The stored digest of each of these matches that was applied."""
        found: dict[str, str] = {}
        async with mapped_errors(), self._store.engine.connect() as conn:
            for chunk in chunks(sorted(set(match_ids)), _CHUNK):
                rows = await conn.execute(
                    select(_m.c.match_id, _m.c.digest).where(
                        _m.c.board_id == board, _m.c.match_id.in_(chunk)
                    )
                )
                found.update({r[0]: r[1] for r in rows})
        return found

    async def history(
        self, player: PlayerId, board: BoardId, window: str, limit: int, before: int | None
    ) -> list[RatingRow]:
        """A player's rating changes on one window of a board, newest first."""
        query = (
            select(*_RATING_COLUMNS, _m.c.received_at)
            .join(_m, (_m.c.board_id == _r.c.board_id) & (_m.c.match_id == _r.c.match_id))
            .where(_r.c.player_id == player, _r.c.board_id == board, _r.c.window == window)
        )
        if before is not None:
            query = query.where(_r.c.seq < before)
        query = query.order_by(_r.c.seq.desc()).limit(limit)
        async with mapped_errors(), self._store.engine.connect() as conn:
            return [_rating_row(r) for r in await conn.execute(query)]

    async def matches(self, board: BoardId) -> list[StoredMatch]:
        """Every match of a board, in its serial order."""
        async with mapped_errors(), self._store.engine.connect() as conn:
            rows = await conn.execute(
                select(
                    _m.c.seq, _m.c.match_id, _m.c.digest, _m.c.at, _m.c.received_at, _m.c.results
                )
                .where(_m.c.board_id == board)
                .order_by(_m.c.seq)
            )
            return [StoredMatch(*r) for r in rows]

    async def match_periods(self, board: BoardId) -> dict[int, list[tuple[str, str]]]:
        """The (window, period) pairs each match (by serial number) was rated on."""
        async with mapped_errors(), self._store.engine.connect() as conn:
            rows = await conn.execute(
                select(_r.c.seq, _r.c.window, _r.c.period)
                .where(_r.c.board_id == board)
                .distinct()
                .order_by(_r.c.seq, _r.c.window, _r.c.period)
            )
            found: dict[int, list[tuple[str, str]]] = {}
            for seq, window, period in rows:
                found.setdefault(seq, []).append((window, period))
            return found

    async def states(self, board: BoardId) -> dict[StateKey, str]:
        """Every rating state of a board."""
        async with mapped_errors(), self._store.engine.connect() as conn:
            rows = await conn.execute(
                select(_st.c.window, _st.c.period, _st.c.player_id, _st.c.state).where(
                    _st.c.board_id == board
                )
            )
            return {(r[0], r[1], r[2]): r[3] for r in rows}

    async def state(self, board: BoardId, window: str, period: str, player: PlayerId) -> str | None:
        async with mapped_errors(), self._store.engine.connect() as conn:
            row = await conn.execute(
                select(_st.c.state).where(
                    _st.c.board_id == board,
                    _st.c.window == window,
                    _st.c.period == period,
                    _st.c.player_id == player,
                )
            )
            return row.scalar()


__all__ = ["RatingRow", "RatingRows", "RatingStore", "Rerated", "StateKey", "StoredMatch"]
