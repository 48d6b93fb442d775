"""The RankingIndex protocol, checked on every backend against a naive sorted model."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers_backends import REDIS_URL, open_redis_index
from rankline.index import MemoryIndex, memory
from rankline.index.base import RankingIndex, Shapes
from rankline.ordering import SCORE_MAX, SCORE_MIN, decode, encode, player_of, score_prefix
from rankline.types import (
    TOP_WINDOW,
    BoardId,
    IndexChange,
    LeaderboardId,
    Micros,
    Order,
    PlayerId,
    Position,
    Score,
    SortKey,
)

Backend = Callable[[], AbstractAsyncContextManager[RankingIndex]]


def dense_board(board: BoardId) -> bool:
    """The arena's leaderboards keep their distinct scores (dense ranks); the sprint's not."""
    return board == "arena"


@asynccontextmanager
async def memory_backend() -> AsyncIterator[RankingIndex]:
    index = MemoryIndex(Shapes(dense_of=dense_board))
    await index.start()
    try:
        yield index
    finally:
        await index.close()


@asynccontextmanager
async def redis_backend() -> AsyncIterator[RankingIndex]:
    """The machine's real Redis (database 9, flushed before and after)."""
    async with open_redis_index(REDIS_URL, Shapes(dense_of=dense_board)) as index:
        yield index


# Every backend opens a fresh, empty index per call.
BACKENDS: dict[str, Backend] = {"memory": memory_backend, "redis": redis_backend}


@pytest.fixture(scope="module", params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest) -> Backend:
    return BACKENDS[request.param]


@pytest.fixture
async def index(backend: Backend) -> AsyncIterator[RankingIndex]:
    async with backend() as opened:
        yield opened


ARENA = LeaderboardId("arena", "all_time", "all", "global")
ARENA_DAY = LeaderboardId("arena", "daily", "2026-11-21", "region:EU")
SPRINT = LeaderboardId("sprint", "all_time", "all", "global")  # an asc board
LEADERBOARDS = (ARENA, ARENA_DAY, SPRINT)
BOARDS: tuple[BoardId, ...] = ("arena", "sprint")
ORDER_OF: dict[LeaderboardId, Order] = {ARENA: "desc", ARENA_DAY: "desc", SPRINT: "asc"}

PLAYERS = ("a", "b", "A", "p:1", "p:10", "p:2", "z_9")
SCORES = (SCORE_MIN, -1, 0, 1, 5, 2**53, 2**53 + 1, SCORE_MAX)
TIMES = (-1, 0, 7)

Entries = dict[PlayerId, tuple[Score, Micros]]


def key(leaderboard: LeaderboardId, player: PlayerId, score: Score, at: Micros = 0) -> SortKey:
    return encode(score, at, player, ORDER_OF[leaderboard])


def put(
    leaderboard: LeaderboardId, player: PlayerId, score: Score, at: Micros = 0, revision: int = 0
) -> IndexChange:
    return IndexChange(leaderboard, player, key(leaderboard, player, score, at), revision)


def gone(leaderboard: LeaderboardId, player: PlayerId, revision: int = 0) -> IndexChange:
    return IndexChange(leaderboard, player, None, revision)


def is_better(score: Score, than: Score, order: Order) -> bool:
    return score > than if order == "desc" else score < than


def naive_keys(leaderboard: LeaderboardId, entries: Entries) -> list[SortKey]:
    """The model's ranking, sorted by API.md's rule, not by bytes."""
    order = ORDER_OF[leaderboard]

    def rule(item: tuple[PlayerId, tuple[Score, Micros]]) -> tuple[int, int, bytes]:
        player, (score, at) = item
        return (-score if order == "desc" else score, at, player.encode())

    return [key(leaderboard, p, s, a) for p, (s, a) in sorted(entries.items(), key=rule)]


async def ranking(index: RankingIndex, leaderboard: LeaderboardId) -> list[tuple[PlayerId, Score]]:
    keys = await index.slice(leaderboard, 0, await index.total(leaderboard) + 1)
    return [
        (player, score) for score, _, player in (decode(k, ORDER_OF[leaderboard]) for k in keys)
    ]


