"""SQL for rating boards: matches in their serial order, their rating changes, rating states.

The applier (``rankline.rated``) writes through ``RatingRows`` inside the transaction that also
writes the standings, so a match, its players' new states and their leaderboard scores commit
together or not at all. ``RatingStore`` answers what is read outside that transaction: a
match's stored results (its answer, in any process), a player's rating history, and the
matches of a board in order (a replay).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import bindparam, delete, func, insert, select, tuple_, update
from sqlalchemy.ext.asyncio import AsyncConnection

from rankline.store import schema as t
from rankline.store.sql import SqlStore, mapped_errors
from rankline.types import BoardId, LeaderboardId, Micros, PlayerId

_m, _r, _st = t.matches, t.match_ratings, t.rating_states
_CHUNK = 400

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


def _chunks(items: Sequence[object], size: int = _CHUNK) -> list[Sequence[object]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


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
    """The applier's statements, in its transaction's connection."""

    def __init__(self, conn: AsyncConnection) -> None:
        self._conn = conn

    async def matches(self, board: BoardId, match_ids: Sequence[str]) -> dict[str, StoredMatch]:
        found: dict[str, StoredMatch] = {}
        for chunk in _chunks(sorted(set(match_ids))):
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
        found: dict[StateKey, str] = {}
        for chunk in _chunks(sorted(set(keys))):
            rows = await self._conn.execute(
                select(_st.c.window, _st.c.period, _st.c.player_id, _st.c.state).where(
                    _st.c.board_id == board,
                    tuple_(_st.c.window, _st.c.period, _st.c.player_id).in_(chunk),
                )
            )
            for window, period, player, state in rows:
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
        conn = self._conn
        if matches:
            await conn.execute(
                insert(_m),
                [
                    {
                        "board_id": board,
                        "seq": m.seq,
                        "match_id": m.match_id,
                        "digest": m.digest,
                        "at": m.at,
                        "received_at": m.received_at,
                        "results": m.results,
                    }
                    for m in matches
                ],
            )
        if ratings:
            await conn.execute(
                insert(_r),
                [
                    {
                        "board_id": r.board,
                        "match_id": r.match_id,
                        "player_id": r.player,
                        "window": r.window,
                        "period": r.period,
                        "seq": r.seq,
                        "at": r.at,
                        "place": r.place,
                        "previous": r.previous,
                        "rating": r.rating,
                        "provisional": r.provisional,
                    }
                    for r in ratings
                ],
            )
        if inserted:
            await conn.execute(
                insert(_st),
                [
                    {"board_id": board, "window": w, "period": p, "player_id": pl, "state": s}
                    for (w, p, pl), s in inserted.items()
                ],
            )
        if updated:
            await conn.execute(
                update(_st)
                .where(
                    _st.c.board_id == board,
                    _st.c.window == bindparam("k_window"),
                    _st.c.period == bindparam("k_period"),
                    _st.c.player_id == bindparam("k_player"),
                )
                .values(state=bindparam("k_state")),
                [
                    {"k_window": w, "k_period": p, "k_player": pl, "k_state": s}
                    for (w, p, pl), s in updated.items()
                ],
            )

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


class RatingStore:
    """What is read about rating boards outside the applier."""

    def __init__(self, store: SqlStore) -> None:
        self._store = store

    async def results(self, board: BoardId, match_ids: Sequence[str]) -> dict[str, list[RatingRow]]:
        """The stored rating changes of these matches, by match (none for a match not
        applied)."""
        found: dict[str, list[RatingRow]] = {}
        async with mapped_errors(), self._store.engine.connect() as conn:
            for chunk in _chunks(sorted(set(match_ids))):
                rows = await conn.execute(
                    select(*_RATING_COLUMNS).where(_r.c.board_id == board, _r.c.match_id.in_(chunk))
                )
                for r in rows:
                    found.setdefault(r[1], []).append(_rating_row(r))
        return found

    async def digests(self, board: BoardId, match_ids: Sequence[str]) -> dict[str, str]:
        """The stored digest of each of these matches that was applied."""
        found: dict[str, str] = {}
        async with mapped_errors(), self._store.engine.connect() as conn:
            for chunk in _chunks(sorted(set(match_ids))):
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


__all__ = ["RatingRow", "RatingRows", "RatingStore", "StateKey", "StoredMatch"]
