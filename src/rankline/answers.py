"""The answers of the service, as typed values: what every read and write returns.

The service's methods return these Structs; the HTTP edge encodes them once (msgspec), and
the OpenAPI document is generated from the same types, so what is documented is what is
sent. A field with a default is left out of the JSON while it holds that default
(``omit_defaults``): ``display_name`` for a player without one, ``degraded`` and
``archived`` unless they are true, ``reason`` of an applied standing. A field without a
default is always sent, null included.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

Time = Annotated[str, Meta(description="RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z")]


class Answer(msgspec.Struct, omit_defaults=True, kw_only=True):
    """The base of every answer."""


# --- leaderboard reads ---------------------------------------------------------------------


class Entry(Answer, kw_only=True):
    rank: int
    player_id: str
    score: int
    achieved_at: Time
    subscore: int | None = None
    """The entry's subscore, on a board that has one (omitted on others)."""
    display_name: str | None = None
    tier: str | None = None
    """The board's first tier whose rule the entry's rank meets (omitted when none)."""
    dense_rank: int | None = None
    """1 + the count of distinct scores better than the entry's (ties share it: 1, 2, 2, 3);
    only on boards with ``dense_rank``."""
    metadata: dict[str, Any] | None = None
    """The metadata of the submission that set the entry, when the read asks for it
    (``metadata=true``) or the board has ``entry_metadata`` (``{}`` when it had none)."""


class FriendEntry(Entry, kw_only=True):
    friends_rank: int


class PlayerStanding(Answer, kw_only=True):
    player_id: str
    score: int
    rank: int
    competition_rank: int
    percentile: float
    achieved_at: Time
    subscore: int | None = None
    """The entry's subscore, on a board that has one (omitted on others)."""
    display_name: str | None = None
    tier: str | None = None
    dense_rank: int | None = None
    """1 + the count of distinct scores better than the entry's (ties share it: 1, 2, 2, 3);
    only on boards with ``dense_rank``."""
    previous_rank: int | None
    """The player's rank just before their last applied change (null for a first entry, or
    when not known)."""
    best_rank: int | None
    """The best rank the player held in this period, just before or after any of their
    changes and now (null when not known, as after the index was rebuilt)."""
    metadata: dict[str, Any] | None = None
    """The metadata of the submission that set the entry, when the read asks for it
    (``metadata=true``) or the board has ``entry_metadata`` (``{}`` when it had none)."""


class FriendPlayer(PlayerStanding, kw_only=True):
    friends_rank: int


class Head(Answer, kw_only=True):
    """What every leaderboard read starts with."""

    board: str
    window: str
    period: str
    scope: str
    total: int
    as_of: Time
    period_ends_at: Time | None
    """When the period ends (null for all_time)."""
    closes_at: Time | None
    """When the period stops taking submissions: its end plus the board's grace (null for
    all_time)."""
    degraded: bool = False
    """True when the ranking index could not answer and SQL did (exact, slower)."""
    archived: bool = False
    """True when the period's live leaderboard expired and its archive answered."""


class TopHead(Head, kw_only=True):
    """A top page without its entries: the top cache appends them as ready bytes."""

    tier: str | None = None
    """The tier the page was cut from (``?tier=``)."""
    tier_total: int | None = None
    """How many entries that tier holds."""
    next: str | None = None
    """A cursor for the entries after this page's last (``?cursor=``); absent on the last
    page."""
    taken_at: Time | None = None
    """With ``?at=``: when the snapshot answering was taken (``as_of`` says the same and
    ``total`` is the leaderboard's then)."""


class TopOut(TopHead, kw_only=True):
    entries: list[Entry]


class SnapshotOut(Answer, kw_only=True):
    taken_at: Time
    total: int
    """The leaderboard's total when the snapshot was taken."""
    entries: int
    """How many entries the snapshot holds (the board's ``k``, or fewer)."""


class SnapshotsOut(Answer, kw_only=True):
    board: str
    window: str
    period: str
    scope: str
    snapshots: list[SnapshotOut]
    """Newest first."""


