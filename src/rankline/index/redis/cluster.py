"""The Redis index on a Redis Cluster: ``RANKLINE_REDIS_URL=redis+cluster://h1:p1,h2:p2``.

Every key of one leaderboard shares one hash tag (``index.keys``), so each script of the
Redis index touches one slot, on one node, in one round trip, exactly as on a single Redis.
What differs is the transport, ``ClusterRouter``: the redis-py client of the index
(``seam.RoutedRedis``) hands it every command and pipeline, and it sends each to the primary
serving its first key's slot. redis-py's own cluster client
refuses scripts in pipelines, and the index pipelines scripts everywhere (writes of a batch,
grouped reads); here a pipeline is split by node, each part sent on a plain connection to
its node, all parts at once, and the replies put back in order.

- **Topology.** The slot map comes from ``CLUSTER SLOTS`` of any reachable node (the seeds of
  the URL first). A ``MOVED`` or ``ASK`` reply, or a node that cannot be reached, reloads it
  and the commands are sent once more: after a failover they reach the promoted replica.
  While a slot has no primary, commands on it fail, the index counts as unavailable, and
  reads are answered from SQL, flagged ``degraded``.
- **The built marker.** A read script checks the index's built marker in its own round
  trip, and a script may only touch keys of its node. Each primary therefore holds a copy of
  the marker, under a hash tag that lands in one of its slots (``keys.node_marker``), and a
  read script names the copy of the node it runs on; the read scripts carry the
  ``allow-cross-slot-keys`` flag for it. The index counts as built while every primary holds
  its copy: a flushed or replaced node (with its replicas) is noticed as a lost index and
  rebuilt.
- **Nothing acknowledged is lost in a failover.** Redis replicates asynchronously: a
  primary killed right after a write may take it along. So every batch of writes to a node
  ends with ``WAIT`` for ``wait_replicas`` replicas (default 1, within ``wait_ms``), or for
  every replica connected to it when it has fewer (after a failover, until the lost node is
  back as a replica); a batch that fewer replicas confirmed counts as failed, and the
  keeper reloads its leaderboards from SQL (``IndexGateway.apply``), reads being served
  from SQL meanwhile. With one replica per primary, a promoted replica holds every write the
  index counted as done.
"""

from __future__ import annotations

import asyncio
import functools
import random
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

from redis import asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.commands.core import AsyncScript
from redis.crc import key_slot
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from rankline.errors import IndexUnavailable
from rankline.index.base import BoardShapes
from rankline.index.redis import keys as k
from rankline.index.redis import lua
from rankline.index.redis.common import mapped
from rankline.index.redis.lifecycle import RedisLifecycle
from rankline.index.redis.link import RedisLink
from rankline.index.redis.seam import Channel, Queued, RoutedRedis, pipelined

SLOTS = 16384
_REPLICAS_SECONDS = 1.0
SCHEME = "redis+cluster"
Address = tuple[str, int]
_READ_COMMANDS = frozenset(
    {
        b"GET",
        b"MGET",
        b"EXISTS",
        b"SMEMBERS",
        b"SISMEMBER",
        b"SCARD",
        b"PING",
        b"ZCARD",
        b"HGET",
        b"HGETALL",
        b"PTTL",
        b"TTL",
        b"SCRIPT",
        b"SCAN",
        b"INFO",
        b"CLUSTER",
        b"WAIT",
    }
)
_KEYLESS = frozenset({b"PING", b"SCRIPT", b"INFO", b"CLUSTER", b"WAIT", b"FLUSHALL", b"FLUSHDB"})


def cluster_seeds(url: str) -> list[Address] | None:
    """The seed nodes of a ``redis+cluster://host:port,host:port`` URL; None for any other
    URL. A password goes before the first host (``redis+cluster://:secret@h1:p1,h2:p2``)."""
    if not url.startswith(f"{SCHEME}://"):
        return None
    rest = url[len(SCHEME) + 3 :].split("/", 1)[0].split("?", 1)[0]
    rest = rest.rsplit("@", 1)[-1]
    seeds: list[Address] = []
    for part in rest.split(","):
        host, _, port = part.strip().rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"a cluster seed must be host:port, not {part!r}")
        seeds.append((host.strip("[]"), int(port)))
    if not seeds:
        raise ValueError("a redis+cluster:// URL names at least one host:port")
    return seeds


def _credentials(url: str) -> tuple[str | None, str | None]:
    netloc = urlsplit(url.replace(f"{SCHEME}://", "redis://", 1).split(",", 1)[0]).netloc
    if "@" not in netloc:
        return None, None
    user, _, password = netloc.rsplit("@", 1)[0].partition(":")
    return (unquote(user) or None), (unquote(password) or None)


