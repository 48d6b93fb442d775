"""Ratings recomputed from the stored matches alone, in their serial order.

The applier numbers each board's matches 1, 2, … as it rates them (``rankline.ratings.rated``) and
stores which periods each was rated on. ``recompute`` starts every player from the system's
initial state and rates the matches again in that order with the same code; since the
computation is deterministic floating point, the states it reaches are the stored ones to the
last digit. ``verify`` compares them (``rankline ratings verify``: ``verify_boards``).

    report = await verify(RatingStore(store), board)
    assert report.identical
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import msgspec

from rankline.boards import Board
from rankline.errors import InvalidInput
from rankline.fanout import FanOut
from rankline.rating import RatingState, score_of, system_of
from rankline.ratings.rated import MatchPayload, MatchPlayer, rate_match, state_text
from rankline.settings import Settings
from rankline.store.definitions import stored_boards
from rankline.store.opening import open_store
from rankline.store.ratings import RatingRow, RatingStore, Rerated, StateKey
from rankline.store.sql import SqlStore

_results = msgspec.json.Decoder(list[MatchPlayer])


@dataclass
class VerifyReport:
    board: str
    matches: int = 0
    states: int = 0
    differing: list[StateKey] = field(default_factory=list)
    """States whose stored value differs from the recomputed one (or exists on one side)."""

    @property
    def identical(self) -> bool:
        return not self.differing


async def recompute(ratings: RatingStore, board: Board) -> dict[StateKey, str]:
    """Every player's state on every period of ``board``, from its matches in serial order
    (JSON, as stored)."""
    if board.spec.rating is None:
        raise InvalidInput(f"board {board.id!r} is not a rating board")
    system = system_of(board.spec.rating)
    periods = await ratings.match_periods(board.id)
    states: dict[StateKey, RatingState] = {}
    for stored in await ratings.matches(board.id):
        match = MatchPayload(
            stored.match_id, stored.at, stored.received_at, True, _results.decode(stored.results)
        )
        for window, period in periods.get(stored.seq, []):
            keys = [(window, period, p.player) for p in match.results]
            before = [states.get(key) or system.initial() for key in keys]
            states.update(zip(keys, rate_match(system, before, match), strict=True))
    return {key: state_text(state) for key, state in states.items()}


async def rerate_without(ratings: RatingStore, board: Board, without: set[str]) -> Rerated:
    """Rate the board's matches again in their serial order, leaving out the ``without``
    match ids, on the periods each was rated on: every rating after a left-out match is
    recomputed, with the same code and order as ``recompute``."""
    if board.spec.rating is None:
        raise InvalidInput(f"board {board.id!r} is not a rating board")
    system = system_of(board.spec.rating)
    periods = await ratings.match_periods(board.id)
    states: dict[StateKey, RatingState] = {}
    texts: dict[StateKey, str] = {}
    done = Rerated()
    fanout = FanOut()
    for stored in await ratings.matches(board.id):
        done.last_seq = stored.seq
        if stored.match_id in without:
            continue
        results = _results.decode(stored.results)
        match = MatchPayload(stored.match_id, stored.at, stored.received_at, True, results)
        rated_on = periods.get(stored.seq, [])
        for window, period in rated_on:
            keys = [(window, period, p.player) for p in results]
            before = [states.get(key) or system.initial() for key in keys]
            after = rate_match(system, before, match)
            for key, new, p in zip(keys, after, results, strict=True):
                previous = texts.get(key) or state_text(system.initial())
                texts[key] = state_text(new)
                states[key] = new
                done.ratings.append(
                    RatingRow(
                        board.id,
                        stored.match_id,
                        p.player,
                        window,
                        period,
                        stored.seq,
                        stored.at,
                        p.place,
                        previous,
                        texts[key],
                        system.provisional(new),
                    )
                )
        open_periods = set(rated_on)
        for p in results:
            for target in fanout.targets(board, stored.at, p.scopes, stored.received_at):
                lb = target.leaderboard
                if (lb.window, lb.period) not in open_periods:
                    continue
                new = states[lb.window, lb.period, p.player]
                done.entries[lb, p.player] = (
                    None if system.provisional(new) else (score_of(new), stored.at)
                )
    done.states = texts
    return done


async def verify(ratings: RatingStore, board: Board) -> VerifyReport:
    """Whether the stored rating states are what the stored matches give."""
    again = await recompute(ratings, board)
    stored = await ratings.states(board.id)
    report = VerifyReport(board.id, len(await ratings.match_periods(board.id)), len(stored))
    report.differing = sorted(
        k for k in again.keys() | stored.keys() if again.get(k) != stored.get(k)
    )
    return report


async def verify_boards(
    store: SqlStore, board_ids: Sequence[str] | None = None
) -> list[VerifyReport]:
    """``verify`` of every rating board in ``store`` (or of the boards named: ``NotFound``
    names one that does not exist, ``InvalidInput`` one that is not a rating board)."""
    if board_ids:
        chosen = list((await stored_boards(store, board_ids)).values())
    else:
        chosen = [b for b in (await stored_boards(store)).values() if b.policy == "rating"]
    ratings = RatingStore(store)
    return [await verify(ratings, board) for board in sorted(chosen, key=lambda b: b.id)]


async def verify_store(
    settings: Settings, board_ids: Sequence[str] | None = None
) -> list[VerifyReport]:
    """``rankline ratings verify``: ``verify_boards`` on the durable store the settings name,
    which must be migrated (this only reads)."""
    async with open_store(settings, schema="current") as store:
        return await verify_boards(store, board_ids)


__all__ = [
    "Rerated",
    "VerifyReport",
    "recompute",
    "rerate_without",
    "verify",
    "verify_boards",
    "verify_store",
]
