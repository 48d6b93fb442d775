"""Player tokens: a JWT from the studio's identity provider, verified (PyJWT) and turned into
the player it names (``rankline.callers.Player``).

A token is accepted when its signature verifies with a key of the identity provider's set
(``keysets.KeySet``) or the shared secret (``keysets.SharedSecret``), by an algorithm that
key's type allows; it carries ``exp`` and has not expired, is not used before its ``nbf``
or ``iat``, with 30 s of leeway for clocks that drift; it names the configured issuer and
audience; and its player claim (``sub`` by default) is a valid player id.

A verified token is kept until it expires (a bounded number of them, by the token itself),
so a read with a token costs about what a read without one does; only accepted tokens are
kept, and all of them are forgotten when the identity provider's keys change.

A credential is a token by its shape (``credentials.is_token``). This module needs PyJWT, the
``tokens`` extra: it is imported only when a token setting is given
(``credentials.tokens_on``).
"""

from __future__ import annotations

import re
import time

import jwt

from rankline.access.credentials import check_settings, is_token
from rankline.access.keysets import KeySet, KeySource, SharedSecret
from rankline.boards import PLAYER_ID_PATTERN
from rankline.callers import Player
from rankline.errors import InvalidToken
from rankline.settings import Settings

LEEWAY = 30
"""Seconds of clock drift allowed on ``exp``, ``nbf`` and ``iat``."""
_PLAYER_ID = re.compile(PLAYER_ID_PATTERN)
_KEPT = 16_384
"""Verified tokens kept at most; the oldest is forgotten first."""


class PlayerTokens:
    """Verifies player tokens against ``keys`` and names the player each one carries."""

    def __init__(
        self,
        keys: KeySource,
        *,
        issuer: str | None = None,
        audience: str | None = None,
        claim: str = "sub",
    ) -> None:
        self.keys = keys
        self.issuer = issuer
        self.audience = audience
        self.claim = claim
        self._options: jwt.types.Options = {
            "require": ["exp"],
            "verify_aud": audience is not None,
            "enforce_minimum_key_length": True,
        }
        self._verified: dict[str, Player] = {}
        self._generation = keys.generation

    @classmethod
    def from_settings(cls, settings: Settings) -> PlayerTokens | None:
        """The verifier the settings describe; None when player tokens are off (neither a
        key set nor a secret). ValueError, saying what to change, when they do not go
        together (``check_settings``)."""
        check_settings(settings)
        keys: KeySource
        if settings.player_jwks_url is not None:
            keys = KeySet(
                settings.player_jwks_url,
                refetch_seconds=settings.player_jwks_refetch_seconds,
                max_stale_seconds=settings.player_jwks_max_stale_seconds,
            )
        elif settings.player_jwt_secret is not None:
            keys = SharedSecret(settings.player_jwt_secret.get_secret_value().encode())
        else:
            return None
        return cls(
            keys,
            issuer=settings.player_jwt_issuer,
            audience=settings.player_jwt_audience,
            claim=settings.player_claim,
        )

    async def player(self, token: str) -> Player:
        """The player ``token`` names; InvalidToken (401) when it does not verify,
        Unavailable (503) when the identity provider's keys cannot be had."""
        if self._generation != self.keys.generation:
            self._verified.clear()
            self._generation = self.keys.generation
        known = self._verified.get(token)
        if known is not None:
            if known.expires_at + LEEWAY > time.time():
                return known
            del self._verified[token]
        found = await self._verify(token)
        if self._generation == self.keys.generation:  # not verified by keys since withdrawn
            if len(self._verified) >= _KEPT:
                del self._verified[next(iter(self._verified))]
            self._verified[token] = found
        return found

    async def _verify(self, token: str) -> Player:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise InvalidToken("the token is not a well-formed JWT") from None
        kid = header.get("kid")
        key, algorithms = await self.keys.key_for(kid if isinstance(kid, str) else None)
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=list(algorithms),
                options=self._options,
                issuer=self.issuer,
                audience=self.audience,
                leeway=LEEWAY,
            )
        except jwt.PyJWTError as exc:
            raise InvalidToken(_why(exc)) from None
        player_id = claims.get(self.claim)
        if not isinstance(player_id, str) or _PLAYER_ID.match(player_id) is None:
            raise InvalidToken(
                f"the token's {self.claim} claim is not a player id (1 to 64 letters, digits "
                "and _ . : @ -)"
            )
        return Player(player_id, float(claims["exp"]), claims)


def _why(error: jwt.PyJWTError) -> str:
    """What was wrong with a token, in words that do not echo it."""
    if isinstance(error, jwt.ExpiredSignatureError):
        return "the token has expired"
    if isinstance(error, jwt.ImmatureSignatureError):
        return "the token is not valid yet (its nbf or iat is in the future)"
    if isinstance(error, jwt.InvalidIssuerError):
        return "the token's issuer (iss) is not the one this server trusts"
    if isinstance(error, jwt.InvalidAudienceError):
        return "the token's audience (aud) is not this server's"
    if isinstance(error, jwt.MissingRequiredClaimError):
        return f"the token has no {error.claim} claim"
    if isinstance(error, jwt.InvalidAlgorithmError):
        return "the token's algorithm (alg) is not one its key may sign with"
    if isinstance(error, jwt.InvalidSignatureError):
        return "the token's signature does not verify"
    if isinstance(error, jwt.InvalidKeyError):
        return "the token's key is not strong enough"
    return "the token is not a valid JWT"


__all__ = ["LEEWAY", "PlayerTokens", "check_settings", "is_token"]
