"""Bearer keys: server keys for writes; read keys for reads when any are configured."""

from __future__ import annotations

import hmac
import logging
import os
import secrets
from pathlib import Path

from starlette.requests import Request

from rankline.errors import Forbidden, Unauthorized
from rankline.settings import Settings

log = logging.getLogger("rankline")
KEY_FILE = "server-key"


_REMEMBERED = 256
"""Accepted Authorization headers remembered (per role), so a client's every request does
not pay for parsing and constant-time comparison again; only accepted ones are kept."""


class Keys:
    def __init__(self, server: list[str], read: list[str]) -> None:
        self._server = [k.encode() for k in server]
        self._read = [k.encode() for k in read]
        self._server_ok: set[str] = set()
        self._read_ok: set[str] = set()

    @classmethod
    def from_settings(cls, settings: Settings) -> Keys:
        server = settings.server_key_list or [ensure_server_key(settings.data_dir)[0]]
        return cls(server, settings.read_key_list)

    @staticmethod
    def _bearer(request: Request) -> bytes:
        header = request.headers.get("authorization")
        if not header:
            raise Unauthorized("this needs an `Authorization: Bearer <key>` header")
        scheme, _, key = header.partition(" ")
        if scheme.lower() != "bearer" or not key.strip():
            raise Unauthorized("use `Authorization: Bearer <key>`")
        return key.strip().encode()

    @staticmethod
    def _match(key: bytes, accepted: list[bytes]) -> bool:
        found = False
        for candidate in accepted:
            found |= hmac.compare_digest(key, candidate)
        return found

    def require_server(self, request: Request) -> None:
        header = request.headers.get("authorization")
        if header in self._server_ok:
            return
        if not self._match(self._bearer(request), self._server):
            raise Forbidden("this needs a server key")
        _remember(self._server_ok, header)

    def require_read(self, request: Request) -> None:
        if not self._read:
            return
        header = request.headers.get("authorization")
        if header in self._read_ok:
            return
        key = self._bearer(request)
        if not (self._match(key, self._read) or self._match(key, self._server)):
            raise Forbidden("this needs a read key")
        _remember(self._read_ok, header)


def _remember(accepted: set[str], header: str | None) -> None:
    if header is None:
        return
    if len(accepted) >= _REMEMBERED:
        accepted.clear()
    accepted.add(header)


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
