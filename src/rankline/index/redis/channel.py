"""A lean pipelined connection for the grouped index reads (``pipelining.GroupedReads``).

Measured here with uvloop, one EVALSHA per round trip: redis-py's asyncio pipeline costs
about 90 µs of CPU (pool, pipeline object, timeouts and observability per command, the
stream layer), a dedicated redis-py connection about 47 µs, and this channel about 33 µs,
most of it the socket itself; each further command in the same round trip costs about
10 µs through redis-py and 0.5 µs here. Under load the reads of many requests share one
round trip, so the per-command cost decides what a read costs.

The channel is one TCP connection of its own, commands packed and replies parsed by
hiredis (``pack_command`` and ``Reader``), replies matched to callers in order. It connects
on first use (AUTH and SELECT from the client's settings) and serves plain TCP only; for
TLS or a Unix socket ``for_client`` gives None and the reads stay on redis-py. Errors are
redis-py's (``ConnectionError``, ``TimeoutError``, ``ResponseError``, ``NoScriptError``),
so callers map them as before. Like the client's own retry, a round trip that fails on
the connection (Redis restarted) is sent once more on a new one: only idempotent reads
come here.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence
from typing import Any, cast

import hiredis
from redis.asyncio import Redis
from redis.asyncio.connection import Connection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

Command = tuple[Any, ...]


class Channel:
    """Pipelined round trips on one connection; ``execute`` gives each command's reply,
    or the error the server answered it with (returned, not raised)."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        db: int = 0,
        username: str | None = None,
        password: str | None = None,
        timeout: float | None = None,
        connect_timeout: float | None = None,
    ) -> None:
        self._address = (host, port)
        self._setup: list[Command] = []
        if password is not None:
            self._setup.append(("AUTH", username, password) if username else ("AUTH", password))
        if db:
            self._setup.append(("SELECT", db))
        self._timeout = timeout
        self._connect_timeout = connect_timeout
        self._protocol: _Protocol | None = None
        self._connecting: asyncio.Lock | None = None
        self.round_trips = 0
        """Round trips sent by ``execute`` (for tests and probes)."""

    @classmethod
    def for_client(cls, client: Redis) -> Channel | None:
        """A channel to the server the client talks to, with its database, credentials and
        timeouts; None when the client does not use plain TCP."""
        pool = client.connection_pool
        if pool.connection_class is not Connection:  # TLS, a Unix socket, or a custom class
            return None
        kw = pool.connection_kwargs
        return cls(
            kw.get("host", "localhost"),
            int(kw.get("port", 6379)),
            db=int(kw.get("db", 0) or 0),
            username=kw.get("username"),
            password=kw.get("password"),
            timeout=kw.get("socket_timeout"),
            connect_timeout=kw.get("socket_connect_timeout") or kw.get("socket_timeout"),
        )

    async def execute(self, commands: Sequence[Command]) -> list[Any]:
        if not commands:
            return []
        self.round_trips += 1
        try:
            return await self._round_trip(await self._connected(), commands)
        except RedisConnectionError:
            # A connection made before Redis restarted fails its first use: once more,
            # on a new connection (every command sent here is an idempotent read).
            return await self._round_trip(await self._connected(), commands)

    def close(self) -> None:
        if self._protocol is not None:
            self._protocol.fail(RedisConnectionError("the channel was closed"))
            self._protocol = None

    async def _connected(self) -> _Protocol:
        protocol = self._protocol
        if protocol is not None and not protocol.lost:
            return protocol
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._protocol is None or self._protocol.lost:
                self._protocol = await self._connect()
            return self._protocol

    async def _connect(self) -> _Protocol:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self._connect_timeout):
                _, protocol = await loop.create_connection(_Protocol, *self._address)
        except (OSError, TimeoutError) as exc:
            host, port = self._address
            raise RedisConnectionError(f"cannot connect to Redis at {host}:{port}: {exc}") from exc
        if self._setup:
            for reply in await self._round_trip(protocol, self._setup):
                if isinstance(reply, Exception):
                    protocol.fail(RedisConnectionError(f"Redis refused the channel: {reply}"))
                    raise reply
        return protocol

    async def _round_trip(self, protocol: _Protocol, commands: Sequence[Command]) -> list[Any]:
        replies = protocol.send(commands)
        try:
            async with asyncio.timeout(self._timeout):
                return [await reply for reply in replies]
        except TimeoutError:
            protocol.fail(RedisTimeoutError("Redis did not answer in time"))
            raise RedisTimeoutError("Redis did not answer in time") from None


class _Protocol(asyncio.Protocol):
    """Writes packed commands; hands each parsed reply to the next waiting future."""

    def __init__(self) -> None:
        self._reader = hiredis.Reader(replyError=ResponseError)
        self._waiting: deque[asyncio.Future[Any]] = deque()
        self._transport: asyncio.Transport | None = None
        self.lost = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def send(self, commands: Sequence[Command]) -> list[asyncio.Future[Any]]:
        if self.lost or self._transport is None:
            raise RedisConnectionError("the Redis connection is closed")
        loop = asyncio.get_running_loop()
        futures = [loop.create_future() for _ in commands]
        self._waiting.extend(futures)  # in the order the writes below reach the server
        self._transport.write(b"".join(hiredis.pack_command(c) for c in commands))
        return futures

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        while True:
            try:
                reply = self._reader.gets()
            except hiredis.ProtocolError as exc:
                self.fail(RedisConnectionError(f"Redis sent a malformed reply: {exc}"))
                return
            if reply is False:
                return
            if isinstance(reply, ResponseError) and str(reply).startswith("NOSCRIPT"):
                reply = NoScriptError(str(reply))
            if self._waiting:
                future = self._waiting.popleft()
                if not future.done():
                    future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(RedisConnectionError(f"Redis closed the connection ({exc or 'EOF'})"))

    def fail(self, error: Exception) -> None:
        """Close the connection; every reply still awaited gets ``error``."""
        self.lost = True
        while self._waiting:
            future = self._waiting.popleft()
            if not future.done():
                future.set_exception(error)
                future.exception()  # a caller that gave up already: no warning
        if self._transport is not None:
            self._transport.close()
