"""Entries taken off by hand: one player's entry removed from a board (every leaderboard, or
those a window, period and scope name), or a leaderboard's current period reset.

moderation = service.moderation
await moderation.remove("key:3f2a…", RemoveRequest(board_id="arena", player_id="p:42"))
await moderation.reset("key:3f2a…", "arena", ResetIn(window="daily", reason="event restarted"))

Each is one SQL transaction (``store.moderation.remove_entries``): the standings deleted, the
removal recorded in ``rl_removals`` as of the board's newest score event (so ``rankline
replay`` takes the same entries off at the same point of the log) and the audit entry
written. Then, still holding this process's commit lock so no batch of this process
interleaves, the index drops the entries; archived periods the player was in are archived
again without them. A removed entry comes back only through a new submission, which starts
afresh (the policy finds no standing). On an index several workers share, a batch another
worker committed just before the removal could reach the index just after it, so the
removal is checked against SQL once more a moment later (``_SETTLE_SECONDS``), as bans are.
The player's score events stay: their history, and
the idempotency of their match ids, are untouched.

A void replaces its players' standings on the board by those recomputed without the match
(``writing.recompute``), in one transaction; the index then gets each leaderboard's changes
in one call (``voided_changes``: each player's key set over the old one, so movement is
recorded as for a write), which it applies in one step. On a shared index the void's
players are checked against SQL once more a moment later too, as removals are: a change of
theirs that another worker committed before the void may reach the index after it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import msgspec

from rankline.audit.log import Audit
from rankline.audit.reasons import check_reason
from rankline.boards import Board, parse_scope
from rankline.errors import (
    Conflict,
    IndexUnavailable,
    InvalidInput,
    NotFound,
    RanklineError,
    WriteConflict,
)
from rankline.index.gateway import IndexGateway
from rankline.index.keeper import IndexHealth
from rankline.lifecycle.closing import Lifecycle
from rankline.moderation.answers import RemovedOut, VoidedOut
from rankline.moderation.requests import RemoveRequest, ResetIn, VoidIn
from rankline.periods import current_period, parse_period
from rankline.ratings.rated import MatchPlayer
from rankline.ratings.rerate import rerate_without
from rankline.registry import Boards
from rankline.store import moderation as moderation_store
from rankline.store.audit import AuditEntry
from rankline.store.moderation import Removal, remove_entries
from rankline.store.ratings import RatingStore
from rankline.store.sql import SqlStore
from rankline.types import (
    BoardId,
    Clock,
    IndexChange,
    LeaderboardId,
    MatchId,
    Micros,
    PlayerId,
    StandingRow,
    revision_of,
)
from rankline.writing.recompute import recompute_players

log = logging.getLogger("rankline.moderation")
_results = msgspec.json.Decoder(list[MatchPlayer])

_INDEX_CHUNK = 1000
"""Index removals applied per call on a reset."""
_VOID_ATTEMPTS = 3
"""Tries of a void that finds its players (or its rating board) written meanwhile."""
_SETTLE_SECONDS = 1.0
"""After a removal on a shared index, when it is checked once more (as bans are)."""


class Moderation:
    def __init__(
        self,
        store: SqlStore,
        boards: Boards,
        gateway: IndexGateway,
        health: IndexHealth,
        lifecycle: Lifecycle,
        ratings: RatingStore,
        audit: Audit,
        commit_lock: asyncio.Lock,
        clock: Clock,
    ) -> None:
        self._store = store
        self._boards = boards
        self._gateway = gateway
        self._health = health
        self._lifecycle = lifecycle
        self._ratings = ratings
        self._audit = audit
        self._commit_lock = commit_lock
        self._clock = clock
        self._tasks: set[asyncio.Task[None]] = set()

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def remove(self, actor: str, ask: RemoveRequest) -> RemovedOut:
        """Take the player's entries off the board (those the window, period and scope
        name); NotFound when there was none."""
        board_id, player, reason = ask.board_id, ask.player_id, ask.reason
        window, period, scope = ask.window, ask.period, ask.scope
        board = await self._moderated(board_id)
        window, period, scope = _narrowed(board, window, period, scope)
        removal = Removal(board.id, player, window, period, scope, at=self._clock.now())
        removed = await self._remove(actor, "entry.remove", board, removal, reason)
        await self._rearchive({player})
        return RemovedOut(
            board=board.id,
            player_id=player,
            window=window,
            period=period,
            scope=scope,
            removed=removed,
        )

    async def reset(self, actor: str, board_id: BoardId, given: ResetIn) -> RemovedOut:
        """Empty the current period of ``given.window`` (default the board's first) on
        every scope, or on ``given.scope`` only: the period starts again."""
        reason = check_reason(given.reason, ["body", "reason"])
        window, scope = given.window, given.scope
        board = await self._moderated(board_id)
        window = window or board.primary_window
        if window not in board.windows:
            raise InvalidInput.at(
                ["body", "window"],
                f"the board has no {window!r} window (it has {', '.join(board.windows)})",
            )
        found = current_period(window, self._clock.now(), board.calendar)
        if found is None:
            raise NotFound(f"the board has no current {window} period")
        if scope is not None:
            scope = _scope(board, scope, ["body", "scope"])
        removal = Removal(board.id, None, window, found.name, scope, at=self._clock.now())
        removed = await self._remove(actor, "board.reset", board, removal, reason)
        return RemovedOut(
            board=board.id, window=window, period=found.name, scope=scope, removed=removed
        )

    async def void(
        self, actor: str, board_id: BoardId, match_id: MatchId, given: VoidIn
    ) -> VoidedOut:
        """Undo every submission under ``match_id`` on the board, as if never submitted:
        each player's standings are recomputed from their other events. The match id stays
        used. NotFound when the board has no such match; Conflict when it is voided already."""
        reason = check_reason(given.reason, ["body", "reason"])
        board = await self._moderated(board_id, voiding=True)
        void = self._void_rated if board.policy == "rating" else self._void_scored
        for attempt in range(_VOID_ATTEMPTS):
            try:
                return await void(actor, board, match_id, reason)
            except WriteConflict:
                # another worker wrote these players (or rated a match) meanwhile: again
                if attempt == _VOID_ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    async def _void_scored(
        self, actor: str, board: Board, match_id: MatchId, reason: str | None
    ) -> VoidedOut:
        async with self._commit_lock:
            players = await moderation_store.match_players(self._store, board.id, match_id)
            if not players:
                raise NotFound(f"board {board.id!r} has no match {match_id!r}")
            voided = await moderation_store.voided_matches(self._store, board.id)
            if match_id in voided:
                raise Conflict(f"match {match_id!r} on board {board.id!r} is voided already")
            again = await recompute_players(self._store, board, players, voided, match_id)
            now = self._clock.now()
            entry = self._audit.entry(
                actor,
                "match.void",
                board=board.id,
                match_id=match_id,
                reason=reason,
                detail={"players": players},
            )
            replaced = await moderation_store.void_match(
                self._store,
                board.id,
                match_id,
                now,
                players,
                again.rows,
                again.applied,
                again.last_event,
                entry,
            )
            banned = await moderation_store.banned_of(self._store, players)
            changes = voided_changes(board, replaced, again.rows, banned, now)
            await self._apply_by_leaderboard(changes)
        if self._boards.shared and changes:
            touched = sorted({change.leaderboard for change in changes})
            task = asyncio.create_task(self._settle_void(board.id, players, touched))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        await self._rearchive(set(players))
        return VoidedOut(board=board.id, match_id=match_id, players=players)

    async def _void_rated(
        self, actor: str, board: Board, match_id: MatchId, reason: str | None
    ) -> VoidedOut:
        """A rating board's void: every rating after the match recomputed in serial order
        without it (``ratings.rerate``), the standings that changed moved on."""
        async with self._commit_lock:
            stored = [m for m in await self._ratings.matches(board.id) if m.match_id == match_id]
            if not stored:
                raise NotFound(f"board {board.id!r} has no match {match_id!r}")
            players = sorted({p.player for p in _results.decode(stored[0].results)})
            voided = await moderation_store.voided_matches(self._store, board.id)
            if match_id in voided:
                raise Conflict(f"match {match_id!r} on board {board.id!r} is voided already")
            rerated = await rerate_without(self._ratings, board, voided | {match_id})
            now = self._clock.now()
            entry = self._audit.entry(
                actor,
                "match.void",
                board=board.id,
                match_id=match_id,
                reason=reason,
                detail={"players": players},
            )
            writes, gone, banned = await moderation_store.void_rated(
                self._store, board.id, match_id, now, rerated, entry
            )
            changes = [
                IndexChange(lb, player, board.keys.encode(score, None, at, player), revision)
                for lb, player, score, at, revision, _ in writes
                if player not in banned and not board.expired(lb, now)
            ]
            changes += [
                IndexChange(lb, player, None) for lb, player in gone if not board.expired(lb, now)
            ]
            await self._apply_by_leaderboard(changes)
        await self._rearchive({player for _, player, *_ in writes} | {p for _, p in gone})
        return VoidedOut(board=board.id, match_id=match_id, players=players)

    async def _apply_by_leaderboard(self, changes: list[IndexChange]) -> None:
        """A void's index changes, each leaderboard's in one call: the index applies them
        in one step (on Redis, one script per leaderboard, or per shard of a sharded one,
        up to ``ARG_CHUNK`` players), so no read sees some of them and not the others."""
        grouped: dict[LeaderboardId, list[IndexChange]] = {}
        for change in changes:
            grouped.setdefault(change.leaderboard, []).append(change)
        for leaderboard in sorted(grouped):
            await self._gateway.apply(grouped[leaderboard])

    async def _rearchive(self, players: set[PlayerId]) -> None:
        """Archive again the archived periods these players are in (ranks closed up)."""
        for player in sorted(players):
            try:
                await self._lifecycle.rearchive_player(player)
            except RanklineError as exc:
                log.warning("could not re-archive the periods of %r: %s", player, exc.detail)

    async def _moderated(self, board_id: BoardId, *, voiding: bool = False) -> Board:
        board = await self._boards.find(board_id)
        if board.policy == "rating" and not voiding:
            raise Conflict(
                f"board {board_id!r} is a rating board: its entries are its players' "
                "ratings; void a match instead"
            )
        # A build loads standings read before the change and could undo it: wait for it.
        if not self._health.built:
            raise IndexUnavailable("the ranking index is being built; retry shortly")
        return board

    async def _remove(
        self, actor: str, action: str, board: Board, removal: Removal, reason: str | None
    ) -> int:
        def audited(count: int) -> AuditEntry:
            detail: dict[str, object] = {"removed": count}
            for name in ("window", "period", "scope"):
                if (value := getattr(removal, name)) is not None:
                    detail[name] = value
            return self._audit.entry(
                actor,
                action,
                board=board.id,
                player=removal.player,
                reason=reason,
                detail=detail,
            )

        async with self._commit_lock:
            removed = await remove_entries(self._store, removal, audited)
            now = self._clock.now()
            changes = [
                IndexChange(lb, player, None)
                for lb, player in removed
                if not board.expired(lb, now)
            ]
            for start in range(0, len(changes), _INDEX_CHUNK):
                await self._gateway.apply(changes[start : start + _INDEX_CHUNK])
        if self._boards.shared and changes:
            task = asyncio.create_task(self._settle(board.id, [c[:2] for c in changes]))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return len(removed)

    async def _settle(self, board: BoardId, removed: list[tuple[LeaderboardId, PlayerId]]) -> None:
        """Take off again what SQL no longer holds: a batch another worker committed just
        before the removal may have reached the shared index after it."""
        await asyncio.sleep(_SETTLE_SECONDS)
        try:
            async with self._commit_lock:
                players = sorted({player for _, player in removed})
                kept = set(await moderation_store.player_standings(self._store, board, players))
                again = [IndexChange(lb, p, None) for lb, p in removed if (lb, p) not in kept]
                for start in range(0, len(again), _INDEX_CHUNK):
                    await self._gateway.apply(again[start : start + _INDEX_CHUNK])
        except RanklineError as exc:
            log.warning("could not re-check the removals on %r: %s", board, exc.detail)

    async def _settle_void(
        self, board_id: BoardId, players: list[PlayerId], leaderboards: list[LeaderboardId]
    ) -> None:
        """Set again what SQL holds for a void's players where the shared index differs: a
        batch another worker committed just before the void may have reached the index
        after it (a change the void made at revision 0 does not refuse it)."""
        await asyncio.sleep(_SETTLE_SECONDS)
        try:
            async with self._commit_lock:
                board = await self._boards.find(board_id)
                now = self._clock.now()
                held = await moderation_store.standing_rows(self._store, board_id, players)
                banned = await moderation_store.banned_of(self._store, players)
                wanted = {
                    (lb, player): board.keys.encode(score, subscore, at, player)
                    for lb, player, score, at, _, subscore in held
                    if player not in banned
                }
                if not self._health.usable:
                    return  # the keeper reloads the index from SQL
                index = self._gateway.index
                again = []
                for leaderboard in leaderboards:
                    if board.expired(leaderboard, now):
                        continue
                    for player in players:
                        position = await index.position(leaderboard, player)
                        key = wanted.get((leaderboard, player))
                        if (None if position is None else position.key) != key:
                            again.append(IndexChange(leaderboard, player, key))
                await self._apply_by_leaderboard(again)
        except RanklineError as exc:
            log.warning("could not re-check the void on %r: %s", board_id, exc.detail)


def _narrowed(
    board: Board, window: str | None, period: str | None, scope: str | None
) -> tuple[str | None, str | None, str | None]:
    if window is not None and window not in board.windows:
        raise InvalidInput.at(
            ["query", "window"],
            f"the board has no {window!r} window (it has {', '.join(board.windows)})",
        )
    if period is not None:
        if window is None:
            raise InvalidInput.at(["query", "period"], "a period needs its window")
        try:
            period = parse_period(window, period, board.calendar).name
        except ValueError as exc:
            raise InvalidInput.at(["query", "period"], str(exc)) from None
    if scope is not None:
        scope = _scope(board, scope, ["query", "scope"])
    return window, period, scope


def _scope(board: Board, scope: str, loc: list[str | int]) -> str:
    try:
        return parse_scope(board, scope)
    except InvalidInput as exc:
        raise InvalidInput.at(loc, exc.detail) from None


def voided_changes(
    board: Board,
    replaced: Sequence[StandingRow],
    rows: Sequence[StandingRow],
    banned: set[PlayerId],
    now: Micros,
) -> list[IndexChange]:
    """The index changes that take a void's players from the standings ``replaced`` to the
    recomputed ``rows``, one per (leaderboard, player) that differs, as a write makes them:
    a key that moves is set over the old one, so the index records the player's movement
    (rank before and after) as for any applied change. A recomputed revision may be lower
    than the one the index holds (the voided match's changes are gone from the count): such
    a change carries revision 0, which the index applies unconditionally, so the next write
    (the stored revision plus one) is not refused."""
    old, new = _keyed(replaced), _keyed(rows)
    changes: list[IndexChange] = []
    for lb, player in sorted(old.keys() | new.keys()):
        if board.expired(lb, now):
            continue
        before, after = old.get((lb, player)), new.get((lb, player))
        if after is None or player in banned:
            if before is not None:
                changes.append(IndexChange(lb, player, None))
            continue
        if before == after:
            continue
        _, _, score, at, revision, subscore = after
        key = board.keys.encode(score, subscore, at, player)
        if before is not None and revision <= revision_of(before):
            revision = 0
        changes.append(IndexChange(lb, player, key, revision))
    return changes


def _keyed(rows: Sequence[StandingRow]) -> dict[tuple[LeaderboardId, PlayerId], StandingRow]:
    found = {}
    for row in rows:
        leaderboard, player, *_ = row
        found[leaderboard, player] = row
    return found
