"""The registry of board definitions: every board as current as the request being served
(``Boards``), changes to them (``BoardChanges``), and a read's leaderboard resolved from its
window, period and scope (``resolve``)."""

from rankline.registry.boards import BoardChanges, Boards, Resolved, resolve

__all__ = ["BoardChanges", "Boards", "Resolved", "resolve"]
