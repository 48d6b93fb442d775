"""Grouped Redis reads (rankline.index.redis.pipelining): concurrent reads share pipelines, each
gets its own answer, writes acknowledged before a read are seen, and errors reach every
caller."""

from __future__ import annotations

import asyncio
import random
import socket
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from helpers_backends import open_redis_index, redis_index
from rankline.errors import IndexUnavailable
from rankline.index.redis.index import RedisIndex
from rankline.ordering import encode
from rankline.types import IndexChange, LeaderboardId

ARENA = LeaderboardId("arena", "all_time", "all", "global")
N = 500


@pytest.fixture
async def index() -> AsyncIterator[RedisIndex]:
    async with open_redis_index() as opened:
        players = [(f"p{i}", encode(10 * (N - i), 0, f"p{i}", "desc"), 1) for i in range(N)]
        await opened.load(ARENA, players)
        yield opened


def _round_trips(index: RedisIndex) -> Callable[[], int]:
    """The grouped reads' round trips to Redis from now on (on the lean channel)."""
    channel = index._grouped.channel
    assert channel is not None  # plain TCP: the grouped reads use the channel
    before = channel.round_trips
    return lambda: channel.round_trips - before


def _commands(index: RedisIndex) -> list[int]:
    """The number of commands in each grouped round trip from now on."""
    channel = index._grouped.channel
    assert channel is not None
    sizes: list[int] = []
    original = channel.execute

    async def counting(commands: Any) -> Any:
        sizes.append(len(commands))
        return await original(commands)

    channel.execute = counting  # type: ignore[method-assign]
    return sizes


async def test_concurrent_reads_share_pipelines_and_get_their_own_answers(
    index: RedisIndex,
) -> None:
    rng = random.Random(7)
    asked = [rng.randrange(N) for _ in range(400)]
    made = _round_trips(index)
    found = await asyncio.gather(*(index.position(ARENA, f"p{i}") for i in asked))
    for i, position in zip(asked, found, strict=True):
        assert position is not None
        assert position.offset == i
        assert position.total == N
    assert 1 <= made() < len(asked) // 4  # grouped: far fewer round trips than reads

    arounds = await asyncio.gather(*(index.around(ARENA, f"p{i}", 2) for i in asked[:50]))
    for i, found_around in zip(asked[:50], arounds, strict=True):
        assert found_around is not None
        position, first, keys = found_around
        assert position.offset == i
        assert first == max(0, i - 2)
        assert len(keys) == min(N, i + 3) - first


async def test_identical_reads_in_a_group_are_sent_once(index: RedisIndex) -> None:
    made = _round_trips(index)
    sent = _commands(index)
    stamps = await asyncio.gather(*(index.top_stamp(ARENA) for _ in range(100)))
    assert len({s for s in stamps}) == 1
    assert stamps[0][1] == N
    # all 100 asked in one turn of the loop: one command in one round trip
    assert made() == 1
    assert sent == [1]


async def test_a_cancelled_caller_leaves_the_others_sharing_its_read(index: RedisIndex) -> None:
    sent = _commands(index)
    callers = [asyncio.ensure_future(index.top_stamp(ARENA)) for _ in range(5)]
    await asyncio.sleep(0)  # all five have joined the group, which is not sent yet
    callers[0].cancel()
    callers[3].cancel()
    done = await asyncio.gather(*callers, return_exceptions=True)
    assert isinstance(done[0], asyncio.CancelledError)
    assert isinstance(done[3], asyncio.CancelledError)
    answers = [done[i] for i in (1, 2, 4)]
    assert answers[0] == answers[1] == answers[2] == await index.top_stamp(ARENA)
    assert sent[0] == 1  # one command for the five


async def test_a_write_acknowledged_before_a_read_is_seen(index: RedisIndex) -> None:
    before = await index.change_stamp(ARENA)
    readers = [asyncio.ensure_future(index.position(ARENA, "p400")) for _ in range(20)]
    await index.apply([IndexChange(ARENA, "p400", encode(10**9, 0, "p400", "desc"), 2)])
    after = await asyncio.gather(
        index.change_stamp(ARENA), *(index.position(ARENA, "p400") for _ in range(20))
    )
    assert after[0] != before
    for position in after[1:]:
        assert position is not None and position.offset == 0
    for position in await asyncio.gather(*readers):  # asked before the write: either answer
        assert position is not None and position.offset in (0, 400)


async def test_an_unreachable_redis_fails_every_grouped_read() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    index = redis_index(f"redis://127.0.0.1:{port}/0")  # nothing listens there: never started
    try:
        results = await asyncio.gather(
            *(index.position(ARENA, f"p{i}") for i in range(30)),
            index.top_stamp(ARENA),
            return_exceptions=True,
        )
        assert all(isinstance(r, IndexUnavailable) for r in results), results
    finally:
        await index.close()


async def test_grouped_reads_load_scripts_the_server_has_forgotten(index: RedisIndex) -> None:
    """After SCRIPT FLUSH (or a Redis restart) the first grouped reads answer NOSCRIPT; the
    scripts are loaded again and the reads answered, without a SCRIPT EXISTS per group."""
    await index.client.script_flush()
    found = await asyncio.gather(*(index.position(ARENA, f"p{i}") for i in range(50)))
    assert [p.offset if p else None for p in found] == list(range(50))
    stamps = await asyncio.gather(index.top_stamp(ARENA), index.change_stamp(ARENA))
    assert stamps[0][1] == N
