"""Where submissions fan out, remembered: ``Board.targets`` computed once per period.

Every submission lands on one leaderboard per (window, scope), named by the period that
contains its ``at``. Working the periods out (calendar arithmetic per window) costs more than
the rest of a submission's write; yet all submissions of a board within one day, week and
month land on the same leaderboards. ``FanOut`` keeps, per board and scope values, the last
targets with the range of ``at`` (where every window's period stays the same) and of "now"
(where every period stays open, or closed) in which they hold.
"""

from __future__ import annotations

from dataclasses import dataclass

from rankline.boards import Board, Target
from rankline.runtime.lru import LRUCache
from rankline.types import Micros

_FOREVER = 2**63
_KEEP = 10_000
"""Most (board, scope values) remembered (the least recently used goes to make room); a
board with more distinct scope values than this is simply computed more often."""


@dataclass(slots=True, frozen=True)
class _Known:
    targets: list[Target]
    at_from: Micros
    at_until: Micros
    now_from: Micros
    now_until: Micros


class FanOut:
    """``Board.targets`` with memory; the targets returned are shared, never to be changed."""

    __slots__ = ("_known",)

    def __init__(self) -> None:
        self._known: LRUCache[tuple[Board, tuple[tuple[str, str], ...]], _Known] = LRUCache(_KEEP)

    def targets(
        self, board: Board, at: Micros, scopes: dict[str, str], now: Micros
    ) -> list[Target]:
        key = (board, tuple(scopes.items()) if scopes else ())
        known = self._known.get(key)
        if (
            known is not None
            and known.at_from <= at < known.at_until
            and known.now_from <= now < known.now_until
        ):
            return known.targets
        targets = board.targets(at, scopes, now)
        remembered = _remember(board, targets, now)
        if remembered is not None:
            self._known[key] = remembered
        return targets


def _remember(board: Board, targets: list[Target], now: Micros) -> _Known | None:
    """The ranges in which ``targets`` stay the answer, or None when they cannot be told
    (a window without a period at ``at``, as between seasons)."""
    if {t.leaderboard.window for t in targets} != set(board.windows):
        return None
    at_from, at_until, now_from, now_until = -_FOREVER, _FOREVER, -_FOREVER, _FOREVER
    for target in targets:
        period = target.period
        if period.starts_at is not None:
            at_from = max(at_from, period.starts_at)
        if period.ends_at is not None:
            at_until = min(at_until, period.ends_at)
        closes = period.closes_at(board.grace_seconds)
        if closes is None:
            continue
        if target.closed:
            now_from = max(now_from, closes)
        else:
            now_until = min(now_until, closes)
    if not now_from <= now < now_until:
        return None
    return _Known(targets, at_from, at_until, now_from, now_until)
