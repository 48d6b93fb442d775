"""Live streams: Server-Sent Events of a leaderboard's top and of watched players.

A stream subscribes to the change feed (``rankline.reading.feed``) for its leaderboard. When a
batch changes it, the stream re-reads through ``Reads`` (so degraded and archived routing
hold), at most once per ``MIN_INTERVAL`` seconds, and sends only what changed:
``top`` when the rendered entries differ, ``player`` when a watched player's score or rank
does. It also re-reads every heartbeat interval, which covers what the feed does not carry
(a period rolling over, bans, erasures, a lost pub/sub message).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence

import msgspec

from rankline.answers import Entry, TopOut
from rankline.errors import RanklineError
from rankline.http.sse import Event, EventStream
from rankline.reading.feed import LocalFeed
from rankline.reading.query import Query
from rankline.reading.reads import Reads
from rankline.reading.requests import PlayerRequest, RanksRequest, TopRequest
from rankline.types import LeaderboardId

MIN_INTERVAL = 0.25
"""Coalescing: a stream reads (and so sends) at most about four times a second."""
SEND_TIMEOUT = 30.0
_encoder = msgspec.json.Encoder()
_top_decoder = msgspec.json.Decoder(TopOut)


def _leaderboard(top: TopOut) -> LeaderboardId:
    return LeaderboardId(top.board, top.window, top.period, top.scope)


def _event(name: str, body: object) -> Event:
    return Event(_encoder.encode(body).decode(), event=name)


class Stream:
    """One connection's state: what it watches and what it last sent."""

    def __init__(
        self,
        reads: Reads,
        feed: LocalFeed,
        query: Query,
        limit: int,
        players: Sequence[str],
    ) -> None:
        self.reads = reads
        self.feed = feed
        self.query = query
        self.limit = limit
        self.players = list(players)
        board, window, period, scope, metadata = query
        self._top_ask = TopRequest(
            board_id=board,
            window=window,
            period=period,
            scope=scope,
            metadata=metadata,
            limit=limit,
        )
        self._ranks_ask = RanksRequest(
            board_id=board, window=window, period=period, scope=scope, metadata=metadata
        )
        self._top: list[Entry] | None = None
        self._standing: dict[str, tuple[int, int] | None] = {}

    async def read_top(self) -> TopOut:
        body, _ = await self.reads.top(self._top_ask)
        return _top_decoder.decode(body)

    async def _ranked(self) -> dict[str, tuple[int, int]]:
        answer = await self.reads.ranks(self._ranks_ask, self.players)
        return {e.player_id: (e.score, e.rank) for e in answer.entries}

    async def changes(self, top: TopOut) -> list[Event]:
        """The events a fresh read of the top (and of the watched players) calls for."""
        events = []
        if top.entries != self._top:
            self._top = top.entries
            events.append(_event("top", top))
        if self.players:
            ranked = await self._ranked()
            for player in self.players:
                standing = ranked.get(player)
                if standing is not None and standing != self._standing.get(player):
                    q = self.query
                    ask = PlayerRequest(
                        player_id=player,
                        board_id=q.board,
                        window=q.window,
                        period=q.period,
                        scope=q.scope,
                        metadata=q.metadata,
                    )
                    answer = await self.reads.player(ask)
                    events.append(_event("player", answer))
                self._standing[player] = standing
        return events

    async def events(self, heartbeat: float) -> AsyncGenerator[Event, None]:
        subscription = self.feed.subscribe()
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


def respond(stream: Stream, heartbeat: float) -> EventStream:
    return EventStream(
        stream.events(heartbeat),
        ping=heartbeat,
        send_timeout=SEND_TIMEOUT,
        headers={"Cache-Control": "no-cache"},
    )
