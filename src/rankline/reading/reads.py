"""The read path: every leaderboard read, from a request's query to its typed answer.

A read names a board and, optionally, a window, period and scope: its request
(``rankline.reading.requests``), which the edge builds once from the path and query.
``Reads`` resolves it against the board as current as the request (``Boards``), runs
its index reads through the gateway (the live index, SQL when degraded, the archive for
periods past retention), joins display names and returns an answer (``rankline.answers``)
with its flags. Top pages come from the top cache as ready JSON bytes.

    reads = Reads(boards, gateway, names, tops, hot, store, clock)
    answer = await reads.player(
        PlayerRequest(board_id="arena-solo", window="daily", player_id="p:42")
    )
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Iterable, Sequence
from typing import NamedTuple, TypeVar, TypeVarTuple

import msgspec

from rankline.answers import (
    AroundOut,
    FriendPlayer,
    FriendsOut,
    PeriodsOut,
    PlayerOut,
    RankOfOut,
    RanksOut,
    TopHead,
)
from rankline.boards import COHORT_SCOPE, Board
from rankline.errors import InvalidInput, NotFound
from rankline.index.base import IndexReader
from rankline.index.gateway import Flags, IndexGateway
from rankline.reading import requests as rq
from rankline.reading.cache import HotReads, Render, TopCache, digest, join_entries
from rankline.reading.cursors import decode_cursor, encode_cursor
from rankline.reading.entries import (
    Metadata,
    Names,
    dense_of,
    dense_run,
    entries,
    friend_entries,
    movement,
    standing,
)
from rankline.reading.known_periods import known_periods
from rankline.reading.metadata import EntryMetadata
from rankline.reading.names import NameDirectory
from rankline.reading.query import HeadFields, Query
from rankline.reading.requests import query_of
from rankline.registry import Boards, Resolved
from rankline.runtime.clock import format_instant, format_time
from rankline.store.sql import SqlStore
from rankline.types import (
    Clock,
    LeaderboardId,
    PlayerId,
    SortKey,
)

T = TypeVar("T")
Ts = TypeVarTuple("Ts")
_encoder = msgspec.json.Encoder()


class _Page(NamedTuple):
    """A top page as read: what its answer and its ETag are made of."""

    total: int
    entries: bytes
    """The page's entries, encoded and joined with commas."""
    digest: str
    start: int
    taken: int
    """How many entries the page was cut to (its ETag's limit)."""
    size: int
    """The tier's size (0 without a tier)."""
    keys: Sequence[SortKey]


class _Cut:
    """How one top request cuts its page from a leaderboard and renders the entries: its
    board's tiers, and the variant of the entries (with metadata or not)."""

    __slots__ = ("board", "described", "leaderboard", "reads", "tier")

    def __init__(
        self,
        reads: Reads,
        board: Board,
        leaderboard: LeaderboardId,
        metadata: bool,
        tier: str | None,
    ) -> None:
        self.reads = reads
        self.board = board
        self.leaderboard = leaderboard
        self.described = metadata or board.spec.entry_metadata
        self.tier = tier

    def context(self, total: int) -> Hashable:
        """What else the rendered entries depend on (``cache.Context``)."""
        board = self.board
        if not board.tiers:
            return None
        by_total = any(percent is not None for _, percent, _ in board.tiers)
        return board.tiers, total if by_total else None

    def bounds(self, total: int) -> tuple[int, int]:
        """The positions the page may hold: the tier's, or the whole leaderboard."""
        if self.tier is None:
            return 0, total
        found = self.board.tier_range(self.tier, total)
        assert found is not None
        return found[0] - 1, max(found[0] - 1, found[1])

    def on(self, index: IndexReader) -> Render:
        """How entries read from ``index`` are rendered (``cache.Render``)."""
        board, leaderboard, described = self.board, self.leaderboard, self.described
        render = self.reads._render
        return lambda keys, at, total: render(board, keys, at, total, index, leaderboard, described)


def top_etag(digest: str, offset: int, limit: int, total: int, flags: Flags) -> str:
    """A weak validator of a top page: the entries it was cut from, the cut, the total and
    the flags; not ``as_of``."""
    marks = ("a" if flags.archived else "") + ("d" if flags.degraded else "")
    return f'W/"{digest}.{offset}.{limit}.{total}{marks}"'


