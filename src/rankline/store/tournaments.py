"""Tournaments in SQL: definitions, joins with a capacity, submission counts, and each ended
edition's results with the delivery state of its webhook (the outbox).

Every rule that several workers could race on is one conditional statement on one row:
a join increments its edition's ``joined`` only while it is below ``max_size``; a counted
submission increments the player's ``submissions`` only while it is below the limit (a void
gives it back, a reset of the edition gives every player's back: ``uncount_match``,
``restart_counts``, in the moderation's own transaction); an
edition's results row is inserted once (primary key); a delivery is claimed by a conditional
update that sets a lease.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import msgspec
from sqlalchemy import and_, delete, exists, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from rankline.errors import WriteConflict
from rankline.ordering import Keys
from rankline.store import schema as t
from rankline.store.archive import final_order
from rankline.store.audit import Attribution, add_audit
from rankline.store.errors import mapped_errors
from rankline.store.sql import SqlStore
from rankline.types import BoardId, Micros, PlayerId

_json = msgspec.json.Encoder()
_unjson = msgspec.json.Decoder()
_e, _p, _s, _r = (
    t.tournament_editions,
    t.tournament_players,
    t.tournament_submissions,
    t.tournament_results,
)


class FinalStanding(NamedTuple):
    player_id: PlayerId
    score: int
    subscore: int | None


@dataclass(frozen=True, slots=True)
class Delivery:
    """A webhook to send: one edition's results."""

    tournament: str
    edition: str
    body: bytes
    url: str
    attempts: int

    @property
    def label(self) -> str:
        return f"{self.tournament}/{self.edition}"


@dataclass(frozen=True, slots=True)
class ResultsRow:
    body: bytes
    delivered_at: Micros | None
    attempts: int


