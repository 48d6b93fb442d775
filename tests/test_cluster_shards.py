"""On the suite's Redis Cluster, the shards of a sharded leaderboard land on different
primaries (their hash tags are salted into evenly spread slot ranges), whatever the board."""

from __future__ import annotations

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

import helpers_backends
from rankline.index import sharding
from rankline.index.redis import keys as k
from rankline.index.redis import lua, scripts
from rankline.index.redis.cluster import ClusterLink, ClusterRouter, slot_of
from rankline.types import TOP_WINDOW, LeaderboardId


def test_the_shards_of_a_leaderboard_spread_over_every_primary() -> None:
    helpers_backends.cluster_url()
    cluster = helpers_backends.cluster_in_use()
    for board in ("big", "season-7", "arena.eu"):
        lb = LeaderboardId(board, "weekly", "2026-W47", "region:EU")
        for shards in (3, 7):
            ports = [
                cluster.primary_of(slot_of(k.entries(sharding.shard(lb, i, shards)).encode())).port
                for i in range(shards)
            ]
            assert len(set(ports)) == 3, (board, shards, ports)
            if shards == 3:  # one shard a primary
                assert len(ports) == len(set(ports))


def test_every_script_the_index_reads_with_is_a_read_on_a_cluster() -> None:
    """A read script the cluster client does not know as one goes through redis-py's
    pipeline and is followed by a WAIT for replicas, which a lagging replica turns into an
    unavailable index. Every script there is is named here as a read or a write, so that a
    new one is classified: its header (``-- mode:``) must say the same, and the cluster
    client must send exactly the reads as reads. Built without connecting."""
    reads = {
        "around",
        "positions",
        "page",
        "counts_before",
        "distinct_before",
        "neighbours",
        "top_stamp",
        "change_stamp",
        "state",
        "unmapped",
        "movement",
        "board_check",
    }
    writes = {
        "apply",
        "grow",
        "load",
        "discard",
        "expire",
        "expire_buckets",
        "drop",
        "repair_begin",
        "repair_extend",
        "repair_end",
        "fill_begin",
        "fill_keys",
        "fill_buckets",
        "fill_end",
        "fill_undo",
        "board_begin",
        "board_end",
    }
    assert set(lua.names()) == reads | writes
    assert {name for name in lua.names() if lua.load(name).mode == "read"} == reads
    link = ClusterLink("redis+cluster://127.0.0.1:1")
    shas = {name: link.script(name).sha for name in lua.names()}
    assert {name for name, sha in shas.items() if sha in link.cluster._reads} == reads


async def test_a_closed_router_makes_no_new_connection() -> None:
    """Work still running when the index closes fails; it opens no connection that would
    outlive the router, unclosed."""
    router = ClusterRouter([("127.0.0.1", 1)])
    await router.close()
    with pytest.raises(RedisConnectionError, match="closed"):
        router.node(("127.0.0.1", 1))
    with pytest.raises(RedisConnectionError, match="closed"):
        await router.run([(("GET", "k"), {})], raise_on_error=True)


def test_the_read_scripts_name_the_built_marker_by_target() -> None:
    """A read script that checks the built marker takes it as KEYS[4] on a single Redis and
    as its last argument on a cluster (where it runs with the cross-slot flag); otherwise
    the two targets send the same text."""
    for name in lua.names():
        single, cluster = lua.load(name), lua.load(name, "cluster")
        checks = "local BUILT = KEYS[4]" in single.text
        assert checks == ("local BUILT = ARGV[#ARGV]" in cluster.text), name
        assert (single.text == cluster.text) is not checks, name
        if checks:
            assert single.mode == "read", name
            assert cluster.text.startswith("#!lua flags=no-writes,allow-cross-slot-keys\n"), name


def test_the_lua_constants_are_the_pythons() -> None:
    text = lua.load("apply").text  # every constant is in ``constants.lua``, which it includes
    assert f"local TOP_WINDOW = {TOP_WINDOW}\n" in text
    assert f"local BUCKET_LOAD = {scripts.BUCKET_LOAD}\n" in text
    assert f"local GROW_SPLITS = {scripts.GROW_SPLITS}\n" in text
    assert f"local DAMAGED, LOST = {scripts.DAMAGED}, {scripts.LOST}\n" in text
