"""Live streams of a leaderboard's top and of watched players, as typed events that each
edge renders in its own form (HTTP as Server-Sent Events, gRPC as ``WatchEvent`` messages).

A stream subscribes to the change feed (``rankline.reading.feed``) for its leaderboard. When a
batch changes it, the stream re-reads through ``Reads`` (so degraded and archived routing
hold), at most once per ``MIN_INTERVAL`` seconds, and yields only what changed:
``TopChanged`` when the rendered entries differ, ``PlayerChanged`` when a watched player's
score or rank does, and ``Ended`` (the last) when the board went away or the period cannot be
read any more. It also re-reads every heartbeat interval, which covers what the feed does not
carry (a period rolling over, bans, erasures, a lost pub/sub message). ``with_pings`` adds a
``PING`` whenever a heartbeat passes with nothing to send, and ``delivered`` drops a client
that takes nothing for ``SEND_TIMEOUT`` seconds.

    stream = await opened(service.reads, service.feed, ask)  # the refusals: before any event
    async for event in with_pings(stream.events(heartbeat), heartbeat): ...
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec

from rankline.answers import Entry, PlayerOut, TopOut
from rankline.bodies import PLAYER_ID, check_id
from rankline.errors import InvalidInput, RanklineError
from rankline.reading.feed import LocalFeed
from rankline.reading.query import Query
from rankline.reading.reads import Reads
from rankline.reading.requests import PlayerRequest, RanksRequest, StreamRequest, TopRequest
from rankline.types import LeaderboardId

MIN_INTERVAL = 0.25
"""Coalescing: a stream reads (and so sends) at most about four times a second."""
SEND_TIMEOUT = 30.0
"""A client that takes nothing for this long is gone: its stream ends."""
MAX_PLAYERS = 50
"""The players one stream may watch."""
T = TypeVar("T")
_top_decoder = msgspec.json.Decoder(TopOut)


@dataclass(frozen=True, slots=True)
class TopChanged:
    """The top entries, whenever they change (first: as they are)."""

    top: TopOut


@dataclass(frozen=True, slots=True)
class PlayerChanged:
    """A watched player's standing, when their score or rank changes (first: as it is)."""

    player: PlayerOut


@dataclass(frozen=True, slots=True)
class Ended:
    """The stream ends: the board went away or the period cannot be read any more
    (``problem``: the error's problem, as an answer would carry it)."""

    problem: dict[str, Any]


LiveEvent = TopChanged | PlayerChanged | Ended


class Ping:
    """Nothing to send for a heartbeat: an edge may tell the client it is alive."""

    __slots__ = ()


PING = Ping()


def _leaderboard(top: TopOut) -> LeaderboardId:
    return LeaderboardId(top.board, top.window, top.period, top.scope)


def watched(players: str | None) -> list[str]:
    """The players a stream's ``players`` parameter names (comma-separated), each once, in
    order; 422 at ``["query", "players"]`` for too many or an invalid id."""
    names = [p.strip() for p in (players or "").split(",") if p.strip()]
    if len(names) > MAX_PLAYERS:
        raise InvalidInput.at(["query", "players"], f"at most {MAX_PLAYERS} players can be watched")
    for name in names:
        check_id(name, PLAYER_ID, "player_id", "query", "players")
    return list(dict.fromkeys(names))


class Stream:
    """One stream's state: what it watches and what it last yielded."""

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

    async def changes(self, top: TopOut) -> list[LiveEvent]:
        """The events a fresh read of the top (and of the watched players) calls for."""
        events: list[LiveEvent] = []
        if top.entries != self._top:
            self._top = top.entries
            events.append(TopChanged(top))
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
                    events.append(PlayerChanged(await self.reads.player(ask)))
                self._standing[player] = standing
        return events

    async def events(self, heartbeat: float) -> AsyncGenerator[LiveEvent, None]:
        """The stream's events until it ends (``Ended``) or is closed; it re-reads at least
        every ``heartbeat`` seconds."""
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
                    yield Ended(exc.problem())
                    return
                await asyncio.sleep(MIN_INTERVAL)
                await subscription.wait(heartbeat)
        finally:
            subscription.close()


async def opened(reads: Reads, feed: LocalFeed, ask: StreamRequest) -> Stream:
    """The stream ``ask`` (``GET /v1/boards/{board_id}/stream``) stands for, once its
    board, window, period and scope are known good (a first read: refused as that read is)
    and its players too (``watched``)."""
    query = Query(ask.board_id, ask.window, ask.period, ask.scope, ask.metadata)
    stream = Stream(reads, feed, query, ask.limit, watched(ask.players))
    await stream.read_top()  # refuse a bad board, window, period or scope before streaming
    return stream


class _End:
    __slots__ = ()


_END = _End()


async def _next(events: AsyncGenerator[T, None]) -> T | _End:
    try:
        return await anext(events)
    except StopAsyncIteration:
        return _END


async def with_pings(
    events: AsyncGenerator[T, None], ping: float
) -> AsyncGenerator[T | Ping, None]:
    """``events``, with ``PING`` whenever ``ping`` seconds pass without one. Closing it
    closes ``events``, whichever way it ends."""
    pending: asyncio.Task[T | _End] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.create_task(_next(events))
            done, _ = await asyncio.wait({pending}, timeout=ping)
            if not done:
                yield PING
                continue
            event, pending = pending.result(), None
            if isinstance(event, _End):
                return
            yield event
    finally:
        if pending is not None:  # cancelled in the generator's await: its finally runs
            pending.cancel()
            await asyncio.gather(pending, return_exceptions=True)
        await events.aclose()


async def delivered(sending: Awaitable[None], seconds: float = SEND_TIMEOUT) -> bool:
    """Whether the client took what ``sending`` sends within ``seconds`` (False: it is
    gone, and its stream should end)."""
    try:
        async with asyncio.timeout(seconds):
            await sending
    except TimeoutError:
        return False
    return True
