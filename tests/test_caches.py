"""The read caches (rankline.reading.cache) on every backend: the top cache is never stale after a
write into the top range, a quiet top costs no index read, top pages carry ETags, and many
concurrent readers of one hot player share a couple of index reads."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import httpx

from helpers_api import AUTH, open_app, open_client, put_board, submit, top, utc
from rankline import ManualClock, Settings
from rankline.reading.cache import StampReads
from rankline.service import Rankline
from rankline.types import GLOBAL_SCOPE, LeaderboardId

BOARD = "cached"


def _expected(model: dict[str, tuple[int, int]], limit: int) -> list[tuple[str, int]]:
    """(player, score) in rank order; the model holds (score, achieved_at) per player."""
    ranked = sorted(model.items(), key=lambda kv: (-kv[1][0], kv[1][1], kv[0]))
    return [(player, score) for player, (score, _) in ranked[:limit]]


def _entries(body: dict[str, Any]) -> list[tuple[str, int]]:
    return [(e["player_id"], e["score"]) for e in body["entries"]]


class Counted:
    """Counts the calls of some of a live index's read methods (the real index answers)."""

    def __init__(self, index: Any, *names: str) -> None:
        self.calls = 0
        for name in names:
            setattr(index, name, self._wrap(getattr(index, name)))

    def _wrap(self, method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return await method(*args, **kwargs)

        return counted


def _service(client: httpx.AsyncClient) -> Rankline:
    transport = client._transport
    assert isinstance(transport, httpx.ASGITransport)
    service: Rankline = transport.app.state.service  # type: ignore[attr-defined]
    return service


async def test_every_page_of_a_quiet_top_is_its_slice_whatever_came_before(
    client: httpx.AsyncClient,
) -> None:
    """The top cache keeps the pages it serves joined; each is still exactly the slice of
    the whole top, asked first or again, and after pages enough to fill what it keeps."""
    await put_board(client, BOARD, windows=["all_time"])
    items = [
        {"board": BOARD, "player_id": f"p{i:03d}", "score": (i * 37) % 101, "match_id": "m"}
        for i in range(300)
    ]
    response = await client.post("/v1/scores/batch", json={"scores": items}, headers=AUTH)
    assert response.status_code == 200
    whole = await client.get(f"/v1/boards/{BOARD}/top", params={"limit": 1000})
    entries = whole.json()["entries"]
    rng = random.Random(20261127)
    pages = [(rng.randrange(0, 320), rng.choice([1, 5, 10, 100, 250])) for _ in range(40)]
    for offset, limit in pages + pages[::-1] + [(0, 10), (0, 100), (0, 10)]:
        response = await client.get(
            f"/v1/boards/{BOARD}/top", params={"offset": offset, "limit": limit}
        )
        assert response.status_code == 200
        assert response.json()["entries"] == entries[offset : offset + limit], (offset, limit)


async def test_the_top_is_never_stale_after_a_write_into_it(client: httpx.AsyncClient) -> None:
    # `latest` lets scores fall as well as rise, so players also leave the top.
    await put_board(client, BOARD, windows=["all_time"], policy="latest")
    rng = random.Random(20261122)
    model: dict[str, tuple[int, int]] = {}
    start = utc(2026, 11, 21, 11)
    for i in range(150):
        player, score = f"p{rng.randrange(40):02d}", rng.randint(0, 300)
        at = start + timedelta(milliseconds=i)  # each later than the last: `latest` applies
        await submit(client, BOARD, player, score, match=f"m{i}", at=at)
        model[player] = (score, i)
        for limit in (3, rng.choice([10, 100])):
            body = await top(client, BOARD, limit=limit)
            assert _entries(body) == _expected(model, limit), (i, limit)
            assert body["total"] == len(model)
            assert [e["rank"] for e in body["entries"]] == list(range(1, len(body["entries"]) + 1))
        offset = rng.randrange(0, 20)
        body = await top(client, BOARD, limit=5, offset=offset)
        assert _entries(body) == _expected(model, offset + 5)[offset:], (i, offset)
        assert [e["rank"] for e in body["entries"]] == list(
            range(offset + 1, offset + 1 + len(body["entries"]))
        )


async def test_a_quiet_top_is_served_without_index_reads(client: httpx.AsyncClient) -> None:
    await put_board(client, BOARD, windows=["all_time"], policy="best")
    players = 1100  # more than the cached window of 1,000 entries
    for start in range(0, players, 1000):
        items = [
            {"board": BOARD, "player_id": f"p{n:04d}", "score": 10 * n, "match_id": "load"}
            for n in range(start, min(players, start + 1000))
        ]
        response = await client.post("/v1/scores/batch", json={"scores": items}, headers=AUTH)
        assert response.status_code == 200, response.text
    first = await top(client, BOARD, limit=100)
    assert first["entries"][0]["player_id"] == "p1099"
    deep = await top(client, BOARD, limit=20, offset=990)  # past the cached window
    assert [(e["rank"], e["player_id"]) for e in deep["entries"]] == [
        (991 + i, f"p{1099 - 990 - i:04d}") for i in range(20)
    ]

    pages = Counted(_service(client).index, "page", "slice")
    for limit in (100, 10, 50):
        assert _entries(await top(client, BOARD, limit=limit)) == _entries(first)[:limit]
    assert pages.calls == 0, "a quiet top was read from the index again"

    # A write far below the top changes the total, not the cached entries.
    await submit(client, BOARD, "newcomer", -5, match="low")
    body = await top(client, BOARD, limit=100)
    assert pages.calls == 0
    assert body["total"] == players + 1
    assert _entries(body) == _entries(first)

    # A write into the top is shown by the very next read.
    await submit(client, BOARD, "p0000", 20_000, match="jump")
    body = await top(client, BOARD, limit=100)
    assert pages.calls >= 1
    assert _entries(body) == [("p0000", 20_000), *_entries(first)[:99]]


async def test_top_pages_carry_an_etag_and_honour_if_none_match(
    client: httpx.AsyncClient,
) -> None:
    await put_board(client, BOARD, windows=["all_time"], policy="best")
    for n in range(5):
        await submit(client, BOARD, f"p{n}", 100 + n, match="a")
    url = f"/v1/boards/{BOARD}/top"
    first = await client.get(url, params={"limit": 3})
    assert first.status_code == 200
    etag = first.headers["etag"]
    assert etag.startswith('W/"'), etag

    same = await client.get(url, params={"limit": 3}, headers={"If-None-Match": etag})
    assert same.status_code == 304, same.text
    assert same.content == b""
    assert same.headers["etag"] == etag
    listed = await client.get(url, params={"limit": 3}, headers={"If-None-Match": f'"x", {etag}'})
    assert listed.status_code == 304

    await submit(client, BOARD, "p9", 500, match="a")
    changed = await client.get(url, params={"limit": 3}, headers={"If-None-Match": etag})
    assert changed.status_code == 200
    assert changed.headers["etag"] != etag
    assert changed.json()["entries"][0]["player_id"] == "p9"


async def test_concurrent_readers_of_a_hot_player_share_index_reads(
    settings: Settings, clock: ManualClock
) -> None:
    ttl = 2.0
    hot = settings.model_copy(update={"hot_read_ttl_ms": ttl * 1000})
    async with open_app(hot, clock) as app, open_client(app) as client:
        await put_board(client, BOARD, windows=["all_time"], policy="best")
        for n in range(30):
            await submit(client, BOARD, f"p{n:02d}", 10 * n, match="a")
        reads = Counted(_service(client).index, "position", "around", "positions")

        async def one(kind: str) -> dict[str, Any]:
            path = "/around" if kind == "around" else ""
            response = await client.get(f"/v1/boards/{BOARD}/players/star{path}")
            assert response.status_code == 200, response.text
            body: dict[str, Any] = response.json()
            return body

        await submit(client, BOARD, "star", 155, match="a")
        for kind in ("player", "around"):
            reads.calls = 0
            started = time.monotonic()
            bodies = await asyncio.gather(*(one(kind) for _ in range(1000)))
            elapsed = time.monotonic() - started
            ranks = {b["rank"] if kind == "player" else b["player"]["rank"] for b in bodies}
            assert ranks == {15}, ranks
            # One direct read, one shared under the stamp; more only if a TTL went by.
            assert reads.calls <= 2 * (1 + int(elapsed / ttl)), (kind, reads.calls, elapsed)

        # Read-your-writes: an acknowledged write is visible to the next read at once.
        await submit(client, BOARD, "star", 1_000, match="b")
        body = await one("player")
        assert (body["score"], body["rank"]) == (1_000, 1)
        body = await one("around")
        assert body["player"]["rank"] == 1
        assert body["entries"][0]["player_id"] == "star"


async def test_concurrent_top_stamp_reads_share_one_started_after_each_arrived(
    client: httpx.AsyncClient,
) -> None:
    """``StampReads`` on the real index (every backend): the readers that arrive together
    share one stamp read; those arriving while it is under way get the next one, which
    sees a write into the top made meanwhile; a failed read fails its readers only."""
    await put_board(client, BOARD, windows=["all_time"], policy="best")
    for n in range(10):
        await submit(client, BOARD, f"p{n}", 10 * n, match="a")
    index = _service(client).index
    leaderboard = LeaderboardId(BOARD, "all_time", "all", GLOBAL_SCOPE)
    before, total = await index.top_stamp(leaderboard)
    assert total == 10
    real = index.top_stamp
    started: list[float] = []
    reading = asyncio.Event()
    failing = False

    async def slow(lb: LeaderboardId) -> tuple[int, int]:
        started.append(time.monotonic())
        reading.set()
        if failing:
            raise RuntimeError("the index failed")
        found = await real(lb)
        await asyncio.sleep(0.05)  # a read under way while more readers arrive
        return found

    index.top_stamp = slow  # type: ignore[method-assign]
    reads = StampReads()
    first = [asyncio.ensure_future(reads.read(index, leaderboard)) for _ in range(40)]
    await reading.wait()
    await submit(client, BOARD, "top", 1_000, match="a")  # into the top, acknowledged
    second = [asyncio.ensure_future(reads.read(index, leaderboard)) for _ in range(40)]
    firsts, seconds = await asyncio.gather(*first), await asyncio.gather(*second)
    assert len(started) == 2, started  # 80 readers, two index reads
    assert set(firsts) == {(before, 10)}
    (after,) = set(seconds)
    assert after[1] == 11 and after[0] != before  # the write shows to the later readers

    failing = True
    failed = await asyncio.gather(
        *(reads.read(index, leaderboard) for _ in range(5)), return_exceptions=True
    )
    assert all(isinstance(f, RuntimeError) for f in failed), failed
    failing = False
    assert await reads.read(index, leaderboard) == after
