"""The demo's rated arena: chess players of hidden strengths, rated from their games.

Two rating boards, ``chess-blitz`` (Glicko-2) and ``chess-rapid`` (Elo), one per mode, with a
country scope. Each player has a strength the game hides from the service; a game between two
players is won by each with the Elo probability of their strengths (some end drawn), and the
result goes to the board as a match. The ratings start equal and converge to the hidden
order: the demo prints how far (the rank correlation between rating and strength).

    arena = RatedArena(players=300, seed=1)
    await arena.set_up(rl)
    await arena.play(rl, games=20)
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from rankline.client import AsyncClient

BLITZ, RAPID = "chess-blitz", "chess-rapid"
COUNTRIES = ("NO", "US", "IN", "FR", "CN")
DRAWS = 0.1
"""The share of games drawn."""
BOARDS: dict[str, dict[str, Any]] = {
    BLITZ: {"system": "glicko2", "provisional_rd": 110},
    RAPID: {"system": "elo", "k": 24, "provisional_games": 5},
}


@dataclass(frozen=True)
class ChessPlayer:
    id: str
    country: str
    strength: float
    """The rating the player would have if the boards knew everything (hidden from them)."""


class RatedArena:
    def __init__(self, players: int, seed: int | None) -> None:
        self.rng = random.Random(None if seed is None else seed + 1)
        self.players = [
            ChessPlayer(f"c:{n}", self.rng.choice(COUNTRIES), self.rng.gauss(1500, 300))
            for n in range(1, players + 1)
        ]
        self.games = 0

    async def set_up(self, rl: AsyncClient) -> None:
        for board, rating in BOARDS.items():
            await rl.put_board(
                board,
                policy="rating",
                rating=rating,
                windows=["all_time", "weekly"],
                scopes=["country"],
                title=board.replace("-", " ").title(),
            )

    def game(self, board: str) -> dict[str, Any]:
        """One game between two players: the Elo probability of their hidden strengths
        picks the winner."""
        self.games += 1
        a, b = self.rng.sample(self.players, 2)
        expected = 1 / (1 + 10 ** ((b.strength - a.strength) / 400))
        roll = self.rng.random()
        places = (
            (1, 1) if roll < DRAWS else (1, 2) if roll < DRAWS + (1 - DRAWS) * expected else (2, 1)
        )
        return {
            "board": board,
            "match_id": f"g:{self.games}",
            "results": [
                {"player_id": p.id, "place": place, "scopes": {"country": p.country}}
                for p, place in zip((a, b), places, strict=True)
            ],
        }

    async def play(self, rl: AsyncClient, games: int) -> None:
        """``games`` games on each board, in one batch request."""
        if games > 0:
            await rl.submit_matches([self.game(board) for board in BOARDS for _ in range(games)])

    async def convergence(self, rl: AsyncClient, board: str) -> float | None:
        """Spearman's rank correlation between the ranked players' ratings and their hidden
        strengths (1: the board found the true order); None with fewer than 3 ranked."""
        entries = (await rl.top(board, limit=1000))["entries"]
        strength = {p.id: p.strength for p in self.players}
        ranked = [strength[e["player_id"]] for e in entries if e["player_id"] in strength]
        n = len(ranked)
        if n < 3:
            return None
        true_rank = {s: i for i, s in enumerate(sorted(ranked, reverse=True))}
        d2 = sum((i - true_rank[s]) ** 2 for i, s in enumerate(ranked))
        return 1 - 6 * d2 / (n * (n * n - 1))


__all__ = ["BLITZ", "RAPID", "RatedArena"]
