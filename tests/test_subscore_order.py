"""Subscores in the ordering key and the ranking indexes, against a naive sorted list.

A board with a subscore orders by score, then subscore (in its own direction), then
achieved_at, then player id; its keys carry 8 more bytes (``ordering.Keys``). Checked here
without a service: the key's bytes order as the rule says (hypothesis, the four
combinations of board and subscore order), policies treat (score, subscore) as one value,
and every index backend (memory, Redis, Redis Cluster, and sharded over memory and Redis)
ranks such keys exactly as a sorted list of the entries would, through changes that move
and remove players (hypothesis, each example on a fresh index).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers_backends import (
    REDIS_URL,
    cluster_url,
    flush_redis,
    open_redis_index,
    redis_index,
    shared,
)
from rankline.boards import Board, BoardSpec
from rankline.errors import Conflict, InvalidInput
from rankline.index.base import RankingIndex, Shapes, SharedIndex
from rankline.index.memory import MemoryIndex
from rankline.index.sharded import ShardedIndex
from rankline.index.sharded_shared import ShardedShared
from rankline.ordering import SCORE_MAX, SCORE_MIN, SUB_HEAD_BYTES, Keys, encode
from rankline.policies import StandingScore, combine
from rankline.types import IndexChange, LeaderboardId, Order, SortKey

ORDERS: tuple[Order, ...] = ("desc", "asc")
SCORES = (SCORE_MIN, -1, 0, 1, 2, 2**53 + 1, SCORE_MAX)
SUBSCORES = (SCORE_MIN, -(2**40), -1, 0, 3, 2**53, SCORE_MAX)
TIMES = (-(2**50), -1, 0, 5, 1_763_712_000_000_000)
PLAYERS = ("a", "b", "A", "a0", "p:1", "p:10", "z_9", "0", "x.y@z")
LB = LeaderboardId("duel", "all_time", "all", "global")

Value = tuple[int, int, int]
"""(score, subscore, achieved_at)"""


def rule(order: Order, sub_order: Order, player: str, value: Value) -> tuple[int, int, int, bytes]:
    """API.md's order, as a Python sort key (not bytes)."""
    score, subscore, at = value
    return (
        -score if order == "desc" else score,
        -subscore if sub_order == "desc" else subscore,
        at,
        player.encode(),
    )


def naive(entries: dict[str, Value], order: Order, sub_order: Order) -> list[tuple[str, Value]]:
    return sorted(entries.items(), key=lambda item: rule(order, sub_order, *item))


values = st.tuples(st.sampled_from(SCORES), st.sampled_from(SUBSCORES), st.sampled_from(TIMES))


# --- the key --------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    order=st.sampled_from(ORDERS),
    sub_order=st.sampled_from(ORDERS),
    entries=st.dictionaries(st.sampled_from(PLAYERS), values, min_size=1),
)
def test_key_bytes_order_as_score_subscore_time_player(
    order: Order, sub_order: Order, entries: dict[str, Value]
) -> None:
    keys = Keys(order, sub_order)
    encoded = {p: keys.encode(s, u, at, p) for p, (s, u, at) in entries.items()}
    by_bytes = sorted(entries, key=lambda p: encoded[p])
    assert by_bytes == [p for p, _ in naive(entries, order, sub_order)]
    for player, (score, subscore, at) in entries.items():
        key = encoded[player]
        assert len(key) == SUB_HEAD_BYTES + len(player.encode())
        assert keys.decode(key) == (score, subscore, at, player)
        assert keys.player_of(key) == player
        assert key.startswith(keys.value_prefix(score, subscore))
        assert key.startswith(keys.head_of(score, subscore, at))
        assert keys.decode_bound(key[: keys.prefix]) == (score, subscore, None, None)


def test_plain_boards_keep_their_16_byte_keys() -> None:
    keys = Keys("desc")
    assert keys.encode(7, None, 3, "p") == encode(7, 3, "p", "desc")
    assert keys.head == 16 and keys.prefix == 8
    assert Keys("asc", "desc").head == 24 and Keys("asc", "desc").prefix == 16
    with pytest.raises(ValueError):
        Keys("desc", "asc").encode(7, None, 3, "p")


def test_rows_encode_as_one_at_a_time() -> None:
    keys = Keys("desc", "asc")
    rows = [(b"p1", 5, -2, 10), (b"p2", SCORE_MIN, SCORE_MAX, -1)]
    assert keys.encode_rows(rows) == [keys.encode(s, u, at, p.decode()) for p, s, u, at in rows]


