"""The Redis index's own behaviour: bucketed player map, bulk load, top stamp, expiry,
drop and the layout version. The shared protocol is checked in test_index.py."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from helpers_backends import open_redis_index, redis_index, shared
from rankline.index.redis import index as index_module
from rankline.index.redis import keys as k
from rankline.index.redis.index import RedisIndex
from rankline.index.redis.scripts import BUCKET_LOAD
from rankline.ordering import encode
from rankline.types import TOP_WINDOW, IndexChange, LeaderboardId, Position, SortKey

ARENA = LeaderboardId("arena", "all_time", "all", "global")
DAILY = LeaderboardId("arena", "daily", "2026-11-21", "global")


@pytest.fixture
async def index() -> AsyncIterator[RedisIndex]:
    async with open_redis_index() as opened:
        yield opened


def key(player: str, score: int, at: int = 0) -> SortKey:
    return encode(score, at, player, "desc")


def put(player: str, score: int, revision: int = 0, lb: LeaderboardId = ARENA) -> IndexChange:
    return IndexChange(lb, player, key(player, score), revision)


def gone(player: str, revision: int = 0, lb: LeaderboardId = ARENA) -> IndexChange:
    return IndexChange(lb, player, None, revision)


def standings(n: int, revision: int = 1) -> list[tuple[str, SortKey, int]]:
    """n players, p0 best, scores far apart."""
    return [(f"p{i}", key(f"p{i}", 10 * (n - i)), revision) for i in range(n)]


async def layout(index: RedisIndex, lb: LeaderboardId = ARENA) -> tuple[int, int]:
    level, split = await index.client.hmget(k.meta(lb), "l", "s")
    return int(level or 0), int(split or 0)


async def bucket_names(index: RedisIndex, lb: LeaderboardId = ARENA) -> list[bytes]:
    return [name async for name in index.client.scan_iter(match=k.bucket_prefix(lb) + "*")]


# --- the bucketed player map ------------------------------------------------------------


async def players_in(index: RedisIndex, bucket: str) -> int:
    """A bucket's player fields (besides the sentinel every bucket holds)."""
    assert await index.client.hexists(bucket, "")
    return int(await index.client.hlen(bucket)) - 1


async def test_a_loaded_leaderboard_splits_into_small_listpack_buckets(index: RedisIndex) -> None:
    n = 6000
    await index.load(ARENA, standings(n))
    level, split = await layout(index)
    buckets = 2**level + split
    assert buckets >= n // BUCKET_LOAD
    names = await bucket_names(index)
    assert 0 < len(names) <= buckets
    sizes = [await players_in(index, name) for name in names]
    assert sum(sizes) == n
    assert max(sizes) <= 128
    for name in names[:50]:
        assert await index.client.object("encoding", name) == b"listpack"
    assert await index.position(ARENA, "p0") == Position(0, key("p0", 10 * n), n, 0)
    assert await index.position(ARENA, f"p{n - 1}") == Position(
        n - 1, key(f"p{n - 1}", 10), n, n - 1
    )


async def test_buckets_split_as_writes_grow_a_leaderboard(index: RedisIndex) -> None:
    n = 1500
    for start in range(0, n, 100):
        await index.apply([put(f"p{i}", i) for i in range(start, start + 100)])
    level, split = await layout(index)
    assert 2**level + split >= n // BUCKET_LOAD
    assert sum([await players_in(index, name) for name in await bucket_names(index)]) == n
    found = await index.positions(ARENA, [f"p{i}" for i in range(0, n, 7)])
    assert [offset for offset, _ in found] == [n - 1 - i for i in range(0, n, 7)][::-1]
    await index.apply([gone(f"p{i}") for i in range(0, n, 2)])
    assert await index.total(ARENA) == n // 2
    assert sum([await players_in(index, name) for name in await bucket_names(index)]) == n // 2
    assert await index.position(ARENA, "p0") is None
    position = await index.position(ARENA, "p1")
    assert position is not None and position.offset == n // 2 - 1


