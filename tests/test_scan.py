"""The bulk reads that build an index (``rankline.store.scan``), on every durable store:
every unbanned standing, as exactly the key ``ordering.encode`` makes, leaderboard by
leaderboard."""

from __future__ import annotations

from sqlalchemy import func, insert, select

from helpers_backends import PG_URL, prepare_database
from rankline import Rankline
from rankline.ordering import SCORE_MAX, SCORE_MIN, Keys, encode
from rankline.store import scan
from rankline.store import schema as t
from rankline.store.players import PlayerStore
from rankline.store.sql import SqlStore
from rankline.types import LeaderboardId, Order, SortKey, Standing

DAY_EU = LeaderboardId("b", "daily", "2026-11-21", "region:EU")
DAY = LeaderboardId("b", "daily", "2026-11-21", "global")
DAY_2 = LeaderboardId("b", "daily", "2026-11-22", "global")
ALL = LeaderboardId("b", "all_time", "all", "global")
OTHER = LeaderboardId("c", "all_time", "all", "global")
SCORES = (SCORE_MIN, SCORE_MIN + 1, -(2**53) - 1, -1, 0, 1, 7, 7, 7, 2**53 + 1, SCORE_MAX)
TIMES = (-(2**62), -1, 0, 1, 1_763_712_000_000_000)
PLAYERS = ("a", "A", "a0", "a:1", "z" * 64, "p-9", "p.10", "p_2", "0")


def standings() -> list[Standing]:
    """Ties on score, on time, and players whose ids are prefixes of others."""
    rows = []
    for n, leaderboard in enumerate((ALL, DAY, DAY_EU, DAY_2, OTHER)):
        for i, player in enumerate(PLAYERS[: 9 - n]):
            score = SCORES[(i * 7 + n) % len(SCORES)]
            at = TIMES[(i + n) % 2] if score == 7 else TIMES[(i * 3 + n) % len(TIMES)]
            rows.append(Standing(leaderboard, player, score, at, 1 + i))
    return rows


async def fill(service: Rankline) -> list[Standing]:
    rows = standings()
    async with service.store.engine.begin() as conn:
        await conn.execute(insert(t.standings), [row_of(r) for r in rows])
    await PlayerStore(service.store).ban("p-9", 0)
    return [row for row in rows if row.player != "p-9"]


def row_of(standing: Standing) -> dict[str, object]:
    leaderboard = standing.leaderboard
    return {
        "board_id": leaderboard.board,
        "window": leaderboard.window,
        "period": leaderboard.period,
        "scope": leaderboard.scope,
        "player_id": standing.player,
        "score": standing.score,
        "achieved_at": standing.achieved_at,
        "revision": standing.revision,
    }


def expected_keys(rows: list[Standing], leaderboard: LeaderboardId, order: Order) -> list[SortKey]:
    return sorted(
        encode(r.score, r.achieved_at, r.player, order)
        for r in rows
        if r.leaderboard == leaderboard
    )


async def test_leaderboard_ids_lists_each_leaderboard_once_in_order(service: Rankline) -> None:
    await fill(service)
    assert await scan.leaderboard_ids(service.store, "b") == [ALL, DAY, DAY_EU, DAY_2]
    assert await scan.leaderboard_ids(service.store, "c") == [OTHER]
    assert await scan.leaderboard_ids(service.store, "none") == []
    some = await scan.leaderboard_ids(service.store, "b", [("daily", "2026-11-21")])
    assert some == [DAY, DAY_EU]


async def test_scan_keys_are_the_encoded_unbanned_standings(service: Rankline) -> None:
    rows = await fill(service)
    for leaderboard in (ALL, DAY, DAY_EU, DAY_2, OTHER):
        for order in ("asc", "desc"):
            for exact in (True, False):
                keys: list[SortKey] = []
                players: list[bytes] = []
                chunks = scan.scan_keys(
                    service.store, leaderboard, Keys(order), chunk=2, exact=exact
                )
                async for chunk, ids in chunks:
                    assert len(chunk) == len(ids) and 0 < len(chunk) <= 2
                    keys += chunk
                    players += ids
                wanted = expected_keys(rows, leaderboard, order)
                assert (keys if exact else sorted(keys)) == wanted
                assert players == [k[16:] for k in keys]


async def test_scan_rows_and_stream_standings_read_every_unbanned_standing(
    service: Rankline,
) -> None:
    rows = await fill(service)
    read = [
        Standing(leaderboard, *row)
        for leaderboard in (ALL, DAY, DAY_EU, DAY_2)
        async for chunk in scan.scan_rows(service.store, leaderboard, chunk=3)
        for row in chunk
    ]
    assert sorted(read, key=str) == sorted((r for r in rows if r.leaderboard.board == "b"), key=str)
    streamed = [s async for s in scan.stream_standings(service.store, "b")]
    assert sorted(streamed, key=str) == sorted(read, key=str)
    daily = [s async for s in scan.stream_standings(service.store, "b", [("daily", "2026-11-22")])]
    assert {s.leaderboard for s in daily} == {DAY_2} and len(daily) == len(
        [r for r in rows if r.leaderboard == DAY_2]
    )


async def test_scan_rows_come_in_the_rank_index_order(service: Rankline) -> None:
    """Rank order on an asc board; on a desc board the rank index read backwards, so rank
    order with each score's ties reversed (``scan._ranked``), whatever plan the database
    picks: a rebuild's fill sends the keys to Redis in this order."""
    rows = await fill(service)
    for leaderboard in (ALL, DAY, DAY_EU, DAY_2, OTHER):
        for order in ("asc", "desc"):
            keys = [
                encode(score, at, player, order)
                async for chunk in scan.scan_rows(service.store, leaderboard, order, chunk=2)
                for player, score, at, _, _ in chunk
            ]
            wanted = expected_keys(rows, leaderboard, order)
            if order == "asc":
                assert keys == wanted
            else:
                assert [k[:8] for k in keys] == [k[:8] for k in wanted]
                assert sorted(keys) == wanted


async def test_the_rebuild_scan_turns_index_scans_off_on_postgresql_only_for_itself() -> None:
    """Walking the rank index visits the heap one page per row: at ten million standings
    that was most of a rebuild's time. The scan's transaction sorts a heap scan instead;
    other connections keep index scans."""
    await prepare_database(PG_URL)
    store = SqlStore(PG_URL)
    try:
        await store.start()
        setting = select(func.current_setting("enable_indexscan"))
        for sort, wanted in ((True, "off"), (False, "on")):
            chunks = [rows async for rows in scan._stream(store, setting, 10, sort=sort)]
            assert [tuple(row) for rows in chunks for row in rows] == [(wanted,)]
        async with store.engine.connect() as conn:
            shown = (await conn.exec_driver_sql("SHOW enable_indexscan")).scalar_one()
            assert shown == "on"
    finally:
        await store.close()
