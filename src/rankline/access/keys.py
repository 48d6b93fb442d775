"""Keys made at runtime: server and read keys created, listed and revoked while servers run
(``/v1/keys``, ``rankline keys``), beside the bootstrap keys of the settings, which keep
working as they are (``rankline.http.auth``).

``RuntimeKeys`` holds the rule: which key a presented secret is, and whether it is live now
(not revoked, not past its expiry). Each worker keeps the keys in memory by the SHA-256 of
their secret and asks the store every ``REFRESH_SECONDS`` for the newest revision of the keys
table (one indexed read); when it moved, it reads the rows changed since. So a key revoked
through one worker is refused by every worker within a second, and an expired key is refused
from its expiry on (checked at every use).

    keys = RuntimeKeys(KeyStore(store), clock)
    await keys.refresh()
    made = await keys.create(NewKey(name="ci", role="server"), Attribution("cli"))
    keys.find(made.secret.encode())  # LiveKey(name="ci", ...)
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from rankline import metrics
from rankline.access.answers import KeyOut, KeysOut, KeyState, NewKeyOut
from rankline.access.scopes import MAX_PATTERNS, BoardScope, pattern_problem
from rankline.answers import Time
from rankline.errors import InvalidInput, NotFound, RanklineError
from rankline.runtime.clock import SystemClock, format_time, parse_time
from rankline.settings import Settings
from rankline.store.audit import Attribution, AuditEntry
from rankline.store.keys import KeyStore, StoredKey
from rankline.store.opening import open_store
from rankline.types import Clock, Micros

log = logging.getLogger("rankline")

REFRESH_SECONDS = 0.25
"""How often each worker asks the store whether keys changed: well within the second in
which a revoked key must be refused everywhere, for one indexed read."""
_REMEMBERED = 256
SECRET_PREFIX = "rk_"
"""Every secret starts so, as the generated bootstrap key does: never mistaken for a JWT."""
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
Role = Literal["server", "read"]
_ROLES: dict[str, Role] = {"server": "server", "read": "read"}


class NewKey(msgspec.Struct, forbid_unknown_fields=True):
    """A key to create: who holds it (``name``), what it may do, until when."""

    name: Annotated[
        str,
        Meta(
            pattern=NAME_PATTERN,
            description="Who or what holds the key, e.g. game-server-eu: 1-64 letters, "
            "digits, `.`, `_` or `-`. The audit log names the key by it.",
        ),
    ]
    role: Annotated[
        Role,
        Meta(description="server: writes (and reads); read: reads, where reads need a key."),
    ]
    boards: (
        Annotated[
            list[str],
            Meta(
                min_length=1,
                max_length=MAX_PATTERNS,
                description="A server key limited to the boards whose id matches one of "
                "these shell-style patterns (game-a-*); such a key cannot change players or "
                "manage keys. Absent: every board.",
            ),
        ]
        | None
    ) = None
    expires_at: Annotated[Time | None, Meta(description="When the key stops working.")] = None


@dataclass(frozen=True, slots=True)
class LiveKey:
    """A key made at runtime, as a request presenting it is checked against."""

    id: str
    name: str
    role: Role
    scope: BoardScope | None
    """The boards a server key may write; None: every board."""
    expires_at: Micros | None

    @property
    def actor(self) -> str:
        """How the audit log names it: ``key:<name>#<id>``."""
        return f"key:{self.name}#{self.id}"


def digest(secret: bytes) -> str:
    """The SHA-256 of a secret, as the store keeps it (see ``rankline.store.keys``)."""
    return hashlib.sha256(secret).hexdigest()


