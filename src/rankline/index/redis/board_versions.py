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

from redis import asyncio as aioredis

from rankline.index.redis import keys as k
from rankline.index.redis.common import mapped
from rankline.index.redis.pipelining import GroupedReads

CHANGE_SECONDS = 60
"""How long a board change may take between ``begin`` and ``end``."""
_KEYS = (k.BOARDS_VERSION, k.BOARDS_CHANGING)

_NOW_MS = """
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

_BUMP = """
local function bump()
  if redis.call('EXISTS', KEYS[1]) == 1 then
    return redis.call('INCR', KEYS[1])
  end
  local clock = string.format('%.0f', tonumber(t[1]) * 1000000 + tonumber(t[2]))
  redis.call('SET', KEYS[1], clock)
  return tonumber(clock)
end
"""

CHECK = (
    _NOW_MS
    + """
return {redis.call('GET', KEYS[1]) or '', redis.call('ZCOUNT', KEYS[2], '(' .. now_ms, '+inf')}
"""
)
"""The counter ('' when missing) and how many changes are in flight."""

BEGIN = (
    _NOW_MS
    + _BUMP
    + """
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now_ms)
redis.call('ZADD', KEYS[2], now_ms + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return bump()
"""
)
"""ARGV: the change's id and how long it may stay in flight (ms)."""

END = (
    _NOW_MS
    + _BUMP
    + """
redis.call('ZREM', KEYS[2], ARGV[1])
return bump()
"""
)
"""ARGV: the change's id."""


class RedisBoardVersions:
    """``BoardVersions`` (``rankline.lifecycle.registry``) shared by the workers of one Redis."""

    def __init__(self, client: aioredis.Redis, grouped: GroupedReads) -> None:
        self._grouped = grouped
        self._check = client.register_script(CHECK)
        self._begin = client.register_script(BEGIN)
        self._end = client.register_script(END)

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
