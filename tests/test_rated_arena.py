"""The demo's rated arena: games between players of hidden strengths, rated on chess-blitz
(Glicko-2) and chess-rapid (Elo); the ratings converge to the hidden order. The rating
arithmetic is the same on every stack (what each stack stores of it: test_api_ratings.py), so
this runs on one."""

from __future__ import annotations

import httpx
import pytest

from rankline.client import AsyncClient
from rankline.demo.rated_arena import BLITZ, RAPID, RatedArena
from rankline.http.app import Application

pytestmark = pytest.mark.edge


async def test_ratings_converge_to_the_hidden_strengths(app: Application) -> None:
    transport = httpx.ASGITransport(app=app)
    async with AsyncClient("http://t", server_key="test-server-key", transport=transport) as rl:
        arena = RatedArena(players=20, seed=3)
        await arena.set_up(rl)
        early = None
        for round_ in range(8):
            await arena.play(rl, games=100)
            if round_ == 0:
                early = await arena.convergence(rl, RAPID)
        for board in (BLITZ, RAPID):
            fit = await arena.convergence(rl, board)
            assert fit is not None and fit > 0.7, (board, fit)
            top = await rl.top(board)
            assert top["total"] == 20  # everyone established after ~80 games each
            countries = {p.country for p in arena.players}
            scoped = [await rl.top(board, scope=f"country:{c}") for c in sorted(countries)]
            assert sum(s["total"] for s in scoped) == 20
        late = await arena.convergence(rl, RAPID)
        assert early is not None and late is not None and late >= early - 0.05
