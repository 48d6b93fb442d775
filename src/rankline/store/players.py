"""SQL for players: profiles, stored friend lists, bans, submission history and erasure.

The ban state lives here, in the durable store, so every worker sees it: the group-commit
writer reads it inside each batch's transaction, and a rebuild leaves banned players out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import msgspec
from sqlalchemy import delete, func, insert, or_, select, tuple_, update
from sqlalchemy.ext.asyncio import AsyncEngine

from rankline.store import schema as t
from rankline.store.audit import AuditEntry, add_audit, add_erasure_audit
from rankline.store.errors import mapped_errors
from rankline.store.sql import SqlStore, chunks
from rankline.types import BoardId, LeaderboardId, MatchId, Micros, PlayerId, Score, Standing

_json = msgspec.json.Encoder()
_unjson = msgspec.json.Decoder()


class NameChange(NamedTuple):
    player_id: PlayerId
    display_name: str | None
    updated_at: Micros


@dataclass(slots=True)
class Profile:
    player: PlayerId
    display_name: str | None = None
    avatar_url: str | None = None
    country: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True, frozen=True)
class HistoryItem:
    id: int
    board: BoardId
    match_id: MatchId
    score: Score
    at: Micros
    received_at: Micros
    applied: bool
    subscore: Score | None = None
    """Given on boards with a subscore."""


class PlayerStore:
    """The player tables of one ``SqlStore``."""

    def __init__(self, store: SqlStore) -> None:
        self._store = store

    @property
    def _engine(self) -> AsyncEngine:
        return self._store.engine

    # --- profiles ------------------------------------------------------------------------

    async def profile(self, player: PlayerId) -> Profile | None:
        p = t.players
        query = select(p.c.display_name, p.c.avatar_url, p.c.country, p.c.metadata).where(
            p.c.player_id == player
        )
        async with mapped_errors(), self._engine.connect() as conn:
            row = (await conn.execute(query)).first()
        if row is None:
            return None
        return Profile(player, row[0], row[1], row[2], _unjson.decode(row[3]))

    async def save_profile(self, profile: Profile, now: Micros) -> bool:
        """Replace the profile (or create it: True)."""
        p = t.players
        values = {
            "display_name": profile.display_name,
            "avatar_url": profile.avatar_url,
            "country": profile.country,
            "metadata": _json.encode(profile.metadata).decode(),
            "updated_at": now,
        }
        async with mapped_errors(), self._engine.begin() as conn:
            changed = await conn.execute(
                update(p).where(p.c.player_id == profile.player).values(**values)
            )
            if changed.rowcount:
                return False
            await conn.execute(insert(p).values(player_id=profile.player, **values))
            return True

    async def count_names(self) -> int:
        """How many profiles have a display name."""
        p = t.players
        async with mapped_errors(), self._engine.connect() as conn:
            found = await conn.scalar(
                select(func.count()).select_from(p).where(p.c.display_name.is_not(None))
            )
            return int(found or 0)

    async def names_since(self, updated_after: Micros | None) -> list[NameChange]:
        """The display names of the profiles updated after the time given
        (with a name, when None: all of them)."""
        p = t.players
        query = select(p.c.player_id, p.c.display_name, p.c.updated_at)
        if updated_after is None:
            query = query.where(p.c.display_name.is_not(None))
        else:
            query = query.where(p.c.updated_at > updated_after)
        async with mapped_errors(), self._engine.connect() as conn:
            return [NameChange._make(r) for r in await conn.execute(query)]

    async def display_names(self, players: Sequence[PlayerId]) -> dict[PlayerId, str | None]:
        """The display name of each of ``players`` (None without one), in one query per
        500 players."""
        p = t.players
        found: dict[PlayerId, str | None] = dict.fromkeys(players)
        async with mapped_errors(), self._engine.connect() as conn:
            for chunk in chunks(sorted(found)):
                rows = await conn.execute(
                    select(p.c.player_id, p.c.display_name).where(p.c.player_id.in_(chunk))
                )
                found.update((r[0], r[1]) for r in rows)
        return found

    # --- standings and history -------------------------------------------------------------

    async def standings(
        self,
        player: PlayerId,
        periods: Sequence[tuple[BoardId, str, str]] | None = None,
    ) -> list[Standing]:
        """The player's standings, banned or not: all of them, or only in ``periods``
        (board, window, period)."""
        s = t.standings
        query = select(
            s.c.board_id,
            s.c.window,
            s.c.period,
            s.c.scope,
            s.c.score,
            s.c.achieved_at,
            s.c.revision,
            s.c.subscore,
        ).where(s.c.player_id == player)
        queries = [query]
        if periods is not None:
            queries = [
                query.where(tuple_(s.c.board_id, s.c.window, s.c.period).in_(c))
                for c in chunks(sorted(set(periods)))
            ]
        found = []
        async with mapped_errors(), self._engine.connect() as conn:
            for each in queries:
                for board, window, period, scope, score, at, revision, sub in await conn.execute(
                    each
                ):
                    leaderboard = LeaderboardId(board, window, period, scope)
                    found.append(Standing(leaderboard, player, score, at, revision, sub))
        found.sort(key=lambda x: x.leaderboard)
        return found

    async def has_standings(self, player: PlayerId) -> bool:
        s = t.standings
        query = select(s.c.board_id).where(s.c.player_id == player).limit(1)
        async with mapped_errors(), self._engine.connect() as conn:
            return (await conn.execute(query)).first() is not None

    async def history(
        self, player: PlayerId, board: BoardId | None, limit: int, before: int | None
    ) -> list[HistoryItem]:
        """The player's score events, most recently recorded first, older than the event
        ``before`` (an id) when given."""
        e = t.score_events
        query = (
            select(
                e.c.id,
                e.c.board_id,
                e.c.match_id,
                e.c.score,
                e.c.at,
                e.c.received_at,
                e.c.applied,
                e.c.subscore,
            )
            .where(e.c.player_id == player)
            .order_by(e.c.id.desc())
            .limit(limit)
        )
        if board is not None:
            query = query.where(e.c.board_id == board)
        if before is not None:
            query = query.where(e.c.id < before)
        async with mapped_errors(), self._engine.connect() as conn:
            rows = await conn.execute(query)
            return [HistoryItem(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6]), r[7]) for r in rows]

    # --- friend lists --------------------------------------------------------------------

    async def friends(self, player: PlayerId) -> list[PlayerId]:
        f = t.friends
        query = select(f.c.friend_id).where(f.c.player_id == player).order_by(f.c.friend_id)
        async with mapped_errors(), self._engine.connect() as conn:
            return [r[0] for r in await conn.execute(query)]

    async def set_friends(self, player: PlayerId, friends: Sequence[PlayerId]) -> None:
        """Replace the player's stored friend list."""
        f = t.friends
        async with mapped_errors(), self._engine.begin() as conn:
            await conn.execute(delete(f).where(f.c.player_id == player))
            if friends:
                await conn.execute(
                    insert(f), [{"player_id": player, "friend_id": x} for x in friends]
                )

    # --- bans ----------------------------------------------------------------------------

    async def banned_at(self, player: PlayerId) -> Micros | None:
        b = t.bans
        async with mapped_errors(), self._engine.connect() as conn:
            row = (await conn.execute(select(b.c.banned_at).where(b.c.player_id == player))).first()
        return None if row is None else int(row[0])

    async def ban(self, player: PlayerId, now: Micros, audit: AuditEntry | None = None) -> Micros:
        """Ban the player (once: a second ban keeps the first time) and write ``audit`` in the
        same transaction; when they were banned."""
        b = t.bans
        async with mapped_errors(), self._engine.begin() as conn:
            row = (await conn.execute(select(b.c.banned_at).where(b.c.player_id == player))).first()
            if row is None:
                await conn.execute(insert(b).values(player_id=player, banned_at=now))
            if audit is not None:
                await add_audit(conn, audit)
            return now if row is None else int(row[0])

    async def unban(self, player: PlayerId, audit: AuditEntry | None = None) -> bool:
        """Lift the ban and write ``audit`` in the same transaction; False (and no ``audit``)
        when the player was not banned."""
        b = t.bans
        async with mapped_errors(), self._engine.begin() as conn:
            done = await conn.execute(delete(b).where(b.c.player_id == player))
            if done.rowcount and audit is not None:
                await add_audit(conn, audit)
            return bool(done.rowcount)

    # --- erasure -------------------------------------------------------------------------

    async def erase(self, player: PlayerId, audit: AuditEntry | None = None) -> int:
        """Delete every row about the player but their archived ones, in one transaction;
        how many went, their archived rows counted (``erase_archived`` deletes those once
        their periods are archived again). When there was any, ``audit`` is written in the
        same transaction, the player named by their alias there and in every earlier entry
        (``add_erasure_audit``)."""
        f = t.friends
        a = t.archive
        removed = 0
        async with mapped_errors(), self._engine.begin() as conn:
            # rating boards: the player's states and rating history (the matches they played
            # stay, as the other players' ratings came from them)
            for table in (
                t.score_events,
                t.standings,
                t.players,
                t.bans,
                t.match_ratings,
                t.rating_states,
                t.cohort_members,
                t.tournament_players,
                t.tournament_submissions,
            ):
                done = await conn.execute(delete(table).where(table.c.player_id == player))
                removed += max(done.rowcount, 0)
            done = await conn.execute(
                delete(f).where(or_(f.c.player_id == player, f.c.friend_id == player))
            )
            removed += max(done.rowcount, 0)
            archived = select(func.count()).select_from(a).where(a.c.player_id == player)
            removed += int((await conn.execute(archived)).scalar_one())
            if removed and audit is not None:
                await add_erasure_audit(conn, audit)
        return removed

    async def erase_archived(self, player: PlayerId) -> int:
        """Delete the player's rows in archived final standings; how many went."""
        a = t.archive
        async with mapped_errors(), self._engine.begin() as conn:
            done = await conn.execute(delete(a).where(a.c.player_id == player))
            return max(done.rowcount, 0)
