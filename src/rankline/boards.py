"""Board definitions: what a board is, how it validates, and where a submission fans out."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import msgspec
from msgspec import Meta

from rankline.client_writes import ClientWritesSpec, check_client_writes, client_writes_shown
from rankline.cron import CronWindow, check_cron
from rankline.errors import Conflict, InvalidInput
from rankline.ordering import SCORE_MAX, SCORE_MIN, Keys
from rankline.periods import (
    Calendar,
    Period,
    Schedule,
    Season,
    Seasons,
    parse_period,
    period_at,
)
from rankline.rating import check_rating
from rankline.runtime.clock import format_time, parse_time
from rankline.types import GLOBAL_SCOPE, LeaderboardId, Micros, Order, Policy, Window

# `(?!\n)$`: Python's `$` also matches before a trailing newline; JSON Schema's does not.
BOARD_ID_PATTERN = r"^[a-z0-9][a-z0-9_.-]{0,63}(?!\n)$"
PLAYER_ID_PATTERN = r"^[A-Za-z0-9_.:@-]{1,64}(?!\n)$"
MATCH_ID_PATTERN = r"^[\x21-\x7e]{1,128}(?!\n)$"
DIMENSION_PATTERN = r"^[a-z][a-z0-9_]{0,31}(?!\n)$"
SCOPE_VALUE_PATTERN = r"^[A-Za-z0-9_.:@-]{1,64}(?!\n)$"
SEASON_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}(?!\n)$"
TIER_NAME_PATTERN = r"^[a-z][a-z0-9_-]{0,31}(?!\n)$"
WINDOW_ID_PATTERN = r"^[a-z][a-z0-9_-]{0,15}(?!\n)$"
TIMEZONE_PATTERN = r"^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*(?!\n)$"
DEFAULT_CRON_RETENTION_DAYS = 7
ZONED_WINDOWS = ("daily", "weekly", "monthly")
MAX_TIERS = 16

Score64 = Annotated[int, Meta(ge=SCORE_MIN, le=SCORE_MAX)]
DEFAULT_RETENTION_DAYS = {"daily": 7, "weekly": 30, "monthly": 90, "season": 365}
DEFAULT_GRACE_SECONDS = 300
MAX_SHARDS = 64


class SeasonSpec(msgspec.Struct, forbid_unknown_fields=True):
    id: Annotated[str, Meta(pattern=SEASON_ID_PATTERN)]
    start: str
    end: str


Days = Annotated[int, Meta(ge=0, le=36500)]


class RetentionDays(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """How many days a closed period stays live, per window (defaults apply where unset)."""

    daily: Days | None = None
    weekly: Days | None = None
    monthly: Days | None = None
    season: Days | None = None


class TierSpec(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """A tier: the entries ranked in the top ``top_percent`` percent of the leaderboard
    (rank <= ceil(total * top_percent / 100)), or in the first ``top_rank``; exactly one of
    the two."""

    name: Annotated[str, Meta(pattern=TIER_NAME_PATTERN)]
    top_percent: Annotated[float, Meta(gt=0, le=100)] | None = None
    top_rank: Annotated[int, Meta(ge=1, le=2**62)] | None = None


class ScheduleSpec(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Recurring editions in place of seasons: the first runs from ``starts_at`` to
    ``ends_at``, the next ``every_seconds`` later (none without it)."""

    starts_at: str
    ends_at: str
    every_seconds: Annotated[int, Meta(ge=1, le=366 * 86_400)] | None = None


TimeZone = Annotated[str, Meta(pattern=TIMEZONE_PATTERN, max_length=64)]
"""An IANA time zone name (``Europe/Paris``), as zoneinfo knows it."""


