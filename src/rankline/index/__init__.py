"""Ranking index backends, side by side, all implementing ``rankline.types.RankingIndex``."""

from rankline.index.memory import MemoryIndex

__all__ = ["MemoryIndex"]
