"""Rating systems: Elo, Glicko-2 and OpenSkill, as pure functions of a match's states.

A board with ``"policy": "rating"`` names its system and parameters in ``rating``; ``system_of``
validates them (defaults filled in) and answers the system, whose ``rate`` takes the players'
states before a match and their places (equal places draw; players of one team are not each
other's opponents) and answers their states after it. Each match is one rating period for its
players. Nothing here reads a clock or a store: the same states and match give the same
floats, bit for bit, which is what a replay relies on.

    system = system_of({"system": "elo", "k": 32})
    a, b = system.initial(), system.initial()
    a2, b2 = system.rate([a, b], places=[1, 2], teams=[None, None], at=0)
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence
from typing import Any, Protocol

import msgspec

from rankline.errors import ExtraMissing, InvalidInput
from rankline.types import Micros

GLICKO_SCALE = 173.7178
"""Glicko-2's conversion between the Glicko scale and its own (Glickman, step 2)."""
_GLICKO_CENTER = 1500.0
_VOLATILITY_EPSILON = 0.000001
_DAY = 86_400_000_000


class RatingState(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A player's rating on one leaderboard period. ``rating`` is the displayed rating (its
    rounded value is the leaderboard score); the other fields are the system's own."""

    rating: float
    games: int = 0
    rd: float | None = None
    volatility: float | None = None
    mu: float | None = None
    sigma: float | None = None
    last_at: int | None = None
    """When the player last played (microseconds), for Glicko-2's growth of ``rd``."""


class RatingSystem(Protocol):
    name: str

    def initial(self) -> RatingState: ...

    def rate(
        self,
        states: Sequence[RatingState],
        places: Sequence[int],
        teams: Sequence[str | None],
        at: Micros,
    ) -> list[RatingState]:
        """The states after one match, in the order given."""

    def aged(self, state: RatingState, at: Micros) -> RatingState:
        """The state as of ``at`` (Glicko-2's deviation grows while a player is idle)."""

    def provisional(self, state: RatingState) -> bool:
        """Whether the player is still unproven (rated, but kept off the ranks)."""

    def public(self, state: RatingState) -> dict[str, Any]:
        """The state as answers show it."""


def score_of(state: RatingState) -> int:
    """The leaderboard score: the displayed rating rounded to an integer (half away from
    zero, the same on every platform)."""
    rating = state.rating
    return math.floor(rating + 0.5) if rating >= 0 else -math.floor(-rating + 0.5)


def _opponents(places: Sequence[int], teams: Sequence[str | None], i: int) -> list[int]:
    """Who player ``i`` played against: everyone not on their team."""
    team = teams[i]
    return [j for j in range(len(places)) if j != i and (team is None or teams[j] != team)]


def _result(places: Sequence[int], i: int, j: int) -> float:
    return 1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0


# --- Elo ------------------------------------------------------------------------------------


