"""A model of moderation under random operations: submissions (new and repeated), entries
removed (everywhere, on one window, on one scope), matches voided and periods reset, mixed
at random; after each operation the all-time leaderboard and each player's movement on it,
and at the end every leaderboard, must be what the model computes from the submissions in
order (voided ones left out, removals and resets applied where they were made; a void moves
its player as a write does). Then a replay of the store must give the same standings."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from sqlalchemy import select

from helpers_api import AUTH, get_json, open_app, open_client, put_board, ranking
from rankline import ManualClock, Settings
from rankline.service import Rankline
from rankline.store import schema as t
from rankline.writing import replay

BOARD = "model"
PLAYERS = ["a", "b", "c", "d"]
REGIONS = ["EU", "US"]
LEADERBOARDS = [(w, s) for w in ("all_time", "daily") for s in ("global", "region:EU", "region:US")]

_op = st.one_of(
    st.tuples(
        st.just("submit"), st.sampled_from(PLAYERS), st.integers(0, 30), st.sampled_from(REGIONS)
    ),
    st.tuples(st.just("again"), st.integers(0, 50)),
    st.tuples(
        st.just("remove"),
        st.sampled_from(PLAYERS),
        st.sampled_from([None, "daily", "region:EU", "region:US"]),
    ),
    st.tuples(st.just("void"), st.integers(0, 50)),
    st.tuples(
        st.just("reset"),
        st.sampled_from(["all_time", "daily"]),
        st.sampled_from([None, "region:US"]),
    ),
)
_ops = st.lists(_op, min_size=1, max_size=18)


class Model:
    """The submissions in order, the removals by position, the voided match ids."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, int, str, int]] = []  # match, player, score, region, at
        self.removals: list[tuple[int, str | None, str | None, str | None]] = []
        self.voided: set[str] = set()
        self.moves: dict[str, tuple[int | None, int]] = {}
        """All-time movement per player: (previous rank, best rank held), as the index
        records them at each change of the player's entry."""

    def standings(self) -> dict[tuple[str, str], dict[str, tuple[int, int]]]:
        held: dict[tuple[str, str], dict[str, tuple[int, int]]] = {lb: {} for lb in LEADERBOARDS}
        pending = list(self.removals)
        for position, (match, player, score, region, at) in enumerate(self.events):
            self._take_off(held, pending, position)
            if match in self.voided:
                continue
            for window in ("all_time", "daily"):
                for scope in ("global", f"region:{region}"):
                    current = held[window, scope].get(player)
                    if current is None or score > current[0]:  # best: only strictly better
                        held[window, scope][player] = (score, at)
        self._take_off(held, pending, len(self.events))
        return held

    @staticmethod
    def _take_off(held: Any, pending: list[Any], position: int) -> None:
        while pending and pending[0][0] <= position:
            _, player, window, scope = pending.pop(0)
            for (w, s), entries in held.items():
                if (window is None or w == window) and (scope is None or s == scope):
                    if player is None:
                        entries.clear()
                    else:
                        entries.pop(player, None)

    def ranks(self) -> dict[str, int]:
        """Each player's all-time rank."""
        return {player: n for n, (player, _) in enumerate(self.ranked("all_time", "global"), 1)}

    def moved(self, player: str, before: dict[str, int], held: Any) -> None:
        """Record ``player``'s movement after a change of their all-time entry from ``held``
        (None: none) at the ranks ``before``."""
        after = self.ranks().get(player)
        if after is None:
            self.moves.pop(player, None)
        elif held is None:
            self.moves[player] = (None, after)
        elif held != self.standings()["all_time", "global"][player]:
            rank, best = before[player], self.moves[player][1]
            self.moves[player] = (rank, min(best, rank, after))

    def ranked(self, window: str, scope: str) -> list[tuple[str, int]]:
        entries = self.standings()[window, scope]
        order = sorted(entries.items(), key=lambda kv: (-kv[1][0], kv[1][1], kv[0]))
        return [(player, score) for player, (score, _) in order]


async def _run(settings: Settings, clock: ManualClock, ops: list[tuple[Any, ...]]) -> None:
    model = Model()
    async with open_app(settings, clock) as app, open_client(app) as client:
        await put_board(client, BOARD, windows=["all_time", "daily"], scopes=["region"])
        try:
            await _check(app, client, model, ops)
        finally:  # the next example starts on a board of its own, whatever happened here
            assert (await client.delete(f"/v1/boards/{BOARD}", headers=AUTH)).status_code == 204


