"""Every Redis key rankline uses, named once.

All keys of one leaderboard share one hash tag (``{...}``), so its scripts touch a single
Redis Cluster slot. The tag holds board, window, period and scope joined by ``|``, a
character no identifier may contain.
"""

from __future__ import annotations

from rankline.types import BoardId, LeaderboardId

PREFIX = "rl"
SEP = "|"
META_BUILT = f"{PREFIX}:meta:built"
"""Set once the index has been built from the durable store; absent after a Redis flush."""
META_REBUILD_LOCK = f"{PREFIX}:meta:rebuild-lock"
FEED_CHANNEL = f"{PREFIX}:feed:changed"
"""Pub/sub channel: the tags of the leaderboards a committed write batch changed."""


def tag(leaderboard: LeaderboardId) -> str:
    return SEP.join(leaderboard)


def from_tag(value: str) -> LeaderboardId:
    board, window, period, scope = value.split(SEP, 3)
    return LeaderboardId(board, window, period, scope)


def entries(leaderboard: LeaderboardId) -> str:
    """Sorted set: every member at score 0, ordered by its bytes (the ordering key)."""
    return f"{PREFIX}:{{{tag(leaderboard)}}}:z"


def heads(leaderboard: LeaderboardId) -> str:
    """Hash: player id → the key's 16-byte head followed by the standing's revision."""
    return f"{PREFIX}:{{{tag(leaderboard)}}}:h"


def registry(board: BoardId) -> str:
    """Set of the tags of a board's leaderboards."""
    return f"{PREFIX}:board:{{{board}}}:leaderboards"
