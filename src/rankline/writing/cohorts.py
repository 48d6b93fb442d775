"""Cohorts: small fair buckets of a board's players, filled first come, first served.

On a board with ``cohort_size`` N, a player's first submission in a period of the board's
first window puts them in the newest cohort with room (cohort ``k`` holds the players
``(k - 1) * N + 1`` .. ``k * N`` to arrive); the cohort is stored in SQL before the
submission is written (``store.cohorts``: race-free on every worker) and the submission
carries it as its ``cohort`` scope, so it lands on that cohort's leaderboard
(``cohort:<k>``) as on any scoped one. ``scope=cohort`` on a player's read names that
leaderboard for them."""

from __future__ import annotations

from rankline.boards import COHORT_SCOPE, Board
from rankline.errors import InvalidInput, NotFound
from rankline.periods import current_period, parse_period, period_at
from rankline.store.cohorts import CohortStore
from rankline.types import Clock, PlayerId
from rankline.writing.writer import Submission


class Cohorts:
    def __init__(self, store: CohortStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    async def place(self, submission: Submission) -> None:
        """Put the submission's player in their cohort of its period (assigned now on their
        first submission there) and the cohort in its scopes."""
        board = submission.board
        size = board.spec.cohort_size
        if size is None:
            return
        if COHORT_SCOPE in submission.scopes:
            raise InvalidInput.at(
                ["body", "scopes", COHORT_SCOPE], "the service assigns cohorts; give none"
            )
        window = board.windows[0]
        period = period_at(window, submission.at, board.calendar)
        if period is None:
            return  # no period to rank in (between seasons): the writer answers that
        cohort = await self._store.assign(board.id, window, period.name, submission.player, size)
        submission.scopes = {**submission.scopes, COHORT_SCOPE: str(cohort)}

    async def scope_for(
        self, board: Board, window: str | None, period: str | None, player: PlayerId
    ) -> str:
        """The scope ``cohort:<k>`` of the player's cohort in the period read (of the board's
        first window; for another window, its current period); NotFound when they have none."""
        if board.spec.cohort_size is None:
            raise InvalidInput.at(["query", "scope"], "the board has no cohorts (cohort_size)")
        first = board.windows[0]
        try:
            found = (
                parse_period(first, period, board.calendar)
                if period is not None and window in (None, first)
                else current_period(first, self._clock.now(), board.calendar)
            )
        except ValueError as exc:
            raise InvalidInput.at(["query", "period"], str(exc)) from None
        if found is None:
            raise NotFound(f"the board has no current {first} period")
        cohort = await self._store.cohort_of(board.id, first, found.name, player)
        if cohort is None:
            raise NotFound(f"player {player!r} is in no cohort of period {found.name!r}")
        return f"{COHORT_SCOPE}:{cohort}"


__all__ = ["Cohorts"]
