"""Score submissions: checked against their board, written by the group commit, answered
with the standings and ranks they produced.

    scores = Scores(boards, writer, gateway, clock, clock_skew_seconds=5)
    submission = await scores.prepare("arena-solo", player="p:42", match_id="m-1",
                                      score=1200, at=None, scopes=None, metadata=None)
    [answer] = await scores.submit([submission])   # a SubmitOut, or the error of that item
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

import msgspec

from rankline.answers import StandingOut, SubmitOut
from rankline.boards import Board
from rankline.errors import Conflict, IndexUnavailable, InvalidInput, RanklineError
from rankline.index.base import IndexReader
from rankline.index.gateway import IndexGateway
from rankline.ordering import Keys
from rankline.registry import Boards
from rankline.types import BoardId, Clock, LeaderboardId, Micros, PlayerId
from rankline.writing.admission import Deadline
from rankline.writing.cohorts import Cohorts
from rankline.writing.writer import SLICE, GroupCommitWriter, Outcome, Submission

Ranks = dict[tuple[LeaderboardId, PlayerId], int]


class Scores:
    """The front of the write path for scores."""

    def __init__(
        self,
        boards: Boards,
        writer: GroupCommitWriter,
        gateway: IndexGateway,
        clock: Clock,
        *,
        clock_skew_seconds: float,
        cohorts: Cohorts | None = None,
        max_metadata_bytes: int = 4096,
    ) -> None:
        self.max_metadata_bytes = max_metadata_bytes
        """The longest ``metadata`` taken, as compact JSON (``check_metadata``)."""
        self._cohorts = cohorts
        """Puts each submission to a board with ``cohort_size`` in its player's cohort."""
        self._boards = boards
        self._writer = writer
        self._gateway = gateway
        self._clock = clock
        self._skew = int(clock_skew_seconds * 1_000_000)

    async def prepare(
        self,
        board_id: str,
        *,
        player: PlayerId,
        match_id: str,
        score: int,
        at: Micros | None,
        scopes: dict[str, str] | None,
        metadata: dict[str, Any] | None,
        tournament: bool = False,
        subscore: int | None = None,
        now: Micros | None = None,
        admit: Callable[[Submission], Awaitable[None]] | None = None,
    ) -> Submission:
        """Validate one submission against its board; InvalidInput/NotFound/Conflict if bad.
        A tournament's board takes scores only through its tournament (``tournament``: the
        tournament's rules were checked). ``admit`` raises when the checked submission is
        not to be written (a player's, by the board's client writes), before it is placed in
        a cohort.

        Checked against the board as last loaded (the writer checks the stored definition
        again in its transaction); a submission refused that way is checked again once the
        registry is current, as the board may have changed in another worker. ``now``: the
        receive time (a batch's items share one; default: the clock's now)."""
        self.check_metadata(metadata)
        submission = await self._checked(
            board_id, player, match_id, score, at, scopes, metadata, subscore, now
        )
        if submission.board.spec.schedule is not None and not tournament:
            raise Conflict(
                f"board {board_id!r} ranks a tournament: submit at "
                f"POST /v1/tournaments/{board_id}/scores, where its rules are checked"
            )
        if admit is not None:
            await admit(submission)
        if self._cohorts is not None:
            await self._cohorts.place(submission)
        return submission

    def check(
        self,
        board: Board,
        player: PlayerId,
        match_id: str,
        score: int,
        at: Micros | None,
        scopes: dict[str, str] | None,
        metadata: dict[str, Any] | None,
        subscore: int | None,
        now: Micros,
    ) -> Submission:
        """``prepare`` without a wait, on a board in hand (``Boards.cached``) without cohorts,
        at ``now``: a batch checks its items in a plain loop. Whatever it refuses, ask
        ``prepare`` for that item: it checks again on the board as stored now (another
        worker may have changed it), and its answer is the one to give."""
        if metadata:
            self.check_metadata(metadata)
        submission = self._check(
            board, player, match_id, score, at, scopes, metadata, subscore, now
        )
        if board.spec.schedule is not None or board.spec.cohort_size is not None:
            raise Conflict("only prepare takes this board's submissions")
        return submission

    def now(self) -> Micros:
        return self._clock.now()

    def check_metadata(self, metadata: dict[str, Any] | None) -> None:
        """422 at ``["body", "metadata"]`` when ``metadata`` is longer than
        ``max_metadata_bytes`` as compact JSON: checked first, before the board."""
        check_metadata(metadata, self.max_metadata_bytes)

    async def _checked(
        self,
        board_id: str,
        player: PlayerId,
        match_id: str,
        score: int,
        at: Micros | None,
        scopes: dict[str, str] | None,
        metadata: dict[str, Any] | None,
        subscore: int | None,
        now: Micros | None,
    ) -> Submission:
        args = (player, match_id, score, at, scopes, metadata, subscore, now)
        board = self._boards.cached(board_id)
        if board is not None:
            try:
                return self._check(board, *args)
            except RanklineError:
                if not self._boards.shared or not await self._boards.refresh():
                    raise
            board = self._boards.get(board_id)
        else:
            board = await self._boards.find(board_id)
        return self._check(board, *args)

    def _check(
        self,
        board: Board,
        player: PlayerId,
        match_id: str,
        score: int,
        at: Micros | None,
        scopes: dict[str, str] | None,
        metadata: dict[str, Any] | None,
        subscore: int | None,
        now: Micros | None = None,
    ) -> Submission:
        if board.frozen:
            raise Conflict(f"board {board.id!r} is frozen; it takes no writes")
        if board.policy == "rating":
            raise Conflict("a rating board takes match results at /matches, not scores")
        if now is None:
            now = self._clock.now()
        at_given = at is not None
        if at is None:
            at = now
        elif at > now + self._skew:
            raise InvalidInput.at(["body", "at"], "`at` is in the future")
        board.check_score(score)
        board.check_subscore(subscore)
        scopes = scopes or {}
        board.check_scopes(scopes)
        return Submission(
            board,
            player,
            match_id,
            score,
            at,
            now,
            scopes,
            metadata or {},
            at_given=at_given,
            subscore=subscore,
        )

    def admit(self, size: int, deadline: Deadline | None) -> None:
        """``TooManyRequests`` now when ``size`` submissions would not be taken within
        ``deadline``: a request asks before it prepares its items, so that one refused costs
        little (``submit`` asks again)."""
        self._writer.admit(size, deadline)

    async def submit(
        self, submissions: Sequence[Submission], deadline: Deadline | None = None
    ) -> list[SubmitOut | RanklineError]:
        """Write submissions durably (group commit) and answer each with its standings;
        ``TooManyRequests`` when they cannot be written within ``deadline``."""
        if not self._writer.running:
            raise IndexUnavailable("the ranking index is being built; retry shortly")
        outcomes = await self._writer.submit(submissions, deadline)
        done = [o for o in outcomes if isinstance(o, Outcome)]
        ranks, _ = await self._gateway.read(lambda index: _ranks(index, done))
        answers: list[SubmitOut | RanklineError] = []
        for n, outcome in enumerate(outcomes):
            if n % SLICE == SLICE - 1:
                await asyncio.sleep(0)  # a large batch's answers never hold the loop long
            answers.append(
                outcome if isinstance(outcome, RanklineError) else _answer(outcome, ranks)
            )
        return answers


