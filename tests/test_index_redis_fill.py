"""The Redis index's fast full load (``RedisIndex.fill``): it must leave exactly the index
the careful ``load`` leaves, also when other processes write meanwhile or a fill died."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from helpers_backends import open_redis_index, redis_index
from rankline.errors import IndexDamaged
from rankline.index.base import IndexRow
from rankline.index.redis import fill as redis_fill
from rankline.index.redis import keys as k
from rankline.index.redis.common import Names
from rankline.index.redis.fill import _Fill
from rankline.index.redis.index import RedisIndex
from rankline.types import IndexChange, LeaderboardId
from test_index_redis import key, layout, put, standings

FAST = LeaderboardId("arena", "all_time", "all", "global")
CAREFUL = LeaderboardId("arena", "all_time", "all", "careful")


@pytest.fixture
async def index() -> AsyncIterator[RedisIndex]:
    async with open_redis_index() as opened:
        yield opened


async def chunked(entries: list[IndexRow], size: int) -> AsyncIterator[list[IndexRow]]:
    for start in range(0, len(entries), size):
        yield entries[start : start + size]


async def fill(index: RedisIndex, lb: LeaderboardId, entries: list[IndexRow], size: int = 0) -> int:
    seen = 0
    async for count in index.fill(lb, size or len(entries), chunked(entries, 700)):
        seen += count
    return seen


async def snapshot(index: RedisIndex, lb: LeaderboardId) -> tuple[object, ...]:
    """Everything a leaderboard holds: its keys in order, layout, and every bucket."""
    members = await index.client.zrange(k.entries(lb), 0, -1)
    level, split = await layout(index, lb)
    buckets = {}
    for number in range(2**level + split):
        found = await index.client.hgetall(f"{k.bucket_prefix(lb)}{number}")
        if found:
            buckets[number] = found
    meta = await index.client.hgetall(k.meta(lb))
    return members, (level, split), buckets, meta


async def consistent(index: RedisIndex, lb: LeaderboardId) -> list[bytes]:
    """The sorted set's members, each checked to be its player's one bucket entry."""
    members = await index.client.zrange(k.entries(lb), 0, -1)
    players = [m[16:].decode() for m in members]
    assert len(set(players)) == len(players), "a player twice"
    found = await index.positions(lb, players)
    assert [key for _, key in found] == members
    fields = 0
    level, split = await layout(index, lb)
    for number in range(2**level + split):
        bucket = f"{k.bucket_prefix(lb)}{number}"
        assert not members or await index.client.hexists(bucket, ""), "a bucket lacks its sentinel"
        fields += await index.client.hlen(bucket) - await index.client.hexists(bucket, "")
    assert fields == len(members)
    return members


@pytest.mark.parametrize("held", [10**9, 1500])
async def test_fill_leaves_the_index_the_careful_load_leaves(
    index: RedisIndex, monkeypatch: pytest.MonkeyPatch, held: int
) -> None:
    monkeypatch.setattr(redis_fill, "_FILL_HELD", held)  # one write of the buckets, or several
    monkeypatch.setattr(redis_fill, "_FILL_KEYS", 300)
    monkeypatch.setattr(redis_fill, "_FILL_BUCKET_BYTES", 2000)
    entries = standings(5000)
    entries[10] = (entries[10][0], entries[10][1], 0)  # revision 0 as well
    assert await fill(index, FAST, entries[::-1]) == 5000  # any order in: rank order out
    for start in range(0, 5000, 700):
        await index.load(CAREFUL, entries[start : start + 700])
    fast, careful = await snapshot(index, FAST), await snapshot(index, CAREFUL)
    assert fast == careful
    assert fast[0] == [e[1] for e in entries]
    assert b"f" not in fast[3]  # the claim is gone
    assert await index.leaderboards("arena") == [CAREFUL, FAST]
    # growth afterwards splits the same buckets the same way
    for lb in (FAST, CAREFUL):
        for start in range(0, 3000, 500):
            await index.apply([put(f"n{i}", 7 * i, lb=lb) for i in range(start, start + 500)])
        await index.apply([put("p7", 1, revision=2, lb=lb), IndexChange(lb, "p8", None, 2)])
    fast, careful = await snapshot(index, FAST), await snapshot(index, CAREFUL)
    assert fast == careful
    level, split = await layout(index, FAST)
    assert 2**level + split >= 7998 // 48
    await consistent(index, FAST)


async def test_fill_sizes_the_layout_up_front(index: RedisIndex) -> None:
    await fill(index, FAST, standings(3000), size=3000)
    level, split = await layout(index, FAST)
    assert 2**level + split == -(-3000 // 48)
    # a size that fell short grows the layout at the end, as a careful load would
    await fill(index, CAREFUL, standings(3000), size=100)
    assert await layout(index, CAREFUL) == (level, split)
    assert (await snapshot(index, CAREFUL))[2] == (await snapshot(index, FAST))[2]


async def test_fill_of_a_leaderboard_with_entries_checks_revisions(index: RedisIndex) -> None:
    await index.apply([put("kept", 50, revision=5), put("moved", 40, revision=1)])
    entries = [
        ("kept", key("kept", 1), 3),
        ("moved", key("moved", 60), 2),
        ("new", key("new", 45), 1),
    ]
    assert await fill(index, FAST, entries) == 3
    assert await index.slice(FAST, 0, 10) == [key("moved", 60), key("kept", 50), key("new", 45)]
    await consistent(index, FAST)


async def test_fill_of_a_leaderboard_with_an_expiry_loads_carefully(index: RedisIndex) -> None:
    await index.expire_in(FAST, 3_600_000_000)
    await fill(index, FAST, standings(500))
    names = [name async for name in index.client.scan_iter(match="rl:{*")]
    assert len(names) > 5
    for name in names:
        assert 0 < await index.client.pttl(name) <= 3_600_000
    await consistent(index, FAST)


@pytest.mark.parametrize("moment", [1, 3, 6])
async def test_a_write_during_a_fill_wins_and_leaves_no_half_entry(
    index: RedisIndex, monkeypatch: pytest.MonkeyPatch, moment: int
) -> None:
    """Another worker writes while the fill runs: a newer state of a player not loaded
    yet, of one loaded already, a removal and a new player. The fill notices (its next
    script refuses), undoes its half entries and loads the rest carefully."""
    monkeypatch.setattr(redis_fill, "_FILL_HELD", 1000)
    n = 3000
    entries = standings(n)
    late, early = entries[n - 5][0], entries[5][0]
    writes = [
        put(late, 10 * n + 7, revision=2, lb=FAST),  # newer than the snapshot's revision 1
        put(early, 3, revision=2, lb=FAST),
        IndexChange(FAST, entries[n // 2][0], None, 2),
        put("newcomer", 15, revision=1, lb=FAST),
    ]

    async def chunks() -> AsyncIterator[list[IndexRow]]:
        for number, start in enumerate(range(0, n, 400)):
            if number == moment:
                await index.apply(writes)
            yield entries[start : start + 400]

    async for _ in index.fill(FAST, n, chunks()):
        pass
    members = await consistent(index, FAST)
    by_player = {m[16:].decode(): m for m in members}
    assert by_player[late] == key(late, 10 * n + 7)
    assert by_player[early] == key(early, 3)
    assert by_player["newcomer"] == key("newcomer", 15)
    # A removal of a player the fill has not written yet (or only as a half entry) is lost
    # to the reload, as ever with a reload from SQL, which only adds (the keeper re-applies
    # missed removals); one of a player written already stands. Either way, once.
    removed = entries[n // 2][0]
    assert len(members) == n + (removed in by_player)
    if moment == 1:  # before the fill read that player
        assert by_player[removed] == entries[n // 2][1]
    assert b"f" not in await index.client.hgetall(k.meta(FAST))


async def test_an_unfinished_fill_is_dropped_and_done_again(index: RedisIndex) -> None:
    names = Names.of(FAST)
    dead = _Fill(index._filler, names, *await index._grow_to(names, 0, 0))
    assert await dead.begin() == "ok"
    old = [(p, key(p, 1), 1) for p, _, _ in standings(200)]
    await dead.add(list(old))  # keys in, bucket fields never written: half entries
    assert dead._keys is not None
    await dead._keys
    assert await index.total(FAST) == 200
    with pytest.raises(IndexDamaged):  # a half entry: no bucket where the player should be
        await index.position(FAST, "p3")
    await index.apply([put("p3", 99, revision=2, lb=FAST)])  # a write meets a half entry
    # p3 twice: the dead fill's key and the new one; the write marked the damage
    assert await index.client.zcard(k.entries(FAST)) == 201
    with pytest.raises(IndexDamaged):
        await index.total(FAST)
    fresh = standings(300)
    fresh[3] = ("p3", key("p3", 99), 2)
    await fill(index, FAST, fresh)
    assert await consistent(index, FAST) == sorted(e[1] for e in fresh)


async def test_two_fills_of_one_leaderboard_end_consistent(index: RedisIndex) -> None:
    other = redis_index(index.link.url)
    try:
        first = standings(2000)
        second = [(p, key(p, 3 * i), 2) for i, (p, _, _) in enumerate(first)]
        one = index.fill(FAST, 2000, chunked(first, 300))
        two = other.fill(FAST, 2000, chunked(second, 300))
        done = {"one": False, "two": False}
        while not all(done.values()):
            for name, gen in (("one", one), ("two", two)):
                if not done[name]:
                    try:
                        await anext(gen)
                    except StopAsyncIteration:
                        done[name] = True
        members = await consistent(index, FAST)
        assert members == sorted(e[1] for e in second)  # revision 2 wins everywhere
    finally:
        await other.close()
