"""Top-K snapshots by time: every interval, the top of each live leaderboard, stored for good.

A board with ``"snapshots": {"every_seconds": 60, "k": 100, "keep_days": 7}`` has, every
interval (the slot ``now // every_seconds``), the top ``k`` of each leaderboard of its current
periods stored in ``rl_snapshots``. Every worker runs ``Snapshots.run``; each slot of each
leaderboard is claimed by inserting its row (``store.snapshots``), so one worker takes it and
the others pass. The first tick in a slot takes it, as the index is then; a slot in which no
worker ran (the service was down) has no snapshot: nothing is back-filled with standings of
another time. Snapshots older than ``keep_days`` are deleted once per slot.

    snapshots = Snapshots(SnapshotStore(store), boards, gateway, clock, "worker-1")
    taken = await snapshots.take_due()
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from collections.abc import Callable

import msgspec

from rankline.answers import Entry
from rankline.boards import Board
from rankline.errors import RanklineError
from rankline.index.base import IndexReader
from rankline.index.gateway import IndexGateway
from rankline.periods import current_period
from rankline.registry import Boards
from rankline.runtime.clock import format_time
from rankline.store.snapshots import SnapshotStore
from rankline.types import Clock, LeaderboardId

log = logging.getLogger("rankline.lifecycle.snapshots")

_DAY_MICROS = 86_400_000_000
_encoder = msgspec.json.Encoder()


def entries_json(board: Board, keys: list[bytes]) -> bytes:
    """The entries of a top page (rank, player, score, time, subscore) as a JSON array."""
    entries = []
    for i, key in enumerate(keys):
        score, subscore, at, player = board.keys.decode(key)
        entries.append(
            Entry(
                rank=i + 1,
                player_id=player,
                score=score,
                achieved_at=format_time(at),
                subscore=subscore,
            )
        )
    return _encoder.encode(entries)


class Snapshots:
    """Takes the snapshots that are due, as one of any number of workers."""

    def __init__(
        self,
        store: SnapshotStore,
        boards: Boards,
        gateway: IndexGateway,
        clock: Clock,
        worker: str | None = None,
    ) -> None:
        self._store = store
        self._boards = boards
        self._gateway = gateway
        self._clock = clock
        self._worker = (
            worker or f"{socket.gethostname()[:40]}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        )
        """Who claimed a slot, as its row records it."""
        self._done: dict[str, int] = {}
        """The last slot this worker went through, per board."""

    async def run(self, every_seconds: float, stopping: Callable[[], bool]) -> None:
        """Take what is due every ``every_seconds`` (the finest interval is 10 s) until
        ``stopping()``."""
        while not stopping():
            try:
                await self.take_due()
            except RanklineError as exc:
                log.warning("snapshots not taken: %s; retrying", exc.detail)
            except Exception:
                log.exception("snapshots not taken; retrying")
            await asyncio.sleep(every_seconds)

    async def take_due(self) -> list[tuple[LeaderboardId, int]]:
        """Take this slot's snapshots not taken yet by any worker: (leaderboard, slot) of
        each taken here."""
        taken: list[tuple[LeaderboardId, int]] = []
        for board in self._boards.boards():
            spec = board.spec.snapshots
            if spec is None:
                continue
            now = self._clock.now()
            slot = now // (spec.every_seconds * 1_000_000)
            if self._done.get(board.id) == slot:
                continue
            for leaderboard in await self._live(board, now):
                if await self._store.claim(leaderboard, slot, now, self._worker):
                    await self._take(board, leaderboard, slot, spec.k)
                    taken.append((leaderboard, slot))
            await self._store.prune(board.id, now - spec.keep_days * _DAY_MICROS)
            self._done[board.id] = slot
        return taken

    async def _live(self, board: Board, now: int) -> list[LeaderboardId]:
        """The board's leaderboards of the current periods that hold entries."""
        current = {
            window: period.name
            for window in board.windows
            if (period := current_period(window, now, board.calendar)) is not None
        }
        held, _ = await self._gateway.read(lambda index: index.leaderboards(board.id))
        return sorted(lb for lb in held if current.get(lb.window) == lb.period)

    async def _take(self, board: Board, leaderboard: LeaderboardId, slot: int, k: int) -> None:
        async def top(index: IndexReader) -> tuple[int, list[bytes]]:
            return await index.page(leaderboard, 0, k)

        (total, keys), _ = await self._gateway.read(top)
        await self._store.fill(leaderboard, slot, total, len(keys), entries_json(board, keys))


__all__ = ["Snapshots", "entries_json"]
