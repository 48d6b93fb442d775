"""Sharded leaderboards (rankline.index.sharded): exact on the memory and the Redis index.

A leaderboard split over S shards must answer every read exactly as one sorted list would:
checked here against a naive sorted model with random entries (ties, negative and extreme
64-bit scores, desc and asc), S in {1, 2, 3, 7}, with the deep-page search forced on and
the merge's chunks at their smallest, so that every path runs on small leaderboards. The
generic index workload of test_index.py runs on sharded indexes too.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redis.crc import key_slot

from helpers_backends import REDIS_URL, open_redis_index, shared
from rankline.errors import IndexDamaged
from rankline.index import sharding
from rankline.index.base import RankingIndex
from rankline.index.memory import MemoryIndex
from rankline.index.redis import keys as k
from rankline.index.sharded import ShardedIndex
from rankline.index.sharded_shared import ShardedShared
from rankline.ordering import SCORE_MAX, SCORE_MIN, encode, player_of
from rankline.types import IndexChange, LeaderboardId, Order, Position, SortKey
from test_index import Op, operations, run_workload

LB = LeaderboardId("arena", "all_time", "all", "global")
SCORES = (SCORE_MIN, SCORE_MIN + 1, -(2**40), -1, 0, 1, 2, 3, 2**53 + 1, SCORE_MAX - 1, SCORE_MAX)
TIMES = (-5, 0, 1, 2**40)
POOL = [f"p{i}" for i in range(30)] + ["A", "z_9", "a.b@c", "p:1"]

Opener = Callable[[], AbstractAsyncContextManager[RankingIndex]]


@asynccontextmanager
async def _memory() -> AsyncIterator[RankingIndex]:
    yield MemoryIndex()


@asynccontextmanager
async def _redis() -> AsyncIterator[RankingIndex]:
    async with open_redis_index(REDIS_URL) as index:
        yield index


OPENERS: dict[str, Opener] = {"memory": _memory, "redis": _redis}


def _sharded(inner: RankingIndex, shards: int, *, deep: bool = True) -> ShardedIndex:
    """Every board split ``shards`` ways; ``deep``: the pivot search for every page and
    merge chunks of one key, so small leaderboards take every path."""
    if deep:
        return ShardedIndex(inner, lambda _: shards, direct_until=0, first_chunk=1)
    return ShardedIndex(inner, lambda _: shards)


# --- the naive model ----------------------------------------------------------------------


def _better(score: int, than: int, order: Order) -> bool:
    return score > than if order == "desc" else score < than


def _naive(entries: dict[str, tuple[int, int]], order: Order) -> list[SortKey]:
    def rule(item: tuple[str, tuple[int, int]]) -> tuple[int, int, bytes]:
        player, (score, at) = item
        return (-score if order == "desc" else score, at, player.encode())

    return [encode(s, a, p, order) for p, (s, a) in sorted(entries.items(), key=rule)]


async def _check_all(
    index: RankingIndex, entries: dict[str, tuple[int, int]], order: Order, rng: random.Random
) -> None:
    keys = _naive(entries, order)
    n = len(keys)
    assert await index.total(LB) == n
    assert (await index.top_stamp(LB))[1] == n
    for start in range(n + 2):
        for limit in (1, 2, 5, n + 1):
            assert await index.page(LB, start, start + limit) == (n, keys[start : start + limit])
    assert await index.page(LB, 3, 3) == (n, [])
    assert await index.slice(LB, 0, n + 1) == keys
    for at_index, key in enumerate(keys):
        player = player_of(key)
        score = entries[player][0]
        better = sum(1 for s, _ in entries.values() if _better(s, score, order))
        expected = Position(at_index, key, n, better)
        assert await index.position(LB, player) == expected, player
        for near in (0, 1, 3, n):
            first = max(0, at_index - near)
            found = await index.around(LB, player, near)
            assert found == (expected, first, keys[first : at_index + near + 1]), (player, near)
    assert await index.position(LB, "ghost") is None
    assert await index.around(LB, "ghost", 2) is None
    for _ in range(4):
        asked = [*rng.sample(POOL, rng.randint(0, 12)), "ghost"]
        ranked = [(i, key) for i, key in enumerate(keys) if player_of(key) in asked]
        assert await index.positions(LB, asked) == ranked
    assert await index.leaderboards(LB.board) == ([LB] if n else [])


async def _exact_run(
    opener: Opener,
    shards: int,
    order: Order,
    entries: dict[str, tuple[int, int]],
    removed: list[str],
    seed: int,
) -> None:
    rng = random.Random(seed)
    async with opener() as inner:
        index = _sharded(inner, shards)
        items = list(entries.items())
        rng.shuffle(items)
        half = len(items) // 2
        # half through apply (in small batches), half through load: both route by player
        for start in range(0, half, 5):
            await index.apply(
                [
                    IndexChange(LB, p, encode(s, a, p, order), 0)
                    for p, (s, a) in items[start : min(half, start + 5)]
                ]
            )
        await index.load(LB, [(p, encode(s, a, p, order), 1) for p, (s, a) in items[half:]])
        gone = [p for p in removed if p in entries]
        await index.apply([IndexChange(LB, p, None, 0) for p in gone])
        kept = {p: v for p, v in entries.items() if p not in gone}
        await _check_all(index, kept, order, rng)


entry_sets = st.dictionaries(
    st.sampled_from(POOL),
    st.tuples(st.sampled_from(SCORES[3:8]) | st.sampled_from(SCORES), st.sampled_from(TIMES)),
    max_size=len(POOL),
)


@pytest.mark.parametrize("shards", [1, 2, 3, 7])
@settings(max_examples=40, deadline=None)
@given(
    order=st.sampled_from(["desc", "asc"]),
    entries=entry_sets,
    removed=st.lists(st.sampled_from(POOL), max_size=4),
    seed=st.integers(0, 2**32),
)
def test_sharded_reads_match_the_naive_model_in_memory(
    shards: int, order: Order, entries: dict[str, tuple[int, int]], removed: list[str], seed: int
) -> None:
    asyncio.run(_exact_run(_memory, shards, order, entries, removed, seed))


@pytest.mark.parametrize("shards", [1, 2, 3, 7])
@settings(max_examples=12, deadline=None)
@given(
    order=st.sampled_from(["desc", "asc"]),
    entries=entry_sets,
    removed=st.lists(st.sampled_from(POOL), max_size=4),
    seed=st.integers(0, 2**32),
)
def test_sharded_reads_match_the_naive_model_on_redis(
    shards: int, order: Order, entries: dict[str, tuple[int, int]], removed: list[str], seed: int
) -> None:
    asyncio.run(_exact_run(_redis, shards, order, entries, removed, seed))


@pytest.mark.parametrize(("backend", "shards"), [("memory", 3), ("memory", 7), ("redis", 3)])
@settings(max_examples=25, deadline=None)
@given(ops=st.lists(operations, max_size=20))
def test_the_index_workload_holds_on_sharded_indexes(
    backend: str, shards: int, ops: list[Op]
) -> None:
    opener = OPENERS[backend]

    @asynccontextmanager
    async def sharded() -> AsyncIterator[RankingIndex]:
        async with opener() as inner:
            yield _sharded(inner, shards)

    asyncio.run(run_workload(sharded, ops))


# --- deep pages at their real thresholds ---------------------------------------------------


@pytest.mark.parametrize("backend", sorted(OPENERS))
async def test_deep_pages_of_a_big_sharded_leaderboard_are_exact(backend: str) -> None:
    rng = random.Random(7)
    entries = {f"p{i:05d}": (rng.randint(-50, 50), rng.choice((0, 1))) for i in range(7_000)}
    keys = _naive(entries, "desc")
    async with OPENERS[backend]() as inner:
        index = _sharded(inner, 7, deep=False)
        await index.load(LB, [(p, encode(s, a, p, "desc"), 1) for p, (s, a) in entries.items()])
        for start, stop in ((0, 100), (900, 1100), (4_990, 5_010), (5_000, 5_100), (6_950, 7_050)):
            assert await index.page(LB, start, stop) == (7_000, keys[start:stop]), start
        assert await index.slice(LB, 6_000, 16_000) == keys[6_000:]
        for at_index in (0, 1, 4_999, 6_999):
            player = player_of(keys[at_index])
            found = await index.around(LB, player, 10)
            assert found is not None
            assert (found[0].offset, found[1], found[2]) == (
                at_index,
                max(0, at_index - 10),
                keys[max(0, at_index - 10) : at_index + 11],
            )
        # every shard holds a part: the split is by player, not by rank
        sizes = [await inner.total(n) for n in index.shards(LB)]
        assert sum(sizes) == 7_000 and min(sizes) > 800


# --- stamps, names, damage ----------------------------------------------------------------


@pytest.mark.parametrize("backend", sorted(OPENERS))
async def test_stamps_move_with_every_change_of_any_shard(backend: str) -> None:
    async with OPENERS[backend]() as inner:
        index = _sharded(inner, 3)
        seen: list[int] = [await index.change_stamp(LB)]
        tops: list[int] = [(await index.top_stamp(LB))[0]]
        for i, player in enumerate(POOL[:12]):
            await index.apply([IndexChange(LB, player, encode(i, 0, player, "desc"), 0)])
            seen.append(await index.change_stamp(LB))
            tops.append((await index.top_stamp(LB))[0])
        assert all(b > a for a, b in itertools.pairwise(seen)), seen
        assert all(b > a for a, b in itertools.pairwise(tops)), tops
        # reading changes nothing
        assert await index.change_stamp(LB) == seen[-1]


def test_shard_names_spread_over_the_slot_space_and_unsharded_names_stay() -> None:
    assert k.entries(LB) == "rl:{arena|all_time|all|global}:r"
    for shards in (2, 3, 7, 64):
        slots = []
        for number, name in enumerate(sharding.shards_of(LB, shards)):
            assert sharding.parse(name) == (LB, number, shards)
            assert k.from_tag(k.tag(name)) == name
            slot = key_slot(k.entries(name).encode())
            assert number * 16384 // shards <= slot < (number + 1) * 16384 // shards
            slots.append(slot)
        assert len({k.meta(n) for n in sharding.shards_of(LB, shards)}) == shards
        assert slots == sorted(slots)
    assert sharding.shards_of(LB, 1) == [LB]
    assert [sharding.player_shard(p, 7) for p in ("p:1", "p:2")] == [
        sharding.player_shard(p.encode(), 7) for p in ("p:1", "p:2")
    ]


async def test_a_damaged_shard_is_its_leaderboards_damage_on_redis() -> None:
    async with open_redis_index(REDIS_URL) as inner:
        index = _sharded(inner, 3)
        lifecycle = ShardedShared(shared(inner), inner, lambda _: 3)
        await index.apply([IndexChange(LB, p, encode(5, 0, p, "desc"), 1) for p in POOL])
        assert await lifecycle.intact(LB)
        victim = sharding.shard(LB, 1, 3)
        await inner.client.delete(k.entries(victim))
        assert not await lifecycle.intact(LB)
        for read in (
            index.position(LB, POOL[0]),
            index.page(LB, 0, 10),
            index.total(LB),
            index.change_stamp(LB),
            index.positions(LB, POOL),
        ):
            with pytest.raises(IndexDamaged) as raised:
                await read
            assert raised.value.leaderboard == LB
        # what a repair does: claim every shard, fill, seal
        assert await lifecycle.repair_begin(LB, "t", 60_000)
        assert not await lifecycle.repair_begin(LB, "other", 60_000)
        await index.load(LB, [(p, encode(5, 0, p, "desc"), 1) for p in POOL])
        assert await lifecycle.repair_end(LB, "t")
        assert await lifecycle.intact(LB)
        assert await index.total(LB) == len(POOL)
        # the shards and nothing else go with a drop
        await index.drop([LB])
        assert await index.leaderboards(LB.board) == []
        assert await inner.client.keys("rl:{arena*") == []
