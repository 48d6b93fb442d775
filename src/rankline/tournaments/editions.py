"""Tournaments: competitions on a board of their own, with entry, capacity, a schedule of
editions, a limit of submissions, and results with rewards when an edition ends.

The board does the ranking (``competition.Tournament.board_spec``): its ``season`` window's
periods are the editions, so scores, reads, streams and archives are the board's. What is a
tournament's own is checked before a submission is written, with its state in SQL
(``store.tournaments``): the schedule (pure arithmetic on ``at`` and now), the join when
``join_required``, and ``max_submissions`` (a conditional increment per player, counted once
per match id). A submission refused by any of them records nothing.

When an edition's grace has passed (and a few seconds more, for group commits in flight),
``finish`` computes its results once, whichever worker gets there first (a primary key),
and stores them as the exact body of the webhook (``rankline.tournaments.webhooks`` delivers it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from rankline.answers import Answer, SubmitOut
from rankline.bodies import body_time
from rankline.errors import Conflict, NotFound, RanklineError
from rankline.lifecycle.closing import SETTLE_SECONDS
from rankline.ordering import Keys
from rankline.periods import Period
from rankline.registry import BoardChanges, Boards
from rankline.runtime.clock import format_time
from rankline.store.audit import Attribution
from rankline.store.tournaments import TournamentStore
from rankline.tournaments.competition import (
    TOURNAMENT_WINDOW,
    Refused,
    Tournament,
    TournamentSpec,
    reward_for,
)
from rankline.tournaments.requests import ResultsRequest, TournamentScoreIn
from rankline.types import Clock, Micros, PlayerId
from rankline.writing.scores import Scores

log = logging.getLogger("rankline.tournaments.editions")
_encode = msgspec.json.Encoder().encode


class EditionOut(Answer, kw_only=True):
    """An edition of a tournament and where it stands: ``upcoming``, ``running``, ``grace``
    (ended, still taking late submissions) or ``ended``."""

    edition: str
    starts_at: str
    ends_at: str
    closes_at: str
    state: str
    players: int


class JoinOut(Answer, kw_only=True):
    tournament: str
    edition: str
    player_id: str
    joined: bool
    players: int
    max_size: int | None = None


class ResultOut(Answer, kw_only=True):
    rank: int
    player_id: str
    score: int
    subscore: int | None = None
    """On tournaments with a subscore."""
    reward: dict[str, Any] | None = None


class ResultsOut(Answer, kw_only=True):
    """An ended edition's final standings with rewards: the webhook's body."""

    id: str
    tournament: str
    edition: str
    starts_at: str
    ends_at: str
    total: int
    results: list[ResultOut]


class Tournaments:
    """Defining, joining, scoring and finishing tournaments."""

    def __init__(
        self,
        store: TournamentStore,
        boards: Boards,
        board_changes: BoardChanges,
        scores: Scores,
        clock: Clock,
        *,
        settle_seconds: float = SETTLE_SECONDS,
    ) -> None:
        self._store = store
        self._boards = boards
        self._board_changes = board_changes
        self._scores = scores
        self._clock = clock
        self._settle = int(settle_seconds * 1_000_000)

    # --- definitions -------------------------------------------------------------------

    async def put(
        self, tournament_id: str, spec: TournamentSpec, by: Attribution | None = None
    ) -> tuple[Tournament, bool]:
        """Create or update a tournament and its board; True when created. With ``by``, the
        definition's audit entry is written with it."""
        tournament = Tournament.define(tournament_id, spec)
        if not await self._store.load(tournament_id) and await self._foreign_board(tournament_id):
            raise Conflict(f"a board {tournament_id!r} exists; a tournament needs its own id")
        await self._board_changes.put(tournament_id, tournament.board_spec())
        stored = tournament.stored()
        created = await self._store.save(tournament_id, stored, self._clock.now(), by)
        return tournament, created

    async def _foreign_board(self, board_id: str) -> bool:
        """Whether a board of that id exists and is not a tournament's (one whose tournament
        was not stored after it, by a create that failed, is taken over)."""
        try:
            board = await self._boards.find(board_id)
        except NotFound:
            return False
        spec = board.spec
        return not (spec.metadata.get("tournament") and spec.windows == [TOURNAMENT_WINDOW])

    async def get(self, tournament_id: str) -> Tournament:
        found = await self._store.load(tournament_id)
        if not found:
            raise NotFound(f"no tournament {tournament_id!r}")
        return Tournament(msgspec.convert(found[0], TournamentSpec))

    async def all(self) -> list[Tournament]:
        return [Tournament(msgspec.convert(d, TournamentSpec)) for d in await self._store.load()]

    async def delete(self, tournament_id: str, by: Attribution | None = None) -> None:
        """Delete the tournament, its board, joins and results (with ``by``, the audit entry
        with the tournament's rows)."""
        if not await self._store.delete(tournament_id, self._clock.now(), by):
            raise NotFound(f"no tournament {tournament_id!r}")
        with contextlib.suppress(NotFound):  # its board went already
            await self._board_changes.delete(tournament_id, tournament=True)

    async def listing(self) -> list[dict[str, Any]]:
        """Every tournament, described (``describe``)."""
        return [await self.describe(t) for t in await self.all()]

    async def describe(self, tournament: Tournament) -> dict[str, Any]:
        """The definition with the current (or next) edition, for GET and the list."""
        now = self._clock.now()
        data = tournament.to_json()
        try:
            edition = tournament.edition_to_join(now)
        except Refused:
            edition = tournament.schedule.current(now)
        data["edition"] = await self._edition_out(tournament, edition, now)
        return data

    async def _edition_out(
        self, tournament: Tournament, edition: Period, now: Micros
    ) -> EditionOut:
        assert edition.starts_at is not None and edition.ends_at is not None
        closes = tournament.closes_at(edition)
        state = (
            "upcoming"
            if now < edition.starts_at
            else "running"
            if now < edition.ends_at
            else "grace"
            if now < closes
            else "ended"
        )
        return EditionOut(
            edition=edition.name,
            starts_at=format_time(edition.starts_at),
            ends_at=format_time(edition.ends_at),
            closes_at=format_time(closes),
            state=state,
            players=await self._store.players_joined(tournament.id, edition.name),
        )

    # --- entry and scores --------------------------------------------------------------

    async def join(self, tournament_id: str, player: PlayerId) -> JoinOut:
        """Join the running (or next) edition: first come, first served up to ``max_size``;
        joining again answers the same. Refused ``full`` when no place is left."""
        tournament = await self.get(tournament_id)
        now = self._clock.now()
        edition = tournament.edition_to_join(now)
        size = tournament.spec.max_size
        if not await self._store.join(tournament.id, edition.name, player, size, now):
            raise Refused("full", f"edition {edition.name} has its {size} players")
        return JoinOut(
            tournament=tournament.id,
            edition=edition.name,
            player_id=player,
            joined=True,
            players=await self._store.players_joined(tournament.id, edition.name),
            max_size=size,
        )

    async def submit(self, tournament_id: str, item: TournamentScoreIn) -> SubmitOut:
        """Check the submission (its ``at``, its metadata's size), then the tournament's
        rules, then write the score on its board (as a board submission: same idempotency,
        same answer)."""
        at = body_time(item.at)
        self._scores.check_metadata(item.metadata)
        player, match_id = item.player_id, item.match_id
        tournament = await self.get(tournament_id)
        now = self._clock.now()
        edition = tournament.edition_of(now if at is None else at, now)
        if tournament.spec.join_required and not await self._store.joined(
            tournament.id, edition.name, player
        ):
            raise Refused("not_joined", f"join edition {edition.name} before submitting")
        submission = await self._scores.prepare(
            tournament.id,
            player=player,
            match_id=match_id,
            score=item.score,
            at=at,
            scopes=None,
            metadata=item.metadata,
            tournament=True,
            subscore=item.subscore,
        )
        limit = tournament.spec.max_submissions
        if limit is not None and not await self._store.count_submission(
            tournament.id, edition.name, player, match_id, limit
        ):
            raise Refused("max_submissions", f"{limit} submissions per player and edition")
        [result] = await self._scores.submit([submission])
        if isinstance(result, RanklineError):
            raise result
        return result

    # --- the end of an edition ---------------------------------------------------------

    async def results(self, ask: ResultsRequest) -> bytes:
        """An ended edition's results (the webhook's body); the last ended one by default."""
        tournament_id, edition = ask.tournament_id, ask.edition
        tournament = await self.get(tournament_id)
        if edition is None:
            ended = tournament.ended_editions(self._clock.now())
            if not ended:
                raise NotFound("no edition of this tournament has ended yet")
            edition = ended[0].name
        row = await self._store.results(tournament.id, edition)
        if row is None:
            raise NotFound(f"edition {edition!r} has no results (yet)")
        return row.body

    async def finish(self) -> list[tuple[str, str]]:
        """Record the results of every edition whose grace has passed (and the settle time):
        (tournament, edition) of those recorded by this call."""
        now = self._clock.now()
        done = []
        for tournament in await self.all():
            for edition in tournament.ended_editions(now - self._settle):
                if await self._store.has_results(tournament.id, edition.name):
                    continue
                body = await self._results_of(tournament, edition)
                url = None if tournament.spec.webhook is None else tournament.spec.webhook.url
                if await self._store.add_results(tournament.id, edition.name, body, url, now):
                    done.append((tournament.id, edition.name))
        return done

    async def _results_of(self, tournament: Tournament, edition: Period) -> bytes:
        assert edition.starts_at is not None and edition.ends_at is not None
        keys = Keys(tournament.spec.order, tournament.spec.subscore)
        standings = await self._store.final_standings(
            tournament.id, TOURNAMENT_WINDOW, edition.name, keys
        )
        total = len(standings)
        results = [
            ResultOut(
                rank=rank,
                player_id=player,
                score=score,
                subscore=subscore,
                reward=reward_for(tournament.spec.rewards, rank, total),
            )
            for rank, (player, score, subscore) in enumerate(standings, 1)
        ]
        return _encode(
            ResultsOut(
                id=f"{tournament.id}/{edition.name}/{edition.starts_at}",
                tournament=tournament.id,
                edition=edition.name,
                starts_at=format_time(edition.starts_at),
                ends_at=format_time(edition.ends_at),
                total=total,
                results=results,
            )
        )

    async def secret_of(self, tournament_id: str) -> str | None:
        """The webhook secret of a tournament (None when it has none or is gone)."""
        try:
            tournament = await self.get(tournament_id)
        except NotFound:
            return None
        return None if tournament.spec.webhook is None else tournament.spec.webhook.secret

    async def run(
        self,
        interval_seconds: float,
        stopping: Callable[[], bool],
        after: Callable[[], Awaitable[Any]],
    ) -> None:
        """Finish ended editions every interval, then call ``after`` (the deliveries)."""
        while not stopping():
            try:
                await self.finish()
                await after()
            except RanklineError as exc:
                log.warning("tournament step failed: %s", exc.detail)
            await asyncio.sleep(interval_seconds)


__all__ = ["EditionOut", "JoinOut", "ResultOut", "ResultsOut", "Tournaments"]
