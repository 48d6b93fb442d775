"""Movement: player views carry ``previous_rank`` (the rank just before the player's last
applied change) and ``best_rank`` (the best rank held in the period), checked on every
backend stack against a naive model, and null where the index cannot vouch for them (after
a rebuild, an unban, on a sharded board)."""

from __future__ import annotations

import random
from typing import Any

import httpx

from helpers_api import AUTH, get_json, open_app, open_client, put_board, submit
from helpers_backends import flush_redis, real_url
from rankline import ManualClock
from rankline.settings import Settings


class _Model:
    """The naive truth: the entries, and per player what a log of every change says."""

    def __init__(self, order: str, policy: str) -> None:
        self.order, self.policy = order, policy
        self.entries: dict[str, tuple[int, str]] = {}
        self.previous: dict[str, int | None] = {}
        self.best: dict[str, int] = {}

    def rank(self, player: str) -> int:
        sign = -1 if self.order == "desc" else 1
        ranked = sorted(
            self.entries, key=lambda p: (sign * self.entries[p][0], self.entries[p][1], p)
        )
        return ranked.index(player) + 1

    def submit(self, player: str, score: int, at: str) -> None:
        held = self.entries.get(player)
        if held is not None and self.policy == "best":
            better = score > held[0] if self.order == "desc" else score < held[0]
            if not better:
                return  # not applied: nothing moves
        before = None if held is None else self.rank(player)
        self.entries[player] = (score, at)
        after = self.rank(player)
        self.previous[player] = before
        self.best[player] = min(x for x in (self.best.get(player), before, after) if x)

    def view(self, player: str) -> tuple[int | None, int]:
        return self.previous[player], min(self.best[player], self.rank(player))


def _moved(body: dict[str, Any]) -> tuple[int | None, int | None]:
    return body["previous_rank"], body["best_rank"]


async def test_movement_follows_the_model(client: httpx.AsyncClient) -> None:
    rng = random.Random(19)
    players = [f"p{i}" for i in range(8)]
    for board, order, policy in (("latest", "desc", "latest"), ("best", "asc", "best")):
        await put_board(client, board, order=order, policy=policy)
        model = _Model(order, policy)
        for step in range(40):
            player, score = rng.choice(players), rng.randrange(6)
            at = f"2026-11-21T10:{step:02d}:00.000Z"
            await submit(client, board, player, score, f"m{step}", at=at)
            model.submit(player, score, at)
            for someone in model.entries:
                body = await get_json(client, f"/v1/boards/{board}/players/{someone}")
                assert body["rank"] == model.rank(someone)
                assert _moved(body) == model.view(someone), (board, step, someone)
        someone = players[3]
        around = await get_json(client, f"/v1/boards/{board}/players/{someone}/around", k=2)
        assert _moved(around["player"]) == model.view(someone)
        response = await client.post(
            f"/v1/boards/{board}/players/{someone}/friends", json={"friends": players[:3]}
        )
        assert _moved(response.json()["player"]) == model.view(someone)


async def test_a_first_entry_has_no_previous_rank_and_moves_on_each_change(
    client: httpx.AsyncClient,
) -> None:
    await put_board(client, "arena", policy="latest", windows=["all_time", "daily"])
    for player, score in (("a", 50), ("b", 40), ("c", 30)):
        await submit(client, "arena", player, score, at="2026-11-21T10:00:00.000Z")
    me = await get_json(client, "/v1/boards/arena/players/c")
    assert (me["rank"], *_moved(me)) == (3, None, 3)
    await submit(client, "arena", "c", 60, "up", at="2026-11-21T10:01:00.000Z")
    me = await get_json(client, "/v1/boards/arena/players/c")
    assert (me["rank"], *_moved(me)) == (1, 3, 1)
    await submit(client, "arena", "c", 10, "down", at="2026-11-21T10:02:00.000Z")
    me = await get_json(client, "/v1/boards/arena/players/c", window="daily")
    assert (me["rank"], *_moved(me)) == (3, 1, 1)  # the best is kept per period
    # others passing a player move their rank, not their previous one
    await submit(client, "arena", "d", 99, at="2026-11-21T10:03:00.000Z")
    me = await get_json(client, "/v1/boards/arena/players/c")
    assert (me["rank"], *_moved(me)) == (4, 1, 1)


async def test_an_unban_and_a_sharded_board_answer_null(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", policy="latest")
    for player, score in (("a", 50), ("b", 40)):
        await submit(client, "arena", player, score, at="2026-11-21T10:00:00.000Z")
    assert (await client.post("/v1/players/b/ban", headers=AUTH)).status_code == 200
    assert (await client.delete("/v1/players/b/ban", headers=AUTH)).status_code == 200
    # back on the board; what it held before the ban is not the index's to vouch for
    assert _moved(await get_json(client, "/v1/boards/arena/players/b")) == (None, None)
    assert _moved(await get_json(client, "/v1/boards/arena/players/a")) == (None, 1)
    await submit(client, "arena", "b", 60, "up", at="2026-11-21T10:01:00.000Z")
    assert _moved(await get_json(client, "/v1/boards/arena/players/b")) == (2, None)
    # an erased player starts afresh
    assert (await client.delete("/v1/players/b", headers=AUTH)).status_code == 204
    await submit(client, "arena", "b", 10, "again", at="2026-11-21T10:02:00.000Z")
    assert _moved(await get_json(client, "/v1/boards/arena/players/b")) == (None, 2)

    await put_board(client, "split", policy="latest", shards=3)
    await submit(client, "split", "a", 5, at="2026-11-21T10:00:00.000Z")
    await submit(client, "split", "a", 6, "up", at="2026-11-21T10:01:00.000Z")
    assert _moved(await get_json(client, "/v1/boards/split/players/a")) == (None, None)


async def test_movement_after_a_restart_and_a_rebuild(
    settings: Settings, clock: ManualClock
) -> None:
    """A shared index (Redis) keeps movement across a restart; a rebuilt index (the memory
    index at every start, Redis after a flush) answers null until the player's next change,
    which knows its previous rank again (the best stays unknown for the period)."""
    async with open_app(settings, clock) as app, open_client(app) as client:
        await put_board(client, "arena", policy="latest")
        for player, score in (("a", 50), ("b", 40)):
            await submit(client, "arena", player, score, at="2026-11-21T10:00:00.000Z")
        await submit(client, "arena", "b", 45, "up", at="2026-11-21T10:01:00.000Z")
        assert _moved(await get_json(client, "/v1/boards/arena/players/b")) == (2, 2)
    async with open_app(settings, clock) as app, open_client(app) as client:
        await app.state.service.wait_ready()
        kept = settings.redis_url is not None
        expected = (2, 2) if kept else (None, None)
        assert _moved(await get_json(client, "/v1/boards/arena/players/b")) == expected
    if settings.redis_url is not None:
        url = real_url(settings.redis_url)
        assert url is not None
        flush_redis(url)
    async with open_app(settings, clock) as app, open_client(app) as client:
        await app.state.service.wait_ready()
        assert _moved(await get_json(client, "/v1/boards/arena/players/b")) == (None, None)
        await submit(client, "arena", "b", 99, "top", at="2026-11-21T10:02:00.000Z")
        assert _moved(await get_json(client, "/v1/boards/arena/players/b")) == (2, None)