# --- the random workload ----------------------------------------------------------------


class Apply(NamedTuple):
    changes: list[tuple[LeaderboardId, PlayerId, tuple[Score, Micros] | None]]


class Load(NamedTuple):
    leaderboard: LeaderboardId
    entries: list[tuple[PlayerId, Score, Micros]]


class Drop(NamedTuple):
    leaderboards: list[LeaderboardId]


Op = Apply | Load | Drop

leaderboard_ids = st.sampled_from(LEADERBOARDS)
players = st.sampled_from(PLAYERS)
values = st.tuples(st.sampled_from(SCORES[2:6]) | st.sampled_from(SCORES), st.sampled_from(TIMES))
change = st.tuples(leaderboard_ids, players, values | values | values | st.none())
operations: st.SearchStrategy[Op] = st.one_of(
    st.builds(Apply, st.lists(change, min_size=1, max_size=1)),
    st.builds(Apply, st.lists(change, min_size=1, max_size=1)),
    st.builds(Apply, st.lists(change, min_size=2, max_size=6)),
    st.builds(
        Load,
        leaderboard_ids,
        st.lists(
            st.tuples(players, st.sampled_from(SCORES), st.sampled_from(TIMES)),
            max_size=5,
            unique_by=lambda e: e[0],
        ),
    ),
    st.builds(Drop, st.lists(leaderboard_ids, max_size=2)),
)


@dataclass
class Model:
    """The naive truth: per leaderboard, player -> (score, achieved_at)."""

    entries: dict[LeaderboardId, Entries] = field(default_factory=dict)
    revision: int = 0

    def next_revision(self) -> int:
        # Every write is newer than the last, so an index that checks revisions applies it.
        self.revision += 1
        return self.revision


async def perform(index: RankingIndex, model: Model, op: Op) -> None:
    if isinstance(op, Apply):
        await index.apply(
            [
                gone(lb, p, model.next_revision())
                if v is None
                else put(lb, p, *v, revision=model.next_revision())
                for lb, p, v in op.changes
            ]
        )
        for lb, p, v in op.changes:
            if v is None:
                model.entries.get(lb, {}).pop(p, None)
            else:
                model.entries.setdefault(lb, {})[p] = v
    elif isinstance(op, Load):
        lb = op.leaderboard
        loaded = [(p, key(lb, p, s, a), model.next_revision()) for p, s, a in op.entries]
        await index.load(lb, loaded)
        model.entries.setdefault(lb, {}).update({p: (s, a) for p, s, a in op.entries})
    else:
        await index.drop(op.leaderboards)
        for lb in op.leaderboards:
            model.entries.pop(lb, None)


async def check_leaderboard(index: RankingIndex, lb: LeaderboardId, entries: Entries) -> None:
    keys = naive_keys(lb, entries)
    n = len(keys)
    assert await index.total(lb) == n
    for start, stop in ((0, n + 3), (1, 3), (max(0, n - 2), n + 5), (2, 2), (3, 1)):
        assert await index.slice(lb, start, stop) == keys[start:stop]
    for player in PLAYERS:
        if player not in entries:
            assert await index.position(lb, player) is None
            assert await index.around(lb, player, 1) is None
            continue
        score, at = entries[player]
        at_index = keys.index(key(lb, player, score, at))
        better = sum(1 for s, _ in entries.values() if is_better(s, score, ORDER_OF[lb]))
        expected = Position(at_index, keys[at_index], n, better)
        assert await index.position(lb, player) == expected
        for k in (0, 1, 2):
            first = max(0, at_index - k)
            around = await index.around(lb, player, k)
            assert around == (expected, first, keys[first : at_index + k + 1])
    asked = ["ghost", *PLAYERS[::2], *PLAYERS[::3], PLAYERS[-1]]
    ranked = [(i, k) for i, k in enumerate(keys) if player_of(k) in asked]
    assert await index.positions(lb, asked) == ranked
    await check_distinct(index, lb, entries)


