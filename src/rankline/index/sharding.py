"""How a sharded leaderboard is split: shard names, and which shard holds a player.

A board may split each of its leaderboards by player over ``S`` shards (``"shards"`` in its
definition, 1 to 64). Shard ``i`` of leaderboard ``(board, window, period, scope)`` is the
leaderboard ``(board, window, period, scope + "#i/S")`` of the index underneath: ``#`` and
``/`` occur in no identifier, so a shard's name never collides with a leaderboard's, and the
name carries ``S`` so that the shards of a board recreated with another count are other
keys. On Redis each shard's keys carry a hash tag salted to fall into the ``i``-th of ``S``
even parts of the slot space (``keys.tag``), so on a cluster whose slots are split evenly
the shards sit on different primaries; the names depend on ``i`` and ``S`` only, never on
the live topology.

A player is on shard ``crc32(player id) mod S``: a stable hash (never Python's ``hash``,
which differs per process), the same in every worker and every release.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Iterable

from rankline.types import LeaderboardId, PlayerId, SortKey

MARK = "#"
"""Separates a shard's number from the scope it splits (no identifier contains it)."""


def shard(leaderboard: LeaderboardId, number: int, shards: int) -> LeaderboardId:
    """Shard ``number`` of ``shards`` of an unsharded leaderboard."""
    return leaderboard._replace(scope=f"{leaderboard.scope}{MARK}{number}/{shards}")


def shards_of(leaderboard: LeaderboardId, shards: int) -> list[LeaderboardId]:
    """Every shard of ``leaderboard``, in shard order (itself when ``shards`` is 1)."""
    if shards <= 1:
        return [leaderboard]
    return list(_shards(leaderboard, shards))


@functools.lru_cache(maxsize=16_384)
def _shards(leaderboard: LeaderboardId, shards: int) -> tuple[LeaderboardId, ...]:
    """Made once per leaderboard: every read of a sharded board names all its shards."""
    return tuple(shard(leaderboard, i, shards) for i in range(shards))


def parse(leaderboard: LeaderboardId) -> tuple[LeaderboardId, int, int] | None:
    """(the unsharded leaderboard, shard number, shard count) of a shard; None for a
    leaderboard that is not a shard."""
    scope, mark, rest = leaderboard.scope.partition(MARK)
    if not mark:
        return None
    number, _, count = rest.partition("/")
    return leaderboard._replace(scope=scope), int(number), int(count)


def is_shard(leaderboard: LeaderboardId) -> bool:
    """Whether ``leaderboard`` is a shard of another."""
    return MARK in leaderboard.scope


def unsharded(leaderboard: LeaderboardId) -> LeaderboardId:
    """The leaderboard a shard belongs to (a leaderboard that is no shard: itself)."""
    found = parse(leaderboard)
    return leaderboard if found is None else found[0]


def player_shard(player: PlayerId | bytes, shards: int) -> int:
    """The shard that holds ``player`` (its id, or the id's bytes) among ``shards``."""
    if shards <= 1:
        return 0
    data = player.encode() if isinstance(player, str) else player
    return zlib.crc32(data) % shards


def split_keys(keys: Iterable[SortKey], shards: int, head: int) -> list[list[SortKey]]:
    """``keys`` (of ``head``-byte heads, each followed by its player id) by player shard."""
    parts: list[list[SortKey]] = [[] for _ in range(shards)]
    for key in keys:
        parts[player_shard(key[head:], shards)].append(key)
    return parts


__all__ = ["MARK", "parse", "player_shard", "shard", "shards_of", "split_keys", "unsharded"]
