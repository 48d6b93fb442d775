"""Where the keys that verify player tokens come from: the identity provider's JSON Web Key
Set, fetched over HTTP and kept, or one shared HS256 secret.

A key source answers one question, ``key_for(kid)``: the key that verifies a token naming
``kid``, and the algorithms that key may verify. The algorithms follow the key's type, never
the token: an RSA key verifies RS*/PS*, an EC key the ES* of its curve, an OKP key EdDSA,
and only the shared secret HS256. So ``alg: none`` and an HMAC computed over a public key
are refused whatever the token says.

The JSON Web Key Set is fetched on the first token, again when a token names a key it does
not list (at most once every ``refetch_seconds``: a stream of forged ``kid``s cannot turn
into a stream of requests to the identity provider), and when the set is older than
``_REFRESH_AFTER``. While the identity provider cannot be reached, the last keys fetched keep
verifying for ``max_stale_seconds`` after they were fetched; beyond that, tokens are refused
with 503 (the server cannot tell a good token from a bad one).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol
from urllib.parse import urlsplit

import httpx
import msgspec
from jwt import PyJWK, PyJWTError

from rankline.errors import InvalidToken, Unavailable

log = logging.getLogger("rankline")

Verifying = tuple[Any, tuple[str, ...]]
"""A key as PyJWT takes it, and the algorithms it may verify."""

_RSA = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512")
_EC = {"P-256": ("ES256",), "P-384": ("ES384",), "P-521": ("ES512",)}
_OKP = {"Ed25519": ("EdDSA",), "Ed448": ("EdDSA",)}
_REFRESH_AFTER = 300.0
"""Seconds after which the key set is fetched again (when a token next needs it), so a key
the identity provider withdrew stops verifying even if no token names an unknown one."""
_FETCH_TIMEOUT = 3.0
_MAX_SET_BYTES = 1 << 20


class KeySource(Protocol):
    """Keys that verify player tokens."""

    generation: int
    """Changes whenever the keys change: tokens verified before are verified again."""

    async def key_for(self, kid: str | None) -> Verifying:
        """The key that verifies a token naming ``kid`` (None: the token names none), and
        the algorithms it may verify; InvalidToken when there is none."""
        ...


class SharedSecret:
    """One HS256 secret shared with the studio's own token service."""

    generation = 0

    def __init__(self, secret: bytes) -> None:
        self._key: Verifying = (secret, ("HS256",))

    async def key_for(self, kid: str | None) -> Verifying:
        return self._key


def algorithms_for(jwk: dict[str, Any]) -> tuple[str, ...]:
    """The algorithms a public key of this type (and curve) verifies; () for a key that
    verifies no token here (a symmetric key, a key for encryption, an unknown type). A key
    that names its ``alg`` verifies that one only, if it fits the key's type."""
    kty, crv = jwk.get("kty"), jwk.get("crv")
    if jwk.get("use", "sig") != "sig":
        return ()
    if kty == "RSA":
        fitting: tuple[str, ...] = _RSA
    elif kty == "EC":
        fitting = _EC.get(crv, ()) if isinstance(crv, str) else ()
    elif kty == "OKP":
        fitting = _OKP.get(crv, ()) if isinstance(crv, str) else ()
    else:
        return ()  # "oct": an HMAC key has no place in a public key set
    named = jwk.get("alg")
    if named is None:
        return fitting
    return (named,) if named in fitting else ()


def parse_key_set(body: bytes) -> dict[str | None, Verifying]:
    """The usable keys of a JSON Web Key Set, by ``kid``; ValueError when it is not one or
    holds no usable key."""
    try:
        document = msgspec.json.decode(body)
    except msgspec.DecodeError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    entries = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise ValueError('not a JSON Web Key Set (no "keys" list)')
    keys: dict[str | None, Verifying] = {}
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        algorithms = algorithms_for(entry)
        if not algorithms:
            continue
        try:
            key = PyJWK(entry, algorithms[0]).key
        except PyJWTError:
            continue  # a key this library cannot read (or a private key's missing parts)
        kid = entry.get("kid")
        keys[kid if isinstance(kid, str) else None] = (key, algorithms)
    if not keys:
        raise ValueError("it holds no usable signing key (RSA, EC or OKP)")
    return keys