class WindowSpec(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """A window given as an object in ``windows``: ``{"id": "daily", "timezone": ...}`` sets
    the time zone of a calendar window (``daily``, ``weekly``, ``monthly``);
    ``{"id": "friday-event", "cron": "0 18 * * FRI", "timezone": ...}`` is a cron window,
    whose periods run from one firing to the next (``rankline.cron``)."""

    id: Annotated[str, Meta(pattern=WINDOW_ID_PATTERN)]
    cron: Annotated[str, Meta(max_length=200)] | None = None
    timezone: TimeZone | None = None
    retention_days: Days | None = None
    """A cron window's: how many days a closed period stays live (default 7)."""


DEFAULT_WEBHOOK_TOP = 100
MAX_WEBHOOK_TOP = 1000


class BoardWebhookSpec(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Where each closed leaderboard's final top is posted, signed with ``secret`` (shown
    without it)."""

    url: Annotated[str, Meta(pattern=r"^https?://", max_length=2000)]
    secret: Annotated[str, Meta(min_length=1, max_length=500)] | None = None
    """Required on PUT; never shown."""
    top: Annotated[int, Meta(ge=1, le=MAX_WEBHOOK_TOP)] = DEFAULT_WEBHOOK_TOP


class SnapshotSpec(msgspec.Struct, forbid_unknown_fields=True):
    """The top ``k`` of each live leaderboard, stored every ``every_seconds`` and kept
    ``keep_days`` (``rankline.lifecycle.snapshots``)."""

    every_seconds: Annotated[int, Meta(ge=10, le=86_400)] = 60
    k: Annotated[int, Meta(ge=1, le=1000)] = 100
    keep_days: Annotated[int, Meta(ge=1, le=3660)] = 7


COHORT_SCOPE = "cohort"
"""The scope dimension of cohorts, on boards with ``cohort_size``."""


class BoardSpec(msgspec.Struct, forbid_unknown_fields=True):
    """A board definition, as PUT and GET carry it."""

    id: Annotated[str, Meta(pattern=BOARD_ID_PATTERN)] | None = None
    title: Annotated[str, Meta(max_length=200)] | None = None
    order: Order = "desc"
    policy: Policy = "best"
    windows: list[Window | WindowSpec] = msgspec.field(default_factory=lambda: ["all_time"])
    timezone: TimeZone | None = None
    """Daily, weekly and monthly periods turn over at local midnight in this IANA zone (UTC
    when none); a window's own ``timezone`` wins. Fixed once the board has entries."""
    seasons: list[SeasonSpec] = msgspec.field(default_factory=list)
    scopes: Annotated[list[Annotated[str, Meta(pattern=DIMENSION_PATTERN)]], Meta(max_length=8)] = (
        msgspec.field(default_factory=list)
    )
    retention_days: RetentionDays = msgspec.field(default_factory=RetentionDays)
    grace_seconds: Annotated[int, Meta(ge=0, le=31 * 86_400)] = DEFAULT_GRACE_SECONDS
    min_score: Score64 | None = None
    max_score: Score64 | None = None
    status: Literal["active", "frozen"] = "active"
    rating: dict[str, Any] | None = None
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    webhook: BoardWebhookSpec | None = None
    """Each leaderboard's closed period (after grace) is posted there once, with its final
    top ``top`` entries as archived (``rankline.store.deliveries``). May change at any
    time; a GET shows it without its secret."""
    shards: Annotated[int, Meta(ge=1, le=MAX_SHARDS)] = 1
    """How many parts each leaderboard is split into by player (a Redis Cluster keeps them
    on different nodes); every read answers the same whatever the count."""
    tiers: Annotated[list[TierSpec], Meta(max_length=MAX_TIERS)] = msgspec.field(
        default_factory=list
    )
    """Named bands of the ranking, checked in order (the first that holds names an entry's
    tier); may change at any time."""
    dense_rank: bool = False
    """Entries and player views also carry ``dense_rank`` (1, 2, 2, 3): the index keeps the
    distinct scores of each leaderboard beside it. Fixed once the board has entries; not
    with ``shards`` above 1."""
    cohort_size: Annotated[int, Meta(ge=1, le=1_000_000)] | None = None
    """Players per cohort: a player's first submission in a period of the board's first
    window puts them in the newest cohort with room (``rankline.writing.cohorts``)."""
    schedule: ScheduleSpec | None = None
    """Numbered editions as the ``season`` window's periods (what backs a tournament)."""
    subscore: Order | None = None
    """A second number that orders equal scores (``desc``: higher first), before the time;
    submissions then carry one. Fixed once the board has entries."""
    entry_metadata: bool = False
    """Every read's entries carry the metadata of the submission that set them, as with
    ``metadata=true`` on the read; may change at any time."""
    snapshots: SnapshotSpec | None = None
    """Top-K snapshots by time (``GET …/top?at=``, ``GET …/snapshots``); may change at any
    time."""
    client_writes: ClientWritesSpec | None = None
    """Players may submit their own scores here, with their tokens, within its limits and
    behind its validator; without it only keys write (server-authoritative). May change at
    any time; a GET shows it without the validator's secret."""


@dataclass(frozen=True, slots=True)
class Target:
    """One leaderboard a submission lands on; ``closed`` when its period is final."""

    leaderboard: LeaderboardId
    period: Period
    closed: bool


def _bad(loc: list[str | int], msg: str) -> InvalidInput:
    return InvalidInput.at(["body", *loc], msg)


class Board:
    """A validated board definition with what the write and read paths need from it."""

    __slots__ = (
        "calendar",
        "dense",
        "id",
        "keys",
        "order",
        "policy",
        "retention_days",
        "seasons",
        "shards",
        "spec",
        "tiers",
        "windows",
    )

    def __init__(self, spec: BoardSpec) -> None:
        assert spec.id is not None
        self.spec = spec
        self.id: str = spec.id
        self.order: Order = spec.order
        self.policy: Policy = spec.policy
        self.shards: int = spec.shards
        self.dense: bool = spec.dense_rank
        self.keys = Keys(spec.order, spec.subscore)
        """How this board's entries become ordering keys (with the subscore, if any)."""
        self.tiers = tuple(
            (t.name, None if t.top_percent is None else Fraction(repr(t.top_percent)), t.top_rank)
            for t in spec.tiers
        )
        """(name, top percent as an exact fraction or None, top rank or None) per tier."""
        self.seasons: Seasons = (
            _schedule(spec.schedule)
            if spec.schedule is not None
            else tuple(_season(s, i) for i, s in enumerate(spec.seasons))
        )
        windows: list[str] = list(dict.fromkeys(_window_id(w) for w in spec.windows))
        if self.seasons and "season" not in windows:
            windows.append("season")
        self.windows = tuple(windows)
        given = msgspec.structs.asdict(spec.retention_days)
        self.retention_days: dict[str, int] = {
            window: days if (days := given[window]) is not None else default
            for window, default in DEFAULT_RETENTION_DAYS.items()
        }
        self.calendar = _calendar(spec, self.seasons)
        """Where the board's periods fall in time: seasons, time zones, cron windows."""
        for window in spec.windows:
            if isinstance(window, WindowSpec) and window.cron is not None:
                days = window.retention_days
                self.retention_days[window.id] = (
                    DEFAULT_CRON_RETENTION_DAYS if days is None else days
                )

    @classmethod
    def define(cls, board_id: str, spec: BoardSpec) -> Board:
        """Validate a definition given for ``board_id``; InvalidInput when it is wrong."""
        if spec.id is not None and spec.id != board_id:
            raise _bad(["id"], f"the body's id {spec.id!r} differs from the path's {board_id!r}")
        spec = msgspec.structs.replace(spec, id=board_id, title=spec.title or board_id)
        if not spec.windows and not spec.seasons:
            raise _bad(["windows"], "a board needs at least one window")
        ids = [_window_id(w) for w in spec.windows]
        if len(set(ids)) != len(ids):
            raise _bad(["windows"], "windows are listed twice")
        _check_zone(spec.timezone, ["timezone"])
        if spec.webhook is not None and spec.webhook.secret is None:
            raise _bad(["webhook", "secret"], "a webhook needs the secret that signs its bodies")
        if spec.client_writes is not None:
            check_client_writes(spec.client_writes, spec.policy)
        for i, window in enumerate(spec.windows):
            if isinstance(window, WindowSpec):
                _check_window(window, i)
        if spec.schedule is not None and (spec.seasons or spec.windows != ["season"]):
            raise _bad(
                ["schedule"], "a schedule is the only window: windows ['season'], no seasons"
            )
        if "season" in spec.windows and not spec.seasons and spec.schedule is None:
            raise _bad(["seasons"], "the season window needs at least one season")
        if COHORT_SCOPE in spec.scopes:
            raise _bad(["scopes"], f"{COHORT_SCOPE!r} is the scope of cohorts (see cohort_size)")
        if len(set(spec.scopes)) != len(spec.scopes):
            raise _bad(["scopes"], "scopes are listed twice")
        if len({s.id for s in spec.seasons}) != len(spec.seasons):
            raise _bad(["seasons"], "season ids must be unique")
        if (
            spec.min_score is not None
            and spec.max_score is not None
            and spec.min_score > spec.max_score
        ):
            raise _bad(["min_score"], "min_score is greater than max_score")
        if spec.policy == "rating":
            spec = msgspec.structs.replace(spec, rating=check_rating(spec.rating))
        elif spec.rating is not None:
            raise _bad(["rating"], "rating applies only to boards with policy 'rating'")
        if spec.policy == "rating" and spec.subscore is not None:
            raise _bad(["subscore"], "a rating board has no subscore")
        names = [t.name for t in spec.tiers]
        if len(set(names)) != len(names):
            raise _bad(["tiers"], "tier names must be unique")
        for i, tier in enumerate(spec.tiers):
            if (tier.top_percent is None) == (tier.top_rank is None):
                raise _bad(["tiers", i], "a tier has exactly one of top_percent and top_rank")
        if spec.dense_rank and spec.shards > 1:
            raise _bad(
                ["dense_rank"],
                "dense_rank needs an unsharded board: the distinct scores of a leaderboard "
                "split over shards cannot be counted in O(log N); use shards: 1",
            )
        board = cls(spec)
        if isinstance(board.seasons, Schedule):
            return board
        seasons = sorted(board.seasons, key=lambda s: s.starts_at)
        for before, after in itertools.pairwise(seasons):
            if after.starts_at < before.ends_at:
                raise _bad(["seasons"], f"seasons {before.id!r} and {after.id!r} overlap")
        return board

    def check_update(self, new: Board) -> None:
        """Conflict when ``new`` changes what a board with entries cannot change."""
        names = (
            "order",
            "policy",
            "windows",
            "scopes",
            "shards",
            "subscore",
            "rating",
            "dense_rank",
            "timezone",
        )
        for name in names:
            before, after = getattr(self.spec, name), getattr(new.spec, name)
            if name == "windows":  # "season" follows from the seasons (which may be added)
                before, after = ([w for w in b.windows if w != "season"] for b in (self, new))
            if before != after:
                raise Conflict(
                    f"the board has entries, so {name!r} cannot change; delete and recreate it"
                )
        if isinstance(self.seasons, Schedule) or isinstance(new.seasons, Schedule):
            return
        kept = {s.id: s for s in new.seasons}
        for season in self.seasons:
            if kept.get(season.id) != season:
                raise Conflict(
                    f"the board has entries, so season {season.id!r} cannot change or go; "
                    "seasons may only be added"
                )

    def tier_limits(self, total: int) -> list[tuple[str, int]]:
        """Each tier's name and the last rank it may reach on a leaderboard of ``total``
        entries (ranks above an earlier tier's limit belong to that tier)."""
        limits = []
        for name, percent, rank in self.tiers:
            if percent is not None:
                limit = math.ceil(total * percent / 100)
            else:
                assert rank is not None
                limit = rank
            limits.append((name, min(limit, total)))
        return limits

    def tier_of(self, rank: int, total: int) -> str | None:
        """The tier of the entry at ``rank`` (1-based) among ``total``; None when none holds."""
        for name, limit in self.tier_limits(total):
            if rank <= limit:
                return name
        return None

    def tier_range(self, name: str, total: int) -> tuple[int, int] | None:
        """The ranks ``first``..``last`` (1-based; empty when last < first) of the tier
        called ``name``; None when the board has no such tier."""
        reached = 0
        for tier, limit in self.tier_limits(total):
            if tier == name:
                return reached + 1, limit
            reached = max(reached, limit)
        return None

    @property
    def sub_order(self) -> Order | None:
        return self.spec.subscore

    def check_subscore(
        self, subscore: int | None, loc: Sequence[str | int] = ("body", "subscore")
    ) -> None:
        """InvalidInput unless a subscore is given exactly when the board has one."""
        if self.spec.subscore is not None and subscore is None:
            raise InvalidInput.at(list(loc), "the board orders by a subscore: give one")
        if self.spec.subscore is None and subscore is not None:
            raise InvalidInput.at(list(loc), "the board has no subscore")

    @property
    def frozen(self) -> bool:
        return self.spec.status == "frozen"

    @property
    def grace_seconds(self) -> int:
        return self.spec.grace_seconds

    @property
    def primary_window(self) -> str:
        return "all_time" if "all_time" in self.windows else self.windows[0]

    def check_scopes(self, scopes: dict[str, str]) -> None:
        for name in scopes:
            if name == COHORT_SCOPE and self.spec.cohort_size is not None:
                continue  # set by the service (``rankline.writing.cohorts``), never by the caller
            if name not in self.spec.scopes:
                raise InvalidInput.at(
                    ["body", "scopes", name], f"the board declares no scope {name!r}"
                )

    def check_score(self, score: int, loc: Sequence[str | int] = ("body", "score")) -> None:
        low, high = self.spec.min_score, self.spec.max_score
        if low is not None and score < low:
            raise InvalidInput.at(list(loc), f"the score is below min_score {low}")
        if high is not None and score > high:
            raise InvalidInput.at(list(loc), f"the score is above max_score {high}")

    def targets(self, at: Micros, scopes: dict[str, str], now: Micros) -> list[Target]:
        """Every leaderboard a submission at ``at`` with ``scopes`` lands on."""
        names = [GLOBAL_SCOPE, *(f"{k}:{v}" for k, v in scopes.items())]
        found: list[Target] = []
        for window in self.windows:
            period = period_at(window, at, self.calendar)
            if period is None:
                continue
            closed = period.is_closed(now, self.grace_seconds)
            found.extend(
                Target(LeaderboardId(self.id, window, period.name, scope), period, closed)
                for scope in names
            )
        return found

    def expires_at(self, period: Period) -> Micros | None:
        """When a closed period's live leaderboard may be dropped from the index."""
        if period.ends_at is None:
            return None
        days = self.retention_days.get(period.window, 0)
        return period.ends_at + (self.grace_seconds + days * 86_400) * 1_000_000

    def retention_ends(self, leaderboard: LeaderboardId) -> Micros | None:
        """When the live leaderboard of ``leaderboard``'s period may be dropped (None: it
        stays, as ``all_time`` does, or the period name is not one of this board's)."""
        try:
            period = parse_period(leaderboard.window, leaderboard.period, self.calendar)
        except ValueError:
            return None
        return self.expires_at(period)

    def expired(self, leaderboard: LeaderboardId, now: Micros) -> bool:
        """Whether the retention of ``leaderboard``'s period has ended at ``now``: its reads
        go to the archive, and the index drops it. The one rule every part uses."""
        ends = self.retention_ends(leaderboard)
        return ends is not None and now >= ends

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = msgspec.to_builtins(self.spec)
        for optional in ("cohort_size", "schedule", "timezone", "webhook"):  # only where set
            if data[optional] is None:
                del data[optional]
        if not data["entry_metadata"]:  # shown only where set
            del data["entry_metadata"]
        for unset in ("snapshots", "client_writes"):  # only where set
            if data[unset] is None:
                del data[unset]
        data["retention_days"] = {w: self.retention_days[w] for w in DEFAULT_RETENTION_DAYS}
        given = {_window_id(w): w for w in self.spec.windows}
        data["windows"] = [
            msgspec.to_builtins(given[w]) if isinstance(given.get(w), WindowSpec) else w
            for w in self.windows
        ]
        data["seasons"] = [
            {"id": s.id, "start": format_time(s.starts_at), "end": format_time(s.ends_at)}
            for s in (() if isinstance(self.seasons, Schedule) else self.seasons)
        ]
        return data


def shown(board: Board) -> dict[str, Any]:
    """The definition as GET answers it: the secrets of the webhook and the validator are
    never shown."""
    data = board.to_json()
    if (hook := board.spec.webhook) is not None:
        data["webhook"] = {"url": hook.url, "top": hook.top}
    if (writes := board.spec.client_writes) is not None:
        data["client_writes"] = client_writes_shown(writes)
    return data


def _window_id(window: str | WindowSpec) -> str:
    return window.id if isinstance(window, WindowSpec) else window


def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)  # zoneinfo caches its zones: every board in Paris shares one


