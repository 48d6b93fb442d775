"""Players: profiles, submission history, stored friend lists, bans and erasure, and the
display names joined into every leaderboard read.

players = service.players
await players.put_profile(Profile("p:42", display_name="Ada"))
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
import base64
import binascii
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from rankline.boards import Board
from rankline.clock import format_time
from rankline.errors import IndexUnavailable, InvalidInput, NotFound, RanklineError, Unavailable
from rankline.names import NameDirectory
from rankline.ordering import encode
from rankline.periods import current_period
from rankline.store.players import PlayerStore, Profile
from rankline.types import (
    BoardId,
    IndexChange,
    LeaderboardId,
    PlayerId,
    RankingIndex,
    Standing,
)

if TYPE_CHECKING:
    from rankline.reads import BoardHandle
    from rankline.service import Rankline

_Read = Callable[["BoardHandle"], Awaitable[dict[str, Any]]]

log = logging.getLogger("rankline.players")

_SETTLE_SECONDS = 1.0
_CURSOR_PREFIX = "h1:"
_json = msgspec.json.Encoder()

__all__ = ["Players", "Profile"]


class Players:
    """Player operations of one ``Rankline`` service."""

    def __init__(self, service: Rankline) -> None:
        self._service = service
        self.store = PlayerStore(service.store)
        self._names = NameDirectory(self.store, service.settings.names_in_memory)
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

    # --- display names -------------------------------------------------------------------

    async def display_names(self, players: Iterable[PlayerId]) -> dict[PlayerId, str | None]:
        """Display names (None without one), from a short-lived cache or one SQL query."""
        return await self._names.get(players)

    def named(self, op: _Read) -> _Read:
        """``op`` with the display names joined into its answer."""

        async def read(board: BoardHandle) -> dict[str, Any]:
            return await self.join_names(await op(board))

        return read

    async def join_names(self, body: dict[str, Any]) -> dict[str, Any]:
        """Add ``display_name`` to a read answer's entries, its ``player`` and, for a single
        player's answer, the answer itself; players without one get no field."""
        targets: list[dict[str, Any]] = [e for e in body.get("entries") or () if "player_id" in e]
        if isinstance(body.get("player"), dict):
            targets.append(body["player"])
        if "player_id" in body and "rank" in body:
            targets.append(body)
        if not targets:
            return body
        names = await self.display_names(t["player_id"] for t in targets)
        for target in targets:
            name = names.get(target["player_id"])
            if name is not None:
                target["display_name"] = name
        return body

    # --- profiles ------------------------------------------------------------------------

    async def put_profile(self, profile: Profile) -> tuple[dict[str, Any], bool]:
        """Create or replace a player's profile; True when it was created."""
        for name in ("display_name", "avatar_url", "country"):
            _check_text(getattr(profile, name), ["body", name])
        try:
            _json.encode(profile.metadata)
        except (UnicodeEncodeError, TypeError) as exc:
            raise InvalidInput.at(
                ["body", "metadata"], f"metadata is not storable: {exc}"
            ) from None
        created = await self.store.save_profile(profile, self._service.now())
        self._names.put(profile.player, profile.display_name)
        self._service.tops.clear()  # cached top entries carry display names
        return _profile_json(profile), created

    async def profile(self, player: PlayerId) -> dict[str, Any]:
        """The profile and the player's standings in every board's current periods; NotFound
        for a player with neither a profile nor any entry."""
        service = self._service
        now = service.now()
        current = [
            (board.id, window, found.name)
            for board in service.boards()
            for window in board.windows
            if (found := current_period(window, now, board.seasons)) is not None
        ]
        found_profile = await self.store.profile(player)
        standings = await self.store.standings(player, current) if current else []
        banned = await self.store.banned_at(player) is not None
        if found_profile is None and not standings and not await self.store.has_standings(player):
            raise NotFound(f"no player {player!r}")
        body = _profile_json(found_profile or Profile(player))
        ranks: list[int | None] = [None] * len(standings)
        degraded = False
        if not banned:
            ranks, degraded = await self._ranks([s.leaderboard for s in standings], player)
        body["banned"] = banned
        body["standings"] = [
            {
                "board": s.leaderboard.board,
                "window": s.leaderboard.window,
                "period": s.leaderboard.period,
                "scope": s.leaderboard.scope,
                "score": s.score,
                "rank": rank,
            }
            for s, rank in zip(standings, ranks, strict=True)
        ]
        if degraded:
            body["degraded"] = True
        return body

    async def _ranks(
        self, leaderboards: Sequence[LeaderboardId], player: PlayerId
    ) -> tuple[list[int | None], bool]:
        keeper = self._service.keeper
        if keeper.usable:
            try:
                return await _ranks_on(keeper.index, leaderboards, player), False
            except IndexUnavailable as exc:
                keeper.failed(exc)
        return await _ranks_on(keeper.fallback, leaderboards, player), True

    # --- history -------------------------------------------------------------------------

    async def history(
        self, player: PlayerId, *, board: BoardId | None, limit: int, cursor: str | None
    ) -> dict[str, Any]:
        """The player's submissions, most recently recorded first, ``limit`` at a time."""
        if board is not None:
            await self._service.find_board(board)
        before = None if cursor is None else _decode_cursor(cursor)
        items = await self.store.history(player, board, limit + 1, before)
        more = len(items) > limit
        items = items[:limit]
        return {
            "player_id": player,
            "items": [
                {
                    "board": item.board,
                    "match_id": item.match_id,
                    "score": item.score,
                    "at": format_time(item.at),
                    "received_at": format_time(item.received_at),
                    "applied": item.applied,
                }
                for item in items
            ],
            "next_cursor": _encode_cursor(items[-1].id) if more else None,
        }

    # --- stored friend lists -------------------------------------------------------------

    async def set_friends(self, player: PlayerId, friends: Sequence[PlayerId]) -> dict[str, Any]:
        """Replace the player's stored friend list (duplicates and the player go)."""
        unique = sorted({f for f in friends if f != player})
        await self.store.set_friends(player, unique)
        return {"player_id": player, "friends": unique}

    async def friends(self, player: PlayerId) -> dict[str, Any]:
        return {"player_id": player, "friends": await self.store.friends(player)}

    async def friends_board(
        self,
        board_id: BoardId,
        player: PlayerId,
        *,
        k: int | None,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
    ) -> dict[str, Any]:
        """The friends leaderboard of ``player`` among their stored friends."""
        await self._service.find_board(board_id)
        friends = await self.store.friends(player)
        return await self._service.read(
            board_id,
            lambda board: board.friends(
                player, friends, k=k, window=window, period=period, scope=scope
            ),
            {"window": window, "period": period, "scope": scope},
        )

    # --- bans and erasure ----------------------------------------------------------------

    async def ban(self, player: PlayerId) -> dict[str, Any]:
        """Take the player off every leaderboard; their standings stay in SQL."""
        service = self._service
        self._check_built()
        async with service.writer.commit_lock:
            banned_at = await self.store.ban(player, service.now())
            leaderboards = await self._live(await self.store.standings(player))
            await self._remove(player, leaderboards)
        self._settle_later(player, leaderboards)
        await self._rearchive(player)
        return {"player_id": player, "banned": True, "banned_at": format_time(banned_at)}

    async def unban(self, player: PlayerId) -> dict[str, Any]:
        """Put the player back on every live leaderboard, as SQL has their standings."""
        service = self._service
        self._check_built()
        async with service.writer.commit_lock:
            if not await self.store.unban(player):
                raise NotFound(f"player {player!r} is not banned")
            standings = await self.store.standings(player)
            boards = await self._boards({s.leaderboard.board for s in standings})
            now = service.now()
            changes = [
                IndexChange(
                    s.leaderboard,
                    player,
                    encode(s.score, s.achieved_at, player, board.order),
                    s.revision,
                )
                for s in standings
                if (board := boards.get(s.leaderboard.board)) is not None
                and not service.keeper.expired(board, s.leaderboard, now)
            ]
            await self._apply(changes)
        await self._rearchive(player)
        return {"player_id": player, "banned": False, "banned_at": None}

    async def erase(self, player: PlayerId) -> None:
        """Delete everything about the player (events, standings, archived rows, profile,
        friend lists, ban) and take them off every leaderboard; NotFound when nothing was
        there."""
        service = self._service
        self._check_built()
        async with service.writer.commit_lock:
            leaderboards = {s.leaderboard for s in await self.store.standings(player)}
            removed = await self.store.erase(player)
            self._names.forget(player)
            self._service.tops.clear()
            try:
                for board in service.boards():
                    leaderboards.update(await service.index.leaderboards(board.id))
            except IndexUnavailable as exc:
                service.keeper.degrade(exc.detail)
            await self._remove(player, sorted(leaderboards))
        self._settle_later(player, sorted(leaderboards))
        # The archived periods they were in are archived again without them (ranks closed
        # up); whatever of theirs is left in the archive then goes regardless.
        await self._rearchive(player)
        removed += await self.store.erase_archived(player)
        if not removed:
            raise NotFound(f"no player {player!r}")

    def _check_built(self) -> None:
        # A build loads standings read before the change and could undo it: wait for it.
        if not self._service.keeper.built:
            raise IndexUnavailable("the ranking index is being built; retry shortly")

    async def _rearchive(self, player: PlayerId) -> None:
        """Bring the archived final standings in line with the player's new state."""
        try:
            await self._service.lifecycle.rearchive_player(player)
        except RanklineError as exc:
            log.warning("could not re-archive the periods of %r: %s", player, exc.detail)

    async def _boards(self, ids: set[BoardId]) -> dict[BoardId, Board]:
        service = self._service
        known = {board.id: board for board in service.boards()}
        if not ids <= known.keys() and service.keeper.shared:
            await service.reload_boards()  # another worker may have made the board
            known = {board.id: board for board in service.boards()}
        return known

    async def _live(self, standings: Sequence[Standing]) -> list[LeaderboardId]:
        """The leaderboards of these standings whose retention has not ended."""
        boards = await self._boards({s.leaderboard.board for s in standings})
        now = self._service.now()
        expired = self._service.keeper.expired
        return [
            s.leaderboard
            for s in standings
            if (board := boards.get(s.leaderboard.board)) is None
            or not expired(board, s.leaderboard, now)
        ]

    async def _remove(self, player: PlayerId, leaderboards: Sequence[LeaderboardId]) -> None:
        await self._apply([IndexChange(lb, player, None) for lb in leaderboards])

    async def _apply(self, changes: list[IndexChange]) -> None:
        """Apply to the index; when it is unreachable, the keeper applies them on recovery
        (the durable store already holds the truth)."""
        if not changes:
            return
        try:
            await self._service.index.apply(changes)
        except IndexUnavailable as exc:
            self._service.keeper.missed(changes, exc)

    def _settle_later(self, player: PlayerId, leaderboards: Sequence[LeaderboardId]) -> None:
        if self._service.keeper.shared and leaderboards:
            self._spawn(self._settle(player, leaderboards))

    async def _settle(self, player: PlayerId, leaderboards: Sequence[LeaderboardId]) -> None:
        """Remove the player again where SQL says they must not be: a batch another worker
        committed just before the ban or erasure may have reached the index after it."""
        await asyncio.sleep(_SETTLE_SECONDS)
        try:
            async with self._service.writer.commit_lock:
                kept: set[LeaderboardId] = set()
                if await self.store.banned_at(player) is None:
                    kept = {s.leaderboard for s in await self.store.standings(player)}
                await self._remove(player, [lb for lb in leaderboards if lb not in kept])
        except RanklineError as exc:
            log.warning("could not re-check %r on the index: %s", player, exc.detail)


async def _ranks_on(
    index: RankingIndex, leaderboards: Sequence[LeaderboardId], player: PlayerId
) -> list[int | None]:
    ranks: list[int | None] = []
    for leaderboard in leaderboards:
        position = await index.position(leaderboard, player)
        ranks.append(None if position is None else position.offset + 1)
    return ranks


def _profile_json(profile: Profile) -> dict[str, Any]:
    return {
        "player_id": profile.player,
        "display_name": profile.display_name,
        "avatar_url": profile.avatar_url,
        "country": profile.country,
        "metadata": profile.metadata,
    }


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


def _encode_cursor(event_id: int) -> str:
    return base64.urlsafe_b64encode(f"{_CURSOR_PREFIX}{event_id}".encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> int:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        if text.startswith(_CURSOR_PREFIX):
            value = int(text.removeprefix(_CURSOR_PREFIX))
            if 0 < value < 1 << 63 and _encode_cursor(value) == cursor:
                return value
    except (binascii.Error, UnicodeDecodeError, ValueError):
        pass
    raise InvalidInput.at(["query", "cursor"], "the cursor is not one this API gave out")
