"""The SQL durable store (SQLAlchemy 2 Core, async): SQLite, PostgreSQL, MariaDB/MySQL.

Driver and SQLAlchemy errors never leave this module: a lost connection or a locked
database becomes ``StoreUnavailable``, a unique-key race between writers ``WriteConflict``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import msgspec
from sqlalchemy import (
    ColumnElement,
    bindparam,
    delete,
    event,
    exists,
    func,
    insert,
    select,
    tuple_,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from rankline.errors import StoreUnavailable, WriteConflict
from rankline.metrics import BACKEND_ERRORS
from rankline.store import schema as t
from rankline.types import (
    BoardId,
    LeaderboardId,
    MatchId,
    Micros,
    PlayerId,
    ScoreEvent,
    Standing,
)

log = logging.getLogger("rankline.store")

_CHUNK = 500
_T = TypeVar("_T")
_json = msgspec.json.Encoder()
_unjson = msgspec.json.Decoder()


def _chunks(items: Sequence[_T], size: int = _CHUNK) -> list[Sequence[_T]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def unbanned(player_id: ColumnElement[str]) -> ColumnElement[bool]:
    """Rows of players who are not banned: a banned player is on no leaderboard (their
    standings stay, to come back on unban)."""
    return ~exists().where(t.bans.c.player_id == player_id)


@asynccontextmanager
async def mapped_errors() -> AsyncIterator[None]:
    try:
        yield
    except IntegrityError as exc:
        raise WriteConflict("a concurrent writer changed the same rows") from exc
    except (DBAPIError, SQLAlchemyError, OSError) as exc:
        BACKEND_ERRORS.labels("sql").inc()
        log.warning("durable store error: %s", exc.__class__.__name__, exc_info=exc)
        raise StoreUnavailable(f"the durable store is unavailable ({type(exc).__name__})") from exc


class _Transaction:
    def __init__(self, conn: AsyncConnection) -> None:
        self._conn = conn

    async def existing_events(
        self, keys: Sequence[tuple[BoardId, PlayerId, MatchId]]
    ) -> set[tuple[BoardId, PlayerId, MatchId]]:
        e = t.score_events
        found: set[tuple[BoardId, PlayerId, MatchId]] = set()
        for chunk in _chunks(keys):
            rows = await self._conn.execute(
                select(e.c.board_id, e.c.player_id, e.c.match_id).where(
                    tuple_(e.c.board_id, e.c.player_id, e.c.match_id).in_(chunk)
                )
            )
            found.update((r[0], r[1], r[2]) for r in rows)
        return found

    async def read_standings(
        self, keys: Sequence[tuple[LeaderboardId, PlayerId]]
    ) -> dict[tuple[LeaderboardId, PlayerId], Standing]:
        s = t.standings
        by_leaderboard: dict[LeaderboardId, list[PlayerId]] = {}
        for leaderboard, player in keys:
            by_leaderboard.setdefault(leaderboard, []).append(player)
        found: dict[tuple[LeaderboardId, PlayerId], Standing] = {}
        for leaderboard, players in by_leaderboard.items():
            for chunk in _chunks(sorted(set(players))):
                rows = await self._conn.execute(
                    select(s.c.player_id, s.c.score, s.c.achieved_at, s.c.revision).where(
                        s.c.board_id == leaderboard.board,
                        s.c.window == leaderboard.window,
                        s.c.period == leaderboard.period,
                        s.c.scope == leaderboard.scope,
                        s.c.player_id.in_(chunk),
                    )
                )
                for player, score, achieved_at, revision in rows:
                    found[leaderboard, player] = Standing(
                        leaderboard, player, score, achieved_at, revision
                    )
        return found

    async def banned_players(self, players: Sequence[PlayerId]) -> set[PlayerId]:
        """Which of these players are banned (one query for up to 2,000 players)."""
        b = t.bans
        found: set[PlayerId] = set()
        for chunk in _chunks(sorted(set(players)), 2000):
            rows = await self._conn.execute(select(b.c.player_id).where(b.c.player_id.in_(chunk)))
            found.update(r[0] for r in rows)
        return found

    async def insert_events(self, events: Sequence[ScoreEvent]) -> None:
        if not events:
            return
        await self._conn.execute(
            insert(t.score_events),
            [
                {
                    "board_id": ev.board,
                    "player_id": ev.player,
                    "match_id": ev.match_id,
                    "score": ev.score,
                    "at": ev.at,
                    "received_at": ev.received_at,
                    "applied": ev.applied,
                    "scopes": _json.encode(ev.scopes).decode(),
                    "metadata": _json.encode(ev.metadata).decode(),
                }
                for ev in events
            ],
        )

    async def write_standings(
        self, inserts: Sequence[Standing], updates: Sequence[Standing]
    ) -> None:
        s = t.standings
        if inserts:
            await self._conn.execute(insert(s), [_standing_row(x) for x in inserts])
        if updates:
            await self._conn.execute(
                update(s)
                .where(
                    s.c.board_id == bindparam("k_board"),
                    s.c.window == bindparam("k_window"),
                    s.c.period == bindparam("k_period"),
                    s.c.scope == bindparam("k_scope"),
                    s.c.player_id == bindparam("k_player"),
                )
                .values(
                    score=bindparam("k_score"),
                    achieved_at=bindparam("k_at"),
                    revision=bindparam("k_revision"),
                ),
                [
                    {
                        "k_board": x.leaderboard.board,
                        "k_window": x.leaderboard.window,
                        "k_period": x.leaderboard.period,
                        "k_scope": x.leaderboard.scope,
                        "k_player": x.player,
                        "k_score": x.score,
                        "k_at": x.achieved_at,
                        "k_revision": x.revision,
                    }
                    for x in updates
                ],
            )

    async def board_definitions(self, board_ids: Sequence[BoardId]) -> dict[BoardId, str]:
        """The stored definitions (JSON text) of these boards, read in this transaction."""
        b = t.boards
        rows = await self._conn.execute(
            select(b.c.id, b.c.definition).where(b.c.id.in_(sorted(set(board_ids))))
        )
        return {r[0]: r[1] for r in rows}

    async def add_periods(
        self, rows: Sequence[tuple[BoardId, str, str, Micros | None, Micros | None]]
    ) -> None:
        """Record periods seen for the first time (callers skip ones they know)."""
        p = t.periods
        wanted = {(b, w, n): (s, e) for b, w, n, s, e in rows}
        known = await self._conn.execute(
            select(p.c.board_id, p.c.window, p.c.period).where(
                tuple_(p.c.board_id, p.c.window, p.c.period).in_(list(wanted))
            )
        )
        for row in known:
            wanted.pop((row[0], row[1], row[2]), None)
        if wanted:
            await self._conn.execute(
                insert(p),
                [
                    {"board_id": b, "window": w, "period": n, "starts_at": s, "ends_at": e}
                    for (b, w, n), (s, e) in wanted.items()
                ],
            )


def _standing_row(x: Standing) -> dict[str, Any]:
    return {
        "board_id": x.leaderboard.board,
        "window": x.leaderboard.window,
        "period": x.leaderboard.period,
        "scope": x.leaderboard.scope,
        "player_id": x.player,
        "score": x.score,
        "achieved_at": x.achieved_at,
        "revision": x.revision,
    }


class SqlStore:
    """``DurableStore`` on any SQLAlchemy async URL."""

    def __init__(self, url: str, *, sqlite_synchronous: str = "FULL") -> None:
        self.url = url
        parsed = make_url(url)
        self.dialect = parsed.get_backend_name()
        if self.dialect == "sqlite" and parsed.database not in (None, "", ":memory:"):
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        options: dict[str, Any] = {"pool_pre_ping": True}
        if self.dialect != "sqlite":
            options |= {"pool_size": 10, "max_overflow": 10, "pool_recycle": 1800}
        self._engine: AsyncEngine = create_async_engine(url, **options)
        if self.dialect == "sqlite":
            _configure_sqlite(self._engine, sqlite_synchronous)

    @property
    def engine(self) -> AsyncEngine:
        return self._engine

    async def start(self) -> None:
        async with mapped_errors(), self._engine.connect() as conn:
            await conn.execute(select(1))

    async def close(self) -> None:
        await self._engine.dispose()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[_Transaction]:
        async with mapped_errors(), self._engine.begin() as conn:
            yield _Transaction(conn)

    async def load_boards(self) -> list[dict[str, Any]]:
        async with mapped_errors(), self._engine.connect() as conn:
            rows = await conn.execute(select(t.boards.c.definition).order_by(t.boards.c.id))
            return [_unjson.decode(r[0]) for r in rows]

    async def save_board(self, board_id: BoardId, definition: dict[str, Any], now: Micros) -> None:
        b = t.boards
        text = _json.encode(definition).decode()
        async with mapped_errors(), self._engine.begin() as conn:
            changed = await conn.execute(
                update(b).where(b.c.id == board_id).values(definition=text, updated_at=now)
            )
            if changed.rowcount == 0:
                await conn.execute(
                    insert(b).values(id=board_id, definition=text, created_at=now, updated_at=now)
                )

    async def delete_board(self, board_id: BoardId) -> None:
        async with mapped_errors(), self._engine.begin() as conn:
            for table in (t.standings, t.score_events, t.periods, t.archive):
                await conn.execute(delete(table).where(table.c.board_id == board_id))
            await conn.execute(delete(t.boards).where(t.boards.c.id == board_id))

    async def board_has_entries(self, board_id: BoardId) -> bool:
        s = t.standings
        async with mapped_errors(), self._engine.connect() as conn:
            row = await conn.execute(select(s.c.player_id).where(s.c.board_id == board_id).limit(1))
            return row.first() is not None

    async def list_periods(
        self, board_id: BoardId, window: str | None = None
    ) -> list[tuple[str, str, Micros | None, Micros | None]]:
        p = t.periods
        query = select(p.c.window, p.c.period, p.c.starts_at, p.c.ends_at).where(
            p.c.board_id == board_id
        )
        if window is not None:
            query = query.where(p.c.window == window)
        async with mapped_errors(), self._engine.connect() as conn:
            return [(r[0], r[1], r[2], r[3]) for r in await conn.execute(query)]

    async def count_leaderboard(self, leaderboard: LeaderboardId) -> int:
        s = t.standings
        async with mapped_errors(), self._engine.connect() as conn:
            row = await conn.execute(
                select(func.count()).where(
                    s.c.board_id == leaderboard.board,
                    s.c.window == leaderboard.window,
                    s.c.period == leaderboard.period,
                    s.c.scope == leaderboard.scope,
                    unbanned(s.c.player_id),
                )
            )
            return int(row.scalar_one())

    async def count_standings(self, board_id: BoardId | None = None) -> int:
        s = t.standings
        query = select(func.count()).select_from(s)
        if board_id is not None:
            query = query.where(s.c.board_id == board_id)
        async with mapped_errors(), self._engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def stream_standings(self, board_id: BoardId) -> AsyncIterator[Standing]:
        """Every standing of a board in leaderboard order, streamed in chunks; banned
        players' standings are left out."""
        s = t.standings
        query = (
            select(
                s.c.window,
                s.c.period,
                s.c.scope,
                s.c.player_id,
                s.c.score,
                s.c.achieved_at,
                s.c.revision,
            )
            .where(s.c.board_id == board_id, unbanned(s.c.player_id))
            .order_by(s.c.window, s.c.period, s.c.scope, s.c.player_id)
            .execution_options(yield_per=10_000)
        )
        async with mapped_errors(), self._engine.connect() as conn:
            result = await conn.stream(query)
            async for window, period, scope, player, score, at, revision in result:
                leaderboard = LeaderboardId(board_id, window, period, scope)
                yield Standing(leaderboard, player, score, at, revision)


def _configure_sqlite(engine: AsyncEngine, synchronous: str) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _pragmas(dbapi_conn: Any, _record: Any) -> None:
        cursor = dbapi_conn.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.execute("PRAGMA busy_timeout=5000")
        cursor.close()
