"""Live streams: Server-Sent Events of a leaderboard's top and of watched players.

A stream subscribes to the change feed (``rankline.feed``) for its leaderboard. When a
batch changes it, the stream re-reads through ``Rankline.read`` (so degraded and archived
routing hold), at most once per ``MIN_INTERVAL`` seconds, and sends only what changed:
``top`` when the rendered entries differ, ``player`` when a watched player's score or rank
does. It also re-reads every heartbeat interval, which covers what the feed does not carry
(a period rolling over, bans, erasures, a lost pub/sub message).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

import msgspec
from sse_starlette import EventSourceResponse, ServerSentEvent

from rankline.errors import RanklineError
from rankline.reads import BoardHandle
from rankline.service import Rankline
from rankline.types import LeaderboardId

MIN_INTERVAL = 0.25
"""Coalescing: a stream reads (and so sends) at most about four times a second."""
SEND_TIMEOUT = 30.0


def _leaderboard(body: dict[str, Any]) -> LeaderboardId:
    return LeaderboardId(body["board"], body["window"], body["period"], body["scope"])


def _event(name: str, body: dict[str, Any]) -> ServerSentEvent:
    return ServerSentEvent(msgspec.json.encode(body).decode(), event=name)


class Stream:
    """One connection's state: what it watches and what it last sent."""

    def __init__(
        self,
        service: Rankline,
        board_id: str,
        where: dict[str, str | None],
        limit: int,
        players: Sequence[str],
    ) -> None:
        self.service = service
        self.board_id = board_id
        self.where = where
        self.limit = limit
        self.players = list(players)
        self._top: Any = None
        self._standing: dict[str, tuple[int, int] | None] = {}

    async def read_top(self) -> dict[str, Any]:
        where, limit = self.where, self.limit

        async def op(board: BoardHandle) -> dict[str, Any]:
            return await board.top(
                window=where["window"], period=where["period"], scope=where["scope"], limit=limit
            )

        return await self.service.read(self.board_id, op)

    async def _ranked(self) -> dict[str, tuple[int, int]]:
        where, players = self.where, self.players

        async def op(board: BoardHandle) -> dict[str, Any]:
            return await board.ranks(players, **where)

        body = await self.service.read(self.board_id, op)
        return {e["player_id"]: (e["score"], e["rank"]) for e in body["entries"]}

    async def _player(self, player: str) -> dict[str, Any]:
        where = self.where

        async def op(board: BoardHandle) -> dict[str, Any]:
            return await board.player(player, **where)

        return await self.service.read(self.board_id, op)

    async def changes(self, top: dict[str, Any]) -> list[ServerSentEvent]:
        """The events a fresh read of the top (and of the watched players) calls for."""
        events = []
        if top["entries"] != self._top:
            self._top = top["entries"]
            events.append(_event("top", top))
        if self.players:
            ranked = await self._ranked()
            for player in self.players:
                standing = ranked.get(player)
                if standing is not None and standing != self._standing.get(player):
                    events.append(_event("player", await self._player(player)))
                self._standing[player] = standing
        return events

    async def events(self, heartbeat: float) -> AsyncIterator[ServerSentEvent]:
        feed = self.service.feed
        subscription = feed.subscribe()
        try:
            while True:
                subscription.clear()  # before reading: a change from now on wakes us again
                try:
                    top = await self.read_top()
                    subscription.watch(_leaderboard(top))
                    for event in await self.changes(top):
                        yield event
                except RanklineError as exc:
                    # The board went away, or the period cannot be read any more.
                    yield _event("error", exc.problem())
                    return
                await asyncio.sleep(MIN_INTERVAL)
                await subscription.wait(heartbeat)
        finally:
            subscription.close()


def respond(stream: Stream, heartbeat: float) -> EventSourceResponse:
    return EventSourceResponse(
        stream.events(heartbeat),
        ping=heartbeat,
        send_timeout=SEND_TIMEOUT,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