def _as_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, memoryview | bytearray):
        return bytes(value)
    return str(value).encode()


@functools.lru_cache(maxsize=65_536)
def slot_of(key: bytes) -> int:
    return int(key_slot(key))


class _Moved(Exception):
    """A reply said the slot lives elsewhere now (``MOVED``/``ASK``)."""


class ClusterRouter:
    """Sends the commands of a ``seam.RoutedRedis`` (pipelines and scripts included) to the
    primary of their first key's slot, split by node and all at once. See the module's
    docstring."""

    def __init__(
        self,
        seeds: Sequence[Address],
        *,
        username: str | None = None,
        password: str | None = None,
        wait_replicas: int = 1,
        wait_ms: int = 1000,
    ) -> None:
        self._seeds = list(seeds)
        self._username, self._password = username, password
        self.wait_replicas = wait_replicas
        self._wait_ms = wait_ms
        self._slots: list[Address | None] = [None] * SLOTS
        self._nodes: dict[Address, aioredis.Redis] = {}
        self._channels: dict[Address, Channel] = {}
        self._primaries: list[Address] = []
        self._ranges: dict[Address, list[tuple[int, int]]] = {}
        self._known: dict[str, str] = {}
        """Every script registered, by sha: loaded on a node that answers NOSCRIPT."""
        self._reads: set[str] = set()
        """The shas of the read scripts (sent without WAIT)."""
        self._refreshing: asyncio.Lock | None = None
        self._replicas: dict[Address, tuple[int, float]] = {}
        """Per node: its connected replicas, and when that was read (monotonic seconds)."""
        self._closed = False
        """Closed for good: no connection is made after ``close``."""

    # --- topology --------------------------------------------------------------------------

    def node(self, address: Address) -> aioredis.Redis:
        client = self._nodes.get(address)
        if client is None:
            if self._closed:
                raise RedisConnectionError("the cluster's connections were closed")
            client = aioredis.Redis(
                host=address[0],
                port=address[1],
                decode_responses=False,
                socket_timeout=5,
                socket_connect_timeout=2,
                retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
                username=self._username,
                password=self._password,
            )
            self._nodes[address] = client
        return client

    @property
    def primaries(self) -> list[Address]:
        return list(self._primaries)

    async def refresh(self) -> None:
        """Reload the slot map from the first node that answers (one refresh at a time)."""
        if self._refreshing is None:
            self._refreshing = asyncio.Lock()
        async with self._refreshing:
            candidates = list(dict.fromkeys([*self._primaries, *self._seeds, *self._nodes]))
            random.shuffle(candidates)
            error: Exception | None = None
            for address in candidates:
                try:
                    reply = await self.node(address).execute_command(  # type: ignore[no-untyped-call]
                        "CLUSTER SLOTS"
                    )
                except (RedisConnectionError, RedisTimeoutError, OSError, ResponseError) as exc:
                    error = exc
                    continue
                self._load_slots(reply)
                if all(address is not None for address in self._slots):
                    return
                error = RedisConnectionError("the cluster has slots without a primary")
            raise RedisConnectionError(f"no Redis Cluster node answered ({error})")

    def _load_slots(self, reply: Any) -> None:
        slots: list[Address | None] = [None] * SLOTS
        ranges: dict[Address, list[tuple[int, int]]] = {}
        for start, stop, primary, *_ in reply:
            host = primary[0].decode() if isinstance(primary[0], bytes) else str(primary[0])
            address = (host, int(primary[1]))
            ranges.setdefault(address, []).append((int(start), int(stop)))
            for slot in range(int(start), int(stop) + 1):
                slots[slot] = address
        self._slots, self._ranges = slots, ranges
        self._primaries = sorted(ranges)

    async def _ready(self) -> None:
        if not self._primaries:
            await self.refresh()

    def address_of(self, key: Any) -> Address:
        address = self._slots[slot_of(_as_bytes(key))]
        if address is None:
            raise RedisConnectionError("no primary serves that slot now")
        return address

    def marker_of(self, address: Address) -> str:
        """The name of the node's copy of the built marker: in a slot the node serves."""
        return node_marker(tuple(self._ranges.get(address, ())))

    # --- commands --------------------------------------------------------------------------

    def known(self, sha: str, script: str, *, read: bool) -> None:
        self._known[sha] = script
        if read:
            self._reads.add(sha)

    async def script_load(self, script: Any) -> str:
        await self._ready()
        sha = ""
        for address in self._primaries:
            sha = await self.node(address).script_load(script)
        return sha

    async def close(self) -> None:
        self._closed = True
        for channel in self._channels.values():
            channel.close()
        self._channels = {}
        nodes, self._nodes = list(self._nodes.values()), {}
        for client in nodes:
            await client.aclose()

    async def run(self, stack: Sequence[Queued], *, raise_on_error: bool) -> list[Any]:
        """Each command's reply (or error), the commands split by node and sent at once;
        after a topology change (MOVED, ASK, a node gone) the map is reloaded and the
        commands sent once more."""
        await self._ready()
        for attempt in (0, 1):
            try:
                replies = await self._send(stack)
                break
            except (_Moved, RedisConnectionError, RedisTimeoutError, OSError):
                if attempt:
                    raise
                await self.refresh()
        if raise_on_error:
            for reply in replies:
                if isinstance(reply, Exception):
                    raise reply
        return replies

    async def _send(self, stack: Sequence[Queued]) -> list[Any]:
        groups: dict[Address, list[int]] = {}
        commands: list[Queued] = []
        for place, (args, options) in enumerate(stack):
            address, args = self._route(args)
            groups.setdefault(address, []).append(place)
            commands.append((args, options))
        replies: list[Any] = [None] * len(stack)
        parts = [(address, places) for address, places in groups.items()]
        results = await asyncio.gather(
            *(self._on_node(address, [commands[i] for i in places]) for address, places in parts)
        )
        for (_, places), result in zip(parts, results, strict=True):
            for place, reply in zip(places, result, strict=True):
                replies[place] = reply
        return replies

    def _route(self, args: tuple[Any, ...]) -> tuple[Address, tuple[Any, ...]]:
        """The node a command goes to, and the command with the built marker named as that
        node's copy."""
        name = _as_bytes(args[0]).upper().split(b" ", 1)[0]
        if name in _KEYLESS:
            return self._primaries[0], args
        if name in (b"EVALSHA", b"EVAL", b"EVALSHA_RO", b"EVAL_RO"):
            count = int(args[2])
            if count == 0:
                return self._primaries[0], args
            address = self.address_of(args[3])
            keys = args[3 : 3 + count]
            if count == 4 and _as_bytes(keys[3]) == _BUILT:  # a read: see _BUILT_FROM_ARGV
                if _as_bytes(args[1]).decode() not in self._reads:
                    raise ResponseError("a script naming the built marker is not a read")
                marker = self.marker_of(address)
                return address, (*args[:2], 3, *keys[:3], *args[3 + count :], marker)
            return address, args
        return self.address_of(args[1]), args

    def _channel(self, address: Address) -> Channel:
        channel = self._channels.get(address)
        if channel is None:
            if self._closed:
                raise RedisConnectionError("the cluster's connections were closed")
            channel = Channel(
                *address,
                username=self._username,
                password=self._password,
                timeout=5,
                connect_timeout=2,
            )
            self._channels[address] = channel
        return channel

    async def _on_node(self, address: Address, commands: list[Queued]) -> list[Any]:
        client = self.node(address)
        if all(self._script_read(args) for args, _ in commands):
            # The grouped reads: a lean connection of their own (``seam.Channel``), as on
            # a single Redis; script replies need no redis-py parsing.
            replies = await self._channel(address).execute([args for args, _ in commands])
        else:
            replies = await pipelined(client, commands)
        missing = [i for i, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
        if missing:
            for i in missing:
                sha = _as_bytes(commands[i][0][1]).decode()
                script = self._known.get(sha)
                if script is not None:
                    await client.script_load(script)
            again = await pipelined(client, [commands[i] for i in missing])
            for i, reply in zip(missing, again, strict=True):
                replies[i] = reply
        for reply in replies:
            if isinstance(reply, ResponseError) and str(reply).startswith(("MOVED", "ASK")):
                raise _Moved(str(reply))
        if self.wait_replicas > 0 and any(not self._reads_only(args) for args, _ in commands):
            await self._replicated(address, client)
        return replies

    async def _replicated(self, address: Address, client: aioredis.Redis) -> None:
        """Wait until the writes sent to the node are on ``wait_replicas`` replicas, or on
        every replica it has when it has fewer (a primary without replicas cannot be
        failed over to a copy that lacks them); a connection error otherwise (the write is then
        unconfirmed, as when the node is gone)."""
        wanted = min(self.wait_replicas, await self._replicas_of(address, client))
        if wanted == 0:
            return
        wait = client.execute_command("WAIT", wanted, self._wait_ms)  # type: ignore[no-untyped-call]
        confirmed = int(await wait)
        if confirmed < wanted:
            now_connected = await self._replicas_of(address, client, fresh=True)
            if confirmed < min(wanted, now_connected):
                raise RedisConnectionError(
                    f"{confirmed} of {wanted} replicas confirmed the writes to "
                    f"{address[0]}:{address[1]} within {self._wait_ms} ms"
                )

    async def _replicas_of(
        self, address: Address, client: aioredis.Redis, *, fresh: bool = False
    ) -> int:
        """The replicas connected to the node, as its ``INFO replication`` said at most a
        second ago."""
        known = self._replicas.get(address)
        now = time.monotonic()
        if known is None or fresh or now - known[1] > _REPLICAS_SECONDS:
            info = await client.info("replication")
            known = (int(info.get("connected_slaves", 0)), now)
            self._replicas[address] = known
        return known[0]

    def _script_read(self, args: tuple[Any, ...]) -> bool:
        name = _as_bytes(args[0]).upper()
        return name == b"EVALSHA" and _as_bytes(args[1]).decode() in self._reads

    def _reads_only(self, args: tuple[Any, ...]) -> bool:
        name = _as_bytes(args[0]).upper().split(b" ", 1)[0]
        if name in (b"EVALSHA", b"EVALSHA_RO"):
            return _as_bytes(args[1]).decode() in self._reads
        return name in _READ_COMMANDS


_BUILT = k.META_BUILT.encode()


@functools.lru_cache(maxsize=1024)
def node_marker(ranges: tuple[tuple[int, int], ...]) -> str:
    """The built marker's copy for a node serving ``ranges`` of slots: the first of
    ``keys.node_marker(n)`` for n = 0, 1, … whose slot is among them."""
    for n in range(200_000):
        name = k.node_marker(n)
        slot = slot_of(name.encode())
        if any(low <= slot <= high for low, high in ranges):
            return name
    raise IndexUnavailable("a Redis Cluster node serves no slot")


class ClusterLink(RedisLink):
    """``RedisLink`` to a Redis Cluster (see the module's docstring); its grouped reads go
    through ``ClusterRouter``, which sends them over a lean channel per node."""

    name = "rediscluster"

    def __init__(self, url: str, *, wait_replicas: int = 1, wait_ms: int = 1000) -> None:
        seeds = cluster_seeds(url)
        if seeds is None:
            raise ValueError(f"not a {SCHEME}:// URL")
        username, password = _credentials(url)
        self.cluster = ClusterRouter(
            seeds,
            username=username,
            password=password,
            wait_replicas=wait_replicas,
            wait_ms=wait_ms,
        )
        self.routed = RoutedRedis(self.cluster)
        super().__init__(url, client=self.routed, channel=None)

    async def start(self) -> None:
        async with mapped():
            await self.cluster.refresh()

    async def ping(self) -> None:
        """Every slot has a reachable primary, and each answers."""
        async with mapped():
            await self.cluster.refresh()
            for address in self.cluster.primaries:
                await self.cluster.node(address).ping()

    def shared_index(self, shapes: BoardShapes) -> ClusterLifecycle:
        return ClusterLifecycle(self, shapes)

    def script(self, name: str) -> AsyncScript:
        found = lua.load(name, "cluster")
        return self.routed.register(found.text, read=found.mode == "read")


class ClusterLifecycle(RedisLifecycle):
    """``RedisLifecycle`` on a Redis Cluster: the built marker has a copy on every primary."""

    def __init__(self, link: ClusterLink, shapes: BoardShapes) -> None:
        super().__init__(link, shapes)
        self.cluster = link.cluster

    async def is_built(self) -> bool:
        """Every primary holds its copy of the built marker, and the layout is this code's."""
        async with mapped():
            await self.cluster.refresh()
            if await self.client.get(k.META_LAYOUT) != k.LAYOUT.encode():
                return False
            for address in self.cluster.primaries:
                marker = self.cluster.marker_of(address)
                if not await self.cluster.node(address).exists(marker):
                    return False
        return True

    async def mark_built(self) -> None:
        async with mapped():
            await self.cluster.refresh()
            await self.client.set(k.META_LAYOUT, k.LAYOUT)
            async with self.client.pipeline() as pipe:
                for address in self.cluster.primaries:
                    pipe.set(self.cluster.marker_of(address), "1")
                await pipe.execute()

    async def _retire_old_layout(self) -> None:
        """Nothing to retire: no older layout ever ran on a cluster."""
        await self.client.set(k.META_LAYOUT, k.LAYOUT)


__all__ = ["ClusterLifecycle", "ClusterLink", "ClusterRouter", "cluster_seeds"]