async def check_distinct(index: RankingIndex, lb: LeaderboardId, entries: Entries) -> None:
    """A dense leaderboard keeps exactly its entries' distinct scores, and counts those
    better than any score; another keeps none."""
    order = ORDER_OF[lb]
    held = {score for score, _ in entries.values()}
    if not index.dense(lb):
        assert await index.distinct_scores(lb) == []
        return
    kept = await index.distinct_scores(lb)
    assert kept == sorted(score_prefix(score, order) for score in held)
    probes = sorted(held | set(SCORES))
    expected = [sum(1 for s in held if is_better(s, probe, order)) for probe in probes]
    assert await index.distinct_before(lb, [score_prefix(p, order) for p in probes]) == expected


async def check(index: RankingIndex, model: Model) -> None:
    for board in BOARDS:
        listed = await index.leaderboards(board)
        assert len(listed) == len(set(listed))
        expected = {lb for lb in LEADERBOARDS if lb.board == board and model.entries.get(lb)}
        assert set(listed) == expected
    for lb in LEADERBOARDS:
        await check_leaderboard(index, lb, model.entries.get(lb, {}))


async def run_workload(backend: Backend, ops: list[Op]) -> None:
    model = Model()
    async with backend() as index:
        await check(index, model)
        for op in ops:
            await perform(index, model, op)
            await check(index, model)


@settings(max_examples=200, deadline=None)
@given(ops=st.lists(operations, max_size=30))
def test_random_workload_matches_naive_model(backend: Backend, ops: list[Op]) -> None:
    asyncio.run(run_workload(backend, ops))


# --- single behaviours ------------------------------------------------------------------


async def test_empty_index_answers_nothing(index: RankingIndex) -> None:
    assert await index.total(ARENA) == 0
    assert await index.position(ARENA, "a") is None
    assert await index.around(ARENA, "a", 5) is None
    assert await index.slice(ARENA, 0, 10) == []
    assert await index.positions(ARENA, ["a", "b"]) == []
    assert await index.leaderboards("arena") == []


async def test_competition_rank_counts_strictly_better_scores(index: RankingIndex) -> None:
    await index.apply([put(ARENA, "a", 100), put(ARENA, "b", 90), put(ARENA, "c", 90, 1)])
    await index.apply([put(ARENA, "d", 80)])
    found = [await index.position(ARENA, p) for p in "abcd"]
    assert [(f.offset, f.better, f.total) for f in found if f] == [
        (0, 0, 4),
        (1, 1, 4),
        (2, 1, 4),
        (3, 3, 4),
    ]


async def test_ties_rank_by_time_then_player_bytes(index: RankingIndex) -> None:
    await index.apply([put(ARENA, "b", 5, 3), put(ARENA, "a", 5, 3), put(ARENA, "z", 5, 2)])
    await index.apply([put(ARENA, "B", 5, 3)])
    assert [p for p, _ in await ranking(index, ARENA)] == ["z", "B", "a", "b"]


async def test_asc_leaderboard_ranks_lowest_first(index: RankingIndex) -> None:
    await index.apply([put(SPRINT, "slow", 90), put(SPRINT, "fast", -3), put(SPRINT, "mid", 0)])
    assert await ranking(index, SPRINT) == [("fast", -3), ("mid", 0), ("slow", 90)]
    fast = await index.position(SPRINT, "slow")
    assert fast is not None and fast.better == 2


async def test_scores_around_2_53_rank_exactly(index: RankingIndex) -> None:
    await index.apply([put(ARENA, "x", 2**53), put(ARENA, "y", 2**53 + 1), put(ARENA, "w", 0, -1)])
    assert await ranking(index, ARENA) == [("y", 2**53 + 1), ("x", 2**53), ("w", 0)]
    x = await index.position(ARENA, "x")
    assert x is not None and x.better == 1


async def test_apply_runs_changes_in_order(index: RankingIndex) -> None:
    await index.apply(
        [put(ARENA, "a", 1), put(ARENA, "a", 7), put(ARENA, "b", 3), gone(ARENA, "b")]
    )
    assert await ranking(index, ARENA) == [("a", 7)]
    await index.apply([gone(ARENA, "a"), put(ARENA, "a", 2)])
    assert await ranking(index, ARENA) == [("a", 2)]


