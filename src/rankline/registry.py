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

    registry = BoardRegistry(store, versions, usable=lambda: keeper.usable)
    await registry.refresh()
    board = registry.get("arena-solo")
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol

import msgspec

from rankline.boards import Board, BoardSpec
from rankline.errors import IndexUnavailable, NotFound
from rankline.store.sql import SqlStore
from rankline.types import BoardId

log = logging.getLogger("rankline")


class BoardVersions(Protocol):
    """A version of the board definitions that every worker can read (Redis:
    ``rankline.index.board_versions``)."""

    async def check(self) -> tuple[bytes, bool]:
        """The current version, and whether a change is in flight."""
        ...

    async def begin(self, change: str) -> bytes:
        """Record a change as in flight; the version it moved to."""
        ...

    async def end(self, change: str) -> bytes:
        """Record a change as done; the version it moved to."""
        ...


class BoardRegistry:
    def __init__(
        self,
        store: SqlStore,
        versions: BoardVersions | None = None,
        *,
        usable: Callable[[], bool] = lambda: True,
        on_change: Callable[[], None] = lambda: None,
    ) -> None:
        self._store = store
        self._versions = versions
        self._usable = usable
        """Whether the shared index (and so the version in it) can be read now."""
        self._on_change = on_change
        """Called when a reload found other definitions (caches of answers drop them)."""
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

    def boards(self) -> list[Board]:
        return [self._boards[k] for k in sorted(self._boards)]

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
        if self._usable():
            try:
                version, changing = await self._versions.check()
                if not changing:
                    seen = version
                    if version == self._seen:
                        return False
            except IndexUnavailable:
                pass
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
        self._on_change()

    def put(self, board: Board) -> None:
        """This worker stored ``board`` (see ``changing``)."""
        self._boards[board.id] = board
        self._definitions[board.id] = board.to_json()
        self._on_change()

    def drop(self, board_id: BoardId) -> None:
        """This worker deleted the board (see ``changing``)."""
        self._boards.pop(board_id, None)
        self._definitions.pop(board_id, None)
        self._on_change()

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
            try:
                ended = await self._versions.end(change)
            except IndexUnavailable as exc:
                # The change stays in flight until it expires: every worker reloads until then.
                log.warning("could not mark a board change done: %s", exc.detail)
            else:
                # Current before, no other change moved the version and no reload (of
                # definitions read before this change) ran meanwhile: current still.
                quiet = reloads == self._reloads and _next(began) == ended
                if quiet and before is not None and _next(before) == began:
                    self._seen = ended

    async def start(self) -> None:
        """Load every definition, noting the version they are current for."""
        seen = None
        if self._versions is not None:
            try:
                version, changing = await self._versions.check()
                seen = None if changing else version
            except IndexUnavailable:
                pass
        self._seen = None
        await self.reload()
        self._seen = seen


def _next(version: bytes) -> bytes:
    return str(int(version) + 1).encode() if version.isdigit() else b""
