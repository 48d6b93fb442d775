"""The lock that keeps a batch's commit and its index changes apart from other writes.

A batch of submissions, a board change, a ban or an erasure each take it, so that none
interleaves with a batch of this process between its SQL commit and its index changes. The
group-commit writer keeps it across consecutive batches (the next batch's SQL runs while the
last one's changes go to the index), and hands it over as soon as anyone else asks: this lock
counts who waits for it.
"""

from __future__ import annotations

import asyncio
from typing import Literal


class CommitLock(asyncio.Lock):
    """An ``asyncio.Lock`` that knows how many tasks wait to take it."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = 0

    async def acquire(self) -> Literal[True]:
        self.waiting += 1
        try:
            return await super().acquire()
        finally:
            self.waiting -= 1

    @property
    def wanted(self) -> bool:
        """Whether a task waits for the lock (its holder should let go soon)."""
        return self.waiting > 0


__all__ = ["CommitLock"]
