"""Board definition versions in Redis: how every worker knows its board registry is current.

Board definitions live in SQL. Each change of one (a PUT or DELETE) goes in three steps:
``begin`` moves the version counter and records the change as in flight, the SQL
transaction commits, ``end`` moves the counter again and takes the change off. A worker
reads ``check`` (the counter, and whether any change is in flight) after a request arrived:
when the counter is the one it saw at its last reload and nothing is in flight, its
definitions include every change acknowledged before that request; otherwise it reloads
them from SQL. The check is a grouped read (``pipelining``), so it shares the round trip
of the request's own index reads.

A change whose ``end`` never came (its worker died, Redis failed) counts as in flight until
it expires, ``CHANGE_SECONDS`` after it began: until then every worker reloads on every
check. A missing counter (Redis flushed) starts again from Redis's clock in microseconds,
so it never comes back to a value seen before.
"""

from __future__ import annotations

from collections.abc import Callable

from redis.commands.core import AsyncScript

from rankline.index.redis import keys as k
from rankline.index.redis.common import mapped
from rankline.index.redis.pipelining import GroupedReads

CHANGE_SECONDS = 60
"""How long a board change may take between ``begin`` and ``end``."""
_KEYS = (k.BOARDS_VERSION, k.BOARDS_CHANGING)


class RedisBoardVersions:
    """``BoardVersions`` (``rankline.registry``) shared by the workers of one Redis."""

    def __init__(self, script: Callable[[str], AsyncScript], grouped: GroupedReads) -> None:
        """``script``: registers one of the index's scripts by name (``RedisLink.script``)."""
        self._grouped = grouped
        self._check = script("board_check")
        self._begin = script("board_begin")
        self._end = script("board_end")

    async def check(self) -> tuple[bytes, bool]:
        async with mapped():
            version, changing = await self._grouped.call(self._check, _KEYS, ())
        return bytes(version), int(changing) > 0

    async def begin(self, change: str) -> bytes:
        async with mapped():
            return str(await self._begin(keys=_KEYS, args=[change, CHANGE_SECONDS * 1000])).encode()

    async def end(self, change: str) -> bytes:
        async with mapped():
            return str(await self._end(keys=_KEYS, args=[change])).encode()
