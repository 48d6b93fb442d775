"""Bearer keys: server keys for writes; read keys for reads when any are configured.

A server key may be limited to boards: ``key:game-a-*|game-b-*`` (the key, a colon, and
board id patterns separated by ``|``, each a shell-style glob) writes only the boards whose
id matches a pattern, and cannot change players (profiles, friend lists, bans, erasure),
which belong to every board. A plain ``key`` is limited to nothing.

These bootstrap keys come from the settings; a key they do not know is looked up among the
keys made at runtime (``rankline.access.keys``), which remembers the headers that carried a
live key only until any key changes, and checks the expiry at every use: a revocation or an
expiry takes effect at the next request.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from starlette.types import Scope

from rankline.access.scopes import BoardScope as BoardScope  # the edge imports it from here
from rankline.access.scopes import pattern_problem
from rankline.errors import Forbidden, Unauthorized
from rankline.settings import Settings

if TYPE_CHECKING:
    from rankline.access.keys import LiveKey, RuntimeKeys

log = logging.getLogger("rankline")
KEY_FILE = "server-key"
T = TypeVar("T")


_REMEMBERED = 256
"""Accepted Authorization headers remembered (per role), so a client's every request does
not pay for parsing and constant-time comparison again; only accepted ones are kept."""


def parse_server_key(entry: str) -> tuple[str, BoardScope | None]:
    """``key`` or ``key:pattern|pattern`` as the key and the boards it is limited to."""
    key, colon, patterns = entry.partition(":")
    if not colon:
        return key, None
    parts = [p.strip() for p in patterns.split("|")]
    if not key or any(pattern_problem(p) for p in parts):
        raise ValueError(
            "a server key limited to boards is written key:pattern|pattern, "
            "e.g. rk_abc:game-a-*|game-b-*"
        )
    return key, BoardScope(parts)


class Keys:
    def __init__(
        self, server: list[str], read: list[str], runtime: RuntimeKeys | None = None
    ) -> None:
        self._runtime = runtime
        parsed = [parse_server_key(entry) for entry in server]
        self._server = [key.encode() for key, _ in parsed]
        self._scopes = [scope for _, scope in parsed]
        self._read = [k.encode() for k in read]
        self._server_ok: dict[str, BoardScope | None] = {}
        self._read_ok: dict[str, bool] = {}

    @classmethod
    def from_settings(cls, settings: Settings, runtime: RuntimeKeys | None = None) -> Keys:
        server = settings.server_key_list or [ensure_server_key(settings.data_dir)[0]]
        return cls(server, settings.read_key_list, runtime)

    @staticmethod
    def _bearer(header: str | None) -> bytes:
        if not header:
            raise Unauthorized("this needs an `Authorization: Bearer <key>` header")
        scheme, _, key = header.partition(" ")
        if scheme.lower() != "bearer" or not key.strip():
            raise Unauthorized("use `Authorization: Bearer <key>`")
        return key.strip().encode()

    @staticmethod
    def _find(key: bytes, accepted: list[bytes]) -> int:
        """The index of ``key`` in ``accepted``, or -1: every candidate is compared in
        constant time, and all of them always, so the time tells nothing of which matched."""
        found = -1
        for index, candidate in enumerate(accepted):
            if hmac.compare_digest(key, candidate):
                found = index
        return found

    @classmethod
    def _match(cls, key: bytes, accepted: list[bytes]) -> bool:
        return cls._find(key, accepted) >= 0

    def server_scope(self, header: str | None) -> BoardScope | None:
        """Check for any server key (``header``: the credential, the Authorization header's
        value): the boards it is limited to, None for all."""
        if header is not None and header in self._server_ok:
            return self._server_ok[header]
        live = self._remembered(header)
        if live is not None and live.role == "server":
            return live.scope
        key = self._bearer(header)
        index = self._find(key, self._server)
        if index < 0:
            live = self._live(key, header)
            if live is None or live.role != "server":
                raise Forbidden("this needs a server key")
            return live.scope
        scope = self._scopes[index]
        if header is not None:
            _remember(self._server_ok, header, scope)
        return scope

    def require_server(self, header: str | None) -> None:
        """A server key limited to no boards (what changes players needs)."""
        scope = self.server_scope(header)
        if scope is not None:
            raise Forbidden(
                f"this key is limited to boards {'|'.join(scope.patterns)}; changing players "
                "needs a server key without board limits"
            )

    def require_board(self, header: str | None, board_id: str) -> None:
        """A server key that may write ``board_id``."""
        scope = self.server_scope(header)
        if scope is not None and not scope.allows(board_id):
            raise scope.refuse(board_id)

    def authorize(
        self, header: str | None, auth: str, board_id: str | None = None
    ) -> BoardScope | None:
        """Check the caller (``header``: the credential, the Authorization header's value)
        against an operation's ``auth`` (``http.endpoint.Auth``) on ``board_id`` (the
        board its path names); Unauthorized or Forbidden if it may not call it. For
        ``server``, the boards the key is limited to (None: all)."""
        if auth == "read":
            self.require_read(header)
            return None
        if auth == "board":
            if board_id is None:
                raise ValueError("a board's operation names its board")
            self.require_board(header, board_id)
            return None
        if auth == "players":
            self.require_server(header)
            return None
        if auth == "server":
            return self.server_scope(header)
        if auth == "me":
            if header is None:
                raise Unauthorized("this needs the player's token: `Authorization: Bearer <JWT>`")
            raise Forbidden(
                "this is a player's own endpoint: it needs a player token, not a key (a key "
                "reads any player at /v1/boards/{board_id}/players/{player_id})"
            )
        raise ValueError(f"unknown auth {auth!r}")

    def actor(self, header: str | None) -> str:
        """Who is calling, for the audit log: a key made at runtime by its name and id
        (``key:<name>#<id>``), a bootstrap key as ``key:`` and the first 12 hex digits of
        the SHA-256 of the key (never the key itself)."""
        key = self._bearer(header)
        live = self._live(key)
        if live is not None:
            return live.actor
        return "key:" + hashlib.sha256(key).hexdigest()[:12]

    def _live(self, key: bytes, header: str | None = None) -> LiveKey | None:
        """The runtime key ``key`` is, if live (remembered by ``header`` when given)."""
        if self._runtime is None:
            return None
        live = self._runtime.find(key)
        if live is not None and header is not None:
            self._runtime.remember(header, live)
        return live

    def _remembered(self, header: str | None) -> LiveKey | None:
        if self._runtime is None or header is None:
            return None
        return self._runtime.by_header(header)

    def require_read(self, header: str | None) -> None:
        if not self._read:
            return
        if header in self._read_ok or self._remembered(header) is not None:
            return
        key = self._bearer(header)
        if not (self._match(key, self._read) or self._match(key, self._server)):
            if self._live(key, header) is None:
                raise Forbidden("this needs a read key")
            return
        if header is not None:
            _remember(self._read_ok, header, True)


def authorization(scope: Scope) -> str | None:
    """The request's Authorization header, as ``request.headers`` has it, read from the
    scope's raw headers: Starlette's header map, made for this one lookup, cost more than
    the rest of the key check."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            return str(value.decode("latin-1"))
    return None


def _remember(accepted: dict[str, T], header: str, value: T) -> None:
    """Remember an accepted header, forgetting the oldest one when full (plain dicts: a
    cache class's lookup cost as much as the rest of the check)."""
    if len(accepted) >= _REMEMBERED:
        del accepted[next(iter(accepted))]
    accepted[header] = value


def ensure_server_key(data_dir: Path) -> tuple[str, bool]:
    """The generated server key in ``data_dir``; True when it was created just now."""
    path = data_dir / KEY_FILE
    if path.exists():
        return path.read_text().strip(), False
    data_dir.mkdir(parents=True, exist_ok=True)
    key = "rk_" + secrets.token_urlsafe(32)
    # Created with mode 0600 and O_EXCL: never readable by others, and two processes
    # starting at once cannot both write one.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip(), False
    with os.fdopen(fd, "w") as out:
        out.write(key + "\n")
    return key, True