class EloParams(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    system: str = "elo"
    initial: float = 1500.0
    k: float = 32.0
    provisional_games: int = 5


class Elo:
    """Textbook Elo: E = 1 / (1 + 10^((Rb - Ra) / 400)), R' = R + K (S - E). With more than
    two players each pair of opponents is one game and the change is K times the mean of
    (S - E) over the player's opponents."""

    name = "elo"

    def __init__(self, params: EloParams) -> None:
        self.params = params

    def initial(self) -> RatingState:
        return RatingState(rating=self.params.initial, games=0)

    def rate(
        self,
        states: Sequence[RatingState],
        places: Sequence[int],
        teams: Sequence[str | None],
        at: Micros,
    ) -> list[RatingState]:
        k = self.params.k
        out = []
        for i, state in enumerate(states):
            opponents = _opponents(places, teams, i)
            if not opponents:
                out.append(RatingState(rating=state.rating, games=state.games, last_at=at))
                continue
            total = 0.0
            for j in opponents:
                expected = 1.0 / (1.0 + 10.0 ** ((states[j].rating - state.rating) / 400.0))
                total += _result(places, i, j) - expected
            rating = state.rating + k * total / len(opponents)
            out.append(RatingState(rating=rating, games=state.games + 1, last_at=at))
        return out

    def aged(self, state: RatingState, at: Micros) -> RatingState:
        return state

    def provisional(self, state: RatingState) -> bool:
        return state.games < self.params.provisional_games

    def public(self, state: RatingState) -> dict[str, Any]:
        return {"rating": state.rating, "games": state.games}


# --- Glicko-2 -------------------------------------------------------------------------------


class Glicko2Params(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    system: str = "glicko2"
    initial: float = 1500.0
    rd: float = 350.0
    volatility: float = 0.06
    tau: float = 0.5
    provisional_rd: float = 110.0
    rd_per_day: float = 0.0


class Glicko2:
    """Glicko-2 as Glickman's "Example of the Glicko-2 system" (2013) gives it, steps 1-8,
    with the Illinois algorithm for the volatility; each match is one rating period for its
    players, whose opponents are everyone not on their team. Between games the deviation
    grows as RD' = min(rd, sqrt(RD² + rd_per_day² · days idle)) (Glicko's c² t)."""

    name = "glicko2"

    def __init__(self, params: Glicko2Params) -> None:
        self.params = params

    def initial(self) -> RatingState:
        p = self.params
        return RatingState(rating=p.initial, games=0, rd=p.rd, volatility=p.volatility)

    def aged(self, state: RatingState, at: Micros) -> RatingState:
        per_day = self.params.rd_per_day
        if per_day <= 0 or state.last_at is None or at <= state.last_at or state.rd is None:
            return state
        days = (at - state.last_at) / _DAY
        rd = min(self.params.rd, math.sqrt(state.rd * state.rd + per_day * per_day * days))
        return msgspec.structs.replace(state, rd=rd)

    def rate(
        self,
        states: Sequence[RatingState],
        places: Sequence[int],
        teams: Sequence[str | None],
        at: Micros,
    ) -> list[RatingState]:
        aged = [self.aged(s, at) for s in states]
        out = []
        for i, state in enumerate(aged):
            opponents = _opponents(places, teams, i)
            games = [(aged[j], _result(places, i, j)) for j in opponents]
            out.append(self._update(state, games, at))
        return out

    def _update(
        self, state: RatingState, games: list[tuple[RatingState, float]], at: Micros
    ) -> RatingState:
        assert state.rd is not None and state.volatility is not None
        mu = (state.rating - _GLICKO_CENTER) / GLICKO_SCALE
        phi = state.rd / GLICKO_SCALE
        sigma = state.volatility
        if not games:  # step 6 alone: the deviation grows, nothing else moves
            phi_star = math.sqrt(phi * phi + sigma * sigma)
            return msgspec.structs.replace(state, rd=phi_star * GLICKO_SCALE, last_at=at)
        v_inverse = 0.0
        delta_sum = 0.0
        for opponent, result in games:
            assert opponent.rd is not None
            mu_j = (opponent.rating - _GLICKO_CENTER) / GLICKO_SCALE
            phi_j = opponent.rd / GLICKO_SCALE
            g = 1.0 / math.sqrt(1.0 + 3.0 * phi_j * phi_j / (math.pi * math.pi))
            expected = 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))
            v_inverse += g * g * expected * (1.0 - expected)
            delta_sum += g * (result - expected)
        v = 1.0 / v_inverse
        delta = v * delta_sum
        sigma_new = self._volatility(phi, sigma, v, delta)
        phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
        phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
        mu_new = mu + phi_new * phi_new * delta_sum
        return RatingState(
            rating=GLICKO_SCALE * mu_new + _GLICKO_CENTER,
            games=state.games + 1,
            rd=GLICKO_SCALE * phi_new,
            volatility=sigma_new,
            last_at=at,
        )

    def _volatility(self, phi: float, sigma: float, v: float, delta: float) -> float:
        """Step 5: the new volatility by the Illinois algorithm."""
        tau = self.params.tau
        a = math.log(sigma * sigma)

        def f(x: float) -> float:
            ex = math.exp(x)
            top = ex * (delta * delta - phi * phi - v - ex)
            bottom = 2.0 * (phi * phi + v + ex) ** 2
            return top / bottom - (x - a) / (tau * tau)

        big_a = a
        if delta * delta > phi * phi + v:
            big_b = math.log(delta * delta - phi * phi - v)
        else:
            k = 1
            while f(a - k * tau) < 0:
                k += 1
            big_b = a - k * tau
        f_a, f_b = f(big_a), f(big_b)
        while abs(big_b - big_a) > _VOLATILITY_EPSILON:
            big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
            f_c = f(big_c)
            if f_c * f_b <= 0:
                big_a, f_a = big_b, f_b
            else:
                f_a /= 2.0
            big_b, f_b = big_c, f_c
        return math.exp(big_a / 2.0)

    def provisional(self, state: RatingState) -> bool:
        return state.rd is not None and state.rd > self.params.provisional_rd

    def public(self, state: RatingState) -> dict[str, Any]:
        return {
            "rating": state.rating,
            "rd": state.rd,
            "volatility": state.volatility,
            "games": state.games,
        }


