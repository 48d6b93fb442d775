"""Ranking index backends, side by side, each a ``rankline.index.base.RankingIndex``."""

from rankline.index.memory import MemoryIndex

__all__ = ["MemoryIndex"]
