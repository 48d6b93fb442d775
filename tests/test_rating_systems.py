"""The rating systems in-process: Glickman's worked example, textbook Elo, OpenSkill's own
results, the rounding of the displayed rating, inactivity and the parameter checks."""

from __future__ import annotations

import math
from typing import Any

import pytest
from openskill.models import BradleyTerryFull, PlackettLuce

from helpers_rating_reference import Glicko2Reference
from rankline.errors import InvalidInput
from rankline.rating import RatingState, check_rating, score_of, system_of

DAY = 86_400_000_000


def _glicko(**params: Any) -> Any:
    return system_of(check_rating({"system": "glicko2", **params}))


def test_glickman_worked_example() -> None:
    """Glickman, "Example of the Glicko-2 system": a 1500/200/0.06 player beats a 1400/30 and
    loses to a 1550/100 and a 1700/300 (tau 0.5): 1464.06, RD 151.52, volatility 0.05999. The
    paper rounds its intermediate values; the exact computation gives 1464.0507."""
    system = _glicko(tau=0.5)
    states = [
        RatingState(rating=1500, rd=200, volatility=0.06),
        RatingState(rating=1400, rd=30, volatility=0.06),
        RatingState(rating=1550, rd=100, volatility=0.06),
        RatingState(rating=1700, rd=300, volatility=0.06),
    ]
    # one match, one rating period: the player placed 3rd, above the 1400 and below the others
    player = system.rate(states, [3, 4, 2, 1], [None] * 4, 0)[0]
    assert abs(player.rating - 1464.06) < 0.01
    assert round(player.rd, 2) == 151.52
    assert abs(player.volatility - 0.05999) < 0.00001  # the paper truncates 0.059996
    reference = Glicko2Reference(1500, 200, 0.06, tau=0.5)
    reference.update_player([1400, 1550, 1700], [30, 100, 300], [1, 0, 0])
    assert math.isclose(player.rating, reference.rating, rel_tol=1e-12)
    assert math.isclose(player.rd, reference.rd, rel_tol=1e-12)
    assert math.isclose(player.volatility, reference.vol, rel_tol=1e-9)


def test_elo_textbook() -> None:
    system = system_of(check_rating({"system": "elo", "k": 32}))
    a, b = RatingState(rating=1600), RatingState(rating=1400)
    a2, b2 = system.rate([a, b], [2, 1], [None, None], 0)
    expected_a = 1 / (1 + 10 ** ((1400 - 1600) / 400))
    assert a2.rating == 1600 + 32 * (0 - expected_a)
    assert b2.rating == 1400 + 32 * (1 - (1 - expected_a))
    draw = system.rate([a, b], [1, 1], [None, None], 0)
    assert draw[0].rating == 1600 + 32 * (0.5 - expected_a)
    assert (a2.games, b2.games) == (1, 1)


def test_elo_teams_play_the_other_team() -> None:
    system = system_of(check_rating({"system": "elo", "k": 20}))
    s = [RatingState(rating=r) for r in (1500, 1500, 1700, 1300)]
    out = system.rate(s, [1, 1, 2, 2], ["x", "x", "y", "y"], 0)

    def delta(i: int, opponents: list[int], result: float) -> float:
        return (
            sum(result - 1 / (1 + 10 ** ((s[j].rating - s[i].rating) / 400)) for j in opponents)
            * 20
            / len(opponents)
        )

    assert out[0].rating == 1500 + delta(0, [2, 3], 1.0)
    assert out[2].rating == 1700 + delta(2, [0, 1], 0.0)


@pytest.mark.parametrize(
    "model, library", [("plackett_luce", PlackettLuce), ("bradley_terry_full", BradleyTerryFull)]
)
def test_openskill_is_the_librarys(model: str, library: Any) -> None:
    system = system_of(check_rating({"system": "openskill", "model": model}))
    lib = library(mu=25.0, sigma=25.0 / 3)
    states = [system.initial() for _ in range(3)]
    out = system.rate(states, [2, 1, 3], ["a", "b", "c"], 0)
    expected = lib.rate([[lib.rating()], [lib.rating()], [lib.rating()]], ranks=[2, 1, 3])
    for got, [want] in zip(out, expected, strict=True):
        assert (got.mu, got.sigma) == (want.mu, want.sigma)
        assert got.rating == (want.mu - 3 * want.sigma) * 100


def test_displayed_rating_rounds_half_away_from_zero() -> None:
    assert [score_of(RatingState(rating=r)) for r in (1516.5, 1516.49, -2.5, -2.4, 0.0)] == [
        1517,
        1516,
        -3,
        -2,
        0,
    ]


def test_glicko2_deviation_grows_while_idle() -> None:
    system = _glicko(rd_per_day=10, rd=350)
    state = RatingState(rating=1500, rd=60, volatility=0.06, last_at=0)
    assert system.aged(state, 0).rd == 60
    assert system.aged(state, 9 * DAY).rd == pytest.approx(math.sqrt(60**2 + 100 * 9))
    assert system.aged(state, 100_000 * DAY).rd == 350  # never above the initial deviation
    assert _glicko().aged(state, 9 * DAY).rd == 60  # rd_per_day 0: no growth


def test_provisional_rules() -> None:
    glicko = _glicko(provisional_rd=110)
    assert glicko.provisional(RatingState(rating=1500, rd=111, volatility=0.06))
    assert not glicko.provisional(RatingState(rating=1500, rd=110, volatility=0.06))
    elo = system_of(check_rating({"system": "elo", "provisional_games": 3}))
    assert elo.provisional(RatingState(rating=1500, games=2))
    assert not elo.provisional(RatingState(rating=1500, games=3))
    skill = system_of(check_rating({"system": "openskill", "provisional_sigma": 5}))
    assert skill.provisional(RatingState(rating=0, mu=25, sigma=5.1))
    assert not skill.provisional(RatingState(rating=0, mu=25, sigma=5.0))


def test_defaults_are_filled_in() -> None:
    assert check_rating({"system": "glicko2"}) == {
        "system": "glicko2",
        "initial": 1500.0,
        "rd": 350.0,
        "volatility": 0.06,
        "tau": 0.5,
        "provisional_rd": 110.0,
        "rd_per_day": 0.0,
    }
    assert check_rating({"system": "elo"})["k"] == 32.0


@pytest.mark.parametrize(
    "rating",
    [
        None,
        {"system": "trueskill"},
        {"system": "elo", "k": 0},
        {"system": "elo", "k": "32"},
        {"system": "elo", "kk": 32},
        {"system": "glicko2", "tau": -1},
        {"system": "openskill", "model": "nope"},
    ],
)
def test_bad_parameters_are_refused(rating: Any) -> None:
    with pytest.raises(InvalidInput):
        check_rating(rating)
