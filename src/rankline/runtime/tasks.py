"""Stopping a background task so that it stops.

On Python 3.11, ``asyncio.wait_for`` returns what it waited for when that and a cancellation
land in the same turn of the event loop (CPython gh-86296), and libraries wait that way
(nats-py for each of the server's answers, for one): a task cancelled once may run on.
``stop`` cancels again until it ends.
"""

from __future__ import annotations

import asyncio
from typing import Any

AGAIN_SECONDS = 0.1
"""How often ``stop`` cancels a task again while it runs on."""


async def stop(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` and wait until it ends, cancelling it again every ``AGAIN_SECONDS``
    while it runs on. What ended it otherwise (an error) is raised; a cancellation of the
    caller itself is not swallowed."""
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=AGAIN_SECONDS)
    if not task.cancelled():
        task.result()


__all__ = ["stop"]
