"""On the suite's Redis Cluster, the shards of a sharded leaderboard land on different
primaries (their hash tags are salted into evenly spread slot ranges), whatever the board."""

from __future__ import annotations

from redis.commands.core import AsyncScript

import backends
from rankline.index import sharding
from rankline.index.redis import keys as k
from rankline.index.redis.cluster import RedisClusterIndex, slot_of
from rankline.types import LeaderboardId


def test_the_shards_of_a_leaderboard_spread_over_every_primary() -> None:
    backends.cluster_url()
    cluster = backends.cluster_in_use()
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
    unavailable index. Every script the index registers is named here as a read or a write,
    so that a new one is classified. Built without connecting."""
    reads = {
        "_around",
        "_positions",
        "_page",
        "_counts_before",
        "_distinct_before",
        "_neighbours",
        "_top_stamp",
        "_change_stamp",
        "_state",
        "_unmapped",
        "_movement",
    }
    writes = {
        "_apply",
        "_grow",
        "_load",
        "_discard",
        "_expire",
        "_expire_buckets",
        "_drop",
        "_repair_begin",
        "_repair_extend",
        "_repair_end",
    }
    index = RedisClusterIndex("redis+cluster://127.0.0.1:1")
    registered = {
        name: value.sha for name, value in vars(index).items() if isinstance(value, AsyncScript)
    }
    assert set(registered) == reads | writes
    assert {name for name, sha in registered.items() if sha in index.cluster._reads} == reads
