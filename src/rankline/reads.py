"""The read path: a handle bound to one board answers every leaderboard read from the index."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from rankline.boards import Board, parse_scope
from rankline.clock import format_time
from rankline.errors import InvalidInput, NotFound
from rankline.ordering import decode, player_of
from rankline.periods import Period, current_period, parse_period
from rankline.store import archive as store_archive
from rankline.types import (
    GLOBAL_SCOPE,
    LeaderboardId,
    Micros,
    PlayerId,
    Position,
    RankingIndex,
    SortKey,
)

if TYPE_CHECKING:
    from rankline.service import Rankline

_encoder = msgspec.json.Encoder()


@dataclass(frozen=True, slots=True)
class Resolved:
    """A read's leaderboard, resolved from the request's window, period and scope."""

    leaderboard: LeaderboardId
    period: Period
    expired: bool
    """Its retention has ended: reads go to the archive (or SQL) instead of the index."""


def resolve(
    board: Board, window: str | None, period: str | None, scope: str | None, now: Micros
) -> tuple[LeaderboardId, Period]:
    """``window`` defaults to ``all_time`` (or the board's first window), ``period`` to the
    current one and ``scope`` to ``global``; InvalidInput or NotFound when they don't fit."""
    window = window or board.primary_window
    if window not in board.windows:
        raise InvalidInput.at(
            ["query", "window"],
            f"the board has no {window!r} window (it has {', '.join(board.windows)})",
        )
    if period is None:
        found = current_period(window, now, board.seasons)
        if found is None:
            raise NotFound(f"the board has no current {window} period")
    else:
        try:
            found = parse_period(window, period, board.seasons)
        except ValueError as exc:
            raise InvalidInput.at(["query", "period"], str(exc)) from None
    scope = parse_scope(board, scope or GLOBAL_SCOPE)
    return LeaderboardId(board.id, window, found.name, scope), found


class BoardHandle:
    """Reads of one board. Every method takes ``window``, ``period`` and ``scope``:
    ``window`` defaults to ``all_time`` (or the board's first window), ``period`` to the
    current one and ``scope`` to ``global``."""

    def __init__(
        self,
        service: Rankline,
        board: Board,
        index: RankingIndex,
        resolved: tuple[tuple[str | None, ...], Resolved] | None = None,
    ) -> None:
        self._service = service
        self._index = index
        self.board = board
        self._resolved = resolved
        """(window, period, scope) and what they resolved to, when the caller has it."""

    def leaderboard(
        self, window: str | None = None, period: str | None = None, scope: str | None = None
    ) -> tuple[LeaderboardId, Period]:
        known = self._resolved
        if known is not None and known[0] == (window, period, scope):
            resolved = known[1]
        else:
            resolved = self._service.resolve(self.board, window, period, scope)
        return resolved.leaderboard, resolved.period

    def head(self, leaderboard: LeaderboardId, total: int) -> dict[str, Any]:
        return {
            "board": leaderboard.board,
            "window": leaderboard.window,
            "period": leaderboard.period,
            "scope": leaderboard.scope,
            "total": total,
            "as_of": format_time(self._service.now()),
        }

    async def render_entries(self, keys: Sequence[SortKey], offset: int) -> list[bytes]:
        """Keys read from ``offset`` as JSON entries, display names joined: what the top
        cache keeps."""
        entries = [self._entry(offset + i + 1, key) for i, key in enumerate(keys)]
        names = await self._service.players.display_names(e["player_id"] for e in entries)
        for entry in entries:
            name = names.get(entry["player_id"])
            if name is not None:
                entry["display_name"] = name
        return [_encoder.encode(entry) for entry in entries]

    def _entry(self, rank: int, key: SortKey) -> dict[str, Any]:
        score, at, player = decode(key, self.board.order)
        return {"rank": rank, "player_id": player, "score": score, "achieved_at": format_time(at)}

    def _player(self, position: Position) -> dict[str, Any]:
        score, at, player = decode(position.key, self.board.order)
        total = position.total
        return {
            "player_id": player,
            "score": score,
            "rank": position.offset + 1,
            "competition_rank": position.better + 1,
            "percentile": round(100.0 * (total - position.offset - 1) / total, 4),
            "achieved_at": format_time(at),
        }

    async def _position(self, leaderboard: LeaderboardId, player: PlayerId) -> Position:
        position = await self._index.position(leaderboard, player)
        if position is None:
            raise NotFound(f"player {player!r} has no entry on this leaderboard")
        return position

    async def top(
        self,
        *,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> dict[str, Any]:
        """The entries ranked ``offset + 1`` to ``offset + limit``."""
        leaderboard, _ = self.leaderboard(window, period, scope)
        total, keys = await self._index.page(leaderboard, offset, offset + limit)
        body = self.head(leaderboard, total)
        body["entries"] = [self._entry(offset + i + 1, k) for i, k in enumerate(keys)]
        return body

    async def player(
        self,
        player: PlayerId,
        *,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
    ) -> dict[str, Any]:
        """One player's rank, competition rank and percentile; NotFound without an entry."""
        leaderboard, _ = self.leaderboard(window, period, scope)
        position = await self._position(leaderboard, player)
        return self.head(leaderboard, position.total) | self._player(position)

    async def around(
        self,
        player: PlayerId,
        *,
        k: int = 5,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
    ) -> dict[str, Any]:
        """Up to ``k`` entries above the player, the player, and up to ``k`` below."""
        leaderboard, _ = self.leaderboard(window, period, scope)
        found = await self._index.around(leaderboard, player, k)
        if found is None:
            raise NotFound(f"player {player!r} has no entry on this leaderboard")
        position, first, keys = found
        body = self.head(leaderboard, position.total)
        body["player"] = self._player(position)
        body["entries"] = [self._entry(first + i + 1, key) for i, key in enumerate(keys)]
        return body

    async def friends(
        self,
        player: PlayerId,
        friends: Sequence[PlayerId],
        *,
        k: int | None = None,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
    ) -> dict[str, Any]:
        """The leaderboard among the player and those friends who have an entry.

        With ``k``, only up to k friends above and below the player (the first 2k+1
        when the player has no entry); without it, all of them.
        """
        leaderboard, _ = self.leaderboard(window, period, scope)
        ranked = await self._index.positions(leaderboard, [player, *friends])
        total = await self._index.total(leaderboard)
        me = next((i for i, (_, key) in enumerate(ranked) if player_of(key) == player), None)
        entries = [
            self._entry(index + 1, key) | {"friends_rank": i + 1}
            for i, (index, key) in enumerate(ranked)
        ]
        body = self.head(leaderboard, total)
        if me is None:
            body["player"] = None
            shown = entries if k is None else entries[: 2 * k + 1]
        else:
            position = await self._position(leaderboard, player)
            body["player"] = self._player(position) | {"friends_rank": me + 1}
            shown = entries if k is None else entries[max(0, me - k) : me + k + 1]
        body["friends_total"] = len(ranked)
        body["entries"] = shown
        return body

    async def ranks(
        self,
        players: Sequence[PlayerId],
        *,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
    ) -> dict[str, Any]:
        """The entries of those ``players`` that are ranked, in rank order."""
        leaderboard, _ = self.leaderboard(window, period, scope)
        ranked = await self._index.positions(leaderboard, players)
        body = self.head(leaderboard, await self._index.total(leaderboard))
        body["entries"] = [self._entry(index + 1, key) for index, key in ranked]
        return body

    async def periods(self, window: str | None = None) -> dict[str, Any]:
        """The known periods of a window (or of every window), newest first."""
        board, service = self.board, self._service
        if window is not None and window not in board.windows:
            raise InvalidInput.at(["query", "window"], f"the board has no {window!r} window")
        now = service.now()
        known: dict[tuple[str, str], Period] = {}
        for name, period_name, _, _ in await service.store.list_periods(board.id, window):
            try:
                known[name, period_name] = parse_period(name, period_name, board.seasons)
            except ValueError:
                continue
        for name in [window] if window else board.windows:
            current = current_period(name, now, board.seasons)
            if current is not None:
                known.setdefault((name, current.name), current)
        live = {(lb.window, lb.period) for lb in await self._index.leaderboards(board.id)}
        states = await store_archive.period_states(service.store, board.id, window)
        items = []
        ordered = sorted(known.items(), key=lambda kv: (kv[0][0], -(kv[1].starts_at or 0)))
        for (name, period_name), period in ordered:
            leaderboard = LeaderboardId(board.id, name, period_name, GLOBAL_SCOPE)
            state, archived_total = states.get((name, period_name), ("open", None))
            closed = period.is_closed(now, board.grace_seconds)
            expires = board.expires_at(period)
            if state == "archived" and expires is not None and now >= expires:
                total = archived_total or 0
            elif (name, period_name) in live or not closed:
                total = await self._index.total(leaderboard)
            else:
                total = await service.store.count_leaderboard(leaderboard)
            items.append(
                {
                    "window": name,
                    "period": period_name,
                    "starts_at": None
                    if period.starts_at is None
                    else format_time(period.starts_at),
                    "ends_at": None if period.ends_at is None else format_time(period.ends_at),
                    "state": "archived" if state == "archived" else "closed" if closed else "open",
                    "total": total,
                }
            )
        return {"board": board.id, "as_of": format_time(now), "periods": items}
