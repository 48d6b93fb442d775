"""The bounded LRU mapping the server's few caches use (rankline.runtime.lru)."""

from __future__ import annotations

import pytest

from rankline.runtime.lru import LRUCache


def test_a_write_beyond_the_size_drops_the_least_recent() -> None:
    cache: LRUCache[str, int] = LRUCache(2)
    cache["a"] = 1
    cache["b"] = 2
    cache["c"] = 3
    assert dict(cache) == {"b": 2, "c": 3}
    assert len(cache) == 2


def test_a_read_makes_an_entry_the_most_recent() -> None:
    cache: LRUCache[str, int] = LRUCache(2)
    cache["a"] = 1
    cache["b"] = 2
    assert cache.get("a") == 1  # "b" is now the least recent
    cache["c"] = 3
    assert list(cache) == ["a", "c"]
    assert cache["a"] == 1
    cache["d"] = 4
    assert list(cache) == ["a", "d"]


def test_a_rewrite_makes_an_entry_the_most_recent_without_growing() -> None:
    cache: LRUCache[str, int] = LRUCache(2)
    cache["a"] = 1
    cache["b"] = 2
    cache["a"] = 10
    cache["c"] = 3
    assert dict(cache) == {"a": 10, "c": 3}


def test_a_membership_test_does_not_count_as_a_read() -> None:
    cache: LRUCache[str, int] = LRUCache(2)
    cache["a"] = 1
    cache["b"] = 2
    assert "a" in cache
    assert "z" not in cache
    cache["c"] = 3
    assert list(cache) == ["b", "c"]


def test_missing_keys_pop_delete_and_clear() -> None:
    cache: LRUCache[str, int] = LRUCache(3)
    assert cache.get("x") is None
    with pytest.raises(KeyError):
        cache["x"]
    cache["a"] = 1
    cache["b"] = 2
    assert cache.pop("a", None) == 1
    assert cache.pop("a", None) is None
    del cache["b"]
    assert len(cache) == 0
    cache["c"] = 3
    cache.clear()
    assert dict(cache) == {}


def test_a_size_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        LRUCache(0)