# --- OpenSkill ------------------------------------------------------------------------------

OPENSKILL_MODELS = {
    "plackett_luce": "PlackettLuce",
    "bradley_terry_full": "BradleyTerryFull",
    "bradley_terry_part": "BradleyTerryPart",
    "thurstone_mosteller_full": "ThurstoneMostellerFull",
    "thurstone_mosteller_part": "ThurstoneMostellerPart",
}


OPENSKILL_NEEDS = (
    "rating.system openskill needs the openskill extra: pip install 'rankline[openskill]'"
)
"""The ``openskill`` library is the extra of that name, not part of the core."""


def openskill_installed() -> bool:
    """Whether the ``openskill`` library can be imported (it is not imported here)."""
    try:
        return importlib.util.find_spec("openskill") is not None
    except ImportError:  # refused by an import hook
        return False


class OpenSkillParams(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    system: str = "openskill"
    model: str = "plackett_luce"
    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    scale: float = 100.0
    provisional_sigma: float = 4.0


class OpenSkill:
    """The ``openskill`` package's models (Weng-Lin), with teams. The displayed rating is the
    ordinal mu - 3·sigma times ``scale``; equal places are draws."""

    name = "openskill"

    def __init__(self, params: OpenSkillParams) -> None:
        try:
            from openskill import models
        except ImportError:  # a board stored before the extra was removed
            raise ExtraMissing(
                f"{OPENSKILL_NEEDS}; until then its ratings are not updated"
            ) from None

        self.params = params
        model = getattr(models, OPENSKILL_MODELS[params.model])
        self._model = model(mu=params.mu, sigma=params.sigma)

    def _state(self, mu: float, sigma: float, games: int, at: Micros | None) -> RatingState:
        rating = (mu - 3.0 * sigma) * self.params.scale
        return RatingState(rating=rating, games=games, mu=mu, sigma=sigma, last_at=at)

    def initial(self) -> RatingState:
        return self._state(self.params.mu, self.params.sigma, 0, None)

    def aged(self, state: RatingState, at: Micros) -> RatingState:
        return state

    def rate(
        self,
        states: Sequence[RatingState],
        places: Sequence[int],
        teams: Sequence[str | None],
        at: Micros,
    ) -> list[RatingState]:
        groups: dict[object, list[int]] = {}
        for i, team in enumerate(teams):
            groups.setdefault(("team", team) if team is not None else ("solo", i), []).append(i)
        members = list(groups.values())
        if len(members) < 2:
            return [msgspec.structs.replace(s, last_at=at) for s in states]
        model = self._model
        rated_teams = [
            [model.rating(mu=states[i].mu, sigma=states[i].sigma) for i in group]
            for group in members
        ]
        ranks = [min(places[i] for i in group) for group in members]
        new = model.rate(rated_teams, ranks=ranks)
        out: list[RatingState | None] = [None] * len(states)
        for group, team_ratings in zip(members, new, strict=True):
            for i, r in zip(group, team_ratings, strict=True):
                out[i] = self._state(float(r.mu), float(r.sigma), states[i].games + 1, at)
        return [s for s in out if s is not None]

    def provisional(self, state: RatingState) -> bool:
        return state.sigma is not None and state.sigma > self.params.provisional_sigma

    def public(self, state: RatingState) -> dict[str, Any]:
        return {"rating": state.rating, "mu": state.mu, "sigma": state.sigma, "games": state.games}


# --- definitions ----------------------------------------------------------------------------

_PARAMS: dict[str, type[EloParams] | type[Glicko2Params] | type[OpenSkillParams]] = {
    "elo": EloParams,
    "glicko2": Glicko2Params,
    "openskill": OpenSkillParams,
}
RATING_SYSTEMS = tuple(_PARAMS)


def check_rating(rating: dict[str, Any] | None) -> dict[str, Any]:
    """A board's ``rating`` validated, with every default filled in; InvalidInput if bad."""
    system = (rating or {}).get("system")
    if system not in _PARAMS:
        raise InvalidInput.at(
            ["body", "rating", "system"], f"rating.system must be one of {RATING_SYSTEMS}"
        )
    try:
        params = msgspec.convert(rating, _PARAMS[system])
    except msgspec.ValidationError as exc:
        raise InvalidInput.at(["body", "rating"], str(exc)) from None
    _check_params(params)
    if isinstance(params, OpenSkillParams) and not openskill_installed():
        raise InvalidInput.at(["body", "rating", "system"], OPENSKILL_NEEDS)
    return msgspec.to_builtins(params)  # type: ignore[no-any-return]


def _check_params(params: EloParams | Glicko2Params | OpenSkillParams) -> None:
    positive: list[str] = []
    if isinstance(params, EloParams):
        positive = ["k"]
        if params.provisional_games < 0:
            positive.append("provisional_games")
    elif isinstance(params, Glicko2Params):
        positive = ["rd", "volatility", "tau"]
        if params.rd_per_day < 0 or params.provisional_rd < 0:
            raise InvalidInput.at(["body", "rating"], "rd_per_day and provisional_rd are >= 0")
    else:
        positive = ["sigma", "scale"]
        if params.model not in OPENSKILL_MODELS:
            raise InvalidInput.at(
                ["body", "rating", "model"], f"model must be one of {tuple(OPENSKILL_MODELS)}"
            )
    for name in positive:
        value = getattr(params, name)
        if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
            raise InvalidInput.at(["body", "rating", name], f"{name} must be positive")
    for name, value in msgspec.structs.asdict(params).items():
        if isinstance(value, float) and not math.isfinite(value):
            raise InvalidInput.at(["body", "rating", name], f"{name} must be finite")


def check_available(rating: dict[str, Any]) -> None:
    """ExtraMissing when the system a stored board ``rating`` names is not installed."""
    if rating.get("system") == "openskill" and not openskill_installed():
        raise ExtraMissing(f"{OPENSKILL_NEEDS}; until then its ratings are not updated")


def system_of(rating: dict[str, Any]) -> RatingSystem:
    """The system a (checked) board ``rating`` names."""
    params = msgspec.convert(rating, _PARAMS[rating["system"]])
    if isinstance(params, EloParams):
        return Elo(params)
    if isinstance(params, Glicko2Params):
        return Glicko2(params)
    return OpenSkill(params)


__all__ = [
    "RATING_SYSTEMS",
    "Elo",
    "Glicko2",
    "OpenSkill",
    "RatingState",
    "RatingSystem",
    "check_available",
    "check_rating",
    "score_of",
    "system_of",
]
