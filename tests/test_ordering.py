"""The ordering key: its byte order is the ranking order of API.md, exactly, for 64-bit scores."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rankline.ordering import (
    HEAD_BYTES,
    PREFIX_BYTES,
    SCORE_MAX,
    SCORE_MIN,
    Keys,
    decode,
    encode,
    player_of,
    score_prefix,
)
from rankline.types import Micros, Order, PlayerId, Score

KeyParts = tuple[Score, Micros, PlayerId]

ORDERS: tuple[Order, ...] = ("desc", "asc")
TWO_53 = 1 << 53
BOUNDARY_SCORES = [
    SCORE_MIN,
    SCORE_MIN + 1,
    -TWO_53 - 1,
    -TWO_53,
    -TWO_53 + 1,
    -1,
    0,
    1,
    TWO_53 - 1,
    TWO_53,
    TWO_53 + 1,
    SCORE_MAX - 1,
    SCORE_MAX,
]
AT_LIMIT = (1 << 63) - (1 << 40)  # int64 minus a margin
BOUNDARY_TIMES = [-AT_LIMIT, -1, 0, 1, 1_795_000_000_000_000, AT_LIMIT]
PLAYER_REGEX = r"[A-Za-z0-9_.:@-]{1,64}"
EDGE_PLAYERS = ["-", "0", "9", ":", "@", "A", "Z", "_", "a", "a0", "p:1", "p:10", "p:2", "z" * 64]

any_score = st.integers(SCORE_MIN, SCORE_MAX)
scores = st.one_of(st.sampled_from(BOUNDARY_SCORES), st.integers(-3, 3), any_score)
times = st.one_of(
    st.sampled_from(BOUNDARY_TIMES), st.integers(-2, 2), st.integers(-AT_LIMIT, AT_LIMIT)
)
players = st.one_of(st.sampled_from(EDGE_PLAYERS), st.from_regex(PLAYER_REGEX, fullmatch=True))
orders = st.sampled_from(ORDERS)
entries = st.tuples(scores, times, players)


@st.composite
def tied_entries(draw: st.DrawFn) -> list[KeyParts]:
    """Many entries drawn from small pools, so equal scores and equal times are the rule."""
    score_pool = draw(st.lists(scores, min_size=1, max_size=3))
    time_pool = draw(st.lists(times, min_size=1, max_size=3))
    player_pool = draw(st.lists(players, min_size=1, max_size=6))
    entry = st.tuples(
        st.sampled_from(score_pool), st.sampled_from(time_pool), st.sampled_from(player_pool)
    )
    return draw(st.lists(entry, max_size=30))


def naive_key(entry: KeyParts, order: Order) -> tuple[int, int, bytes]:
    """API.md's order: score (desc or asc), then achieved_at ascending, then player bytewise."""
    score, at, player = entry
    return (-score if order == "desc" else score, at, player.encode())


def is_better(score: Score, than: Score, order: Order) -> bool:
    return score > than if order == "desc" else score < than


@settings(max_examples=300)
@given(tied_entries(), orders)
def test_sorting_by_key_is_the_api_order(items: list[KeyParts], order: Order) -> None:
    by_key = sorted(items, key=lambda e: encode(*e, order))
    assert by_key == sorted(items, key=lambda e: naive_key(e, order))


@settings(max_examples=500)
@given(entries, entries, orders)
def test_key_comparison_matches_naive_comparison(a: KeyParts, b: KeyParts, order: Order) -> None:
    key_a, key_b = encode(*a, order), encode(*b, order)
    assert (key_a < key_b) == (naive_key(a, order) < naive_key(b, order))
    assert (key_a == key_b) == (a == b)


@given(entries, orders)
def test_decode_inverts_encode(entry: KeyParts, order: Order) -> None:
    key = encode(*entry, order)
    assert decode(key, order) == entry
    assert player_of(key) == entry[2]
    assert len(key) == HEAD_BYTES + len(entry[2])


@given(st.lists(st.tuples(entries, scores), max_size=20), orders, st.none() | orders)
def test_decode_many_is_decode_of_each(
    items: list[tuple[KeyParts, Score]], order: Order, sub_order: Order | None
) -> None:
    keys = Keys(order, sub_order)
    encoded = [
        keys.encode(score, None if sub_order is None else sub, at, player)
        for (score, at, player), sub in items
    ]
    assert keys.decode_many(encoded) == [keys.decode(key) for key in encoded]


@pytest.mark.parametrize("order", ORDERS)
def test_boundary_scores_sort_in_order_and_stay_exact(order: Order) -> None:
    keys = [encode(score, 0, "p", order) for score in BOUNDARY_SCORES]
    expected = sorted(BOUNDARY_SCORES, reverse=order == "desc")
    assert [decode(key, order)[0] for key in sorted(keys)] == expected
    assert len(set(keys)) == len(BOUNDARY_SCORES)


def test_scores_beyond_2_53_stay_distinct() -> None:
    # A double cannot tell 2^53 from 2^53 + 1; the key must.
    assert encode(TWO_53 + 1, 5, "b", "desc") < encode(TWO_53, 0, "a", "desc")
    assert encode(-TWO_53 - 1, 5, "b", "asc") < encode(-TWO_53, 0, "a", "asc")


@pytest.mark.parametrize("order", ORDERS)
def test_ties_break_on_time_then_player_bytes(order: Order) -> None:
    earlier_late_name = encode(7, 10, "zz", order)
    later = encode(7, 11, "a", order)
    assert earlier_late_name < later
    assert encode(7, 10, "A", order) < encode(7, 10, "a", order)  # bytewise: 'A' < 'a'
    assert encode(7, 10, "p:1", order) < encode(7, 10, "p:10", order) < encode(7, 10, "p:2", order)
    assert encode(7, -1, "z", order) < encode(7, 0, "a", order)


@settings(max_examples=300)
@given(entries, entries, orders)
def test_better_scores_sort_below_the_prefix_of_worse_ones(
    better: KeyParts, worse: KeyParts, order: Order
) -> None:
    assume(better[0] != worse[0])
    if not is_better(better[0], worse[0], order):
        better, worse = worse, better
    prefix = score_prefix(worse[0], order)
    assert encode(*better, order) < prefix
    assert encode(*worse, order) >= prefix


@given(entries, orders)
def test_key_starts_with_its_score_prefix(entry: KeyParts, order: Order) -> None:
    key = encode(*entry, order)
    prefix = score_prefix(entry[0], order)
    assert len(prefix) == PREFIX_BYTES
    assert key[:PREFIX_BYTES] == prefix
    assert key >= prefix


@settings(max_examples=200)
@given(tied_entries(), orders)
def test_prefix_bisect_counts_strictly_better_scores(items: list[KeyParts], order: Order) -> None:
    keys = sorted(encode(*e, order) for e in items)
    for score, _, _ in items:
        below = sum(1 for key in keys if key < score_prefix(score, order))
        assert below == sum(1 for other, _, _ in items if is_better(other, score, order))


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("score", [SCORE_MAX + 1, SCORE_MIN - 1, 1 << 64, -(1 << 64)])
def test_out_of_range_scores_raise_value_error(score: int, order: Order) -> None:
    with pytest.raises(ValueError, match="64-bit"):
        encode(score, 0, "p", order)
    with pytest.raises(ValueError, match="64-bit"):
        score_prefix(score, order)
