"""Where the Redis index goes below redis-py's public API, and nowhere else: the lean RESP
channel of the grouped reads, and the redis-py client whose commands and pipelines a Redis
Cluster router sends (scripts included, which redis-py's own cluster client will not
pipeline). Both are pinned to redis-py's minor version in pyproject.toml, and
``tests/test_redis_seam.py`` checks every redis-py internal used here, so that an upgrade
that changes one fails there first.

**The channel.** A round trip through redis-py's asyncio pipeline carries a pool, a pipeline
object, timeouts and observability per command and its stream layer; this channel carries
little more than the socket, and each further command in the same round trip costs a
fraction of what it costs through redis-py (docs/performance.md, "Figures behind the code's
shape"). Under load the reads of many requests share one round trip, so the per-command cost
decides what a read costs. The channel is one
TCP connection of its own, commands packed and replies parsed by hiredis (``pack_command``
and ``Reader``), replies matched to callers in order. It connects on first use (AUTH and
SELECT from the client's settings) and serves plain TCP only; for TLS or a Unix socket
``Channel.for_client`` gives None and the reads stay on redis-py. Errors are redis-py's
(``ConnectionError``, ``TimeoutError``, ``ResponseError``, ``NoScriptError``), so callers map
them as before. Like the client's own retry, a round trip that fails on the connection
(Redis restarted) is sent once more on a new one: only idempotent reads come here.

**The routed client.** ``RoutedRedis`` is a redis-py client (``redis.asyncio.Redis``) whose
every command, pipeline and script goes to a ``Router`` (``cluster.ClusterRouter``): the
index code keeps using redis-py's command methods, ``AsyncScript`` and ``Lock`` unchanged.
It relies on redis-py sending every command of ``Redis`` through ``execute_command`` and
queueing those of a ``Pipeline`` on ``command_stack`` as ``(args, options)``.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, cast

import hiredis
from redis.asyncio import Redis
from redis.asyncio.client import Pipeline
from redis.asyncio.connection import Connection
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

Command = tuple[Any, ...]
Queued = tuple[tuple[Any, ...], Mapping[str, Any]]
"""A command as redis-py queues it on a pipeline: its arguments and options."""


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
        self._closed = False
        """Closed for good: no connection is made after ``close`` (one made then would
        outlive its owner, unclosed)."""
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
        self._closed = True
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
                if self._closed:
                    raise RedisConnectionError("the channel was closed")
                protocol = await self._connect()
                if self._closed:  # closed while connecting
                    protocol.fail(RedisConnectionError("the channel was closed"))
                    raise RedisConnectionError("the channel was closed")
                self._protocol = protocol
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


class Router(Protocol):
    """Where ``RoutedRedis`` sends what it is asked (``cluster.ClusterRouter``)."""

    async def run(self, stack: Sequence[Queued], *, raise_on_error: bool) -> list[Any]:
        """Each command's reply, in order (errors raised, or returned when not
        ``raise_on_error``)."""
        ...

    async def script_load(self, script: str) -> str: ...

    def known(self, sha: str, script: str, *, read: bool) -> None:
        """A script was registered (to load where a node answers NOSCRIPT; a read goes
        without waiting for replicas)."""
        ...

    async def close(self) -> None: ...


class RoutedRedis(Redis):
    """A redis-py client whose commands, pipelines and scripts go to ``router``."""

    def __init__(self, router: Router) -> None:
        super().__init__(decode_responses=False)  # its own pool is never used
        self.router = router

    def register(self, script: str, *, read: bool) -> AsyncScript:
        """A script, known to the router as a read or a write."""
        registered = AsyncScript(self, script)
        self.router.known(registered.sha, script, read=read)
        return registered

    def register_script(self, script: Any) -> AsyncScript:  # type: ignore[override]
        """A script of redis-py's own (its lock's): a write."""
        return self.register(script.decode() if isinstance(script, bytes) else script, read=False)

    async def script_load(self, script: Any) -> str:
        return await self.router.script_load(script)

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        return (await self.router.run([(args, options)], raise_on_error=True))[0]

    def pipeline(self, transaction: bool = False, shard_hint: Any = None) -> RoutedPipeline:
        if transaction:
            raise NotImplementedError("rankline sends no MULTI/EXEC through a router")
        return RoutedPipeline(self)

    async def aclose(self, close_connection_pool: bool | None = None) -> None:
        await self.router.close()
        await super().aclose()


class RoutedPipeline(Pipeline):
    """A pipeline of ``RoutedRedis``: commands gather here and go to its router at once."""

    def __init__(self, client: RoutedRedis) -> None:
        super().__init__(client.connection_pool, client.response_callbacks, False, None)
        self._router = client.router

    async def execute(self, raise_on_error: bool = True) -> list[Any]:
        stack: list[Queued] = list(self.command_stack)
        self.command_stack, self.scripts = [], set()
        if not stack:
            return []
        return await self._router.run(stack, raise_on_error=raise_on_error)

    async def reset(self) -> None:  # type: ignore[override]
        self.command_stack = []
        self.scripts = set()


async def pipelined(client: Redis, commands: Sequence[Queued]) -> list[Any]:
    """The commands' replies (errors returned), in one pipeline of ``client``."""
    async with client.pipeline(transaction=False) as pipe:
        for args, options in commands:
            pipe.pipeline_execute_command(*args, **options)  # type: ignore[no-untyped-call]
        return list(await pipe.execute(raise_on_error=False))


__all__ = ["Channel", "Command", "Queued", "RoutedPipeline", "RoutedRedis", "Router", "pipelined"]
