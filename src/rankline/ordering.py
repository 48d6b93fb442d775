"""The one ordering key: (score, achieved_at, player_id) as bytes in rank order.

Layout: 8 bytes score, 8 bytes achieved_at, then the player id (ASCII). The score is
offset by 2^63 so that unsigned big-endian order is signed numeric order, and inverted
on ``desc`` boards so that the best score always sorts first. achieved_at (microseconds,
offset the same way) ascends: who reached a score first ranks higher; then the player id
ascends bytewise. Every backend orders by these bytes and nothing else, so 64-bit scores
stay exact (Redis's double scores would round above 2^53).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

from rankline.types import Micros, Order, PlayerId, Score, SortKey

SCORE_MIN = -(1 << 63)
SCORE_MAX = (1 << 63) - 1
PREFIX_BYTES = 8
HEAD_BYTES = 16

_OFFSET = 1 << 63
_MASK = (1 << 64) - 1
_HEAD = struct.Struct(">QQ")
_WORD = struct.Struct(">Q")


def _score_word(score: Score, order: Order) -> int:
    if not SCORE_MIN <= score <= SCORE_MAX:
        raise ValueError(f"score {score} is outside the signed 64-bit range")
    word = score + _OFFSET
    return _MASK - word if order == "desc" else word


def encode(score: Score, achieved_at: Micros, player: PlayerId, order: Order) -> SortKey:
    """The sort key of one entry."""
    return _HEAD.pack(_score_word(score, order), achieved_at + _OFFSET) + player.encode()


def score_prefix(score: Score, order: Order) -> bytes:
    """The first 8 bytes shared by every key with this score; keys below it score better."""
    return _WORD.pack(_score_word(score, order))


def decode(key: SortKey, order: Order) -> tuple[Score, Micros, PlayerId]:
    """(score, achieved_at, player) back from a key."""
    word, at = _HEAD.unpack_from(key)
    if order == "desc":
        word = _MASK - word
    return word - _OFFSET, at - _OFFSET, key[HEAD_BYTES:].decode()


def decode_bound(bound: bytes, order: Order) -> tuple[Score, Micros | None, PlayerId | None]:
    """What a bound of ``counts_before`` names: a score (an 8-byte prefix), a score and a
    time (a 16-byte head), or a whole key. A prefix of another length rounds down to one
    of these (bytes past the score or the head are the key's player id)."""
    (word,) = _WORD.unpack_from(bound)
    if order == "desc":
        word = _MASK - word
    score = word - _OFFSET
    if len(bound) < HEAD_BYTES:
        return score, None, None
    at = _WORD.unpack_from(bound, PREFIX_BYTES)[0] - _OFFSET
    if len(bound) == HEAD_BYTES:
        return score, at, None
    return score, at, bound[HEAD_BYTES:].decode()


def head(score: Score, achieved_at: Micros, order: Order) -> bytes:
    """The 16-byte head shared by every key of this score reached at this time."""
    return _HEAD.pack(_score_word(score, order), achieved_at + _OFFSET)


def player_of(key: SortKey) -> PlayerId:
    return key[HEAD_BYTES:].decode()


def encode_rows(rows: Iterable[tuple[bytes, Score, Micros]], order: Order) -> list[SortKey]:
    """The keys of many (player id as bytes, score, achieved_at) rows, exactly as ``encode``
    makes them one at a time, for rebuilds, where the cost per row decides the rate. The
    rows come from the durable store, so their scores are known to be in range."""
    pack, offset = _HEAD.pack, _OFFSET
    if order == "desc":
        top = _MASK - _OFFSET
        return [pack(top - score, at + offset) + player for player, score, at in rows]
    return [pack(score + offset, at + offset) + player for player, score, at in rows]
