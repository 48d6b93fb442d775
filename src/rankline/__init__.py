"""rankline: a real-time leaderboard service for games."""

from rankline.boards import Board, BoardSpec
from rankline.runtime.clock import ManualClock, SystemClock
from rankline.service import Rankline
from rankline.settings import Settings

__version__ = "0.1.0"
__all__ = [
    "Board",
    "BoardSpec",
    "ManualClock",
    "Rankline",
    "Settings",
    "SystemClock",
    "__version__",
]
