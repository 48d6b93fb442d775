"""A bounded cache: a mapping that keeps at most ``maxsize`` entries and, when full, drops
the one least recently read or written (LRU).

The server keeps a few such caches (board definitions, display names, metadata, the Redis
layouts it last saw, the fan-out's known subscriptions); each is read and written on the
event loop, so none needs a lock.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, MutableMapping
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LRUCache(MutableMapping[K, V]):
    """A mapping of at most ``maxsize`` entries; a read (``[key]``, ``get``) or a write of a
    key makes it the most recent, and a write beyond ``maxsize`` drops the least recent."""

    __slots__ = ("_entries", "maxsize")

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError(f"maxsize must be at least 1, not {maxsize}")
        self.maxsize = maxsize
        self._entries: OrderedDict[K, V] = OrderedDict()

    def __getitem__(self, key: K) -> V:
        value = self._entries[key]
        self._entries.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.maxsize:
            self._entries.popitem(last=False)

    def __delitem__(self, key: K) -> None:
        del self._entries[key]

    def __contains__(self, key: object) -> bool:
        return key in self._entries  # a membership test is not a read: the order stays

    def __iter__(self) -> Iterator[K]:
        return iter(self._entries)  # oldest first

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()