async def test_new_key_moves_the_player(index: RankingIndex) -> None:
    await index.apply([put(ARENA, "a", 10), put(ARENA, "b", 20)])
    await index.apply([put(ARENA, "a", 30, 5)])
    assert await ranking(index, ARENA) == [("a", 30), ("b", 20)]
    assert await index.position(ARENA, "a") == Position(0, key(ARENA, "a", 30, 5), 2, 0)


async def test_same_key_again_changes_nothing(index: RankingIndex) -> None:
    await index.apply([put(ARENA, "a", 10), put(ARENA, "a", 10)])
    assert await index.total(ARENA) == 1


async def test_removing_an_unknown_player_creates_nothing(index: RankingIndex) -> None:
    await index.apply([gone(ARENA, "ghost")])
    assert await index.leaderboards("arena") == []
    await index.apply([put(ARENA, "a", 1), gone(ARENA, "ghost")])
    assert await ranking(index, ARENA) == [("a", 1)]


async def test_leaderboards_are_independent(index: RankingIndex) -> None:
    await index.apply([put(ARENA, "a", 1), put(ARENA_DAY, "a", 9), put(ARENA_DAY, "b", 5)])
    assert await ranking(index, ARENA) == [("a", 1)]
    assert await ranking(index, ARENA_DAY) == [("a", 9), ("b", 5)]
    await index.apply([gone(ARENA_DAY, "a")])
    assert await ranking(index, ARENA) == [("a", 1)]


async def test_load_builds_an_absent_leaderboard(index: RankingIndex) -> None:
    await index.apply([put(ARENA_DAY, "other", 100)])
    await index.load(ARENA, [("n1", key(ARENA, "n1", 5), 1), ("n2", key(ARENA, "n2", 6), 1)])
    assert await ranking(index, ARENA) == [("n2", 6), ("n1", 5)]
    assert await index.position(ARENA, "n1") == Position(1, key(ARENA, "n1", 5), 2, 1)
    assert await ranking(index, ARENA_DAY) == [("other", 100)]


async def test_load_upserts_into_an_existing_leaderboard(index: RankingIndex) -> None:
    await index.apply([put(ARENA, "kept", 10, revision=1), put(ARENA, "moved", 20, revision=1)])
    await index.load(
        ARENA, [("moved", key(ARENA, "moved", 5), 2), ("new", key(ARENA, "new", 7), 1)]
    )
    assert await ranking(index, ARENA) == [("kept", 10), ("new", 7), ("moved", 5)]


async def test_load_of_nothing_lists_no_leaderboard(index: RankingIndex) -> None:
    await index.load(ARENA, [])
    assert await index.total(ARENA) == 0
    assert await index.leaderboards("arena") == []


async def test_leaderboards_lists_only_non_empty_ones_of_that_board(index: RankingIndex) -> None:
    await index.apply([put(ARENA, "a", 1), put(ARENA_DAY, "a", 1), put(SPRINT, "a", 1)])
    assert set(await index.leaderboards("arena")) == {ARENA, ARENA_DAY}
    await index.apply([gone(ARENA_DAY, "a")])
    assert await index.leaderboards("arena") == [ARENA]
    assert await index.leaderboards("sprint") == [SPRINT]
    assert await index.leaderboards("nope") == []


async def test_drop_removes_only_the_listed_leaderboards(index: RankingIndex) -> None:
    await index.apply([put(ARENA, "a", 1), put(ARENA_DAY, "a", 2), put(SPRINT, "a", 3)])
    await index.drop([ARENA_DAY, LeaderboardId("nope", "all_time", "all", "global")])
    assert await index.leaderboards("arena") == [ARENA]
    assert await index.total(ARENA_DAY) == 0
    assert await index.position(ARENA_DAY, "a") is None
    assert await ranking(index, SPRINT) == [("a", 3)]
    await index.apply([put(ARENA_DAY, "b", 4)])
    assert await ranking(index, ARENA_DAY) == [("b", 4)]