async def test_reads_find_players_whatever_layout_they_last_saw(index: RedisIndex) -> None:
    """A reader's remembered layout may be behind (another process grew it) or ahead (the
    leaderboard was dropped and rebuilt smaller): its guessed bucket then misses, and the
    script finds the entry through the current layout and hands that back."""
    reader = redis_index()
    meta = k.meta(ARENA)

    async def check_all(n: int) -> None:
        players = [f"p{i}" for i in range(n)]
        assert await reader.positions(ARENA, [*players, "nobody"]) == [
            (i, key(f"p{i}", 10 * (n - i))) for i in range(n)
        ]
        for i in range(0, n, max(1, n // 40)):
            assert await reader.position(ARENA, f"p{i}") == Position(
                i, key(f"p{i}", 10 * (n - i)), n, i
            )
            around = await reader.around(ARENA, f"p{i}", 1)
            assert around is not None and around[0].offset == i
        assert await reader.position(ARENA, "nobody") is None

    try:
        await index.load(ARENA, standings(60))
        small = await layout(index)
        await check_all(60)
        assert reader._layouts.get(meta, (0, 0)) == small
        await index.drop([ARENA])
        await index.load(ARENA, standings(3000))  # the reader is behind now
        grown = await layout(index)
        assert grown[0] > small[0]
        await check_all(3000)
        assert reader._layouts[meta] == grown
        await index.drop([ARENA])
        await index.load(ARENA, standings(60))  # and now ahead
        await check_all(60)
        assert reader._layouts[meta] == small
    finally:
        await reader.close()


async def test_an_entry_left_in_an_old_bucket_does_not_hide_a_player(index: RedisIndex) -> None:
    """A drop that did not finish leaves buckets of the old layout behind. A reader whose
    guess comes from that layout finds the player's old entry there; the sorted set does
    not know its key, so the script looks where the current layout says."""
    reader = redis_index()
    meta = k.meta(ARENA)
    try:
        await index.load(ARENA, standings(3000))
        big = await layout(index)
        await reader.positions(ARENA, [f"p{i}" for i in range(3000)])
        assert reader._layouts[meta] == big
        await index.drop([ARENA])
        await index.load(ARENA, standings(60))
        small = await layout(index)
        moved = [
            f"p{i}"
            for i in range(60)
            if k.bucket_number(k.bucket_hash(f"p{i}".encode()), *big)
            != k.bucket_number(k.bucket_hash(f"p{i}".encode()), *small)
        ]
        assert moved
        for player in moved:  # each one's old entry, as the unfinished drop left it
            number = k.bucket_number(k.bucket_hash(player.encode()), *big)
            old = key(player, 10 * (3000 - int(player[1:])))[:16] + b"1"
            await index.client.hset(f"{k.bucket_prefix(ARENA)}{number}", player, old)
        i = int(moved[0][1:])
        assert await reader.position(ARENA, moved[0]) == Position(
            i, key(moved[0], 10 * (60 - i)), 60, i
        )
        assert reader._layouts[meta] == small
        reader._layouts[meta] = big  # and once more with the old layout, for the others
        found = await reader.positions(ARENA, moved)
        assert found == sorted((int(p[1:]), key(p, 10 * (60 - int(p[1:])))) for p in moved)
        reader._layouts[meta] = big
        around = await reader.around(ARENA, moved[-1], 1)
        assert around is not None and around[0].offset == int(moved[-1][1:])
    finally:
        await reader.close()


async def test_drop_forgets_the_layout_the_reads_remembered(index: RedisIndex) -> None:
    await index.load(ARENA, standings(3000))
    await index.positions(ARENA, [f"p{i}" for i in range(3000)])
    assert k.meta(ARENA) in index._layouts
    await index.drop([ARENA])
    assert k.meta(ARENA) not in index._layouts


async def test_reserve_sizes_an_empty_leaderboard_before_a_load(index: RedisIndex) -> None:
    await index.reserve(ARENA, 10_000)
    level, split = await layout(index)
    assert 2**level + split >= 10_000 // BUCKET_LOAD
    names = await bucket_names(index)  # every bucket exists, holding only its sentinel
    assert len(names) == 2**level + split
    assert {await players_in(index, name) for name in names} == {0}
    await index.load(ARENA, standings(300))
    assert await layout(index) == (level, split)
    assert await index.total(ARENA) == 300
    assert (await index.around(ARENA, "p150", 1)) is not None


async def test_every_key_of_a_leaderboard_carries_its_hash_tag(index: RedisIndex) -> None:
    await index.load(ARENA, standings(500))
    await index.apply([put("x", 1)])
    await index.expire_in(ARENA, 3_600_000_000)
    tag = "{" + k.tag(ARENA) + "}"
    names = [name.decode() async for name in index.client.scan_iter(match="rl:{*")]
    assert len(names) > 5
    assert all(name.startswith(f"rl:{tag}:") for name in names)


# --- revisions and the bulk load ----------------------------------------------------------


async def test_load_keeps_a_newer_revision_and_replaces_an_older_one(index: RedisIndex) -> None:
    await index.apply([put("kept", 50, revision=5), put("moved", 40, revision=1)])
    await index.load(
        ARENA,
        [
            ("kept", key("kept", 1), 3),
            ("moved", key("moved", 60), 2),
            ("new", key("new", 45), 1),
        ],
    )
    assert await index.slice(ARENA, 0, 10) == [key("moved", 60), key("kept", 50), key("new", 45)]
    await index.apply([put("moved", 1, revision=2), put("new", 1, revision=1)])
    assert await index.total(ARENA) == 3
    assert await index.slice(ARENA, 0, 1) == [key("moved", 60)]


async def test_load_of_a_player_twice_keeps_one_entry(index: RedisIndex) -> None:
    await index.load(ARENA, [("a", key("a", 5), 1), ("b", key("b", 3), 1), ("a", key("a", 9), 2)])
    assert await index.slice(ARENA, 0, 10) == [key("a", 9), key("b", 3)]
    assert await index.position(ARENA, "a") == Position(0, key("a", 9), 2, 0)


async def test_load_retries_when_the_layout_changed_meanwhile(
    index: RedisIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    await index.load(ARENA, standings(200))
    real = index._grow_to
    calls = 0

    async def stale_then_real(names: object, size: int, extra: int) -> tuple[int, int]:
        nonlocal calls
        calls += 1
        level, split = await real(names, size, extra)  # type: ignore[arg-type]
        return (level, split + 1) if calls == 1 else (level, split)

    monkeypatch.setattr(index, "_grow_to", stale_then_real)
    await index.load(ARENA, [(f"q{i}", key(f"q{i}", i), 1) for i in range(300)])
    assert calls == 2
    assert await index.total(ARENA) == 500
    for i in range(0, 300, 37):
        found = await index.position(ARENA, f"q{i}")
        assert found is not None and found.key == key(f"q{i}", i)


async def test_a_big_load_goes_in_several_scripts(
    index: RedisIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_module, "_LOAD_SCRIPT", 64)
    monkeypatch.setattr(index_module, "_LOAD_BATCH", 1000)
    await index.load(ARENA, iter(standings(2500)))
    assert await index.total(ARENA) == 2500
    assert await index.slice(ARENA, 0, 3) == [s[1] for s in standings(2500)[:3]]
    assert await index.leaderboards("arena") == [ARENA]


# --- the top stamp ----------------------------------------------------------------------


async def test_top_stamp_reads_stamp_and_total_together(index: RedisIndex) -> None:
    stamp, total = await index.top_stamp(ARENA)
    assert total == 0 and stamp > 0
    await index.apply([put("a", 1)])
    after, total = await index.top_stamp(ARENA)
    assert total == 1 and after > stamp
    assert await index.top_stamp(ARENA) == (after, 1)


async def test_top_stamp_moves_only_for_changes_touching_the_top(index: RedisIndex) -> None:
    n = TOP_WINDOW + 500
    await index.load(ARENA, standings(n))
    stamp, total = await index.top_stamp(ARENA)
    assert total == n
    # below the top window: a move, an insert and a removal there leave the stamp alone
    await index.apply([put(f"p{n - 1}", 7, revision=2), put("low", 3), gone(f"p{n - 2}", 2)])
    assert await index.top_stamp(ARENA) == (stamp, n)
    # a write into the window
    await index.apply([put("climber", 10 * n + 5)])
    moved, _ = await index.top_stamp(ARENA)
    assert moved > stamp
    # a write leaving the window (old offset inside it)
    await index.apply([put("p3", 1, revision=2)])
    left, _ = await index.top_stamp(ARENA)
    assert left > moved
    # a removal inside the window shifts the entries below it up
    await index.apply([gone("p10", revision=2)])
    removed, _ = await index.top_stamp(ARENA)
    assert removed > left
    # an update refused as older changes nothing
    await index.apply([put("p0", 1, revision=1)])
    assert (await index.top_stamp(ARENA))[0] == removed


async def test_top_stamp_moves_on_load_discard_and_drop(index: RedisIndex) -> None:
    await index.load(ARENA, standings(10))
    loaded, _ = await index.top_stamp(ARENA)
    await index.load(ARENA, [("late", key("late", 1), 1)])
    again, _ = await index.top_stamp(ARENA)
    assert again > loaded
    await index.discard(ARENA, [key("late", 1)])
    discarded, total = await index.top_stamp(ARENA)
    assert discarded > again and total == 10
    await index.drop([ARENA])
    dropped, total = await index.top_stamp(ARENA)
    assert dropped > discarded and total == 0
    await index.apply([put("a", 1)])
    assert (await index.top_stamp(ARENA))[0] > dropped


async def test_top_stamp_never_repeats_after_a_flush(index: RedisIndex) -> None:
    await index.load(ARENA, standings(10))
    seen = set()
    for _ in range(50):
        await index.apply([put("p5", 1000)])
        await index.apply([put("p5", 1)])
        seen.add((await index.top_stamp(ARENA))[0])
    assert len(seen) == 50
    before = max(seen)
    await index.client.flushdb()
    await shared(index).mark_built()  # as the service's rebuild does
    after, total = await index.top_stamp(ARENA)
    assert total == 0 and after > before
    await index.load(ARENA, standings(3))
    assert (await index.top_stamp(ARENA))[0] > after


async def test_processes_sharing_redis_see_one_stamp(index: RedisIndex) -> None:
    other = redis_index()
    try:
        await index.apply([put("a", 1)])
        assert await other.top_stamp(ARENA) == await index.top_stamp(ARENA)
        stamp, _ = await index.top_stamp(ARENA)
        await other.apply([put("b", 2)])
        assert (await index.top_stamp(ARENA))[0] > stamp
    finally:
        await other.close()


# --- expiry and drop ----------------------------------------------------------------------


async def test_expire_in_reaches_every_key_also_buckets_made_later(index: RedisIndex) -> None:
    await index.load(DAILY, standings(400))
    await index.expire_in(DAILY, 3_600_000_000)
    names = [name async for name in index.client.scan_iter(match="rl:{*")]
    assert len(names) > 5
    for name in names:
        assert 3_590_000 < await index.client.pttl(name) <= 3_600_000
    # growth creates buckets; the recorded expiry reaches them too
    await index.apply([put(f"n{i}", i, lb=DAILY) for i in range(1000)])
    await index.load(DAILY, [(f"m{i}", key(f"m{i}", i), 1) for i in range(1000)])
    names = [name async for name in index.client.scan_iter(match="rl:{*")]
    for name in names:
        assert 3_500_000 < await index.client.pttl(name) <= 3_600_000, name
    # a new retention time reaches every bucket again
    await index.expire_in(DAILY, 60_000_000)
    for name in [name async for name in index.client.scan_iter(match="rl:{*")]:
        assert 0 < await index.client.pttl(name) <= 60_000


async def test_drop_deletes_every_bucket(
    index: RedisIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_module, "_BUCKET_CHUNK", 8)
    await index.load(ARENA, standings(2000))
    await index.load(DAILY, standings(50))
    assert len(await bucket_names(index)) > 8
    await index.drop([ARENA])
    assert await bucket_names(index) == []
    assert await index.client.exists(k.entries(ARENA), k.meta(ARENA), k.stamp(ARENA)) == 0
    assert await index.leaderboards("arena") == [DAILY]
    await index.apply([put("a", 1)])
    assert await index.slice(ARENA, 0, 5) == [key("a", 1)]


# --- built marker and layout ----------------------------------------------------------------


async def test_an_index_of_the_old_layout_counts_as_not_built(index: RedisIndex) -> None:
    old_z, old_h = "rl:{arena|all_time|all|global}:z", "rl:{arena|all_time|all|global}:h"
    await index.client.zadd(old_z, {key("a", 1): 0})
    await index.client.hset(old_h, "a", key("a", 1)[:16] + b"1")
    await index.client.set(k.META_BUILT, "1")
    await index.client.delete(k.META_LAYOUT)
    assert not await shared(index).is_built()
    async with shared(index).rebuild_lock() as mine:
        assert mine
        assert await index.client.exists(old_z, old_h) == 0
        await index.load(ARENA, standings(3))
        await shared(index).mark_built()
    assert await shared(index).is_built()
    assert await index.total(ARENA) == 3
    await index.client.flushdb()
    assert not await shared(index).is_built()


async def test_change_stamp_moves_with_every_change_and_only_then(index: RedisIndex) -> None:
    n = TOP_WINDOW + 100
    await index.load(ARENA, standings(n))
    first = await index.change_stamp(ARENA)
    top, _ = await index.top_stamp(ARENA)
    assert first == top  # the load touched the top: both moved together
    await index.apply([put("low", 1)])  # far below the top
    below = await index.change_stamp(ARENA)
    assert below > first and (await index.top_stamp(ARENA))[0] == top
    await index.apply([put("low", 1, revision=3)])  # same key, newer revision: no change
    await index.apply([put("p0", 1, revision=1)])  # older revision: refused
    await index.position(ARENA, "p0")
    assert await index.change_stamp(ARENA) == below
    await index.discard(ARENA, [key("low", 1)])
    assert await index.change_stamp(ARENA) > below
    latest = await index.change_stamp(ARENA)
    await index.client.flushdb()
    await shared(index).mark_built()  # as the service's rebuild does
    assert await index.change_stamp(ARENA) > latest