class RuntimeKeys:
    def __init__(self, store: KeyStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock
        self._live: dict[str, LiveKey] = {}
        """The keys not revoked, by the SHA-256 of their secret (expired ones included until
        the next change: ``find`` checks the expiry)."""
        self._revision = 0
        self._refreshing = asyncio.Lock()
        self._headers: dict[str, LiveKey] = {}
        """Authorization headers that carried a live key, remembered until the keys next
        change (so a request with one does not pay for hashing its secret again)."""

    def find(self, secret: bytes) -> LiveKey | None:
        """The live key whose secret this is, or None.

        A dictionary lookup by the secret's SHA-256 rather than a comparison of secrets: its
        timing can tell at most something of the hash of a guess, which does not bring an
        attacker nearer to a secret whose hash is stored."""
        key = self._live.get(digest(secret))
        if key is None:
            return None
        if key.expires_at is not None and self._clock.now() >= key.expires_at:
            return None
        return key

    def by_header(self, header: str) -> LiveKey | None:
        """The live key of an Authorization header that carried one before, or None (not
        remembered, or past its expiry)."""
        key = self._headers.get(header)
        if key is None:
            return None
        if key.expires_at is not None and self._clock.now() >= key.expires_at:
            return None
        return key

    def remember(self, header: str, key: LiveKey) -> None:
        """Remember that ``header`` carried ``key`` (forgotten when any key changes)."""
        if len(self._headers) >= _REMEMBERED:
            del self._headers[next(iter(self._headers))]
        self._headers[header] = key

    async def create(self, new: NewKey, by: Attribution) -> NewKeyOut:
        """Create a key and audit it as made ``by``; its secret is in the answer and nowhere
        else."""
        now = self._clock.now()
        expires_at = _expiry(new.expires_at, now)
        boards = _boards(new)
        secret = SECRET_PREFIX + secrets.token_urlsafe(32)
        key = StoredKey(
            id="key_" + secrets.token_hex(8),
            name=new.name,
            role=new.role,
            boards=boards,
            secret_sha256=digest(secret.encode()),
            created_at=now,
            created_by=by.actor,
            expires_at=expires_at,
        )
        detail = {
            "id": key.id,
            "name": key.name,
            "role": key.role,
            "boards": None if boards is None else list(boards),
            "expires_at": None if expires_at is None else format_time(expires_at),
        }
        stored = await self._store.create(key, by.entry(now, "key.create", detail=detail))
        await self.refresh()
        shown = self._shown(stored, now)
        return NewKeyOut(**msgspec.structs.asdict(shown), secret=secret)

    async def listed(self) -> KeysOut:
        """Every key made at runtime, without secrets, each with its state."""
        now = self._clock.now()
        return KeysOut(keys=[self._shown(key, now) for key in await self._store.listed()])

    async def revoke(self, key_id: str, by: Attribution) -> KeyOut:
        """Revoke a key and audit it as revoked ``by``; revoking a revoked key again changes
        nothing and answers it as it is. NotFound when there is no such key."""
        now = self._clock.now()

        def entry(key: StoredKey) -> AuditEntry:
            detail = {"id": key.id, "name": key.name, "role": key.role}
            return by.entry(now, "key.revoke", detail=detail)

        revoked = await self._store.revoke(key_id, now, by.actor, entry)
        if revoked is None:
            raise NotFound(f"no key {key_id!r}")
        await self.refresh()
        return self._shown(revoked, now)

    async def refresh(self) -> None:
        """Take in the keys created or revoked since the last refresh (one indexed read when
        none were)."""
        async with self._refreshing:
            newest = await self._store.revision()
            if newest == self._revision:
                return
            if newest < self._revision:
                # The table lost rows (restored from an older backup, say): start over.
                self._live, self._revision = {}, 0
                self._headers.clear()
            for key in await self._store.changed_since(self._revision):
                self._take(key)
                self._revision = max(self._revision, key.revision)
            metrics.RUNTIME_KEYS.set(len(self._live))

    async def run(self, stopping: Callable[[], bool]) -> None:
        """Refresh every ``REFRESH_SECONDS`` until ``stopping()``; while the store cannot be
        reached, the keys as last read keep their state."""
        failing = False
        while not stopping():
            await asyncio.sleep(REFRESH_SECONDS)
            try:
                await self.refresh()
            except RanklineError as exc:
                if not failing:
                    log.warning("could not refresh the keys: %s", exc.detail)
                failing = True
            else:
                failing = False

    def _take(self, key: StoredKey) -> None:
        self._headers.clear()
        role = _ROLES.get(key.role)
        if key.revoked_at is not None or role is None:
            # A role this version does not know grants nothing.
            self._live.pop(key.secret_sha256, None)
            return
        scope = None if key.boards is None else BoardScope(list(key.boards))
        self._live[key.secret_sha256] = LiveKey(key.id, key.name, role, scope, key.expires_at)

    @staticmethod
    def _shown(key: StoredKey, now: Micros) -> KeyOut:
        state: KeyState = "live"
        if key.revoked_at is not None:
            state = "revoked"
        elif key.expires_at is not None and key.expires_at <= now:
            state = "expired"
        return KeyOut(
            id=key.id,
            name=key.name,
            role="read" if key.role == "read" else "server",
            boards=None if key.boards is None else list(key.boards),
            expires_at=None if key.expires_at is None else format_time(key.expires_at),
            created_at=format_time(key.created_at),
            created_by=key.created_by,
            state=state,
            revoked_at=None if key.revoked_at is None else format_time(key.revoked_at),
            revoked_by=key.revoked_by,
        )


def _expiry(text: str | None, now: Micros) -> Micros | None:
    if text is None:
        return None
    try:
        at = parse_time(text)
    except ValueError as exc:
        raise InvalidInput.at(["body", "expires_at"], str(exc)) from None
    if at <= now:
        raise InvalidInput.at(["body", "expires_at"], "a key's expiry must be in the future")
    return at


def _boards(new: NewKey) -> tuple[str, ...] | None:
    if new.boards is None:
        return None
    if new.role == "read":
        raise InvalidInput.at(
            ["body", "boards"], "a read key reads every board: only server keys are limited"
        )
    for index, pattern in enumerate(new.boards):
        problem = pattern_problem(pattern)
        if problem is not None:
            raise InvalidInput.at(["body", "boards", index], problem)
    return tuple(new.boards)


# --- `rankline keys`: the same operations on the store the settings name ---------------

CLI_ACTOR = "cli"
"""How the audit log names an operator's ``rankline keys`` (it holds the store, not a key)."""


async def create_on_store(settings: Settings, new: NewKey, reason: str | None) -> NewKeyOut:
    async with open_store(settings) as store:
        return await RuntimeKeys(KeyStore(store), SystemClock()).create(
            new, Attribution(CLI_ACTOR, reason)
        )


async def list_on_store(settings: Settings) -> KeysOut:
    async with open_store(settings) as store:
        return await RuntimeKeys(KeyStore(store), SystemClock()).listed()


async def revoke_on_store(settings: Settings, key_id: str, reason: str | None) -> KeyOut:
    async with open_store(settings) as store:
        return await RuntimeKeys(KeyStore(store), SystemClock()).revoke(
            key_id, Attribution(CLI_ACTOR, reason)
        )


__all__ = [
    "LiveKey",
    "NewKey",
    "RuntimeKeys",
    "create_on_store",
    "digest",
    "list_on_store",
    "revoke_on_store",
]