async def test_around_is_clipped_at_the_edges(index: RankingIndex) -> None:
    await index.apply(
        [put(ARENA, p, s) for p, s in zip("abcde", (50, 40, 30, 20, 10), strict=True)]
    )
    keys = await index.slice(ARENA, 0, 5)
    top = await index.around(ARENA, "a", 2)
    assert top is not None and top[1:] == (0, keys[:3])
    bottom = await index.around(ARENA, "e", 2)
    assert bottom is not None and bottom[1:] == (2, keys[2:])
    middle = await index.around(ARENA, "c", 1)
    assert middle is not None and middle[0].offset == 2 and middle[1:] == (1, keys[1:4])
    alone = await index.around(ARENA, "c", 0)
    assert alone is not None and alone[1:] == (2, [keys[2]])
    wide = await index.around(ARENA, "c", 100)
    assert wide is not None and wide[1:] == (0, keys)


async def test_positions_collapse_duplicates_and_skip_unranked(index: RankingIndex) -> None:
    await index.apply([put(ARENA, "a", 1), put(ARENA, "b", 2), put(ARENA, "c", 3)])
    found = await index.positions(ARENA, ["a", "ghost", "c", "a", "a"])
    assert found == [(0, key(ARENA, "c", 3)), (2, key(ARENA, "a", 1))]
    assert await index.positions(ARENA, []) == []


async def test_slice_past_the_end_and_empty_ranges(index: RankingIndex) -> None:
    await index.apply([put(ARENA, "a", 2), put(ARENA, "b", 1)])
    assert await index.slice(ARENA, 1, 100) == [key(ARENA, "b", 1)]
    assert await index.slice(ARENA, 2, 100) == []
    assert await index.slice(ARENA, 1, 1) == []
    assert await index.slice(ARENA, 2, 1) == []


# --- the memory index: its player map at scale, and the top stamp ---------------------


def test_memory_index_stays_exact_through_growth_and_shrinking() -> None:
    """Thousands of players, so the player map's buckets split many times: built in bulk,
    then grown, moved and emptied by single changes, checked against the naive model."""

    async def run() -> None:
        index, rng = MemoryIndex(), random.Random(6)
        model: Entries = {f"p:{i}": (rng.randrange(50), rng.randrange(3)) for i in range(200)}
        await index.load(ARENA, [(p, key(ARENA, p, *v), 1) for p, v in model.items()])
        for step in range(12_000):
            player = f"p:{rng.randrange(5000)}"
            if step > 9000 or rng.random() < 0.2:
                model.pop(player, None)
                await index.apply([gone(ARENA, player)])
            else:
                model[player] = (rng.randrange(50), rng.randrange(3))
                await index.apply([put(ARENA, player, *model[player])])
            if step % 3000 == 0:
                await check_many(index, model)
        await check_many(index, model)
        board = index._get(ARENA)
        assert board is not None and len(board.players._buckets) > 1000  # it grew

    asyncio.run(run())


async def check_many(index: MemoryIndex, model: Entries) -> None:
    keys = naive_keys(ARENA, model)
    assert await index.slice(ARENA, 0, len(keys) + 1) == keys
    offsets = {player_of(k): i for i, k in enumerate(keys)}
    for player in (f"p:{i}" for i in range(5000)):
        position = await index.position(ARENA, player)
        assert (position and position.offset) == offsets.get(player)
    asked = [f"p:{i}" for i in range(0, 5000, 7)]
    assert await index.positions(ARENA, asked) == [
        (offsets[p], keys[offsets[p]])
        for p in sorted(asked, key=lambda p: offsets.get(p, -1))
        if p in offsets
    ]


async def loaded(count: int) -> MemoryIndex:
    """A memory index with ``count`` players on ARENA: p:0 best, scores 10 apart."""
    index = MemoryIndex()
    players = [(f"p:{i}", key(ARENA, f"p:{i}", 10 * (count - i)), 1) for i in range(count)]
    await index.load(ARENA, players)
    return index


async def test_top_stamp_changes_with_writes_into_the_top() -> None:
    index = await loaded(TOP_WINDOW + 500)
    stamp, total = await index.top_stamp(ARENA)
    assert total == TOP_WINDOW + 500
    seen = {stamp}
    for change in (
        put(ARENA, "new", 10**9),  # a new first
        put(ARENA, "p:1400", 10 * (TOP_WINDOW + 500)),  # from far below into the top
        put(ARENA, "p:3", -1),  # from the top to the bottom
        put(ARENA, f"p:{TOP_WINDOW - 1}", 10 * (TOP_WINDOW + 500) - 5),  # within the top
        gone(ARENA, "p:0"),  # the first leaves: the others shift up
    ):
        await index.apply([change])
        stamp, _ = await index.top_stamp(ARENA)
        assert stamp not in seen
        seen.add(stamp)