class PlayerOut(Head, kw_only=True):
    """``PlayerStanding``'s fields after the head (a Struct has one base with fields)."""

    player_id: str
    score: int
    rank: int
    competition_rank: int
    percentile: float
    achieved_at: Time
    subscore: int | None = None
    """The entry's subscore, on a board that has one (omitted on others)."""
    display_name: str | None = None
    tier: str | None = None
    dense_rank: int | None = None
    previous_rank: int | None
    best_rank: int | None
    metadata: dict[str, Any] | None = None
    """The metadata of the submission that set the entry, when the read asks for it
    (``metadata=true``) or the board has ``entry_metadata`` (``{}`` when it had none)."""


class AroundOut(Head, kw_only=True):
    player: PlayerStanding
    entries: list[Entry]


class FriendsOut(Head, kw_only=True):
    player: FriendPlayer | None
    friends_total: int
    entries: list[FriendEntry]


class RanksOut(Head, kw_only=True):
    entries: list[Entry]


class RankOfOut(Head, kw_only=True):
    """Where an entry with ``score`` would rank if it were submitted now: after every entry
    with that score so far, before any that reaches it later."""

    score: int
    rank: int
    competition_rank: int
    percentile: float
    tier: str | None = None
    """The tier that rank would be in, with the new entry counted."""
    dense_rank: int | None = None
    """The dense rank that score would get (on boards with ``dense_rank``)."""
    subscore: int | None = None
    """The subscore asked about, on a board that has one."""


class PeriodOut(Answer, kw_only=True):
    window: str
    period: str
    starts_at: Time | None
    ends_at: Time | None
    state: str
    total: int


class PeriodsOut(Answer, kw_only=True):
    board: str
    as_of: Time
    periods: list[PeriodOut]
    degraded: bool = False
    archived: bool = False


# --- writes ------------------------------------------------------------------------------


class StandingOut(Answer, kw_only=True):
    window: str
    period: str
    scope: str
    score: int | None
    rank: int | None
    applied: bool
    reason: str | None = None
    subscore: int | None = None
    """The standing's subscore, on a board that has one."""


class SubmitOut(Answer, kw_only=True):
    player_id: str
    match_id: str
    applied: bool
    duplicate: bool
    previous_score: int | None
    score: int | None
    standings: list[StandingOut]
    previous_subscore: int | None = None
    subscore: int | None = None
    """With ``previous_subscore``: the subscores beside ``score`` and ``previous_score``,
    on a board that has one."""


# --- players ------------------------------------------------------------------------------


class ProfileOut(Answer, kw_only=True):
    player_id: str
    display_name: str | None
    avatar_url: str | None
    country: str | None
    metadata: dict[str, Any]


class ProfileStandingOut(Answer, kw_only=True):
    board: str
    window: str
    period: str
    scope: str
    score: int
    rank: int | None
    subscore: int | None = None
    """On a board with a subscore."""


class PlayerProfileOut(ProfileOut, kw_only=True):
    """The profile and the player's standings in every board's current periods (``rank``
    is null while the player is banned)."""

    banned: bool
    standings: list[ProfileStandingOut]
    degraded: bool = False


class HistoryItemOut(Answer, kw_only=True):
    board: str
    match_id: str
    score: int
    at: Time
    received_at: Time
    applied: bool
    subscore: int | None = None
    """On a board with a subscore (left out on the others)."""


class HistoryOut(Answer, kw_only=True):
    player_id: str
    items: list[HistoryItemOut]
    next_cursor: str | None


class FriendListOut(Answer, kw_only=True):
    player_id: str
    friends: list[str]


class BanOut(Answer, kw_only=True):
    player_id: str
    banned: bool
    banned_at: Time | None


__all__ = [
    "Answer",
    "AroundOut",
    "BanOut",
    "Entry",
    "FriendEntry",
    "FriendListOut",
    "FriendPlayer",
    "FriendsOut",
    "Head",
    "HistoryItemOut",
    "HistoryOut",
    "PeriodOut",
    "PeriodsOut",
    "PlayerOut",
    "PlayerProfileOut",
    "PlayerStanding",
    "ProfileOut",
    "ProfileStandingOut",
    "RankOfOut",
    "RanksOut",
    "SnapshotOut",
    "SnapshotsOut",
    "StandingOut",
    "SubmitOut",
    "TopHead",
    "TopOut",
]
