"""Match results on rating boards: checked, taken into the ingestion log, answered from SQL.

A match is validated against its board (a rating board, not frozen; 2 or more distinct
players; places from 1; declared scopes), then appended to the board's log partition, whose
one applier rates it in the board's serial order (``rankline.ratings.rated``). The synchronous
answer waits until the log position is applied (``settled``) and reads what the applier stored for
that match: the same answer in every process, and for a retry. A match whose ``match_id`` is stored
with another payload is refused (409) before anything is appended, and also when two such payloads
race (the applier keeps the first; the second finds the other digest).

    matches = Matches(boards, ingest, ratings, gateway, clock, clock_skew_seconds=5)
    match = await matches.prepare("chess-blitz", "m:1", at=None, results=[("a", 1, None, {}),
                                                                            ("b", 2, None, {})])
    [answer] = await matches.submit([match])
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from rankline.answers import Answer, Time
from rankline.boards import Board
from rankline.bodies import body_time
from rankline.errors import Conflict, InvalidInput, KeyReused, NotFound, RanklineError
from rankline.index.base import IndexReader
from rankline.index.gateway import IndexGateway
from rankline.log.base import LogRecord
from rankline.ordering import player_of
from rankline.rating import RatingSystem, check_available, score_of, system_of
from rankline.ratings.rated import (
    Handoff,
    MatchKey,
    MatchPayload,
    MatchPlayer,
    digest_of,
    match_record,
    parse_state,
)
from rankline.ratings.requests import MatchIn, RatingRequest
from rankline.registry import Boards
from rankline.runtime.clock import format_time
from rankline.store.ratings import RatingRow, RatingStore
from rankline.types import GLOBAL_SCOPE, Clock, LeaderboardId, Micros, PlayerId

SETTLE_SECONDS = 10.0
"""How long a synchronous match answer waits for the applier (then 503: retry safely)."""
MAX_PLAYERS = 100


class RatingResultOut(Answer, kw_only=True):
    player_id: str
    place: int
    team: str | None = None
    previous: dict[str, Any]
    """The rating state before the match."""
    rating: dict[str, Any]
    """The rating state after it (Elo: rating, games; Glicko-2: rating, rd, volatility;
    OpenSkill: rating, mu, sigma)."""
    score: int
    """The leaderboard score: the displayed rating, rounded to an integer."""
    rank: int | None
    """The player's rank on the board's primary leaderboard (null while provisional)."""
    provisional: bool


class MatchOut(Answer, kw_only=True):
    board: str
    match_id: str
    duplicate: bool
    at: Time
    window: str
    period: str
    results: list[RatingResultOut]


class PlayerRatingOut(Answer, kw_only=True):
    board: str
    window: str
    period: str
    scope: str
    player_id: str
    rating: dict[str, Any]
    score: int
    rank: int | None
    provisional: bool
    games: int


class RatingHistoryItemOut(Answer, kw_only=True):
    board: str
    match_id: str
    window: str
    period: str
    place: int
    score: int
    previous: dict[str, Any]
    rating: dict[str, Any]
    provisional: bool
    at: Time
    received_at: Time
    applied: bool = True


class RatingHistoryOut(Answer, kw_only=True):
    player_id: str
    items: list[RatingHistoryItemOut]
    next_cursor: str | None


class Log(Protocol):
    """What matches need of the ingestion log (``rankline.writing.ingest.AsyncIngest``)."""

    async def append(self, records: Sequence[LogRecord]) -> str: ...

    async def settled(self, token: str, seconds: float = ...) -> None: ...

    def coming(self) -> AbstractContextManager[None]: ...


class _Appends:
    """Concurrent appends gathered into one: while an append is in flight, the records of
    the requests that arrive meanwhile wait and go together in the next. Every append is a
    transaction of the log's (on SQLite, its file's write lock and a sync): sixteen single
    matches appended one by one cost sixteen, gathered they cost one."""

    def __init__(self, log: Log) -> None:
        self._log = log
        self._waiting: list[tuple[Sequence[LogRecord], asyncio.Future[str]]] = []
        self._draining = False

    async def append(self, records: Sequence[LogRecord]) -> str:
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._waiting.append((records, future))
        if not self._draining:
            self._draining = True
            asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, []
                try:
                    token = await self._log.append([r for records, _ in batch for r in records])
                except BaseException as exc:
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    if not isinstance(exc, Exception):
                        raise
                    continue
                for _, future in batch:
                    if not future.done():
                        future.set_result(token)
        finally:
            self._draining = False


@dataclass(slots=True)
class Match:
    board: Board
    payload: MatchPayload
    digest: str = ""
    """What tells a retry from another payload under the same ``match_id``."""

    def __post_init__(self) -> None:
        self.digest = self.digest or digest_of(self.payload)


class Matches:
    """The front of the write path for matches, and the reads of ratings."""

    def __init__(
        self,
        boards: Boards,
        log: Log,
        ratings: RatingStore,
        gateway: IndexGateway,
        clock: Clock,
        *,
        clock_skew_seconds: float,
        handoff: Handoff | None = None,
    ) -> None:
        self._boards = boards
        self._handoff = handoff or Handoff()
        """Where this process's applier leaves the ratings of the matches waited for."""
        self._log = log
        self._appends = _Appends(log)
        self._ratings = ratings
        self._gateway = gateway
        self._clock = clock
        self._skew = int(clock_skew_seconds * 1_000_000)

    async def prepare(
        self,
        board_id: str,
        match_id: str,
        *,
        at: Micros | None,
        results: Sequence[tuple[PlayerId, int, str | None, dict[str, str] | None]],
    ) -> Match:
        """Validate one match: InvalidInput, NotFound or Conflict when it cannot be taken."""
        board = await self._boards.find(board_id)
        if board.frozen:
            raise Conflict(f"board {board.id!r} is frozen; it takes no writes")
        if board.policy != "rating":
            raise Conflict("only boards with policy 'rating' take matches; submit scores")
        assert board.spec.rating is not None
        check_available(board.spec.rating)  # before the log takes a match it could not rate
        if not 2 <= len(results) <= MAX_PLAYERS:
            raise InvalidInput.at(["body", "results"], f"a match has 2 to {MAX_PLAYERS} players")
        players = [player for player, _, _, _ in results]
        if len(set(players)) != len(players):
            raise InvalidInput.at(["body", "results"], "a player is listed twice")
        for i, (_, _, _, scopes) in enumerate(results):
            try:
                board.check_scopes(scopes or {})
            except InvalidInput:
                raise InvalidInput.at(
                    ["body", "results", i, "scopes"], "the board declares no such scope"
                ) from None
        teams = {team for _, _, team, _ in results}
        if None in teams and len(teams) > 1:
            raise InvalidInput.at(["body", "results"], "give every player a team, or none")
        if len(teams) == 1 and None not in teams:
            raise InvalidInput.at(["body", "results"], "a match needs two teams or more")
        now = self._clock.now()
        at_given = at is not None
        if at is None:
            at = now
        elif at > now + self._skew:
            raise InvalidInput.at(["body", "at"], "`at` is in the future")
        payload = MatchPayload(
            match_id,
            at,
            now,
            at_given,
            [MatchPlayer(p, place, team, dict(scopes or {})) for p, place, team, scopes in results],
        )
        return Match(board, payload)

    async def prepare_match(self, board_id: str, item: MatchIn) -> Match:
        """Validate one match as a body gives it (``MatchIn``): its ``at`` (422 at
        ``["body", "at"]`` when it is not an RFC 3339 time), then as ``prepare`` does."""
        at = body_time(item.at)
        results = [(r.player_id, r.place, r.team, r.scopes) for r in item.results]
        return await self.prepare(board_id, item.match_id, at=at, results=results)

    async def take(self, board_id: str, item: MatchIn, asynchronous: bool) -> MatchOut | str:
        """One match as a body gives it: prepared (``prepare_match``), then rated and answered
        (its ``MatchOut``) or, ``asynchronous``, durable in the log (its token: the edges
        answer 202). A match refused on the way raises its error."""
        match = await self.prepare_match(board_id, item)
        if asynchronous:
            return await self.accept([match])
        [result] = await self.submit([match])
        if isinstance(result, RanklineError):
            raise result
        return result

    async def accept(self, matches: Sequence[Match]) -> str:
        """Append the matches to the log; durable on return (the token names them)."""
        if not matches:
            return ""
        return await self._appends.append([match_record(m.board.id, m.payload) for m in matches])

    async def submit(self, matches: Sequence[Match]) -> list[MatchOut | RanklineError]:
        """Take the matches durably, wait until they are rated, answer each."""
        answers: list[MatchOut | RanklineError | None] = [None] * len(matches)
        stored: dict[tuple[str, str], str] = {}
        fresh: list[Match] = []
        keys: list[MatchKey] = []
        token = ""
        with self._log.coming():  # the applier waits for this append when it is woken
            for board_id, ids in _by_board(matches).items():
                for match_id, digest in (await self._ratings.digests(board_id, ids)).items():
                    stored[board_id, match_id] = digest
            seen: dict[tuple[str, str], str] = {}
            for i, match in enumerate(matches):
                key = (match.board.id, match.payload.match_id)
                first = stored.get(key) or seen.get(key)
                if first is not None and first != match.digest:
                    answers[i] = _reused(match)
                elif key not in stored:
                    seen.setdefault(key, match.digest)
                    fresh.append(match)
            if fresh:
                keys = [(m.board.id, m.payload.match_id) for m in fresh]
                self._handoff.want(keys)
                try:
                    token = await self.accept(fresh)
                except BaseException:
                    self._handoff.release(keys)
                    raise
        handed: dict[tuple[str, str], tuple[str, list[RatingRow]]] = {}
        if fresh:
            try:
                await self._log.settled(token, SETTLE_SECONDS)
                handed = self._handoff.found(keys)
            finally:
                self._handoff.release(keys)
        rows: dict[tuple[str, str], list[RatingRow]] = {}
        digests: dict[tuple[str, str], str] = {}
        for (board_id, match_id), (digest, match_rows) in handed.items():
            rows[board_id, match_id] = match_rows
            digests[board_id, match_id] = digest
        systems: dict[str, RatingSystem] = {}
        for board_id, ids in _by_board(matches).items():
            board = next(m.board for m in matches if m.board.id == board_id)
            assert board.spec.rating is not None
            systems[board_id] = system_of(board.spec.rating)
            ids = [i for i in ids if (board_id, i) not in handed]
            if not ids:
                continue
            found = await self._ratings.results(board_id, board.primary_window, ids)
            for match_id, (digest, match_rows) in found.items():
                rows[board_id, match_id] = match_rows
                digests[board_id, match_id] = digest
        out: list[MatchOut | RanklineError] = []
        ranks = await self._ranks(matches, rows)
        for i, match in enumerate(matches):
            answer = answers[i]
            if answer is not None:
                out.append(answer)
                continue
            key = (match.board.id, match.payload.match_id)
            if key not in digests:
                out.append(Conflict("the match was not applied: its board changed meanwhile"))
            elif digests[key] != match.digest:
                out.append(_reused(match))
            elif not rows[key]:
                out.append(Conflict("the match's period is closed there: it changed no rating"))
            else:
                system = systems[match.board.id]
                out.append(self._answer(match, system, rows[key], ranks, key in stored))
        return out

    async def _ranks(
        self, matches: Sequence[Match], rows: dict[tuple[str, str], list[RatingRow]]
    ) -> dict[tuple[LeaderboardId, PlayerId], int]:
        wanted: dict[LeaderboardId, list[PlayerId]] = {}
        for match in matches:
            found = rows.get((match.board.id, match.payload.match_id), [])
            for r in found:
                lb = LeaderboardId(r.board, r.window, r.period, GLOBAL_SCOPE)
                wanted.setdefault(lb, []).append(r.player)
        return await self._positions(wanted)

    async def _positions(
        self, wanted: dict[LeaderboardId, list[PlayerId]]
    ) -> dict[tuple[LeaderboardId, PlayerId], int]:
        if not wanted:
            return {}

        async def read(index: IndexReader) -> dict[tuple[LeaderboardId, PlayerId], int]:
            ranks = {}
            for lb, players in wanted.items():
                for offset, key in await index.positions(lb, players):
                    ranks[lb, player_of(key)] = offset + 1
            return ranks

        ranks, _ = await self._gateway.read(read)
        return ranks

    def _answer(
        self,
        match: Match,
        system: RatingSystem,
        rows: list[RatingRow],
        ranks: dict[tuple[LeaderboardId, PlayerId], int],
        duplicate: bool,
    ) -> MatchOut:
        board = match.board
        mine = {r.player: r for r in rows}
        results = []
        window = period = ""
        for p in match.payload.results:
            r = mine[p.player]
            window, period = r.window, r.period
            new = parse_state(r.rating)
            lb = LeaderboardId(board.id, r.window, r.period, GLOBAL_SCOPE)
            results.append(
                RatingResultOut(
                    player_id=p.player,
                    place=p.place,
                    team=p.team,
                    previous=system.public(parse_state(r.previous)),
                    rating=system.public(new),
                    score=score_of(new),
                    rank=ranks.get((lb, p.player)),
                    provisional=r.provisional,
                )
            )
        return MatchOut(
            board=board.id,
            match_id=match.payload.match_id,
            duplicate=duplicate,
            at=format_time(rows[0].at if rows else match.payload.at),
            window=window,
            period=period,
            results=results,
        )

    # --- reads -------------------------------------------------------------------------------

    async def player(self, ask: RatingRequest) -> PlayerRatingOut:
        """A player's rating on a rating board, provisional or not (404 without a match)."""
        board_id, player, scope = ask.board_id, ask.player_id, ask.scope
        window, period = ask.window, ask.period
        board = await self._boards.find(board_id)
        if board.policy != "rating" or board.spec.rating is None:
            raise NotFound(f"board {board.id!r} is not a rating board")
        window = window or board.primary_window
        if window not in board.windows:
            raise NotFound(f"board {board.id!r} has no window {window!r}")
        now = self._clock.now()
        if period is None:
            current = [t for t in board.targets(now, {}, now) if t.leaderboard.window == window]
            if not current:
                raise NotFound(f"window {window!r} has no current period")
            period = current[0].leaderboard.period
        text = await self._ratings.state(board.id, window, period, player)
        if text is None:
            raise NotFound(f"player {player!r} has played no match there")
        system = system_of(board.spec.rating)
        state = system.aged(parse_state(text), now)
        lb = LeaderboardId(board.id, window, period, scope or GLOBAL_SCOPE)
        provisional = system.provisional(state)
        ranks = {} if provisional else await self._positions({lb: [player]})
        return PlayerRatingOut(
            board=board.id,
            window=window,
            period=period,
            scope=lb.scope,
            player_id=player,
            rating=system.public(state),
            score=score_of(state),
            rank=ranks.get((lb, player)),
            provisional=provisional,
            games=state.games,
        )

    async def history(
        self, player: PlayerId, board_id: str, limit: int, cursor: str | None
    ) -> RatingHistoryOut:
        """A player's rating changes on a rating board, newest first."""
        board = await self._boards.find(board_id)
        assert board.spec.rating is not None
        system = system_of(board.spec.rating)
        before = None
        if cursor is not None:
            try:
                before = int(cursor)
            except ValueError:
                raise InvalidInput.at(["query", "cursor"], "not a cursor of this list") from None
        rows = await self._ratings.history(
            player, board.id, board.primary_window, limit + 1, before
        )
        more = len(rows) > limit
        rows = rows[:limit]
        items = []
        for r in rows:
            new = parse_state(r.rating)
            items.append(
                RatingHistoryItemOut(
                    board=r.board,
                    match_id=r.match_id,
                    window=r.window,
                    period=r.period,
                    place=r.place,
                    score=score_of(new),
                    previous=system.public(parse_state(r.previous)),
                    rating=system.public(new),
                    provisional=r.provisional,
                    at=format_time(r.at),
                    received_at=format_time(r.received_at),
                )
            )
        return RatingHistoryOut(
            player_id=player,
            items=items,
            next_cursor=str(rows[-1].seq) if more and rows else None,
        )


def _by_board(matches: Sequence[Match]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for m in matches:
        found.setdefault(m.board.id, []).append(m.payload.match_id)
    return found


def _reused(match: Match) -> KeyReused:
    return KeyReused(
        f"match_id {match.payload.match_id!r} was already submitted with a different payload; "
        "a retry must repeat it exactly, and a new match needs a new match_id",
        {"board": match.board.id, "match_id": match.payload.match_id},
    )


__all__ = [
    "Match",
    "MatchOut",
    "Matches",
    "PlayerRatingOut",
    "RatingHistoryOut",
    "RatingResultOut",
]
