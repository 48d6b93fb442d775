"""The contract of ``rankline.index.redis.seam`` with redis-py: every redis-py internal it
relies on, checked for the shape it expects. pyproject pins redis-py to one minor version;
when an upgrade changes one of these, this fails before the index does. No server needed."""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Mapping, Sequence
from typing import Any

import hiredis
import redis
from redis import asyncio as aioredis
from redis.asyncio.client import Pipeline
from redis.asyncio.connection import Connection
from redis.commands.core import AsyncScript
from redis.exceptions import ResponseError

from rankline.index.redis.seam import Queued, RoutedPipeline, RoutedRedis


class Recorder:
    """A ``seam.Router`` that records what it is sent and answers "OK"."""

    def __init__(self) -> None:
        self.sent: list[Queued] = []
        self.scripts: dict[str, tuple[str, bool]] = {}

    async def run(self, stack: Sequence[Queued], *, raise_on_error: bool) -> list[Any]:
        self.sent += stack
        return ["OK"] * len(stack)

    async def script_load(self, script: str) -> str:
        return hashlib.sha1(script.encode()).hexdigest()

    def known(self, sha: str, script: str, *, read: bool) -> None:
        self.scripts[sha] = (script, read)

    async def close(self) -> None:
        return None


def test_redis_py_is_the_minor_version_the_seam_was_checked_against() -> None:
    assert redis.__version__.startswith("8.1."), redis.__version__


def test_a_pipeline_is_built_from_the_clients_pool_and_callbacks() -> None:
    parameters = list(inspect.signature(Pipeline.__init__).parameters)
    assert parameters == [
        "self",
        "connection_pool",
        "response_callbacks",
        "transaction",
        "shard_hint",
    ]
    client = RoutedRedis(Recorder())
    assert isinstance(client.response_callbacks, Mapping)
    pipe = client.pipeline()
    assert isinstance(pipe, RoutedPipeline)
    assert pipe.command_stack == [] and pipe.scripts == set()


async def test_every_command_goes_through_execute_command() -> None:
    router = Recorder()
    client = RoutedRedis(router)
    assert inspect.iscoroutinefunction(aioredis.Redis.execute_command)
    assert await client.get("k") == "OK"
    await client.sadd("s", "m")
    assert [args for args, _ in router.sent] == [("GET", "k"), ("SADD", "s", "m")]
    assert all(isinstance(options, Mapping) for _, options in router.sent)


async def test_a_pipeline_queues_args_and_options_on_its_command_stack() -> None:
    router = Recorder()
    client = RoutedRedis(router)
    async with client.pipeline(transaction=False) as pipe:
        pipe.set("a", 1)
        pipe.pipeline_execute_command("EVALSHA", "0" * 40, 1, "a")  # type: ignore[no-untyped-call]
        [(args, options), _] = pipe.command_stack
        assert args == ("SET", "a", 1) and isinstance(options, Mapping)
        assert await pipe.execute(raise_on_error=False) == ["OK", "OK"]
        assert pipe.command_stack == [] and pipe.scripts == set()
    assert [args[0] for args, _ in router.sent] == ["SET", "EVALSHA"]
    assert "raise_on_error" in inspect.signature(Pipeline.execute).parameters


async def test_scripts_are_evalsha_through_the_client_and_known_to_the_router() -> None:
    router = Recorder()
    client = RoutedRedis(router)
    text = "return redis.call('GET', KEYS[1])"
    script = client.register(text, read=True)
    assert isinstance(script, AsyncScript)
    assert script.sha == hashlib.sha1(text.encode()).hexdigest() and script.script == text
    assert router.scripts[script.sha] == (text, True)
    assert await script(keys=["k"], args=[1]) == "OK"
    assert router.sent[-1][0] == ("EVALSHA", script.sha, 1, "k", 1)


async def test_redis_pys_lock_goes_through_the_router_as_writes() -> None:
    """The rebuild lock is redis-py's: its commands and scripts (registered once per class,
    on whichever client came first) reach the router as writes."""
    router = Recorder()
    lock = RoutedRedis(router).lock("a-lock", timeout=1)
    assert await lock.acquire(blocking=False)
    await lock.release()
    sent = [args for args, _ in router.sent]
    assert sent[0][:2] == ("SET", "a-lock") and sent[-1][0] == "EVALSHA"
    assert not any(read for _, read in router.scripts.values())


def test_the_channel_reads_the_clients_connection_settings() -> None:
    client = aioredis.Redis(
        host="127.0.0.1",
        port=6390,
        db=3,
        username="u",
        password="secret",
        socket_timeout=5,
        socket_connect_timeout=2,
    )
    pool = client.connection_pool
    assert pool.connection_class is Connection
    kwargs = pool.connection_kwargs
    assert (kwargs["host"], kwargs["port"], kwargs["db"]) == ("127.0.0.1", 6390, 3)
    assert (kwargs["username"], kwargs["password"]) == ("u", "secret")
    assert (kwargs["socket_timeout"], kwargs["socket_connect_timeout"]) == (5, 2)
    url = aioredis.Redis.from_url("redis://:secret@127.0.0.1:6390/3").connection_pool
    assert (url.connection_kwargs["db"], url.connection_kwargs["password"]) == (3, "secret")


def test_hiredis_packs_commands_and_parses_replies_with_our_error_class() -> None:
    assert hiredis.pack_command(("GET", "k")) == b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"
    reader = hiredis.Reader(replyError=ResponseError)
    reader.feed(b"+OK\r\n-NOSCRIPT no script\r\n")
    assert reader.gets() == b"OK"
    error = reader.gets()
    assert isinstance(error, ResponseError) and str(error).startswith("NOSCRIPT")
    assert reader.gets() is False