async def _check(app: Any, client: httpx.AsyncClient, model: Model, ops: list[Any]) -> None:
    for step, op in enumerate(ops):
        await _apply(client, model, op)
        shown = await ranking(client, BOARD)
        assert shown == model.ranked("all_time", "global"), ops[: step + 1]
        ranks = model.ranks()
        for player, (previous, best) in model.moves.items():
            view = await get_json(client, f"/v1/boards/{BOARD}/players/{player}")
            expected = (previous, min(best, ranks[player]))
            assert (view["previous_rank"], view["best_rank"]) == expected, ops[: step + 1]
    for window, scope in LEADERBOARDS:
        shown = await ranking(client, BOARD, window=window, scope=scope)
        assert shown == model.ranked(window, scope), (window, scope, ops)
    service: Rankline = app.state.service
    before = await _standings(service)
    done = await replay.replay(service.store, [BOARD])
    assert done.unexplained == 0
    assert await _standings(service) == before


async def _standings(service: Rankline) -> list[tuple[Any, ...]]:
    s = t.standings
    async with service.store.engine.connect() as conn:
        rows = await conn.execute(
            select(s).where(s.c.board_id == BOARD).order_by(*s.primary_key.columns)
        )
        return [tuple(r) for r in rows]


async def _apply(client: httpx.AsyncClient, model: Model, op: tuple[Any, ...]) -> None:
    kind = op[0]
    before = model.ranks()
    held = model.standings()["all_time", "global"]
    if kind == "submit":
        _, player, score, region = op
        n = len(model.events)
        at = n  # seconds after 10:00: every submission later than the last
        model.events.append((f"m{n}", player, score, region, at))
        await _post(client, f"m{n}", player, score, region, at, duplicate=False)
        model.moved(player, before, held.get(player))
    elif kind == "again" and model.events:
        match, player, score, region, at = model.events[op[1] % len(model.events)]
        await _post(client, match, player, score, region, at, duplicate=True)
    elif kind == "remove":
        _, player, where = op
        window = where if where == "daily" else None
        scope = where if where and where.startswith("region:") else None
        params = {k: v for k, v in {"window": window, "scope": scope}.items() if v}
        had = any(
            player in entries
            for (w, s), entries in model.standings().items()
            if (window is None or w == window) and (scope is None or s == scope)
        )
        response = await client.delete(
            f"/v1/boards/{BOARD}/players/{player}", params=params, headers=AUTH
        )
        assert response.status_code == (200 if had else 404), response.text
        if had:
            model.removals.append((len(model.events), player, window, scope))
            if window is None and scope is None:
                model.moves.pop(player, None)  # the entry and its movement gone
    elif kind == "void" and model.events:
        match = model.events[op[1] % len(model.events)][0]
        response = await client.post(f"/v1/boards/{BOARD}/matches/{match}/void", headers=AUTH)
        assert response.status_code == (409 if match in model.voided else 200), response.text
        model.voided.add(match)
        player = model.events[op[1] % len(model.events)][1]
        if player in held:
            model.moved(player, before, held[player])
    elif kind == "reset":
        _, window, scope = op
        body = {"window": window, **({"scope": scope} if scope else {})}
        response = await client.post(f"/v1/boards/{BOARD}/reset", json=body, headers=AUTH)
        assert response.status_code == 200, response.text
        model.removals.append((len(model.events), None, window, scope))
        if window == "all_time" and scope is None:
            model.moves.clear()


async def _post(
    client: httpx.AsyncClient,
    match: str,
    player: str,
    score: int,
    region: str,
    at: int,
    *,
    duplicate: bool,
) -> None:
    body = {
        "player_id": player,
        "score": score,
        "match_id": match,
        "at": f"2026-11-21T10:{at // 60:02d}:{at % 60:02d}.000Z",
        "scopes": {"region": region},
    }
    response = await client.post(f"/v1/boards/{BOARD}/scores", json=body, headers=AUTH)
    assert response.status_code == 200, response.text
    assert response.json()["duplicate"] is duplicate


@pytest.mark.edge
@hypothesis_settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=_ops)
def test_moderation_matches_the_model_under_random_operations(
    settings: Settings, clock: ManualClock, ops: list[tuple[Any, ...]]
) -> None:
    asyncio.run(_run(settings, clock, ops))
