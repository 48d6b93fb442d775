"""Players: profiles, submission history, stored friend lists, bans and erasure, and the
display names joined into every leaderboard read.

players = service.players
await players.put_profile("p:42", ProfileIn(display_name="Ada"))
await players.ban("p:42")      # off every leaderboard; scores kept in SQL
await players.unban("p:42")    # back, exactly as before (standings reloaded from SQL)

A ban lives in SQL, so every worker honours it: the group-commit writer reads the bans of a
batch's players inside its transaction and leaves banned players out of the index; a rebuild
and the degraded SQL read path leave them out too. Ban, unban and erase hold this process's
commit lock, so no batch of this process interleaves with them; a batch another worker
committed just before a ban could still reach a shared index just after it, so the removal
runs once more a moment later (``_SETTLE_SECONDS``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Sequence
from typing import Any

import msgspec

from rankline.answers import (
    BanOut,
    FriendListOut,
    FriendsOut,
    HistoryItemOut,
    HistoryOut,
    PlayerProfileOut,
    ProfileOut,
    ProfileStandingOut,
)
from rankline.boards import Board
from rankline.errors import IndexUnavailable, InvalidInput, NotFound, RanklineError, Unavailable
from rankline.index.base import IndexReader
from rankline.index.gateway import IndexGateway
from rankline.index.keeper import IndexHealth
from rankline.lifecycle.closing import Lifecycle
from rankline.periods import current_period
from rankline.players.requests import HistoryRequest, ProfileIn, StoredFriendsRequest
from rankline.ratings.matches import Matches, RatingHistoryOut
from rankline.reading.cache import TopCache
from rankline.reading.cursors import IdCursors
from rankline.reading.names import NameDirectory
from rankline.reading.reads import Reads
from rankline.reading.requests import FriendsRequest
from rankline.registry import Boards
from rankline.runtime.clock import format_time
from rankline.store.audit import Attribution
from rankline.store.players import PlayerStore, Profile
from rankline.types import (
    BoardId,
    Clock,
    IndexChange,
    LeaderboardId,
    PlayerId,
    Standing,
)
from rankline.writing.scores import check_metadata

log = logging.getLogger("rankline.players.accounts")

_SETTLE_SECONDS = 1.0
_CURSORS = IdCursors("h1:")
_json = msgspec.json.Encoder()

__all__ = ["Players", "Profile"]


class Players:
    """Player operations: profiles, history, friend lists, bans and erasure."""

    def __init__(
        self,
        store: PlayerStore,
        names: NameDirectory,
        boards: Boards,
        reads: Reads,
        gateway: IndexGateway,
        health: IndexHealth,
        lifecycle: Lifecycle,
        tops: TopCache,
        commit_lock: asyncio.Lock,
        clock: Clock,
        matches: Matches,
        max_metadata_bytes: int = 4096,
    ) -> None:
        self.store = store
        self._names = names
        self._boards = boards
        self._reads = reads
        self._gateway = gateway
        self._health = health
        self._lifecycle = lifecycle
        self._tops = tops
        self._commit_lock = commit_lock
        self._clock = clock
        self._matches = matches
        self._max_metadata_bytes = max_metadata_bytes
        self._stopping = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Load the display names, then keep following them in the background."""
        try:
            await self._names.sync()
        except Unavailable as exc:
            log.warning("display names not loaded (%s); looking them up per read", exc.detail)
        self._spawn(self._names.run(self._stopping))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        self._stopping.set()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    # --- profiles ------------------------------------------------------------------------

    async def put_profile(self, player: PlayerId, given: ProfileIn) -> tuple[ProfileOut, bool]:
        """Create or replace a player's profile (PUT's body: an omitted field becomes null, or
        {}); True when it was created. Its metadata is at most ``max_metadata_bytes`` as
        compact JSON, checked first."""
        check_metadata(given.metadata, self._max_metadata_bytes)
        profile = Profile(
            player, given.display_name, given.avatar_url, given.country, given.metadata or {}
        )
        for name in ("display_name", "avatar_url", "country"):
            _check_text(getattr(profile, name), ["body", name])
        try:
            _json.encode(profile.metadata)
        except (UnicodeEncodeError, TypeError) as exc:
            raise InvalidInput.at(
                ["body", "metadata"], f"metadata is not storable: {exc}"
            ) from None
        created = await self.store.save_profile(profile, self._clock.now())
        self._names.put(profile.player, profile.display_name)
        self._tops.clear()  # cached top entries carry display names
        return _profile(profile), created

    async def profile(self, player: PlayerId) -> PlayerProfileOut:
        """The profile and the player's standings in every board's current periods; NotFound
        for a player with neither a profile nor any entry."""
        now = self._clock.now()
        current = [
            (board.id, window, found.name)
            for board in self._boards.boards()
            for window in board.windows
            if (found := current_period(window, now, board.calendar)) is not None
        ]
        found_profile = await self.store.profile(player)
        standings = await self.store.standings(player, current) if current else []
        banned = await self.store.banned_at(player) is not None
        if found_profile is None and not standings and not await self.store.has_standings(player):
            raise NotFound(f"no player {player!r}")
        profile = found_profile or Profile(player)
        ranks: list[int | None] = [None] * len(standings)
        degraded = False
        if not banned:
            leaderboards = [s.leaderboard for s in standings]
            ranks, flags = await self._gateway.read(
                lambda index: _ranks_on(index, leaderboards, player)
            )
            degraded = flags.degraded
        return PlayerProfileOut(
            player_id=profile.player,
            display_name=profile.display_name,
            avatar_url=profile.avatar_url,
            country=profile.country,
            metadata=profile.metadata,
            banned=banned,
            standings=[
                ProfileStandingOut(
                    board=s.leaderboard.board,
                    window=s.leaderboard.window,
                    period=s.leaderboard.period,
                    scope=s.leaderboard.scope,
                    score=s.score,
                    rank=rank,
                    subscore=s.subscore,
                )
                for s, rank in zip(standings, ranks, strict=True)
            ],
            degraded=degraded,
        )

    # --- history -------------------------------------------------------------------------

    async def history(self, ask: HistoryRequest) -> HistoryOut | RatingHistoryOut:
        """The player's submissions, most recently recorded first, ``limit`` at a time; on a
        rating board, their rating changes (``Matches.history``)."""
        player, board, limit, cursor = ask.player_id, ask.board, ask.limit, ask.cursor
        if board is not None and (await self._boards.find(board)).policy == "rating":
            return await self._matches.history(player, board, limit, cursor)
        before = None if cursor is None else _CURSORS.decode(cursor)
        items = await self.store.history(player, board, limit + 1, before)
        more = len(items) > limit
        items = items[:limit]
        return HistoryOut(
            player_id=player,
            items=[
                HistoryItemOut(
                    board=item.board,
                    match_id=item.match_id,
                    score=item.score,
                    at=format_time(item.at),
                    received_at=format_time(item.received_at),
                    applied=item.applied,
                    subscore=item.subscore,
                )
                for item in items
            ],
            next_cursor=_CURSORS.encode(items[-1].id) if more else None,
        )

    # --- stored friend lists -------------------------------------------------------------

    async def set_friends(self, player: PlayerId, friends: Sequence[PlayerId]) -> FriendListOut:
        """Replace the player's stored friend list (duplicates and the player go)."""
        unique = sorted({f for f in friends if f != player})
        await self.store.set_friends(player, unique)
        return FriendListOut(player_id=player, friends=unique)

    async def friends(self, player: PlayerId) -> FriendListOut:
        return FriendListOut(player_id=player, friends=await self.store.friends(player))

    async def friends_board(self, ask: StoredFriendsRequest) -> FriendsOut:
        """The friends leaderboard of a player among their stored friends."""
        await self._boards.find(ask.board_id)
        friends = await self.store.friends(ask.player_id)
        read = FriendsRequest(
            board_id=ask.board_id,
            window=ask.window,
            period=ask.period,
            scope=ask.scope,
            metadata=ask.metadata,
            player_id=ask.player_id,
        )
        return await self._reads.friends(read, friends, ask.k)

    # --- bans and erasure ----------------------------------------------------------------

    async def ban(self, player: PlayerId, by: Attribution | None = None) -> BanOut:
        """Take the player off every leaderboard; their standings stay in SQL. Made by hand
        (``by``), the ban is audited in its transaction (``player.ban``)."""
        self._check_built()
        async with self._commit_lock:
            now = self._clock.now()
            audit = None if by is None else by.entry(now, "player.ban", player=player)
            banned_at = await self.store.ban(player, now, audit)
            leaderboards = await self._live(await self.store.standings(player))
            await self._remove(player, leaderboards)
        self._settle_later(player, leaderboards)
        await self._rearchive(player)
        return BanOut(player_id=player, banned=True, banned_at=format_time(banned_at))

    async def unban(self, player: PlayerId, by: Attribution | None = None) -> BanOut:
        """Put the player back on every live leaderboard, as SQL has their standings. Made
        by hand (``by``), the unban is audited in its transaction (``player.unban``)."""
        self._check_built()
        async with self._commit_lock:
            now = self._clock.now()
            audit = None if by is None else by.entry(now, "player.unban", player=player)
            if not await self.store.unban(player, audit):
                raise NotFound(f"player {player!r} is not banned")
            standings = await self.store.standings(player)
            boards = await self._boards_of({s.leaderboard.board for s in standings})
            changes = [
                IndexChange(
                    s.leaderboard,
                    player,
                    board.keys.encode(s.score, s.subscore, s.achieved_at, player),
                    s.revision,
                    restored=True,
                )
                for s in standings
                if (board := boards.get(s.leaderboard.board)) is not None
                and not board.expired(s.leaderboard, now)
            ]
            await self._gateway.apply(changes)
        await self._rearchive(player)
        return BanOut(player_id=player, banned=False, banned_at=None)

    async def erase(self, player: PlayerId, by: Attribution | None = None) -> None:
        """Delete everything about the player (events, standings, archived rows, profile,
        friend lists, ban) and take them off every leaderboard; NotFound when nothing was
        there. Made by hand (``by``), the erasure is audited in its transaction
        (``player.erase``, the player named by an alias from then on)."""
        self._check_built()
        async with self._commit_lock:
            leaderboards = {s.leaderboard for s in await self.store.standings(player)}
            audit = (
                None if by is None else by.entry(self._clock.now(), "player.erase", player=player)
            )
            removed = await self.store.erase(player, audit)
            self._names.forget(player)
            self._tops.clear()
            for board in self._boards.boards():
                leaderboards.update(await self._gateway.leaderboards(board.id))
            await self._remove(player, sorted(leaderboards))
        self._settle_later(player, sorted(leaderboards))
        # The archived periods they were in are archived again without them (ranks closed
        # up); whatever of theirs is left in the archive then goes regardless.
        await self._rearchive(player)
        await self.store.erase_archived(player)
        if not removed:
            raise NotFound(f"no player {player!r}")

    def _check_built(self) -> None:
        # A build loads standings read before the change and could undo it: wait for it.
        if not self._health.built:
            raise IndexUnavailable("the ranking index is being built; retry shortly")

    async def _rearchive(self, player: PlayerId) -> None:
        """Bring the archived final standings in line with the player's new state."""
        try:
            await self._lifecycle.rearchive_player(player)
        except RanklineError as exc:
            log.warning("could not re-archive the periods of %r: %s", player, exc.detail)

    async def _boards_of(self, ids: set[BoardId]) -> dict[BoardId, Board]:
        known = {board.id: board for board in self._boards.boards()}
        if not ids <= known.keys() and self._boards.shared:
            await self._boards.reload()  # another worker may have made the board
            known = {board.id: board for board in self._boards.boards()}
        return known

    async def _live(self, standings: Sequence[Standing]) -> list[LeaderboardId]:
        """The leaderboards of these standings whose retention has not ended."""
        boards = await self._boards_of({s.leaderboard.board for s in standings})
        now = self._clock.now()
        return [
            s.leaderboard
            for s in standings
            if (board := boards.get(s.leaderboard.board)) is None
            or not board.expired(s.leaderboard, now)
        ]

    async def _remove(self, player: PlayerId, leaderboards: Sequence[LeaderboardId]) -> None:
        await self._gateway.apply([IndexChange(lb, player, None) for lb in leaderboards])

    def _settle_later(self, player: PlayerId, leaderboards: Sequence[LeaderboardId]) -> None:
        if self._boards.shared and leaderboards:
            self._spawn(self._settle(player, leaderboards))

    async def _settle(self, player: PlayerId, leaderboards: Sequence[LeaderboardId]) -> None:
        """Remove the player again where SQL says they must not be: a batch another worker
        committed just before the ban or erasure may have reached the index after it."""
        await asyncio.sleep(_SETTLE_SECONDS)
        try:
            async with self._commit_lock:
                kept: set[LeaderboardId] = set()
                if await self.store.banned_at(player) is None:
                    kept = {s.leaderboard for s in await self.store.standings(player)}
                await self._remove(player, [lb for lb in leaderboards if lb not in kept])
        except RanklineError as exc:
            log.warning("could not re-check %r on the index: %s", player, exc.detail)


async def _ranks_on(
    index: IndexReader, leaderboards: Sequence[LeaderboardId], player: PlayerId
) -> list[int | None]:
    ranks: list[int | None] = []
    for leaderboard in leaderboards:
        position = await index.position(leaderboard, player)
        ranks.append(None if position is None else position.offset + 1)
    return ranks


def _profile(profile: Profile) -> ProfileOut:
    return ProfileOut(
        player_id=profile.player,
        display_name=profile.display_name,
        avatar_url=profile.avatar_url,
        country=profile.country,
        metadata=profile.metadata,
    )


def _check_text(value: str | None, loc: list[str | int]) -> None:
    """Text every database stores as given: no NUL, no lone surrogate."""
    if value is None:
        return
    try:
        value.encode()
    except UnicodeEncodeError:
        raise InvalidInput.at(loc, "the text is not valid Unicode") from None
    if "\x00" in value:
        raise InvalidInput.at(loc, "the text contains a NUL character")