# --- policies ---------------------------------------------------------------------------------


def test_best_compares_score_then_subscore_in_its_own_order() -> None:
    held = StandingScore(100, 1, 5)
    for sub_order, better, worse in (("desc", 6, 4), ("asc", 4, 6)):
        assert combine("best", "desc", held, 100, 2, better, sub_order) == StandingScore(
            100, 2, better
        )
        assert combine("best", "desc", held, 100, 2, worse, sub_order) is None
        assert combine("best", "desc", held, 100, 2, 5, sub_order) is None  # equal: kept
        assert combine("best", "desc", held, 101, 2, worse, sub_order) == StandingScore(
            101, 2, worse
        )
        assert combine("best", "desc", held, 99, 2, 10**9, sub_order) is None
        assert combine("best", "asc", held, 99, 2, worse, sub_order) == StandingScore(99, 2, worse)


def test_the_other_policies_keep_or_replace_both_together() -> None:
    held = StandingScore(10, 1, 3)
    assert combine("latest", "desc", held, 1, 2, -7, "desc") == StandingScore(1, 2, -7)
    assert combine("latest", "desc", held, 99, 1, 99, "desc") is None
    assert combine("first", "desc", held, 99, 2, 99, "desc") is None
    assert combine("sum", "desc", held, 5, 2, -4, "asc") == StandingScore(15, 2, -1)
    with pytest.raises(InvalidInput):
        combine("sum", "desc", StandingScore(0, 1, SCORE_MAX), 1, 2, 1, "desc")


# --- board definitions --------------------------------------------------------------------


def test_a_board_declares_a_subscore_and_keeps_it_once_it_has_entries() -> None:
    board = Board.define("duel", BoardSpec(subscore="asc"))
    assert board.sub_order == "asc" and board.keys.head == SUB_HEAD_BYTES
    assert board.to_json()["subscore"] == "asc"
    assert Board.define("plain", BoardSpec()).to_json()["subscore"] is None
    with pytest.raises(InvalidInput):
        Board.define("r", BoardSpec(policy="rating", rating={"system": "elo"}, subscore="desc"))
    for other in (None, "desc"):
        with pytest.raises(Conflict):
            board.check_update(Board.define("duel", BoardSpec(subscore=other)))
    with pytest.raises(InvalidInput):
        board.check_subscore(None)
    with pytest.raises(InvalidInput):
        Board.define("plain", BoardSpec()).check_subscore(1)


# --- every index backend ----------------------------------------------------------------------

Opened = tuple[RankingIndex, SharedIndex | None]
Opener = Callable[[], AbstractAsyncContextManager[Opened]]
SUBSCORED = Shapes(head_of=lambda board: SUB_HEAD_BYTES)


@asynccontextmanager
async def _memory() -> AsyncIterator[Opened]:
    yield MemoryIndex(SUBSCORED), None


@asynccontextmanager
async def _redis() -> AsyncIterator[Opened]:
    async with open_redis_index(REDIS_URL, SUBSCORED) as index:
        yield index, shared(index)


@asynccontextmanager
async def _cluster() -> AsyncIterator[Opened]:
    url = cluster_url()
    flush_redis(url)
    index = redis_index(url, SUBSCORED)
    await index.start()
    await shared(index).mark_built()
    try:
        yield index, shared(index)
    finally:
        await index.close()
        flush_redis(url)


def _sharded(opener: Opener) -> Opener:
    @asynccontextmanager
    async def opened() -> AsyncIterator[Opened]:
        async with opener() as (inner, lifecycle):
            # every page takes the deep path, with merge chunks of one key
            index = ShardedIndex(inner, lambda _: 3, direct_until=0, first_chunk=1)
            yield index, None if lifecycle is None else ShardedShared(lifecycle, inner, lambda _: 3)

    return opened


OPENERS: dict[str, Opener] = {
    "memory": _memory,
    "redis": _redis,
    "cluster": _cluster,
    "sharded-memory": _sharded(_memory),
    "sharded-redis": _sharded(_redis),
}


@pytest.fixture(scope="module", params=sorted(OPENERS))
def opener(request: pytest.FixtureRequest) -> Opener:
    return OPENERS[request.param]