class TournamentStore:
    def __init__(self, store: SqlStore) -> None:
        self._store = store

    # --- definitions -------------------------------------------------------------------

    async def save(
        self,
        tournament_id: str,
        definition: dict[str, Any],
        now: Micros,
        by: Attribution | None = None,
    ) -> bool:
        """Store a definition; True when it was created. With ``by``, its audit entry
        (``tournament.create`` or ``tournament.change``) is written in the same transaction."""
        text = _json.encode(definition).decode()
        async with mapped_errors(), self._store.engine.begin() as conn:
            found = await conn.scalar(select(t.tournaments.c.id).where(_is(tournament_id)))
            if found is None:
                await conn.execute(
                    insert(t.tournaments).values(
                        id=tournament_id, definition=text, created_at=now, updated_at=now
                    )
                )
            else:
                await conn.execute(
                    update(t.tournaments)
                    .where(_is(tournament_id))
                    .values(definition=text, updated_at=now)
                )
            if by is not None:
                action = "tournament.create" if found is None else "tournament.change"
                entry = by.entry(now, action, board=BoardId(tournament_id), detail=definition)
                await add_audit(conn, entry)
            return found is None

    async def load(self, tournament_id: str | None = None) -> list[dict[str, Any]]:
        query = select(t.tournaments.c.definition).order_by(t.tournaments.c.id)
        if tournament_id is not None:
            query = query.where(_is(tournament_id))
        async with mapped_errors(), self._store.engine.connect() as conn:
            return [_unjson.decode(row[0]) for row in await conn.execute(query)]

    async def delete(
        self, tournament_id: str, now: Micros = 0, by: Attribution | None = None
    ) -> bool:
        """Delete the tournament's rows; False when there was none. With ``by``, its audit
        entry (``tournament.delete``, at ``now``) is written in the same transaction."""
        async with mapped_errors(), self._store.engine.begin() as conn:
            for table in (_e, _p, _s, _r):
                await conn.execute(delete(table).where(table.c.tournament_id == tournament_id))
            gone = await conn.execute(delete(t.tournaments).where(_is(tournament_id)))
            if gone.rowcount and by is not None:
                entry = by.entry(now, "tournament.delete", board=BoardId(tournament_id))
                await add_audit(conn, entry)
            return bool(gone.rowcount)

    # --- joins and submissions ---------------------------------------------------------

    async def joined(self, tournament_id: str, edition: str, player: PlayerId) -> bool:
        async with mapped_errors(), self._store.engine.connect() as conn:
            found = await conn.scalar(
                select(_p.c.joined_at).where(_player(tournament_id, edition, player))
            )
        return found is not None

    async def join(
        self, tournament_id: str, edition: str, player: PlayerId, max_size: int | None, now: Micros
    ) -> bool:
        """Join the player to the edition: True when in (now or before), False when full."""
        if await self.joined(tournament_id, edition, player):
            return True
        await self._ensure(_e, {"tournament_id": tournament_id, "edition": edition, "joined": 0})
        await self._ensure(
            _p,
            {
                "tournament_id": tournament_id,
                "edition": edition,
                "player_id": player,
                "joined_at": None,
                "submissions": 0,
            },
        )
        try:
            await self._join(tournament_id, edition, player, max_size, now)
        except _Refused:
            return False
        return True

    async def _join(
        self, tournament_id: str, edition: str, player: PlayerId, max_size: int | None, now: Micros
    ) -> None:
        async with mapped_errors(), self._store.engine.begin() as conn:
            # The player's row first: of two joins of one player, the second waits here and
            # then finds the join made.
            mine = await conn.execute(
                update(_p)
                .where(_player(tournament_id, edition, player), _p.c.joined_at.is_(None))
                .values(joined_at=now)
            )
            if not mine.rowcount:
                return
            room = _e.c.joined < (max_size if max_size is not None else 2**31 - 1)
            counted = await conn.execute(
                update(_e)
                .where(_e.c.tournament_id == tournament_id, _e.c.edition == edition, room)
                .values(joined=_e.c.joined + 1)
            )
            if not counted.rowcount:
                raise _Refused  # rolls the player's join back

    async def count_submission(
        self,
        tournament_id: str,
        edition: str,
        player: PlayerId,
        match_id: str,
        limit: int | None,
    ) -> bool:
        """Count a submission against the player's limit: False when over it. A submission
        counted before (same match id) is not counted again."""
        key = {"tournament_id": tournament_id, "edition": edition, "player_id": player}
        async with mapped_errors(), self._store.engine.connect() as conn:
            seen = await conn.scalar(
                select(
                    exists().where(
                        _player(tournament_id, edition, player, _s), _s.c.match_id == match_id
                    )
                )
            )
        if seen:
            return True
        await self._ensure(_p, {**key, "joined_at": None, "submissions": 0})
        try:
            async with mapped_errors(), self._store.engine.begin() as conn:
                room = _p.c.submissions < (limit if limit is not None else 2**31 - 1)
                counted = await conn.execute(
                    update(_p)
                    .where(_player(tournament_id, edition, player), room)
                    .values(submissions=_p.c.submissions + 1)
                )
                if not counted.rowcount:
                    raise _Refused
                await conn.execute(insert(_s).values(**key, match_id=match_id))
        except _Refused:
            return False
        except WriteConflict:
            return True  # the same submission, counted meanwhile by a concurrent request
        return True

    async def players_joined(self, tournament_id: str, edition: str) -> int:
        async with mapped_errors(), self._store.engine.connect() as conn:
            found = await conn.scalar(
                select(_e.c.joined).where(
                    _e.c.tournament_id == tournament_id, _e.c.edition == edition
                )
            )
        return int(found or 0)

    async def _ensure(self, table: Any, row: dict[str, Any]) -> None:
        """Insert ``row`` unless a row with its primary key exists."""
        key = [table.c[c.name] == row[c.name] for c in table.primary_key.columns]
        try:
            async with mapped_errors(), self._store.engine.begin() as conn:
                if not await conn.scalar(select(exists().where(*key))):
                    await conn.execute(insert(table).values(**row))
        except WriteConflict:
            pass  # made meanwhile

    # --- results and their delivery ----------------------------------------------------

    async def final_standings(
        self, board_id: str, window: str, period: str, keys: Keys
    ) -> list[FinalStanding]:
        """The standings of the period's global leaderboard in rank order, banned
        players left out (as every read leaves them out)."""
        st = t.standings
        query = (
            select(st.c.player_id, st.c.score, st.c.subscore)
            .where(
                st.c.board_id == board_id,
                st.c.window == window,
                st.c.period == period,
                st.c.scope == "global",
                ~exists().where(t.bans.c.player_id == st.c.player_id),
            )
            .order_by(*final_order(keys))
        )
        async with mapped_errors(), self._store.engine.connect() as conn:
            return [
                FinalStanding(player, int(score), None if subscore is None else int(subscore))
                for player, score, subscore in await conn.execute(query)
            ]

    async def has_results(self, tournament_id: str, edition: str) -> bool:
        return await self.results(tournament_id, edition) is not None

    async def add_results(
        self, tournament_id: str, edition: str, body: bytes, url: str | None, now: Micros
    ) -> bool:
        """Record an edition's results once: False when they were recorded already."""
        try:
            async with mapped_errors(), self._store.engine.begin() as conn:
                await conn.execute(
                    insert(_r).values(
                        tournament_id=tournament_id,
                        edition=edition,
                        body=body.decode(),
                        created_at=now,
                        webhook_url=url,
                        attempts=0,
                        next_attempt_at=now,
                    )
                )
        except WriteConflict:
            return False
        return True

    async def results(self, tournament_id: str, edition: str) -> ResultsRow | None:
        async with mapped_errors(), self._store.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(_r.c.body, _r.c.delivered_at, _r.c.attempts).where(
                        _r.c.tournament_id == tournament_id, _r.c.edition == edition
                    )
                )
            ).first()
        return None if row is None else ResultsRow(row[0].encode(), row[1], int(row[2]))

    async def claim_due(self, owner: str, now: Micros, lease: Micros) -> list[Delivery]:
        """Claim the deliveries due now (not delivered, no live lease, backoff passed): each
        is claimed by one conditional update, so one worker sends it at a time."""
        due = (
            _r.c.webhook_url.is_not(None),
            _r.c.delivered_at.is_(None),
            _r.c.next_attempt_at <= now,
            or_(_r.c.lease_until.is_(None), _r.c.lease_until <= now),
        )
        async with mapped_errors(), self._store.engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(
                        _r.c.tournament_id, _r.c.edition, _r.c.body, _r.c.webhook_url, _r.c.attempts
                    )
                    .where(*due)
                    .limit(50)
                )
            ).all()
        claimed = []
        for tournament_id, edition, body, url, attempts in rows:
            async with mapped_errors(), self._store.engine.begin() as conn:
                won = await conn.execute(
                    update(_r)
                    .where(_r.c.tournament_id == tournament_id, _r.c.edition == edition, *due)
                    .values(lease_owner=owner, lease_until=now + lease)
                )
            if won.rowcount:
                claimed.append(Delivery(tournament_id, edition, body.encode(), url, int(attempts)))
        return claimed

    async def delivered(self, delivery: Delivery, owner: str, now: Micros) -> None:
        await self._finish(
            delivery, owner, {"delivered_at": now, "attempts": delivery.attempts + 1}
        )

    async def failed(self, delivery: Delivery, owner: str, retry_at: Micros, error: str) -> None:
        await self._finish(
            delivery,
            owner,
            {
                "attempts": delivery.attempts + 1,
                "next_attempt_at": retry_at,
                "last_error": error[:500],
            },
        )

    async def _finish(self, delivery: Delivery, owner: str, values: dict[str, Any]) -> None:
        async with mapped_errors(), self._store.engine.begin() as conn:
            await conn.execute(
                update(_r)
                .where(
                    _r.c.tournament_id == delivery.tournament,
                    _r.c.edition == delivery.edition,
                    _r.c.lease_owner == owner,
                )
                .values(lease_owner=None, lease_until=None, **values)
            )