CohortOf = Callable[[Board, str | None, str | None, PlayerId], Awaitable[str]]
"""The scope of a player's cohort in a board's window and period (``Cohorts.scope_for``)."""


class Reads:
    """Every leaderboard read. A player's read with ``scope=cohort`` reads the player's own
    cohort (``cohort_of``)."""

    def __init__(
        self,
        boards: Boards,
        gateway: IndexGateway,
        names: NameDirectory,
        tops: TopCache,
        hot: HotReads,
        store: SqlStore,
        clock: Clock,
        metadata: EntryMetadata | None = None,
        cohort_of: CohortOf | None = None,
    ) -> None:
        self._boards = boards
        self._gateway = gateway
        self._names = names
        self._tops = tops
        self._hot = hot
        self._store = store
        self._clock = clock
        self._metadata = metadata if metadata is not None else EntryMetadata(store)
        self._cohort_of = cohort_of

    # --- running a read ----------------------------------------------------------------

    def _run(
        self,
        query: Query,
        read: Callable[[IndexReader, Board, Resolved, *Ts], Awaitable[T]],
        args: tuple[*Ts],
        hot: Hashable | None = None,
    ) -> Awaitable[tuple[T, Flags]]:
        """``read(index, board, resolved, *args)`` on the query's board and leaderboard,
        through the gateway; with ``hot`` (a key naming the read), concurrent and repeated
        identical reads of a live leaderboard share one answer while it is unchanged
        (``cache.HotReads``). The read is a method given its arguments, not a closure: a
        read passes a few layers, none made anew for each request."""
        return self._boards.current(query.board, self._resolved_run, query, read, args, hot)

    async def _resolved_run(
        self,
        board: Board,
        query: Query,
        read: Callable[[IndexReader, Board, Resolved, *Ts], Awaitable[T]],
        args: tuple[*Ts],
        hot: Hashable | None,
    ) -> tuple[T, Flags]:
        resolved = self._boards.resolve(board, query.window, query.period, query.scope)
        if resolved.expired:
            return await self._gateway.read(read, board, board, resolved, *args)
        if hot is None:
            return await self._gateway.read(read, None, board, resolved, *args)
        key = (resolved.leaderboard, hot, board)
        return await self._gateway.read(self._shared, None, key, read, board, resolved, args)

    def _shared(
        self,
        index: IndexReader,
        key: Hashable,
        read: Callable[[IndexReader, Board, Resolved, *Ts], Awaitable[T]],
        board: Board,
        resolved: Resolved,
        args: tuple[*Ts],
    ) -> Awaitable[T]:
        leaderboard = resolved.leaderboard
        return self._hot.get(key, index, leaderboard, read, index, board, resolved, *args)

    def _head(self, board: Board, resolved: Resolved, total: int, flags: Flags) -> HeadFields:
        leaderboard, period = resolved.leaderboard, resolved.period
        closes = period.closes_at(board.grace_seconds)
        return {
            "board": leaderboard.board,
            "window": leaderboard.window,
            "period": leaderboard.period,
            "scope": leaderboard.scope,
            "total": total,
            "as_of": format_instant(self._clock.now()),
            "period_ends_at": None if period.ends_at is None else format_instant(period.ends_at),
            "closes_at": None if closes is None else format_instant(closes),
            "degraded": flags.degraded,
            "archived": flags.archived,
        }

    async def _named(self, players: Iterable[PlayerId]) -> Names:
        return await self._names.get(players)

    async def _described(self, board: Board, query: Query, keys: Iterable[SortKey]) -> Metadata:
        """The metadata behind ``keys`` when the read carries it, else None."""
        if not (query.metadata or board.spec.entry_metadata):
            return None
        return await self._metadata.of(board, keys)

    async def _in_cohort(self, query: Query, player: PlayerId) -> Query:
        """``scope=cohort`` made the player's own cohort (``cohort:<k>``, ``cohort_of``)."""
        if self._cohort_of is None:
            return query
        board = await self._boards.find(query.board)
        scope = await self._cohort_of(board, query.window, query.period, player)
        return query._replace(scope=scope)

    # --- top -----------------------------------------------------------------------------

    def top(self, ask: rq.TopRequest) -> Awaitable[tuple[bytes, str]]:
        """A top page as ready JSON bytes and its weak ETag, from the top cache when the
        index can vouch for it (see ``rankline.reading.cache``). With ``tier``, the page is
        cut from that tier's entries (``offset`` and ``limit`` count within it). With
        ``cursor`` (a page's ``next``), the page holds the entries after that one
        (``rankline.reading.cursors``) instead of counting ``offset``. (``at``, a snapshot's
        top, is ``SnapshotReads.top_at``'s.)"""
        tier, cursor, offset = ask.tier, ask.cursor, ask.offset
        if cursor is not None and offset:
            raise InvalidInput.at(["query", "cursor"], "give a cursor or an offset, not both")
        query = Query(ask.board_id, ask.window, ask.period, ask.scope, ask.metadata)
        return self._boards.current(ask.board_id, self._top, query, offset, ask.limit, tier, cursor)

    async def _top(
        self,
        board: Board,
        query: Query,
        offset: int,
        limit: int,
        tier: str | None,
        cursor: str | None,
    ) -> tuple[bytes, str]:
        resolved = self._boards.resolve(board, query.window, query.period, query.scope)
        if tier is not None and tier not in {name for name, _, _ in board.tiers}:
            raise InvalidInput.at(["query", "tier"], f"the board has no tier {tier!r}")
        after = None if cursor is None else decode_cursor(board, cursor)
        cut = _Cut(self, board, resolved.leaderboard, query.metadata, tier)
        routed = board if resolved.expired else None
        page, flags = await self._gateway.read(self._top_page, routed, cut, offset, limit, after)
        total, start, size = page.total, page.start, page.size
        stop = total if tier is None else cut.bounds(total)[1]
        head = TopHead(
            **self._head(board, resolved, total, flags),
            tier=tier,
            tier_total=None if tier is None else size,
            next=(
                encode_cursor(page.keys[-1])
                if page.keys and start + len(page.keys) < stop
                else None
            ),
        )
        body = join_entries(_encoder.encode(head), page.entries)
        etag = top_etag(page.digest, start, page.taken, total, flags)
        if tier is not None:
            etag = etag[:-1] + f".{tier}.{size}" + '"'
        return body, etag

    async def _top_page(
        self, index: IndexReader, cut: _Cut, offset: int, limit: int, after: SortKey | None
    ) -> _Page:
        leaderboard, tier = cut.leaderboard, cut.tier
        render = cut.on(index)
        if after is not None:
            return await self._seek(index, cut, render, after, limit)
        start, count, size = offset, limit, 0
        if tier is not None:
            low, high = cut.bounds(await index.total(leaderboard))
            size, start = high - low, low + offset
            count = min(limit, high - start)
            if count <= 0:
                total = await index.total(leaderboard)
                return _Page(total, b"", "", start, 0, size, ())
        total, entries, held, keys = await self._tops.page(
            index, leaderboard, start, count, render, cut.context, variant=cut.described
        )
        return _Page(total, entries, held, start, count, size, keys)

    async def _seek(
        self, index: IndexReader, cut: _Cut, render: Render, key: SortKey, limit: int
    ) -> _Page:
        """The page after ``key`` (a cursor's), within the tier's bounds."""
        total, start, keys = await index.after(cut.leaderboard, key, limit)
        low, high = cut.bounds(total)
        skip = max(0, low - start)
        start, keys = start + skip, keys[skip : max(skip, high - start)]
        entries = await render(keys, start, total)
        joined = b",".join(entries)
        return _Page(total, joined, digest(entries), start, len(keys), high - low, keys)

    async def _render(
        self,
        board: Board,
        keys: Sequence[SortKey],
        offset: int,
        total: int,
        index: IndexReader,
        leaderboard: LeaderboardId,
        described: bool = False,
    ) -> list[bytes]:
        """Keys read from ``offset`` as JSON entries, display names (and, when
        ``described``, metadata) joined: what the top cache keeps."""
        decoded = board.keys.decode_many(keys)
        names = await self._named([player for *_, player in decoded])
        dense = await dense_run(board, index, leaderboard, keys, offset)
        meta = await self._metadata.of(board, keys) if described else None
        ranks = range(offset + 1, offset + 1 + len(keys))
        encode = _encoder.encode
        return [
            encode(one) for one in entries(board, keys, decoded, ranks, names, total, dense, meta)
        ]

    # --- one player ------------------------------------------------------------------------

    async def player(self, ask: rq.PlayerRequest) -> PlayerOut:
        """One player's rank, competition rank and percentile; NotFound without an entry."""
        query, player = query_of(ask, ask.metadata), ask.player_id
        if ask.scope == COHORT_SCOPE:
            query = await self._in_cohort(query, player)
        hot = ("player", player, query.metadata)
        answer, flags = await self._run(query, self._player, (query, player), hot)
        return _flagged(answer, flags)

    async def _player(
        self, index: IndexReader, board: Board, resolved: Resolved, query: Query, player: PlayerId
    ) -> PlayerOut:
        position = await index.position(resolved.leaderboard, player)
        if position is None:
            raise NotFound(f"player {player!r} has no entry on this leaderboard")
        score, subscore, at, _ = board.keys.decode(position.key)
        total, offset = position.total, position.offset
        dense = None
        if board.dense:
            (dense,) = await dense_of(board, index, resolved.leaderboard, [position.key])
        moved = await movement(board, index, resolved.leaderboard, position)
        meta = await self._described(board, query, [position.key])
        return PlayerOut(
            **self._head(board, resolved, total, _NONE),
            player_id=player,
            score=score,
            rank=offset + 1,
            competition_rank=position.better + 1,
            percentile=round(100.0 * (total - offset - 1) / total, 4),
            achieved_at=format_time(at),
            display_name=await self._names.name(player),
            tier=board.tier_of(offset + 1, total) if board.tiers else None,
            dense_rank=dense,
            previous_rank=moved.previous,
            best_rank=moved.best,
            subscore=subscore,
            metadata=None if meta is None else meta.get(position.key),
        )

    async def around(self, ask: rq.AroundRequest) -> AroundOut:
        """Up to ``k`` entries above the player, the player, and up to ``k`` below."""
        query, player, k = query_of(ask, ask.metadata), ask.player_id, ask.k
        if ask.scope == COHORT_SCOPE:
            query = await self._in_cohort(query, player)
        hot = ("around", player, k, query.metadata)
        answer, flags = await self._run(query, self._around, (query, player, k), hot)
        return _flagged(answer, flags)

    async def _around(
        self,
        index: IndexReader,
        board: Board,
        resolved: Resolved,
        query: Query,
        player: PlayerId,
        k: int,
    ) -> AroundOut:
        found = await index.around(resolved.leaderboard, player, k)
        if found is None:
            raise NotFound(f"player {player!r} has no entry on this leaderboard")
        position, first, keys = found
        decoded = board.keys.decode_many(keys)
        names = await self._named([player for *_, player in decoded])
        dense = await dense_run(board, index, resolved.leaderboard, keys, first)
        me = position.offset - first
        moved = await movement(board, index, resolved.leaderboard, position)
        meta = await self._described(board, query, [*keys, position.key])
        ranks = range(first + 1, first + 1 + len(keys))
        return AroundOut(
            **self._head(board, resolved, position.total, _NONE),
            player=standing(
                board, position, names, moved, dense[me] if me < len(dense) else None, meta
            ),
            entries=entries(board, keys, decoded, ranks, names, position.total, dense, meta),
        )

    async def rank_of(self, ask: rq.RankOfRequest) -> RankOfOut:
        """The rank, competition rank and percentile an entry with ``score`` (and
        ``subscore``, on a board with one) would get if it were submitted now (it would
        come after every entry that reached that value up to now, and before any that
        reaches it later); ``total`` is the leaderboard's as it is.
        """
        answer, flags = await self._run(query_of(ask), self._rank_of, (ask.score, ask.subscore))
        return _flagged(answer, flags)

    async def _rank_of(
        self,
        index: IndexReader,
        board: Board,
        resolved: Resolved,
        score: int,
        subscore: int | None,
    ) -> RankOfOut:
        board.check_score(score, ["query", "score"])
        board.check_subscore(subscore, ["query", "subscore"])
        now = self._clock.now()
        keys = board.keys
        bounds = [keys.head_of(score, subscore, now + 1), keys.value_prefix(score, subscore)]
        total, (before, better) = await index.counts_before(resolved.leaderboard, bounds)
        dense: int | None = None
        if board.dense:
            prefix = keys.value_prefix(score, subscore)
            dense = (await index.distinct_before(resolved.leaderboard, [prefix]))[0] + 1
        return RankOfOut(
            **self._head(board, resolved, total, _NONE),
            score=score,
            rank=before + 1,
            competition_rank=better + 1,
            percentile=round(100.0 * (total - before) / (total + 1), 4),
            tier=board.tier_of(before + 1, total + 1) if board.tiers else None,
            dense_rank=dense,
            subscore=subscore,
        )

    # --- many players ------------------------------------------------------------------------

    async def friends(
        self, ask: rq.FriendsRequest, friends: Sequence[PlayerId], k: int | None
    ) -> FriendsOut:
        """The leaderboard among the player and those friends who have an entry.

        With ``k``, only up to k friends above and below the player (the first 2k+1 when the
        player has no entry); without it, all of them."""
        query, player = query_of(ask, ask.metadata), ask.player_id
        answer, flags = await self._run(query, self._friends, (query, player, friends, k))
        return _flagged(answer, flags)

    async def _friends(
        self,
        index: IndexReader,
        board: Board,
        resolved: Resolved,
        query: Query,
        player: PlayerId,
        friends: Sequence[PlayerId],
        k: int | None,
    ) -> FriendsOut:
        leaderboard = resolved.leaderboard
        ranked = await index.positions(leaderboard, [player, *friends])
        total = await index.total(leaderboard)
        keys = [key for _, key in ranked]
        decoded = board.keys.decode_many(keys)
        players = [one for *_, one in decoded]
        names = await self._named(players)
        dense = await dense_of(board, index, leaderboard, keys)
        meta = await self._described(board, query, keys)
        me = next((i for i, one in enumerate(players) if one == player), None)
        ranks = [at + 1 for at, _ in ranked]
        shown = friend_entries(board, keys, decoded, ranks, names, total, dense, meta)
        me_out: FriendPlayer | None = None
        if me is None:
            shown = shown if k is None else shown[: 2 * k + 1]
        else:
            position = await index.position(leaderboard, player)
            if position is None:
                raise NotFound(f"player {player!r} has no entry on this leaderboard")
            (mine,) = await dense_of(board, index, leaderboard, [position.key])
            moved = await movement(board, index, leaderboard, position)
            if meta is not None and position.key not in meta:
                meta |= await self._metadata.of(board, [position.key])
            view = standing(board, position, names, moved, mine, meta)
            me_out = FriendPlayer(**msgspec.structs.asdict(view), friends_rank=me + 1)
            shown = shown if k is None else shown[max(0, me - k) : me + k + 1]
        return FriendsOut(
            **self._head(board, resolved, total, _NONE),
            player=me_out,
            friends_total=len(ranked),
            entries=shown,
        )

    async def ranks(self, ask: rq.RanksRequest, players: Sequence[PlayerId]) -> RanksOut:
        """The entries of those ``players`` that are ranked, in rank order."""
        query = query_of(ask, ask.metadata)
        answer, flags = await self._run(query, self._ranks, (query, players))
        return _flagged(answer, flags)

    async def _ranks(
        self,
        index: IndexReader,
        board: Board,
        resolved: Resolved,
        query: Query,
        players: Sequence[PlayerId],
    ) -> RanksOut:
        leaderboard = resolved.leaderboard
        ranked = await index.positions(leaderboard, players)
        total = await index.total(leaderboard)
        keys = [key for _, key in ranked]
        decoded = board.keys.decode_many(keys)
        names = await self._named([player for *_, player in decoded])
        dense = await dense_of(board, index, leaderboard, keys)
        meta = await self._described(board, query, keys)
        ranks = [at + 1 for at, _ in ranked]
        return RanksOut(
            **self._head(board, resolved, total, _NONE),
            entries=entries(board, keys, decoded, ranks, names, total, dense, meta),
        )

    # --- periods -----------------------------------------------------------------------------

    async def periods(self, ask: rq.PeriodsRequest) -> PeriodsOut:
        """The known periods of a window (or of every window), newest first."""
        board_id, window = ask.board_id, ask.window

        async def on(board: Board) -> PeriodsOut:
            answer, flags = await self._gateway.read(
                lambda index: known_periods(board, window, index, self._store, self._clock), board
            )
            return _flagged(answer, flags)

        return await self._boards.current(board_id, on)


_NONE = Flags()
_Flagged = TypeVar("_Flagged", PlayerOut, AroundOut, FriendsOut, RanksOut, RankOfOut, PeriodsOut)


def _flagged(answer: _Flagged, flags: Flags) -> _Flagged:
    """The answer with the flags of how it was read (a shared answer stays as it was)."""
    if flags == _NONE:
        return answer
    return msgspec.structs.replace(answer, degraded=flags.degraded, archived=flags.archived)


__all__ = ["Query", "Reads", "top_etag"]
