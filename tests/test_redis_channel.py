"""The grouped reads' lean Redis connection (rankline.index.redis.seam): replies in order,
the server's errors returned, AUTH and SELECT from the client's settings, a Redis restart
survived, and an unreachable or silent server reported as redis-py would."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis
import uvloop
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from helpers_backends import REDIS_URL
from helpers_chaos import RedisServer
from rankline.index.redis.seam import Channel


@pytest.fixture
async def client() -> AsyncIterator[aioredis.Redis]:
    opened = aioredis.Redis.from_url(REDIS_URL)
    await opened.flushdb()
    yield opened
    await opened.flushdb()
    await opened.aclose()


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def test_replies_come_back_in_order_with_the_servers_errors_returned(
    client: aioredis.Redis,
) -> None:
    channel = Channel.for_client(client)
    assert channel is not None
    try:
        await client.set("k", b"v")
        replies = await channel.execute(
            [
                ("GET", "k"),
                ("INCR", "k"),  # not an integer: an error reply, returned
                ("EVALSHA", "0" * 40, 0),  # a script the server does not know
                ("ECHO", b"\x00\xffbytes"),
                ("RPUSH", "l", 1, 2, 3),
            ]
        )
        assert replies[0] == b"v"
        assert isinstance(replies[1], ResponseError)
        assert isinstance(replies[2], NoScriptError)
        assert replies[3:] == [b"\x00\xffbytes", 3]
        assert channel.round_trips == 1
        # The database is the client's (REDIS_URL's), not 0.
        assert await client.lrange("l", 0, -1) == [b"1", b"2", b"3"]
    finally:
        channel.close()


async def test_concurrent_round_trips_each_get_their_own_replies(client: aioredis.Redis) -> None:
    channel = Channel.for_client(client)
    assert channel is not None
    try:
        await client.mset({f"k{i}": i for i in range(200)})
        found = await asyncio.gather(
            *(channel.execute([("GET", f"k{i}"), ("GET", f"k{i + 1}")]) for i in range(199))
        )
        assert found == [[b"%d" % i, b"%d" % (i + 1)] for i in range(199)]
    finally:
        channel.close()


async def test_a_closed_channel_makes_no_new_connection(client: aioredis.Redis) -> None:
    """A read still running when its index closes fails; it does not open a connection
    that would outlive the channel, unclosed."""
    channel = Channel.for_client(client)
    assert channel is not None
    assert await channel.execute([("PING",)]) == [b"PONG"]
    channel.close()
    with pytest.raises(RedisConnectionError, match="closed"):
        await channel.execute([("PING",)])


async def test_a_password_and_database_come_from_the_client(
    private_redis: RedisServer,
) -> None:
    private_redis.command("CONFIG", "SET", "requirepass", "s3cret")
    client = aioredis.Redis.from_url(f"redis://:s3cret@127.0.0.1:{private_redis.port}/3")
    wrong = Channel("127.0.0.1", private_redis.port, password="wrong")
    channel = Channel.for_client(client)
    assert channel is not None
    try:
        await client.set("here", 1)
        assert await channel.execute([("GET", "here"), ("DBSIZE",)]) == [b"1", 1]
        with pytest.raises(ResponseError):
            await wrong.execute([("PING",)])
    finally:
        channel.close()
        wrong.close()
        await client.aclose()


async def test_a_restarted_redis_is_reconnected_once_without_an_error(
    private_redis: RedisServer,
) -> None:
    channel = Channel("127.0.0.1", private_redis.port, timeout=5)
    try:
        assert await channel.execute([("PING",)]) == [b"PONG"]
        private_redis.kill9()
        private_redis.start()
        assert await channel.execute([("PING",)]) == [b"PONG"]
        private_redis.kill9()
        with pytest.raises(RedisConnectionError):
            await channel.execute([("PING",)])
    finally:
        channel.close()


async def test_an_unreachable_server_is_a_connection_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    channel = Channel("127.0.0.1", port, connect_timeout=2)
    with pytest.raises(RedisConnectionError):
        await channel.execute([("PING",)])


async def test_a_server_that_does_not_answer_times_out_and_the_channel_recovers(
    client: aioredis.Redis,
) -> None:
    """A listener that accepts and never answers: the round trip fails with redis-py's
    TimeoutError after the client's socket timeout; the next one connects anew."""
    accepted: list[asyncio.StreamWriter] = []
    silent = await asyncio.start_server(lambda r, w: accepted.append(w), "127.0.0.1", 0)
    port = silent.sockets[0].getsockname()[1]
    channel = Channel("127.0.0.1", port, timeout=0.3)
    try:
        with pytest.raises(RedisTimeoutError):
            await channel.execute([("PING",)])
        real = Channel.for_client(client)
        assert real is not None
        channel._address = real._address  # the same channel, now to a real server
        channel._setup = real._setup
        assert await channel.execute([("PING",)]) == [b"PONG"]
    finally:
        channel.close()
        for writer in accepted:
            writer.close()
        silent.close()
        await silent.wait_closed()


def test_a_tls_or_unix_socket_client_keeps_redis_py() -> None:
    assert Channel.for_client(aioredis.Redis.from_url("unix:///tmp/redis.sock")) is None
    assert Channel.for_client(aioredis.Redis.from_url("rediss://127.0.0.1:6380/0")) is None


def test_the_channel_on_uvloop(private_redis: RedisServer) -> None:
    """rankline serves on uvloop, whose transports are not asyncio's classes: the same
    round trips, error replies and reconnection there."""

    async def scenario() -> None:
        channel = Channel("127.0.0.1", private_redis.port, db=2, timeout=5)
        try:
            replies = await channel.execute([("SET", "k", "v"), ("INCR", "k"), ("GET", "k")])
            assert replies[0] == b"OK" and isinstance(replies[1], ResponseError)
            assert replies[2] == b"v"
            found = await asyncio.gather(*(channel.execute([("ECHO", i)]) for i in range(50)))
            assert found == [[b"%d" % i] for i in range(50)]
            private_redis.kill9()
            private_redis.start()
            assert await channel.execute([("DBSIZE",)]) == [0]  # db 2 again, and empty
        finally:
            channel.close()

    uvloop.run(scenario())
