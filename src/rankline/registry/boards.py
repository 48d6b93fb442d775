"""The board registry: every board definition, as current as the request being served.

Definitions live in SQL; each worker keeps them in memory so that a read costs no SQL. With
one process (the in-process index) its registry sees every change, as it makes them all.
Workers that share a Redis index each hold a registry, kept current by ``BoardVersions``:
every change moves a version in Redis before and after its SQL transaction, and a request
reads that version (``refresh``) after it arrived, in the same round trip as its own index
reads. When it is not the version seen at the last reload, or a change is in flight, the
registry reloads from SQL first. So whatever a worker acknowledged (a new board, a freeze,
a deletion) is what the next request to any worker sees; no timer is involved. While the
index is unusable (Redis down) a refresh reloads from SQL.

    boards = Boards(store, clock, versions)
    await boards.refresh()
    board = boards.get("arena-solo")
    resolved = boards.resolve(board, "daily", None, "region:EU")
"""

from __future__ import annotations

import asyncio
import functools
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar, TypeVarTuple

import msgspec

from rankline.boards import Board, BoardSpec, parse_scope, shown
from rankline.errors import Conflict, InvalidInput, NotFound
from rankline.index.base import RankingIndex
from rankline.index.gateway import CheckedVersions
from rankline.ordering import HEAD_BYTES, Keys
from rankline.periods import Period, current_period, parse_period
from rankline.store.audit import Attribution, AuditEntry
from rankline.store.sql import SqlStore
from rankline.types import GLOBAL_SCOPE, BoardId, Clock, LeaderboardId, Micros, Order

log = logging.getLogger("rankline")
T = TypeVar("T")
Ts = TypeVarTuple("Ts")
_RESOLVED_MAX = 10_000
_RESOLVED_MICROS = 1_000_000
_PLAIN = Keys("desc")


@dataclass(frozen=True, slots=True)
class Resolved:
    """A read's leaderboard, resolved from the request's window, period and scope."""

    leaderboard: LeaderboardId
    period: Period
    expired: bool
    """Its retention has ended: reads go to the archive (or SQL) instead of the index."""


def resolve(
    board: Board, window: str | None, period: str | None, scope: str | None, now: Micros
) -> tuple[LeaderboardId, Period]:
    """``window`` defaults to ``all_time`` (or the board's first window), ``period`` to the
    current one and ``scope`` to ``global``; InvalidInput or NotFound when they don't fit."""
    window = window or board.primary_window
    if window not in board.windows:
        raise InvalidInput.at(
            ["query", "window"],
            f"the board has no {window!r} window (it has {', '.join(board.windows)})",
        )
    if period is None:
        found = current_period(window, now, board.calendar)
        if found is None:
            raise NotFound(f"the board has no current {window} period")
    else:
        try:
            found = parse_period(window, period, board.calendar)
        except ValueError as exc:
            raise InvalidInput.at(["query", "period"], str(exc)) from None
    scope = parse_scope(board, scope or GLOBAL_SCOPE)
    return LeaderboardId(board.id, window, found.name, scope), found


