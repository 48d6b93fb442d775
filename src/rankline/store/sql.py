"""The SQL durable store (SQLAlchemy 2 Core, async): SQLite, PostgreSQL, MariaDB/MySQL.

Driver and SQLAlchemy errors never leave the store (``rankline.store.errors``): a lost
connection or a locked database becomes ``StoreUnavailable``, a unique-key race between
writers ``WriteConflict``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

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
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from rankline.errors import StoreUnavailable, WriteConflict
from rankline.store import schema as t
from rankline.store.audit import AuditEntry, add_audit
from rankline.store.errors import mapped_errors
from rankline.store.hot import EVENT_COLUMNS, HotStatements, hot_statements, stored_event
from rankline.types import (
    BoardId,
    LeaderboardId,
    MatchId,
    Micros,
    PlayerId,
    ScoreEvent,
    StandingRow,
    revision_of,
)

if TYPE_CHECKING:
    from rankline.settings import Settings

log = logging.getLogger("rankline.store")

_CHUNK = 500
_CHECKPOINT_ROWS = 4000
"""SQLite: rows the group commit changes between two checkpoints (a row dirties one to three
pages on a big table; ``wal_autocheckpoint`` would copy every 1,000 pages, synchronously)."""
_T = TypeVar("_T")
_json = msgspec.json.Encoder()
_unjson = msgspec.json.Decoder()


class StoredPeriod(NamedTuple):
    window: str
    period: str
    starts_at: Micros | None
    ends_at: Micros | None


def chunks(items: Sequence[_T], size: int = _CHUNK) -> list[Sequence[_T]]:
    """``items`` in slices of ``size``: how many values one ``IN (...)`` takes."""
    return [items[i : i + size] for i in range(0, len(items), size)]


def unbanned(player_id: ColumnElement[str]) -> ColumnElement[bool]:
    """Rows of players who are not banned: a banned player is on no leaderboard (their
    standings stay, to come back on unban)."""
    return ~exists().where(t.bans.c.player_id == player_id)


class _Transaction:
    """One group-commit transaction. The hot statements come from ``rankline.store.hot``
    where the dialect has them; the portable SQLAlchemy Core ones serve the rest."""

    def __init__(self, conn: AsyncConnection, hot: HotStatements | None = None) -> None:
        self._conn = conn
        self._hot = hot

    @property
    def conn(self) -> AsyncConnection:
        """The transaction's connection, for other tables' statements in the same
        transaction (rating boards: ``rankline.store.ratings``)."""
        return self._conn

    async def existing_events(
        self, keys: Sequence[tuple[BoardId, PlayerId, MatchId]]
    ) -> dict[tuple[BoardId, PlayerId, MatchId], ScoreEvent]:
        if self._hot is not None:
            return await self._hot.existing_events(self._conn, keys)
        e = t.score_events
        columns = [e.c[name] for name in EVENT_COLUMNS]
        found: dict[tuple[BoardId, PlayerId, MatchId], ScoreEvent] = {}
        for chunk in chunks(keys):
            rows = await self._conn.execute(
                select(*columns).where(tuple_(e.c.board_id, e.c.player_id, e.c.match_id).in_(chunk))
            )
            for r in rows:
                found[r[0], r[1], r[2]] = stored_event(r)
        return found

    async def read_standings(
        self, keys: Sequence[tuple[LeaderboardId, PlayerId]]
    ) -> dict[tuple[LeaderboardId, PlayerId], StandingRow]:
        if self._hot is not None:
            return await self._hot.read_standings(self._conn, keys)
        s = t.standings
        by_leaderboard: dict[LeaderboardId, list[PlayerId]] = {}
        for leaderboard, player in keys:
            by_leaderboard.setdefault(leaderboard, []).append(player)
        found: dict[tuple[LeaderboardId, PlayerId], StandingRow] = {}
        for leaderboard, players in by_leaderboard.items():
            for chunk in chunks(sorted(set(players))):
                rows = await self._conn.execute(
                    select(
                        s.c.player_id, s.c.score, s.c.achieved_at, s.c.revision, s.c.subscore
                    ).where(
                        s.c.board_id == leaderboard.board,
                        s.c.window == leaderboard.window,
                        s.c.period == leaderboard.period,
                        s.c.scope == leaderboard.scope,
                        s.c.player_id.in_(chunk),
                    )
                )
                for player, score, achieved_at, revision, subscore in rows:
                    found[leaderboard, player] = (
                        leaderboard,
                        player,
                        score,
                        achieved_at,
                        revision,
                        subscore,
                    )
        return found

    async def banned_players(self, players: Sequence[PlayerId]) -> set[PlayerId]:
        """Which of these players are banned (one query for up to 2,000 players)."""
        if self._hot is not None:
            return await self._hot.banned_players(self._conn, sorted(set(players)))
        b = t.bans
        found: set[PlayerId] = set()
        for chunk in chunks(sorted(set(players)), 2000):
            rows = await self._conn.execute(select(b.c.player_id).where(b.c.player_id.in_(chunk)))
            found.update(r[0] for r in rows)
        return found

    async def insert_events(self, events: Sequence[ScoreEvent]) -> None:
        if not events:
            return
        if self._hot is not None:
            await self._hot.insert_events(self._conn, events)
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
                    "subscore": ev.subscore,
                }
                for ev in events
            ],
        )

    async def write_standings(self, rows: Sequence[StandingRow]) -> None:
        """Insert new standings (revision 1) and move updated ones to their next revision. An
        update applies only to the revision before it, so a standing another writer changed
        since it was read raises ``WriteConflict`` (and the batch is retried), never a lost
        update."""
        if self._hot is not None:
            await self._hot.upsert_standings(self._conn, rows)
            return
        s = t.standings
        inserts = [x for x in rows if revision_of(x) == 1]
        updates = [x for x in rows if revision_of(x) != 1]
        if inserts:
            await self._conn.execute(insert(s), [_standing_row(*x) for x in inserts])
        if updates:
            changed = await self._update_standings(updates, checked=True)
            if changed != len(updates):
                raise WriteConflict("a concurrent writer changed the same standings")

    async def insert_standings(self, rows: Sequence[StandingRow]) -> None:
        """Insert standings that are not stored yet, as they are (``rankline replay``
        writes the standings it rebuilt into emptied tables)."""
        if not rows:
            return
        if self._hot is not None:
            await self._hot.insert_standings(self._conn, rows)
            return
        for chunk in chunks(rows, 5000):
            await self._conn.execute(insert(t.standings), [_standing_row(*x) for x in chunk])

    async def set_standings(self, rows: Sequence[StandingRow]) -> None:
        """Overwrite stored standings with these, revisions included (``rankline replay``,
        over standings it wrote itself)."""
        await self._update_standings(rows, checked=False)

    async def _update_standings(self, rows: Sequence[StandingRow], *, checked: bool) -> int:
        """Update stored standings to these rows; ``checked``: only where the stored revision
        is the one before (a standing changed meanwhile is left as it is). The rows changed."""
        if not rows:
            return 0
        s = t.standings
        where = [
            s.c.board_id == bindparam("k_board"),
            s.c.window == bindparam("k_window"),
            s.c.period == bindparam("k_period"),
            s.c.scope == bindparam("k_scope"),
            s.c.player_id == bindparam("k_player"),
        ]
        if checked:
            where.append(s.c.revision == bindparam("k_before"))
        result = await self._conn.execute(
            update(s)
            .where(*where)
            .values(
                score=bindparam("k_score"),
                achieved_at=bindparam("k_at"),
                revision=bindparam("k_revision"),
                subscore=bindparam("k_sub"),
            ),
            [
                {
                    "k_board": lb.board,
                    "k_window": lb.window,
                    "k_period": lb.period,
                    "k_scope": lb.scope,
                    "k_player": player,
                    "k_score": score,
                    "k_at": at,
                    "k_revision": revision,
                    **({"k_before": revision - 1} if checked else {}),
                    "k_sub": subscore,
                }
                for lb, player, score, at, revision, subscore in rows
            ],
        )
        return int(result.rowcount)

    async def board_definitions(self, board_ids: Sequence[BoardId]) -> dict[BoardId, str]:
        """The stored definitions (JSON text) of these boards, read in this transaction and
        share-locked until it ends: a board change waits for it, so a write never lands on a
        board after its freeze or deletion was acknowledged."""
        if self._hot is not None:
            return await self._hot.board_definitions(self._conn, sorted(set(board_ids)))
        b = t.boards
        rows = await self._conn.execute(
            select(b.c.id, b.c.definition)
            .where(b.c.id.in_(sorted(set(board_ids))))
            .with_for_update(read=True)
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


def _standing_row(
    leaderboard: LeaderboardId,
    player: PlayerId,
    score: int,
    at: Micros,
    revision: int,
    subscore: int | None,
) -> dict[str, Any]:
    return {
        "board_id": leaderboard.board,
        "window": leaderboard.window,
        "period": leaderboard.period,
        "scope": leaderboard.scope,
        "player_id": player,
        "score": score,
        "achieved_at": at,
        "revision": revision,
        "subscore": subscore,
    }


class SqlStore:
    """The durable store on any SQLAlchemy async URL: every method maps driver errors to
    ``StoreUnavailable``."""

    def __init__(
        self,
        url: str,
        *,
        sqlite_synchronous: str = "FULL",
        sqlite_cache_mb: int = 64,
        pool_size: int = 10,
        pool_overflow: int = 10,
    ) -> None:
        self.url = url
        try:
            parsed = make_url(url)
        except SQLAlchemyError as exc:
            raise StoreUnavailable("the database URL is not valid") from exc
        self.dialect = parsed.get_backend_name()
        if self.dialect == "sqlite" and parsed.database not in (None, "", ":memory:"):
            try:
                Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:  # a file where the data directory should go, say
                raise StoreUnavailable(f"cannot create {parsed.database}") from exc
        options: dict[str, Any] = {}
        if self.dialect != "sqlite":  # a file has no connection to lose: no ping per checkout
            options |= {
                "pool_pre_ping": True,
                "pool_size": pool_size,
                "max_overflow": pool_overflow,
                "pool_recycle": 1800,
            }
        if self.dialect == "postgresql" and parsed.get_driver_name() == "asyncpg":
            # For every statement, a plan made for its own parameters: see PostgresStatements
            # in ``hot``. Set when each connection opens, not per transaction (a round trip).
            options["connect_args"] = {"server_settings": {"plan_cache_mode": "force_custom_plan"}}
        self._engine: AsyncEngine = create_async_engine(url, **options)
        self._writes = self._engine
        """The group commit's engine: on SQLite one connection of its own (see below)."""
        self._hot = hot_statements(self.dialect)
        if self.dialect == "sqlite":
            # SQLite drops a connection's page cache whenever another connection wrote
            # since it last read, so batches taking turns over a pool would each start
            # cold. One connection does every group commit and keeps the cache: its
            # B-tree pages stay at hand between batches, and a batch's dirty pages stay in
            # memory until the commit (a small cache spills them into the WAL mid-batch).
            # Nor does it copy the WAL into the database (``wal_autocheckpoint`` would,
            # before the batch's callers hear back): ``_checkpoint_wal`` does, on another
            # connection, while the writer answers them and gathers its next batch.
            self._writes = create_async_engine(url, pool_size=1, max_overflow=0)
            _configure_sqlite(self._engine, sqlite_synchronous, None)
            _configure_sqlite(self._writes, sqlite_synchronous, sqlite_cache_mb)
        self._checkpoint: asyncio.Task[None] | None = None
        self._changes_checkpointed = 0

    @classmethod
    def from_settings(cls, settings: Settings) -> SqlStore:
        """The store the settings name, tuned as they say (``open_store`` also starts it
        and checks its schema)."""
        return cls(
            settings.database,
            sqlite_synchronous=settings.sqlite_synchronous,
            sqlite_cache_mb=settings.sqlite_cache_mb,
            pool_size=settings.database_pool_size,
            pool_overflow=settings.database_pool_overflow,
        )

    @property
    def engine(self) -> AsyncEngine:
        return self._engine

    def log_engines(self) -> tuple[AsyncEngine, AsyncEngine] | None:
        """The connections an ingestion log kept in this store shares (reads, writes): on
        SQLite its writes must go through the one write connection (see ``SqlLog``);
        elsewhere the log keeps a pool of its own (None)."""
        return (self._engine, self._writes) if self.dialect == "sqlite" else None

    async def start(self) -> None:
        async with mapped_errors(), self._engine.connect() as conn:
            await conn.execute(select(1))

    async def close(self) -> None:
        await self._checkpointed()
        await self._writes.dispose()
        await self._engine.dispose()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[_Transaction]:
        await self._checkpointed()
        async with mapped_errors(), self._writes.begin() as conn:
            if self._hot is not None:
                await self._hot.begin(conn)
            yield _Transaction(conn, self._hot)
            due = self._writes is not self._engine and await self._checkpoint_due(conn)
        if due:
            self._checkpoint = asyncio.create_task(self._checkpoint_wal())

    async def _checkpoint_due(self, conn: AsyncConnection) -> bool:
        """Whether the rows this connection changed since the last checkpoint (a measure
        of the pages the WAL holds) call for the next one. Each checkpoint writes its pages
        and syncs the database file: fewer, bigger ones write a page changed twice once."""
        if self._hot is not None:
            changed = await self._hot.total_changes(conn)
        else:
            changed = int((await conn.exec_driver_sql("SELECT total_changes()")).scalar_one())
        if changed < self._changes_checkpointed:  # a new connection counts from 0
            self._changes_checkpointed = 0
        if changed - self._changes_checkpointed < _CHECKPOINT_ROWS:
            return False
        self._changes_checkpointed = changed
        return True

    async def _checkpointed(self) -> None:
        """Wait for a running checkpoint. At most one runs, beside the writer's work until
        its next batch: the WAL stays bounded, and with every frame copied when that batch
        starts, its commit writes the WAL from the beginning again."""
        if self._checkpoint is not None:
            with contextlib.suppress(Exception):
                await self._checkpoint
            self._checkpoint = None

    async def _checkpoint_wal(self) -> None:
        """Copy the committed WAL into the database file (a passive checkpoint: it waits
        for no reader). Committed data is safe in the WAL already; a failed checkpoint
        only leaves the copying to the next one."""
        try:
            async with self._engine.connect() as conn:
                await conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
        except (SQLAlchemyError, OSError) as exc:
            log.warning("SQLite checkpoint failed: %s", exc)

    async def load_boards(self) -> list[dict[str, Any]]:
        async with mapped_errors(), self._engine.connect() as conn:
            rows = await conn.execute(select(t.boards.c.definition).order_by(t.boards.c.id))
            return [_unjson.decode(r[0]) for r in rows]

    async def save_board(
        self,
        board_id: BoardId,
        definition: dict[str, Any],
        now: Micros,
        check: Callable[[dict[str, Any] | None, bool], None] | None = None,
        audit: Callable[[dict[str, Any] | None], AuditEntry] | None = None,
    ) -> bool:
        """Store a board's definition; True when it was created. ``check`` sees the stored
        definition (None: none) and whether the board has entries, in the same transaction
        (the row is locked, so concurrent changes of one board take turns), and may raise.
        ``audit`` gives the change's audit entry from the stored definition, written in the
        same transaction."""
        b, s = t.boards, t.standings
        text = _json.encode(definition).decode()
        async with mapped_errors(), self._engine.begin() as conn:
            stored = await conn.execute(
                select(b.c.definition).where(b.c.id == board_id).with_for_update()
            )
            old = stored.scalar()
            if old is None:
                if check is not None:
                    check(None, False)
                await conn.execute(
                    insert(b).values(id=board_id, definition=text, created_at=now, updated_at=now)
                )
                if audit is not None:
                    await add_audit(conn, audit(None))
                return True
            stored_definition = _unjson.decode(old)
            if check is not None:
                entries = await conn.execute(
                    select(s.c.player_id).where(s.c.board_id == board_id).limit(1)
                )
                # a rating board's matches count too (its players may all be provisional)
                rated = await conn.execute(
                    select(t.matches.c.seq).where(t.matches.c.board_id == board_id).limit(1)
                )
                has_entries = entries.first() is not None or rated.first() is not None
                check(stored_definition, has_entries)
            await conn.execute(
                update(b).where(b.c.id == board_id).values(definition=text, updated_at=now)
            )
            if audit is not None:
                await add_audit(conn, audit(stored_definition))
            return False

    async def delete_board(self, board_id: BoardId, audit: AuditEntry | None = None) -> bool:
        """Delete a board and everything on it, and write ``audit`` in the same transaction;
        False (and no ``audit``) when there was no such board. The board's row goes
        first: a group commit holding it (``board_definitions``) finishes before, and one
        starting later finds no board."""
        async with mapped_errors(), self._engine.begin() as conn:
            found = await conn.execute(delete(t.boards).where(t.boards.c.id == board_id))
            for table in (
                t.standings,
                t.score_events,
                t.periods,
                t.archive,
                t.removals,
                t.voids,
                *t.RATING_TABLES,
                t.board_deliveries,
            ):
                await conn.execute(delete(table).where(table.c.board_id == board_id))
            await conn.execute(delete(t.snapshots).where(t.snapshots.c.board_id == board_id))
            if found.rowcount and audit is not None:
                await add_audit(conn, audit)
            return bool(found.rowcount)

    async def board_has_entries(self, board_id: BoardId) -> bool:
        s = t.standings
        async with mapped_errors(), self._engine.connect() as conn:
            row = await conn.execute(select(s.c.player_id).where(s.c.board_id == board_id).limit(1))
            return row.first() is not None

    async def list_periods(
        self, board_id: BoardId, window: str | None = None
    ) -> list[StoredPeriod]:
        p = t.periods
        query = select(p.c.window, p.c.period, p.c.starts_at, p.c.ends_at).where(
            p.c.board_id == board_id
        )
        if window is not None:
            query = query.where(p.c.window == window)
        async with mapped_errors(), self._engine.connect() as conn:
            return [StoredPeriod._make(r) for r in await conn.execute(query)]

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


def _configure_sqlite(engine: AsyncEngine, synchronous: str, cache_mb: int | None) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _pragmas(dbapi_conn: Any, _record: Any) -> None:
        cursor = dbapi_conn.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.execute("PRAGMA busy_timeout=5000")
        if cache_mb is not None:  # the group commit's connection
            cursor.execute(f"PRAGMA cache_size=-{cache_mb * 1024}")  # negative: in KiB
            cursor.execute("PRAGMA wal_autocheckpoint=0")
        cursor.close()
