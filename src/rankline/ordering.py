"""The one ordering key: (score, achieved_at, player_id) as bytes in rank order.

Layout: 8 bytes score, 8 bytes achieved_at, then the player id (ASCII). On a board with a
subscore, 8 bytes of subscore follow the score (``Keys``): (score, subscore, achieved_at,
player_id), a 24-byte head, so only such boards pay for the extra word. The score is
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


SUB_PREFIX_BYTES = 16
SUB_HEAD_BYTES = 24
_SUB_HEAD = struct.Struct(">QQQ")


def head_bytes(subscored: bool) -> int:
    """How long the head (everything before the player id) of a board's keys is."""
    return SUB_HEAD_BYTES if subscored else HEAD_BYTES


def plain_heads(board: str) -> int:
    """``head_bytes`` of every board, for an index told of no board with a subscore."""
    return HEAD_BYTES


def value_bytes(head: int) -> int:
    """How many leading bytes of a key with a ``head``-byte head are its value (score, and
    subscore): the keys before that prefix have strictly better values."""
    return head - 8


class Keys:
    """The keys of one board: ``order`` for the score, and ``sub_order`` for its subscore
    (None: the board has none). The value a policy and ``competition_rank`` compare is the
    ``prefix`` (the score, and the subscore when there is one)."""

    __slots__ = ("head", "order", "prefix", "sub_order")

    def __init__(self, order: Order, sub_order: Order | None = None) -> None:
        self.order: Order = order
        self.sub_order: Order | None = sub_order
        self.head = head_bytes(sub_order is not None)
        self.prefix = SUB_PREFIX_BYTES if sub_order is not None else PREFIX_BYTES

    def encode(
        self, score: Score, subscore: Score | None, achieved_at: Micros, player: PlayerId
    ) -> SortKey:
        if self.sub_order is None:
            return encode(score, achieved_at, player, self.order)
        if subscore is None:
            raise ValueError("a key of a board with a subscore needs one")
        word = _score_word(score, self.order)
        return _SUB_HEAD.pack(
            word, _score_word(subscore, self.sub_order), achieved_at + _OFFSET
        ) + (player.encode())

    def decode(self, key: SortKey) -> tuple[Score, Score | None, Micros, PlayerId]:
        """(score, subscore or None, achieved_at, player) back from a key."""
        if self.sub_order is None:
            score, at, player = decode(key, self.order)
            return score, None, at, player
        word, sub, at = _SUB_HEAD.unpack_from(key)
        return (
            _unword(word, self.order),
            _unword(sub, self.sub_order),
            at - _OFFSET,
            key[SUB_HEAD_BYTES:].decode(),
        )

    def decode_many(
        self, keys: Iterable[SortKey]
    ) -> list[tuple[Score, Score | None, Micros, PlayerId]]:
        """``decode`` of each of ``keys``, in one pass: an answer of many entries decodes
        them all, and two calls per key cost as much as the decoding."""
        if self.sub_order is not None:
            return [self.decode(key) for key in keys]
        unpack, offset = _HEAD.unpack_from, _OFFSET
        if self.order == "desc":
            best = _MASK - _OFFSET
            return [
                (best - word, None, at - offset, key[HEAD_BYTES:].decode())
                for key in keys
                for word, at in (unpack(key),)
            ]
        return [
            (word - offset, None, at - offset, key[HEAD_BYTES:].decode())
            for key in keys
            for word, at in (unpack(key),)
        ]

    def player_of(self, key: SortKey) -> PlayerId:
        return key[self.head :].decode()

    def value_prefix(self, score: Score, subscore: Score | None) -> bytes:
        """The bytes shared by every key of this (score, subscore); keys below it are better."""
        if self.sub_order is None:
            return score_prefix(score, self.order)
        if subscore is None:
            raise ValueError("a key of a board with a subscore needs one")
        return score_prefix(score, self.order) + score_prefix(subscore, self.sub_order)

    def head_of(self, score: Score, subscore: Score | None, achieved_at: Micros) -> bytes:
        """The head shared by every key of this value reached at this time."""
        return self.value_prefix(score, subscore) + _WORD.pack(achieved_at + _OFFSET)

    def decode_bound(
        self, bound: bytes
    ) -> tuple[Score, Score | None, Micros | None, PlayerId | None]:
        """``decode_bound`` for this board: the score, the subscore (None when the bound
        stops before it, or the board has none), the time and the player a bound names."""
        if self.sub_order is None:
            score, at, player = decode_bound(bound, self.order)
            return score, None, at, player
        score = _unword(_WORD.unpack_from(bound)[0], self.order)
        if len(bound) < SUB_PREFIX_BYTES:
            return score, None, None, None
        sub = _unword(_WORD.unpack_from(bound, PREFIX_BYTES)[0], self.sub_order)
        if len(bound) < SUB_HEAD_BYTES:
            return score, sub, None, None
        at = _WORD.unpack_from(bound, SUB_PREFIX_BYTES)[0] - _OFFSET
        if len(bound) == SUB_HEAD_BYTES:
            return score, sub, at, None
        return score, sub, at, bound[SUB_HEAD_BYTES:].decode()

    def encode_rows(
        self, rows: Iterable[tuple[bytes, Score, Score | None, Micros]]
    ) -> list[SortKey]:
        """``encode_rows`` with the subscore of each row (None on a board without one)."""
        if self.sub_order is None:
            return encode_rows(((p, s, at) for p, s, _, at in rows), self.order)
        return [self.encode(score, sub, at, player.decode()) for player, score, sub, at in rows]


def _unword(word: int, order: Order) -> Score:
    return (_MASK - word if order == "desc" else word) - _OFFSET