class Boards:
    """Board definitions as current as the request being served (see the module's doc)."""

    def __init__(
        self, store: SqlStore, clock: Clock, versions: CheckedVersions | None = None
    ) -> None:
        self._store = store
        self._clock = clock
        self._versions = versions
        self._resolved: dict[tuple[Any, ...], tuple[Resolved, Micros, Micros]] = {}
        """Resolved reads, each valid from when it was made until its own end (checked on
        every use: a second, or the end of its period or retention); the oldest forgotten
        first when full. A plain dict: a cache class's lookup cost a microsecond a read."""
        self._listeners: list[Callable[[], None]] = []
        self._boards: dict[BoardId, Board] = {}
        self._definitions: dict[BoardId, dict[str, Any]] = {}
        self._seen: bytes | None = None
        """The version read before the last reload; None: check again next time."""
        self._reloading = asyncio.Lock()
        self._reloads = 0
        self._begun = self._done = 0
        """Reloads begun, and the number of the last one done, by ``refresh``."""

    @property
    def shared(self) -> bool:
        return self._versions is not None

    def on_change(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` whenever the definitions change (caches of answers drop what
        they hold for the old ones)."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        self._resolved.clear()
        for listener in self._listeners:
            listener()

    def order_of(self, board_id: BoardId) -> Order:
        board = self._boards.get(board_id)
        return "desc" if board is None else board.order

    def keys_of(self, board_id: BoardId) -> Keys:
        """How the board's entries become ordering keys (a plain desc board's, unknown)."""
        board = self._boards.get(board_id)
        return _PLAIN if board is None else board.keys

    def head_of(self, board_id: BoardId) -> int:
        """How long the head of the board's ordering keys is (longer with a subscore)."""
        board = self._boards.get(board_id)
        return HEAD_BYTES if board is None else board.keys.head

    def shards_of(self, board_id: BoardId) -> int:
        """How many shards the board's leaderboards are split into (1: not split)."""
        board = self._boards.get(board_id)
        return 1 if board is None else board.shards

    def dense_of(self, board_id: BoardId) -> bool:
        """Whether the board's leaderboards keep their distinct scores (dense ranks)."""
        board = self._boards.get(board_id)
        return board is not None and board.dense

    def resolve(
        self, board: Board, window: str | None, period: str | None, scope: str | None
    ) -> Resolved:
        """A read's leaderboard (``resolve``), and whether its retention has ended; kept
        for a second of the clock, or until the period or its retention ends."""
        now = self._clock.now()
        key = (board, window, period, scope)
        held = self._resolved.get(key)
        if held is not None and held[1] <= now < held[2]:
            return held[0]
        leaderboard, found = resolve(board, window, period, scope, now)
        expires = board.expires_at(found)
        expired = expires is not None and now >= expires
        until = now + _RESOLVED_MICROS
        if period is None and found.ends_at is not None:
            until = min(until, found.ends_at)
        if expires is not None and not expired:
            until = min(until, expires)
        resolved = Resolved(leaderboard, found, expired)
        if key not in self._resolved and len(self._resolved) >= _RESOLVED_MAX:
            del self._resolved[next(iter(self._resolved))]
        self._resolved[key] = (resolved, now, until)
        return resolved

    def current(
        self, board_id: BoardId, run: Callable[[Board, *Ts], Awaitable[T]], *args: *Ts
    ) -> Awaitable[T]:
        """``run(board, *args)`` on the board as of now. The registry's check goes out beside
        the index reads ``run`` makes (one round trip); when it finds the registry out of
        date, the answer is dropped and ``run`` goes again on the board as reloaded (or
        NotFound). (Not a coroutine itself: with one process, the registry is current and
        the read is ``run``'s own, with no layer around it.)"""
        board = self._boards.get(board_id)
        if self._versions is None:  # this process makes every change: it is current
            if board is None:
                raise NotFound(f"no board {board_id!r}")
            return run(board, *args)
        return self._checked(board_id, board, run, args)

    async def _checked(
        self,
        board_id: BoardId,
        board: Board | None,
        run: Callable[[Board, *Ts], Awaitable[T]],
        args: tuple[*Ts],
    ) -> T:
        if board is None:
            return await run(await self.find(board_id), *args)
        # The check's task starts on the loop's next turn, so its read joins the group that
        # ``run``'s first index read (asked during this turn) goes in.
        check = asyncio.ensure_future(self.refresh())
        try:
            answer = await run(board, *args)
            failure: Exception | None = None
        except Exception as exc:
            failure = exc
        except BaseException:
            check.cancel()
            raise
        if await check:
            fresh = self.get(board_id)
            if fresh is not board:
                return await run(fresh, *args)
        if failure is not None:
            raise failure
        return answer

    def boards(self) -> list[Board]:
        return [self._boards[k] for k in sorted(self._boards)]

    async def listed(self) -> list[Board]:
        """Every board as of now (after ``refresh``), by id."""
        await self.refresh()
        return self.boards()

    def cached(self, board_id: BoardId) -> Board | None:
        """The board as last loaded, without checking for changes elsewhere."""
        return self._boards.get(board_id)

    def get(self, board_id: BoardId) -> Board:
        board = self._boards.get(board_id)
        if board is None:
            raise NotFound(f"no board {board_id!r}")
        return board

    async def find(self, board_id: BoardId) -> Board:
        """The board as of now (after ``refresh``); NotFound when there is none."""
        await self.refresh()
        return self.get(board_id)

    async def refresh(self) -> bool:
        """Make the registry include every change acknowledged before this call, in any
        worker; True when it reloaded from SQL."""
        if self._versions is None:
            return False
        ticket, seen = self._begun, None
        checked = await self._versions.check()
        if checked is not None:
            version, changing = checked
            if not changing:
                seen = version
                if version == self._seen:
                    return False
        async with self._reloading:
            # A reload that began after this call, or after this version was read by a
            # concurrent call, includes every change this call must see.
            if self._done > ticket or (seen is not None and seen == self._seen):
                return True
            self._begun += 1
            begun, self._seen = self._begun, None
            await self.reload()
            self._seen, self._done = seen, begun
        return True

    async def reload(self) -> None:
        """Read every definition from SQL; a definition that did not change keeps its
        ``Board`` (and so the answers cached for it)."""
        definitions = {d["id"]: d for d in await self._store.load_boards()}
        self._reloads += 1
        if definitions == self._definitions:
            return
        boards = {}
        for board_id, definition in definitions.items():
            board = self._boards.get(board_id)
            if board is None or self._definitions.get(board_id) != definition:
                board = Board(msgspec.convert(definition, BoardSpec))
            boards[board_id] = board
        self._boards, self._definitions = boards, definitions
        self._changed()

    def put(self, board: Board) -> None:
        """This worker stored ``board`` (see ``changing``)."""
        self._boards[board.id] = board
        self._definitions[board.id] = board.to_json()
        self._changed()

    def drop(self, board_id: BoardId) -> None:
        """This worker deleted the board (see ``changing``)."""
        self._boards.pop(board_id, None)
        self._definitions.pop(board_id, None)
        self._changed()

    @asynccontextmanager
    async def changing(self) -> AsyncIterator[None]:
        """Around a change of a definition in SQL: the other workers see it from the
        moment it commits. Nothing is changed (IndexUnavailable) when they cannot be told."""
        if self._versions is None:
            yield
            return
        change, before, reloads = uuid.uuid4().hex, self._seen, self._reloads
        began = await self._versions.begin(change)
        self._seen = None  # this worker's own change moves the version too
        try:
            yield
        finally:
            ended = await self._versions.end(change)
            # Current before, no other change moved the version and no reload (of
            # definitions read before this change) ran meanwhile: current still.
            quiet = reloads == self._reloads and ended is not None and _next(began) == ended
            if quiet and before is not None and _next(before) == began:
                self._seen = ended

    async def start(self) -> None:
        """Load every definition, noting the version they are current for."""
        seen = None
        if self._versions is not None:
            checked = await self._versions.check()
            if checked is not None and not checked[1]:
                seen = checked[0]
        self._seen = None
        await self.reload()
        self._seen = seen


def _next(version: bytes) -> bytes:
    return str(int(version) + 1).encode() if version.isdigit() else b""


class BoardChanges:
    """Creating, updating and deleting boards: stored in SQL, then seen by every worker.

    A change holds the commit lock, so a batch of this process that read the old definition
    commits first (other processes' batches hold the board's row; see the writer)."""

    def __init__(
        self,
        boards: Boards,
        store: SqlStore,
        index: RankingIndex,
        commit_lock: asyncio.Lock,
        clock: Clock,
    ) -> None:
        self._boards = boards
        self._store = store
        self._index = index
        self._commit_lock = commit_lock
        self._clock = clock
        self._lock = asyncio.Lock()

    async def put(
        self, board_id: BoardId, spec: BoardSpec, by: Attribution | None = None
    ) -> tuple[Board, bool]:
        """Create or update a board; True when it was created. Checked against the stored
        definition, whichever worker stored it. Made by hand (``by``), the change is
        audited in its transaction: ``board.create``, ``board.freeze``, ``board.unfreeze``
        or ``board.change``, with the definition as stored."""
        new = Board.define(board_id, spec)

        def check(stored: dict[str, Any] | None, has_entries: bool) -> None:
            if stored is not None and stored.get("schedule") and new.spec.schedule is None:
                raise Conflict(
                    f"board {board_id!r} ranks a tournament: change it with PUT /v1/tournaments"
                )
            if stored is not None and has_entries:
                Board(msgspec.convert(stored, BoardSpec)).check_update(new)

        async with self._lock, self._commit_lock, self._boards.changing():
            now = self._clock.now()
            audit = None if by is None else functools.partial(_put_entry, by, now, new)
            created = await self._store.save_board(board_id, new.to_json(), now, check, audit)
            self._boards.put(new)
        return new, created

    async def delete(
        self, board_id: BoardId, *, tournament: bool = False, by: Attribution | None = None
    ) -> None:
        """Delete the board, its standings and events, and its leaderboards in the index.
        A tournament's board goes only with its tournament (``tournament``). Made by hand
        (``by``), the deletion is audited in its transaction (``board.delete``)."""
        if not tournament and (await self._boards.find(board_id)).spec.schedule is not None:
            raise Conflict(
                f"board {board_id!r} ranks a tournament: delete it with DELETE /v1/tournaments"
            )
        async with self._lock, self._commit_lock, self._boards.changing():
            audit = (
                None if by is None else by.entry(self._clock.now(), "board.delete", board=board_id)
            )
            if not await self._store.delete_board(board_id, audit):
                self._boards.drop(board_id)
                raise NotFound(f"no board {board_id!r}")
            self._boards.drop(board_id)
            await self._index.drop(await self._index.leaderboards(board_id))


def _put_entry(
    by: Attribution, at: Micros, new: Board, stored: dict[str, Any] | None
) -> AuditEntry:
    """The audit entry of storing ``new`` over the ``stored`` definition (None: none):
    ``board.create``, ``board.freeze``, ``board.unfreeze`` or ``board.change``, with the
    definition as shown."""
    before = None if stored is None else stored.get("status", "active")
    if before is None:
        action = "board.create"
    elif new.spec.status == "frozen" and before != "frozen":
        action = "board.freeze"
    elif new.spec.status == "active" and before == "frozen":
        action = "board.unfreeze"
    else:
        action = "board.change"
    return by.entry(at, action, board=new.id, detail={"definition": shown(new)})
