"""What the server knows of player tokens without PyJWT (the ``tokens`` extra): a bearer
credential's shape, whether player tokens are on and whether their settings go together.
The verifier (``rankline.access.tokens``) is imported only when they are on.

A credential is a token by its shape: three base64url parts separated by dots. Keys never
have that shape (``check_keys`` refuses a configured key that does).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rankline.settings import Settings

_SHAPE = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")


def tokens_on(settings: Settings) -> bool:
    """Whether player tokens are configured (a key set or a shared secret)."""
    return settings.player_jwks_url is not None or settings.player_jwt_secret is not None


def is_token(credential: str) -> bool:
    """Whether a bearer credential has a JWT's shape (an unsigned one's too: it is a token,
    refused as one, not a key)."""
    return _SHAPE.fullmatch(credential) is not None


def check_settings(settings: Settings) -> None:
    """ValueError when the player token settings do not go together. Checked here rather
    than by the settings' own validation, whose error would print their inputs (a secret
    among them)."""
    url, secret = settings.player_jwks_url, settings.player_jwt_secret
    if url is not None:
        if secret is not None:
            raise ValueError("set RANKLINE_PLAYER_JWKS_URL or RANKLINE_PLAYER_JWT_SECRET, not both")
        if not url.startswith(("https://", "http://")):
            raise ValueError("RANKLINE_PLAYER_JWKS_URL must be an https:// (or http://) URL")
        if not settings.player_jwt_issuer or not settings.player_jwt_audience:
            raise ValueError(
                "RANKLINE_PLAYER_JWKS_URL needs RANKLINE_PLAYER_JWT_ISSUER and "
                "RANKLINE_PLAYER_JWT_AUDIENCE: the identity provider signs every other "
                "application's tokens with the same keys"
            )
    if secret is not None and len(secret.get_secret_value().encode()) < 32:
        raise ValueError("RANKLINE_PLAYER_JWT_SECRET must be at least 32 bytes (HS256)")
    if url is not None or secret is not None:
        check_keys([*settings.server_key_list, *settings.read_key_list])


def check_keys(keys: Iterable[str]) -> None:
    """Refuse server or read keys shaped like a token: a request could not tell them apart."""
    for entry in keys:
        if is_token(entry.partition(":")[0]):
            raise ValueError(
                "a configured server or read key has a JWT's shape (three parts separated by "
                "dots): with player tokens on, choose keys without dots"
            )
