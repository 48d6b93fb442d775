"""A player's own score submission: the rules of the board's ``client_writes``, in one
place, for every edge.

    writes = ClientWrites(boards, scores, gateway, recent, audit, validators, clock)
    answer = await writes.submit(player, "arena", named=None, match_id="m-1", score=1200,
                                 at=None, scopes=None, metadata=None, subscore=None)

In order, each refusal a problem and nothing written:

0. overload: a submission that would not be written within the request's deadline, as a
   server's write (``rankline.writing.admission``): 429 with ``Retry-After``, checked first
   and again when it reaches the writer;
1. a body naming another player: 403; a board without ``client_writes``: 403
   (server-authoritative);
2. ``min_score``/``max_score`` and every other check of a submission, as for a key: 422;
3. a retry (the board, player and match id are stored already) skips the rules below and is
   answered as it was the first time (``duplicate: true``; 409 when its payload differs), so
   it is counted once and never judged again;
4. ``max_per_minute``: the player's submissions to the board received in the last 60
   seconds, counted from the store (so every worker counts the same): 429 with
   ``Retry-After`` (when the oldest of them leaves the minute);
5. ``max_gain``: the step the score makes, in the board's order, on the player's current
   score in the primary leaderboard (all_time, or the first window; global scope) it lands
   in: 422;
6. the validator: a reject is 422 with its reason; no verdict is 503 under
   ``on_error: reject`` and an acceptance under ``accept``.

A player's submissions to one board pass these one at a time in each worker, so a burst
cannot slip past the count or the step together; across N workers at most N run at once.
The refusals of these rules (a board without them, the score range, 4, 5, 6) are counted in
``rankline_client_writes_rejected_total``; those that judged a score (the range, 5, 6) are
also kept as ``score.rejected`` audit entries (``GET /v1/audit``).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import msgspec

from rankline.answers import SubmitOut
from rankline.boards import Board
from rankline.callers import Player
from rankline.client_writes import ClientWritesSpec
from rankline.errors import (
    Forbidden,
    InvalidInput,
    RanklineError,
    ScoreRejected,
    TooManyRequests,
    Unavailable,
)
from rankline.index.base import IndexReader
from rankline.index.gateway import IndexGateway
from rankline.metrics import CLIENT_REJECTED, VALIDATOR_ERRORS
from rankline.registry import Boards
from rankline.runtime.clock import format_time
from rankline.store.audit import Attribution, AuditStore
from rankline.store.recent_submissions import RecentSubmissions
from rankline.types import GLOBAL_SCOPE, Clock, LeaderboardId, Micros, PlayerId, Position
from rankline.writing.admission import Deadline
from rankline.writing.scores import Scores
from rankline.writing.validator import Validators
from rankline.writing.writer import Submission

log = logging.getLogger("rankline.writing.client_rules")

MINUTE = 60_000_000
REJECTED = "score.rejected"
"""The audit action of a refused client submission."""


def actor_of(player: PlayerId) -> str:
    """How the audit log names a player acting with their token."""
    return f"player:{player}"


def gain(board: Board, score: int, current: int | None) -> int:
    """The step ``score`` makes in the board's order on ``current`` (0 when None): on a
    ``sum`` board the score added, on a ``best`` board the new score against the current."""
    sign = 1 if board.order == "desc" else -1
    if board.policy == "sum":
        return sign * score
    return sign * (score - (current or 0))


class ClientWrites:
    """Players' own score submissions on boards with ``client_writes``."""

    def __init__(
        self,
        boards: Boards,
        scores: Scores,
        gateway: IndexGateway,
        recent: RecentSubmissions,
        audit: AuditStore,
        validators: Validators,
        clock: Clock,
    ) -> None:
        self._boards = boards
        self._scores = scores
        self._gateway = gateway
        self._recent = recent
        self._audit = audit
        self._validators = validators
        self._clock = clock
        self._busy: dict[tuple[str, PlayerId], tuple[asyncio.Lock, int]] = {}

    async def submit(
        self,
        player: Player,
        board_id: str,
        *,
        named: PlayerId | None,
        match_id: str,
        score: int,
        at: Micros | None,
        scopes: dict[str, str] | None,
        metadata: dict[str, Any] | None,
        subscore: int | None,
        deadline: Deadline | None = None,
    ) -> SubmitOut:
        """Write ``player``'s own score if the board's client writes allow it (``named``:
        the player the body names, if any); the refusals are in the module's docstring.
        ``deadline``: the request's, as for a server's write (``Scores.admit``): refused
        (429, nothing recorded) when it would not be written within it."""
        self._scores.check_metadata(metadata)  # first, as for a key's submission
        me = player.player_id
        if named is not None and named != me:
            raise Forbidden(f"a player token submits its own scores only: the body names {named!r}")
        self._scores.admit(1, deadline)
        board = await self._boards.find(board_id)
        _allowed(board)
        try:
            board.check_score(score)
        except InvalidInput as exc:
            await self._rejected(player, board, match_id, score, "range", exc.detail)
            raise

        async def admit(submission: Submission) -> None:
            await self._admit(player, submission)

        async with self._one_at_a_time(board.id, me):
            submission = await self._scores.prepare(
                board_id,
                player=me,
                match_id=match_id,
                score=score,
                at=at,
                scopes=scopes,
                metadata=metadata,
                subscore=subscore,
                admit=admit,
            )
            [result] = await self._scores.submit([submission], deadline)
        if isinstance(result, RanklineError):
            raise result
        return result

    async def _admit(self, player: Player, submission: Submission) -> None:
        board = submission.board
        writes = _allowed(board)  # as the board is now, should it have changed meanwhile
        recent = await self._recent.of(
            board.id, submission.player, submission.match_id, writes.max_per_minute
        )
        if recent.stored:
            return  # a retry: the writer answers it as the first time
        now = self._clock.now()
        if len(recent.received) >= writes.max_per_minute:
            oldest = recent.received[writes.max_per_minute - 1]
            if oldest > now - MINUTE:
                CLIENT_REJECTED.labels("rate").inc()
                raise TooManyRequests(
                    f"board {board.id!r} takes at most {writes.max_per_minute} submissions "
                    "a minute from a player",
                    retry_after=math.ceil((oldest + MINUTE - now) / 1_000_000),
                )
        current = None
        if writes.max_gain is not None or writes.validator is not None:
            current = await self._current(submission)
        if writes.max_gain is not None:
            step = gain(board, submission.score, current)
            if step > writes.max_gain:
                base = "no score yet (0)" if current is None else f"current score {current}"
                reason = f"a step of {step} on the {base} is above max_gain {writes.max_gain}"
                await self._rejected(
                    player, board, submission.match_id, submission.score, "gain", reason
                )
                raise ScoreRejected(reason)
        if writes.validator is not None:
            await self._validate(player, writes, submission, current)

    async def _validate(
        self,
        player: Player,
        writes: ClientWritesSpec,
        submission: Submission,
        current: int | None,
    ) -> None:
        spec = writes.validator
        assert spec is not None
        body = msgspec.json.encode(
            {
                "board": submission.board.id,
                "player_id": submission.player,
                "match_id": submission.match_id,
                "score": submission.score,
                "subscore": submission.subscore,
                "at": format_time(submission.at),
                "scopes": submission.scopes,
                "metadata": submission.metadata,
                "current_score": current,
                "claims": dict(player.claims),
            }
        )
        label = f"{submission.board.id}/{submission.player}/{submission.match_id}"
        verdict = await self._validators.judge(spec, body, label)
        board, match_id, score = submission.board, submission.match_id, submission.score
        if verdict.failed:
            VALIDATOR_ERRORS.inc()
            log.warning(
                "the validator of board %r gave no verdict (%s); %s (on_error %s)",
                board.id,
                verdict.reason,
                "accepted" if spec.on_error == "accept" else "refused",
                spec.on_error,
            )
            if spec.on_error == "accept":
                return
            reason = f"the board's validator gave no verdict ({verdict.reason})"
            await self._rejected(player, board, match_id, score, "validator_error", reason)
            raise Unavailable(f"{reason}; nothing was written, retry later")
        if not verdict.accept:
            reason = verdict.reason or "rejected by the board's validator"
            await self._rejected(player, board, match_id, score, "validator", reason)
            raise ScoreRejected(reason)

    async def _current(self, submission: Submission) -> int | None:
        """The player's score on the primary leaderboard the submission lands in (global
        scope), or None when they have none there."""
        board = submission.board
        window = board.primary_window
        for target in board.targets(submission.at, {}, submission.received_at):
            leaderboard = target.leaderboard
            if leaderboard.window == window and leaderboard.scope == GLOBAL_SCOPE:
                position, _ = await self._gateway.read(
                    _position, board, leaderboard, submission.player
                )
                return None if position is None else board.keys.decode(position.key)[0]
        return None

    async def _rejected(
        self, player: Player, board: Board, match_id: str, score: int, rule: str, reason: str
    ) -> None:
        """Count the refusal and keep it in the audit log (a failure to keep it is logged:
        the answer is the refusal either way)."""
        CLIENT_REJECTED.labels(rule).inc()
        entry = Attribution(actor_of(player.player_id), reason).entry(
            self._clock.now(),
            REJECTED,
            board=board.id,
            player=player.player_id,
            match_id=match_id,
            detail={"rule": rule, "score": score},
        )
        try:
            await self._audit.add(entry)
        except RanklineError as exc:
            log.warning("a refused client submission was not kept in the audit log: %s", exc)

    @asynccontextmanager
    async def _one_at_a_time(self, board: str, player: PlayerId) -> AsyncIterator[None]:
        key = (board, player)
        lock, users = self._busy.get(key) or (asyncio.Lock(), 0)
        self._busy[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._busy[key]
            if users == 1:
                del self._busy[key]
            else:
                self._busy[key] = (lock, users - 1)


async def _position(
    index: IndexReader, leaderboard: LeaderboardId, player: PlayerId
) -> Position | None:
    return await index.position(leaderboard, player)


def _allowed(board: Board) -> ClientWritesSpec:
    """The board's client writes; Forbidden when it takes scores from keys only."""
    writes = board.spec.client_writes
    if writes is None:
        CLIENT_REJECTED.labels("off").inc()
        raise Forbidden(
            f"board {board.id!r} does not accept scores from players: it has no client_writes "
            "(scores come from the game's servers)"
        )
    return writes


__all__ = ["REJECTED", "ClientWrites", "actor_of", "gain"]
