"""How large the items of a score batch are lately in a worker: a body's Content-Length then
tells, before the body is read, about how many items it holds, so that a batch that would not
fit its deadline is refused without being decoded (``routes.post_batch``)."""

from __future__ import annotations


class BatchSizes:
    """How many bytes an item of a score batch took lately in this worker, so that a body's
    Content-Length tells, before it is read, about how many items it holds: a batch that
    would not fit its deadline is then refused without being decoded. The estimate is half
    of what the bytes suggest (items may be larger than those seen so far), and 1 before any
    batch was decoded: it may admit a batch that the check after decoding refuses, never the
    other way round unless its items are more than twice as large as lately."""

    _WEIGHT = 0.2
    """Of each decoded batch in the moving average."""

    def __init__(self) -> None:
        self._item_bytes: float | None = None

    def items(self, length: int | None) -> int:
        """At least about how many items a body of ``length`` bytes holds (1 if unknown)."""
        if length is None or self._item_bytes is None:
            return 1
        return max(1, int(length / (2 * self._item_bytes)))

    def decoded(self, length: int, items: int) -> None:
        if items <= 0:
            return
        size = length / items
        last = self._item_bytes
        self._item_bytes = size if last is None else last + self._WEIGHT * (size - last)


__all__ = ["BatchSizes"]
