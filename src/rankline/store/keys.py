"""Keys made at runtime (``rl_keys``): created, listed, revoked, and the rows changed since a
revision, which every worker asks for to keep its registry current (``rankline.access.keys``).

Only the SHA-256 of a secret is stored. A slow, salted password hash is for secrets a person
chooses, which can be guessed; these are 256 random bits (``secrets.token_urlsafe(32)``), which
no one can guess or search for from their hash, so one fast hash is as safe and lets a request
find its key with one lookup.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import msgspec
from sqlalchemy import Select, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from rankline.errors import WriteConflict
from rankline.store import schema as t
from rankline.store.audit import AuditEntry, add_audit
from rankline.store.errors import mapped_errors
from rankline.store.sql import SqlStore
from rankline.types import Micros

_ATTEMPTS = 10
"""Tries of a change whose revision another process took first: each try after a conflict
sees the newer revision, so each round one of the racing processes wins."""
_boards = msgspec.json.Decoder(list[str])


@dataclass(frozen=True, slots=True)
class StoredKey:
    id: str
    name: str
    role: str
    """``server`` or ``read``."""
    boards: tuple[str, ...] | None
    """The board patterns a server key is limited to; None: no limit."""
    secret_sha256: str
    """The SHA-256 of the secret, in hex."""
    created_at: Micros
    created_by: str
    expires_at: Micros | None = None
    revoked_at: Micros | None = None
    revoked_by: str | None = None
    revision: int = 0


_COLUMNS = (
    "id",
    "name",
    "role",
    "boards",
    "secret_sha256",
    "created_at",
    "created_by",
    "expires_at",
    "revoked_at",
    "revoked_by",
    "revision",
)


def _stored(row: Any) -> StoredKey:
    values = dict(zip(_COLUMNS, row, strict=True))
    boards = values["boards"]
    values["boards"] = None if boards is None else tuple(_boards.decode(boards))
    return StoredKey(**values)


def _row(key: StoredKey) -> dict[str, Any]:
    row = {name: getattr(key, name) for name in _COLUMNS}
    if key.boards is not None:
        row["boards"] = msgspec.json.encode(list(key.boards)).decode()
    return row


def _select() -> Select[Any]:
    return select(*(t.keys.c[name] for name in _COLUMNS))


async def _next_revision(conn: AsyncConnection) -> int:
    current = await conn.scalar(select(func.max(t.keys.c.revision)))
    return int(current or 0) + 1


class KeyStore:
    def __init__(self, store: SqlStore) -> None:
        self._store = store
        self._changing = asyncio.Lock()
        """One change at a time in this process: its changes never race each other for a
        revision (other processes' may, and the loser tries again)."""

    async def create(self, key: StoredKey, audit: AuditEntry) -> StoredKey:
        """Store ``key`` at the next revision, and ``audit`` in the same transaction."""
        async with self._changing:
            return await self._create(key, audit)

    async def _create(self, key: StoredKey, audit: AuditEntry) -> StoredKey:
        for attempt in range(_ATTEMPTS):
            try:
                async with mapped_errors(), self._store.engine.begin() as conn:
                    stored = replace(key, revision=await _next_revision(conn))
                    await conn.execute(insert(t.keys), [_row(stored)])
                    await add_audit(conn, audit)
                    return stored
            except WriteConflict:
                # The unique revision (or, never in practice, id) was taken by another
                # writer that committed meanwhile: the next try sees it.
                if attempt == _ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    async def revoke(
        self, key_id: str, at: Micros, by: str, audit: Callable[[StoredKey], AuditEntry]
    ) -> StoredKey | None:
        """Revoke the key ``key_id`` at the next revision and write its ``audit`` entry in
        the same transaction; the key as it is now (a key revoked before stays as it was, and
        no entry is written), or None when there is no such key."""
        async with self._changing:
            return await self._revoke(key_id, at, by, audit)

    async def _revoke(
        self, key_id: str, at: Micros, by: str, audit: Callable[[StoredKey], AuditEntry]
    ) -> StoredKey | None:
        k = t.keys
        for attempt in range(_ATTEMPTS):
            try:
                async with mapped_errors(), self._store.engine.begin() as conn:
                    found = (await conn.execute(_select().where(k.c.id == key_id))).first()
                    if found is None:
                        return None
                    key = _stored(found)
                    if key.revoked_at is not None:
                        return key
                    revision = await _next_revision(conn)
                    changed = await conn.execute(
                        update(k)
                        .where(k.c.id == key_id, k.c.revoked_at.is_(None))
                        .values(revoked_at=at, revoked_by=by, revision=revision)
                    )
                    if changed.rowcount == 0:
                        continue  # revoked meanwhile by another caller: read it again
                    revoked = replace(key, revoked_at=at, revoked_by=by, revision=revision)
                    await add_audit(conn, audit(revoked))
                    return revoked
            except WriteConflict:
                if attempt == _ATTEMPTS - 1:
                    raise
        raise WriteConflict("the key kept changing while it was revoked")

    async def listed(self) -> list[StoredKey]:
        """Every key, revoked and expired ones included, oldest first."""
        return await self._rows(_select().order_by(t.keys.c.created_at, t.keys.c.id))

    async def revision(self) -> int:
        """The newest revision (0 with no keys): one indexed lookup, what each worker polls."""
        async with mapped_errors(), self._store.engine.connect() as conn:
            return await _next_revision(conn) - 1

    async def changed_since(self, revision: int) -> list[StoredKey]:
        """The keys created or revoked after ``revision``, in the order of their changes."""
        k = t.keys
        return await self._rows(_select().where(k.c.revision > revision).order_by(k.c.revision))

    async def _rows(self, query: Select[Any]) -> list[StoredKey]:
        async with mapped_errors(), self._store.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_stored(row) for row in rows]


__all__ = ["KeyStore", "StoredKey"]