async def test_top_stamp_keeps_still_for_writes_far_below_the_top() -> None:
    index = await loaded(TOP_WINDOW + 500)
    before = await index.top_stamp(ARENA)
    last_in_top = await index.slice(ARENA, TOP_WINDOW - 1, TOP_WINDOW)
    await index.apply([put(ARENA, "p:1300", 10), put(ARENA, "p:1200", 2505)])
    await index.apply([put(ARENA, "newcomer", 1), gone(ARENA, "p:1499")])
    await index.apply([gone(ARENA, "ghost"), put(ARENA, "p:1100", 10 * (1500 - 1100))])
    stamp, total = await index.top_stamp(ARENA)
    assert (stamp, total) == (before[0], before[1])  # newcomer in, p:1499 out
    assert await index.slice(ARENA, TOP_WINDOW - 1, TOP_WINDOW) == last_in_top


async def test_top_stamp_changes_at_the_edge_of_the_top() -> None:
    index = await loaded(TOP_WINDOW + 2)
    edge = f"p:{TOP_WINDOW - 1}"  # the last entry inside the top window
    stamp, _ = await index.top_stamp(ARENA)
    await index.apply([put(ARENA, f"p:{TOP_WINDOW}", 1)])  # the first outside moves down
    assert (await index.top_stamp(ARENA))[0] == stamp
    await index.apply([put(ARENA, edge, 2)])  # the last inside moves out
    assert (await index.top_stamp(ARENA))[0] != stamp


async def test_top_stamp_changes_with_load_discard_drop_and_return() -> None:
    index = MemoryIndex()
    assert await index.top_stamp(ARENA) == (0, 0)
    await index.apply([put(ARENA, "a", 1)])
    stamps = [(await index.top_stamp(ARENA))[0]]
    await index.load(ARENA, [("b", key(ARENA, "b", 2), 1)])
    stamps.append((await index.top_stamp(ARENA))[0])
    await index.discard(ARENA, [key(ARENA, "a", 1)])
    stamps.append((await index.top_stamp(ARENA))[0])
    await index.drop([ARENA])
    assert await index.top_stamp(ARENA) == (0, 0)
    await index.apply([put(ARENA, "b", 2)])
    stamps.append((await index.top_stamp(ARENA))[0])
    assert len(set(stamps)) == len(stamps) and 0 not in stamps
    assert (await index.top_stamp(ARENA))[1] == 1


async def test_change_stamp_changes_with_every_change_only() -> None:
    index = await loaded(TOP_WINDOW + 10)
    stamp = await index.change_stamp(ARENA)
    await index.apply([put(ARENA, "p:3", 10 * (TOP_WINDOW + 10 - 3))])  # the same key again
    await index.apply([gone(ARENA, "ghost")])
    assert await index.change_stamp(ARENA) == stamp
    await index.apply([put(ARENA, f"p:{TOP_WINDOW + 5}", 3)])  # far below the top
    assert await index.change_stamp(ARENA) != stamp
    assert await index.change_stamp(SPRINT) == 0


async def test_big_load_built_in_a_thread_merges_a_write_made_meanwhile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(memory, "_THREAD_FROM", 1000)
    index, count = MemoryIndex(), 1000
    keys = [key(ARENA, f"p:{i}", i) for i in range(count)]
    loading = asyncio.create_task(index.load_keys(ARENA, keys))
    await asyncio.sleep(0)  # the load is now waiting for its thread
    await index.apply([put(ARENA, "early", -1)])
    await loading
    assert await index.total(ARENA) == count + 1
    last = Position(count, key(ARENA, "early", -1), count + 1, count)
    assert await index.position(ARENA, "early") == last
    assert await index.position(ARENA, "p:7") == Position(count - 8, keys[7], count + 1, count - 8)
