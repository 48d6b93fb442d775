"""Independent references for the rating tests: textbook Elo written out, and the ``glicko2``
package (Ryan Kirkman's) with its one known defect fixed: its volatility function uses the
player's rating where Glickman's step 5 has the deviation (phi). The ``openskill`` package is
its own reference."""

from __future__ import annotations

import math
from typing import Any

import glicko2


class Glicko2Reference(glicko2.Player):  # type: ignore[misc]
    def __init__(self, rating: float, rd: float, vol: float, *, tau: float) -> None:
        super().__init__(rating, rd, vol)
        self._tau = tau

    def _f(self, x: float, delta: float, v: float, a: float) -> float:
        phi = self._Player__rd
        ex = math.exp(x)
        num = ex * (delta**2 - phi**2 - v - ex)
        den = 2 * ((phi**2 + v + ex) ** 2)
        return num / den - (x - a) / (self._tau**2)


def elo_update(ratings: dict[str, float], a: str, b: str, result_a: float, k: float) -> None:
    ra, rb = ratings[a], ratings[b]
    ea = 1 / (1 + 10 ** ((rb - ra) / 400))
    eb = 1 / (1 + 10 ** ((ra - rb) / 400))
    ratings[a] = ra + k * (result_a - ea)
    ratings[b] = rb + k * ((1 - result_a) - eb)


def glicko_update(players: dict[str, Glicko2Reference], a: str, b: str, result_a: float) -> None:
    pa, pb = players[a], players[b]
    ra, da, rb, db = pa.rating, pa.rd, pb.rating, pb.rd
    pa.update_player([rb], [db], [result_a])
    pb.update_player([ra], [da], [1 - result_a])


def displayed(rating: float) -> int:
    return math.floor(rating + 0.5) if rating >= 0 else -math.floor(-rating + 0.5)


__all__: list[Any] = ["Glicko2Reference", "displayed", "elo_update", "glicko_update"]