async def restart_counts(conn: AsyncConnection, tournament_id: str, edition: str) -> None:
    """An edition reset by hand (in its transaction, ``store.moderation``): every player's
    submissions count from zero again. The match ids counted stay known, so a retry of one
    (a duplicate, which writes nothing) is still not counted."""
    await conn.execute(
        update(_p)
        .where(_p.c.tournament_id == tournament_id, _p.c.edition == edition)
        .values(submissions=0)
    )


async def uncount_match(
    conn: AsyncConnection, tournament_id: str, match_id: str, players: Sequence[PlayerId]
) -> None:
    """A match voided (in its transaction, ``store.moderation``): each player's submission
    counted under ``match_id`` is given back, unless a reset of its edition made after it
    (``rl_removals``, in the order of the log) gave it back already. The match id stays
    known, so a retry of it (a duplicate) is not counted."""
    e, r = t.score_events, t.removals
    found = await conn.execute(
        select(_s.c.edition, _s.c.player_id).where(
            _s.c.tournament_id == tournament_id,
            _s.c.match_id == match_id,
            _s.c.player_id.in_(list(players)),
        )
    )
    for edition, player in found.all():
        event = await conn.scalar(
            select(e.c.id).where(
                e.c.board_id == tournament_id, e.c.match_id == match_id, e.c.player_id == player
            )
        )
        reset = await conn.scalar(
            select(func.max(r.c.after_event)).where(
                r.c.board_id == tournament_id,
                r.c.player_id.is_(None),
                r.c.period == edition,
                r.c.scope.is_(None),
            )
        )
        if event is None or (reset is not None and event <= reset):
            continue
        await conn.execute(
            update(_p)
            .where(_player(tournament_id, edition, player), _p.c.submissions > 0)
            .values(submissions=_p.c.submissions - 1)
        )


def _is(tournament_id: str) -> Any:
    return t.tournaments.c.id == tournament_id


class _Refused(Exception):
    """Rolls back a transaction whose conditional update found no room."""


def _player(tournament_id: str, edition: str, player: PlayerId, table: Any = _p) -> Any:
    return and_(
        table.c.tournament_id == tournament_id,
        table.c.edition == edition,
        table.c.player_id == player,
    )


__all__ = ["Delivery", "ResultsRow", "TournamentStore", "restart_counts", "uncount_match"]
