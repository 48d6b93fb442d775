"""On the suite's Redis Cluster, the shards of a sharded leaderboard land on different
primaries (their hash tags are salted into evenly spread slot ranges), whatever the board."""

from __future__ import annotations

import backends
from rankline.index import keys as k
from rankline.index import sharding
from rankline.index.redis_cluster import slot_of
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