def check_metadata(value: dict[str, Any] | None, max_bytes: int) -> None:
    """422 when ``metadata`` is longer than ``max_bytes`` as compact JSON."""
    if not value:
        return
    try:
        size = len(msgspec.json.encode(value))
    except (TypeError, UnicodeEncodeError, msgspec.EncodeError):
        return  # not storable: the store's own check explains it
    if size > max_bytes:
        raise InvalidInput.at(
            ["body", "metadata"],
            f"metadata is {size} bytes as JSON; at most {max_bytes} are accepted",
        )


async def _ranks(index: IndexReader, outcomes: Iterable[Outcome]) -> Ranks:
    """The rank of every player on every leaderboard these outcomes answer with: one bulk
    ``positions`` read per leaderboard, not one round trip per submission."""
    wanted: dict[LeaderboardId, list[PlayerId]] = {}
    keys: dict[BoardId, Keys] = {}
    for outcome in outcomes:
        keys[outcome.submission.board.id] = outcome.submission.board.keys
        for s in outcome.standings:
            if s.entry is not None:
                wanted.setdefault(s.target.leaderboard, []).append(outcome.submission.player)
    ranks: Ranks = {}
    for leaderboard, players in wanted.items():
        player_of = keys[leaderboard.board].player_of
        for offset, key in await index.positions(leaderboard, players):
            ranks[leaderboard, player_of(key)] = offset + 1
    return ranks


def _answer(outcome: Outcome, ranks: Ranks) -> SubmitOut:
    """A submission's answer, with ranks read after its batch."""
    player = outcome.submission.player
    standings = []
    for s in outcome.standings:
        leaderboard = s.target.leaderboard
        entry = s.entry
        standings.append(
            StandingOut(
                window=leaderboard.window,
                period=leaderboard.period,
                scope=leaderboard.scope,
                score=None if entry is None else entry.score,
                subscore=None if entry is None else entry.subscore,
                rank=None if entry is None else ranks.get((leaderboard, player)),
                applied=s.applied,
                reason=s.reason,
            )
        )
    primary = outcome.primary
    previous = None if primary is None else primary.previous
    return SubmitOut(
        player_id=player,
        match_id=outcome.submission.match_id,
        applied=False if primary is None else primary.applied,
        duplicate=outcome.duplicate,
        previous_score=None if previous is None else previous.score,
        score=None if primary is None or primary.entry is None else primary.entry.score,
        previous_subscore=None if previous is None else previous.subscore,
        subscore=None if primary is None or primary.entry is None else primary.entry.subscore,
        standings=standings,
    )


__all__ = ["Scores"]