class KeySet:
    """The identity provider's JSON Web Key Set, fetched when needed and kept."""

    def __init__(
        self,
        url: str,
        *,
        refetch_seconds: float,
        max_stale_seconds: float,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.url = url
        self.refetch_seconds = refetch_seconds
        self.max_stale_seconds = max_stale_seconds
        self.generation = 0
        self.fetches = 0
        """Fetches tried, for the metrics and tests."""
        self._now = monotonic
        self._keys: dict[str | None, Verifying] = {}
        self._body: bytes | None = None
        self._fetched_at: float | None = None
        self._tried_at: float | None = None
        self._lock = asyncio.Lock()

    async def key_for(self, kid: str | None) -> Verifying:
        now = self._now()
        fetched = self._fetched_at
        if fetched is None or now - fetched > min(_REFRESH_AFTER, self.max_stale_seconds):
            await self._refresh()
        found = self._find(kid)
        if found is None:
            await self._refresh()  # a key added since (rotation); at most once per interval
            found = self._find(kid)
        fetched = self._fetched_at
        if fetched is None or self._now() - fetched > self.max_stale_seconds:
            error = Unavailable(
                "the identity provider's keys could not be fetched: player tokens cannot be "
                "verified now"
            )
            error.retry_after = max(1, round(self.refetch_seconds))
            raise error
        if found is None:
            raise InvalidToken(
                "the token is signed by a key the identity provider does not list"
                if kid is not None
                else "the token names no key (kid), and the identity provider lists several"
            )
        return found

    def _find(self, kid: str | None) -> Verifying | None:
        found = self._keys.get(kid)
        if found is None and kid is None and len(self._keys) == 1:
            [found] = self._keys.values()
        return found

    async def _refresh(self) -> None:
        """Fetch the set unless it was tried less than ``refetch_seconds`` ago (by this call
        or one waiting beside it); a failure keeps the keys there are."""
        async with self._lock:
            now = self._now()
            if self._tried_at is not None and now - self._tried_at < self.refetch_seconds:
                return
            self._tried_at = now
            self.fetches += 1
            try:
                body = await self._fetch()
                keys = parse_key_set(body)
            except (httpx.HTTPError, ValueError) as exc:
                log.warning(
                    "player tokens: cannot fetch the key set from %s: %s",
                    _host(self.url),
                    _why(exc),
                )
                return
            if body != self._body:
                self._keys, self._body = keys, body
                self.generation += 1
            self._fetched_at = now

    async def _fetch(self) -> bytes:
        # A client per fetch: fetches are seconds apart at the very least, and nothing is
        # left open between them.
        async with httpx.AsyncClient(timeout=_FETCH_TIMEOUT, follow_redirects=True) as client:
            response = await client.get(self.url, headers={"Accept": "application/json"})
            response.raise_for_status()
            if len(response.content) > _MAX_SET_BYTES:
                raise ValueError("the key set is larger than 1 MiB")
            return response.content


def _host(url: str) -> str:
    """Where a URL points, fit for a log line: its host only (a path, a query or a
    user part may hold a credential)."""
    return urlsplit(url).hostname or "(no host)"


def _why(exc: Exception) -> str:
    """Why a fetch failed, fit for a log line: httpx's messages repeat the whole URL."""
    if isinstance(exc, httpx.HTTPStatusError):
        return f"HTTP {exc.response.status_code}"
    if isinstance(exc, httpx.HTTPError):
        return type(exc).__name__
    return f"not a key set ({exc})"