def _check_zone(name: str | None, loc: list[str | int]) -> None:
    if name is None:
        return
    try:
        _zone(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise _bad(loc, f"{name!r} is not an IANA time zone (e.g. 'Europe/Paris')") from None


def _check_window(window: WindowSpec, index: int) -> None:
    loc: list[str | int] = ["windows", index]
    _check_zone(window.timezone, [*loc, "timezone"])
    if window.id in ZONED_WINDOWS:
        if window.cron is not None or window.retention_days is not None:
            raise _bad(
                loc,
                f"{window.id!r} is a calendar window: it takes a timezone only "
                "(its retention is in the board's retention_days)",
            )
        if window.timezone is None:
            raise _bad(loc, f"give {window.id!r} a timezone, or list it as a plain name")
        return
    if window.id in ("all_time", "season"):
        raise _bad(loc, f"{window.id!r} has no time zone or schedule: list it as a plain name")
    if window.cron is None:
        raise _bad(
            loc,
            f"{window.id!r} is not a named window, so it needs a cron expression "
            "(e.g. '0 18 * * FRI')",
        )
    if (problem := check_cron(window.cron)) is not None:
        raise _bad([*loc, "cron"], problem)


def _calendar(spec: BoardSpec, seasons: Seasons) -> Calendar:
    zones: dict[str, ZoneInfo] = {}
    crons: dict[str, CronWindow] = {}
    board_zone = None if spec.timezone is None else _zone(spec.timezone)
    for window in spec.windows:
        given = window.timezone if isinstance(window, WindowSpec) else None
        zone = _zone(given) if given is not None else board_zone
        if isinstance(window, WindowSpec) and window.cron is not None:
            crons[window.id] = CronWindow(window.id, window.cron, zone or _zone("UTC"))
        elif zone is not None and _window_id(window) in ZONED_WINDOWS:
            zones[_window_id(window)] = zone
    return Calendar(seasons, zones, crons)


def _season(spec: SeasonSpec, index: int) -> Season:
    try:
        start, end = parse_time(spec.start), parse_time(spec.end)
    except ValueError as exc:
        raise _bad(["seasons", index], str(exc)) from None
    if start >= end:
        raise _bad(["seasons", index], "a season must end after it starts")
    return Season(spec.id, start, end)


def _schedule(spec: ScheduleSpec) -> Schedule:
    try:
        start, end = parse_time(spec.starts_at), parse_time(spec.ends_at)
    except ValueError as exc:
        raise _bad(["schedule"], str(exc)) from None
    if start >= end:
        raise _bad(["schedule", "ends_at"], "an edition must end after it starts")
    every = None if spec.every_seconds is None else spec.every_seconds * 1_000_000
    if every is not None and every < end - start:
        raise _bad(["schedule", "every_seconds"], "editions would overlap: every < their length")
    return Schedule(start, end - start, every)


def parse_scope(board: Board, scope: str) -> str:
    """Validate a ``scope`` query parameter: ``global`` or ``dimension:value``."""
    if scope == GLOBAL_SCOPE:
        return scope
    name, sep, value = scope.partition(":")
    if not sep or not value:
        raise InvalidInput.at(["query", "scope"], "scope is 'global' or 'dimension:value'")
    if name not in board.spec.scopes and not (
        name == COHORT_SCOPE and board.spec.cohort_size is not None
    ):
        raise InvalidInput.at(["query", "scope"], f"the board declares no scope {name!r}")
    return scope