async def _check(index: RankingIndex, keys: Keys, entries: dict[str, Value]) -> None:
    order, sub_order = keys.order, keys.sub_order
    assert sub_order is not None
    ranked = naive(entries, order, sub_order)
    wanted = [keys.encode(s, u, at, p) for p, (s, u, at) in ranked]
    total, page = await index.page(LB, 0, len(wanted) + 5)
    assert (total, page) == (len(wanted), wanted)
    for offset, (player, (score, subscore, at)) in enumerate(ranked):
        position = await index.position(LB, player)
        value = rule(order, sub_order, player, (score, subscore, at))[:2]
        better = sum(1 for p, v in ranked if rule(order, sub_order, p, v)[:2] < value)
        assert position is not None
        assert (position.offset, position.key, position.total, position.better) == (
            offset,
            wanted[offset],
            total,
            better,
        )
        around = await index.around(LB, player, 1)
        assert around is not None
        assert around[1:] == (max(0, offset - 1), wanted[max(0, offset - 1) : offset + 2])
        # what rank-of counts: entries before the value's prefix, and before its head
        _, (before_value, before_head) = await index.counts_before(
            LB, [keys.value_prefix(score, subscore), keys.head_of(score, subscore, at)]
        )
        assert before_value == better
        assert before_head == sum(1 for k in wanted if k < keys.head_of(score, subscore, at))
    assert await index.positions(LB, [*entries, "nobody"]) == list(enumerate(wanted))


async def _workload(
    opener: Opener,
    keys: Keys,
    first: dict[str, Value],
    moves: dict[str, Value],
    removed: list[str],
) -> None:
    def change(player: str, value: Value | None, revision: int) -> IndexChange:
        key = None if value is None else keys.encode(value[0], value[1], value[2], player)
        return IndexChange(LB, player, key, revision)

    async with opener() as (index, lifecycle):
        entries = dict(first)
        await index.apply([change(p, v, 1) for p, v in first.items()])
        await _check(index, keys, entries)
        await index.apply([change(p, v, 2) for p, v in moves.items()])
        entries.update(moves)
        gone = list(dict.fromkeys(p for p in removed if p in entries))
        await index.apply([change(p, None, 3) for p in gone])
        for player in gone:
            del entries[player]
        await _check(index, keys, entries)
        # a rebuild loads the same keys afresh: nothing moves
        loaded = [(p, keys.encode(s, u, at, p), 4) for p, (s, u, at) in entries.items()]
        await index.drop([LB])
        await index.load(LB, loaded)
        await _check(index, keys, entries)
        if lifecycle is not None:
            assert await lifecycle.unmapped(LB, [k for _, k, _ in loaded]) == []


@settings(max_examples=25, deadline=None)
@given(
    order=st.sampled_from(ORDERS),
    sub_order=st.sampled_from(ORDERS),
    first=st.dictionaries(st.sampled_from(PLAYERS), values, min_size=1),
    moves=st.dictionaries(st.sampled_from(PLAYERS), values),
    removed=st.lists(st.sampled_from(PLAYERS), max_size=3),
)
def test_every_index_ranks_subscore_keys_as_the_naive_list(
    opener: Opener,
    order: Order,
    sub_order: Order,
    first: dict[str, Value],
    moves: dict[str, Value],
    removed: list[str],
) -> None:
    asyncio.run(_workload(opener, Keys(order, sub_order), first, moves, removed))


def test_a_fast_fill_splits_subscore_keys_where_their_heads_end() -> None:
    """The fill path sends keys joined by 0xff and map entries as head + revision: heads
    holding 0xff bytes (a subscore of -1 on an asc subscore, say) must not split there."""

    async def run() -> None:
        keys = Keys("desc", "asc")
        entries: dict[str, Value] = {
            p: (7, u, at) for p, u, at in (("a", -1, -1), ("b", SCORE_MAX, 0), ("c", -1, 0))
        }
        async with _redis() as (index, _):
            rows: list[tuple[str, SortKey, int]] = [
                (p, keys.encode(s, u, at, p), 1) for p, (s, u, at) in entries.items()
            ]
            assert any(b"\xff" in key[8:24] for _, key, _ in rows)

            async def chunks() -> AsyncIterator[list[Any]]:
                yield rows

            assert [n async for n in index.fill(LB, len(rows), chunks())] == [len(rows)]
            await _check(index, keys, entries)

    asyncio.run(run())
