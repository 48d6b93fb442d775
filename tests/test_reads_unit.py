"""The read path and the index gateway on their own: the in-process index, boards held in
memory and a name directory of plain dicts, no HTTP and no SQL."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import pytest

from helpers_fakes import FakeStore
from rankline.boards import Board, BoardSpec
from rankline.errors import IndexDamaged, IndexUnavailable, InvalidInput, NotFound
from rankline.index.base import IndexReader
from rankline.index.gateway import Flags, IndexGateway
from rankline.index.keeper import IndexHealth, IndexKeeper
from rankline.index.memory import MemoryIndex
from rankline.ordering import encode
from rankline.reading.cache import HotReads, TopCache
from rankline.reading.reads import Reads
from rankline.reading.requests import (
    AroundRequest,
    FriendsRequest,
    PlayerRequest,
    RanksRequest,
    TopRequest,
)
from rankline.registry import Boards
from rankline.runtime.clock import ManualClock, format_time, to_micros
from rankline.types import IndexChange, LeaderboardId

NOW = to_micros(datetime(2026, 11, 21, 12, tzinfo=UTC))
ALL = LeaderboardId("arena", "all_time", "all", "global")
SCORES = {"ada": 90, "bob": 70, "cy": 70, "dee": 50, "eve": 10}


class Names:
    def __init__(self, names: dict[str, str]) -> None:
        self._names = names

    async def get(self, players: Iterable[str]) -> dict[str, str | None]:
        return {p: self._names.get(p) for p in players}

    async def name(self, player: str) -> str | None:
        return self._names.get(player)


class Parts:
    def __init__(self) -> None:
        self.clock = ManualClock(NOW)
        self.index = MemoryIndex()
        self.health = IndexHealth("memory", self.clock)
        store: Any = FakeStore()  # never asked here: the live index answers every read
        self.boards = Boards(store, self.clock)
        self.keeper = IndexKeeper(self.index, self.health, store, self.clock, self.boards)
        self.gateway = IndexGateway(self.keeper, store, self.boards.keys_of, self.clock)
        self.reads = Reads(
            self.boards,
            self.gateway,
            Names({"ada": "Ada"}),  # type: ignore[arg-type]
            TopCache(60),
            HotReads(0.5),
            store,
            self.clock,
        )
        self.health.built_now()


@pytest.fixture
async def parts() -> Parts:
    made = Parts()
    board = Board.define("arena", BoardSpec())
    made.boards.put(board)
    at = NOW - 1000
    await made.index.apply(
        [IndexChange(ALL, p, encode(s, at, p, "desc")) for p, s in SCORES.items()]
    )
    return made


async def test_a_players_rank_competition_rank_and_percentile(parts: Parts) -> None:
    answer = await parts.reads.player(PlayerRequest(board_id="arena", player_id="cy"))
    assert (answer.rank, answer.competition_rank, answer.total) == (3, 2, 5)
    assert answer.percentile == 40.0
    assert answer.score == 70 and answer.achieved_at == format_time(NOW - 1000)
    assert answer.display_name is None and not answer.degraded
    assert (
        await parts.reads.player(PlayerRequest(board_id="arena", player_id="ada"))
    ).display_name == "Ada"
    with pytest.raises(NotFound):
        await parts.reads.player(PlayerRequest(board_id="arena", player_id="nobody"))


async def test_around_a_player(parts: Parts) -> None:
    answer = await parts.reads.around(AroundRequest(board_id="arena", player_id="cy", k=1))
    assert [e.player_id for e in answer.entries] == ["bob", "cy", "dee"]
    assert [e.rank for e in answer.entries] == [2, 3, 4]
    assert answer.player.rank == 3


async def test_friends_and_ranks(parts: Parts) -> None:
    friends = await parts.reads.friends(
        FriendsRequest(board_id="arena", player_id="dee"), ["ada", "eve", "zed"], None
    )
    assert [(e.player_id, e.rank, e.friends_rank) for e in friends.entries] == [
        ("ada", 1, 1),
        ("dee", 4, 2),
        ("eve", 5, 3),
    ]
    assert friends.player is not None and friends.player.friends_rank == 2
    assert friends.friends_total == 3
    ranks = await parts.reads.ranks(RanksRequest(board_id="arena"), ["eve", "bob", "zed"])
    assert [(e.player_id, e.rank) for e in ranks.entries] == [("bob", 2), ("eve", 5)]


async def test_a_top_page_and_its_etag(parts: Parts) -> None:
    body, etag = await parts.reads.top(TopRequest(board_id="arena", offset=1, limit=2))
    assert b'"total":5' in body
    assert body.index(b'"bob"') < body.index(b'"cy"') and b'"ada"' not in body
    again, same = await parts.reads.top(TopRequest(board_id="arena", offset=1, limit=2))
    assert same == etag and again.split(b'"as_of"')[0] == body.split(b'"as_of"')[0]
    await parts.index.apply([IndexChange(ALL, "zed", encode(80, NOW, "zed", "desc"))])
    _, moved = await parts.reads.top(TopRequest(board_id="arena", offset=1, limit=2))
    assert moved != etag


async def test_a_query_that_does_not_fit_the_board(parts: Parts) -> None:
    with pytest.raises(InvalidInput):
        await parts.reads.player(PlayerRequest(board_id="arena", window="daily", player_id="ada"))
    with pytest.raises(NotFound):
        await parts.reads.player(PlayerRequest(board_id="nope", player_id="ada"))


async def test_the_gateway_falls_back_and_says_so(parts: Parts) -> None:
    seen: list[IndexReader] = []

    async def op(index: IndexReader) -> str:
        seen.append(index)
        if index is parts.index:
            raise IndexUnavailable("Redis went away")
        return "from SQL"

    answer, flags = await parts.gateway.read(op)
    assert (answer, flags) == ("from SQL", Flags(degraded=True))
    assert seen[0] is parts.index and seen[1] is not parts.index
    assert not parts.health.usable  # the whole index is degraded until the keeper is back
    answer, flags = await parts.gateway.read(op)
    assert flags.degraded and len(seen) == 3  # straight to SQL now


async def test_a_damaged_leaderboard_is_repaired_not_degraded(
    parts: Parts, monkeypatch: pytest.MonkeyPatch
) -> None:
    repaired: list[LeaderboardId] = []
    monkeypatch.setattr(parts.keeper, "damaged", repaired.append)

    async def op(index: IndexReader) -> str:
        if index is parts.index:
            raise IndexDamaged(ALL)
        return "from SQL"

    assert await parts.gateway.read(op) == ("from SQL", Flags(degraded=True))
    assert repaired == [ALL] and parts.health.usable


async def test_changes_the_index_cannot_take_are_kept_for_the_keeper(parts: Parts) -> None:
    async def refuse(changes: Any) -> None:
        raise IndexUnavailable("down")

    parts.index.apply = refuse  # type: ignore[method-assign]
    await parts.gateway.apply([IndexChange(ALL, "ada", None)])  # the caller goes on
    assert not parts.health.usable
    assert parts.keeper._missed == {ALL}


def test_health_tells_its_followers_each_change_as_it_happens() -> None:
    health = IndexHealth("memory", ManualClock(NOW))
    seen: list[bool] = []
    stop = health.follow(seen.append)
    health.degrade("not built yet, and down")  # not usable before, not usable after
    assert seen == []
    health.built_now()
    assert seen == [True]
    health.recovered()  # already usable: no change
    health.degrade("Redis went away")
    assert seen == [True, False] and health.degraded_reason == "Redis went away"
    health.degrade("still away")
    health.recovered()
    assert seen == [True, False, True]
    stop()
    health.degrade("unfollowed")
    assert seen == [True, False, True]
