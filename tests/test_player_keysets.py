"""The keys that verify player tokens: which algorithms a key of the identity provider's set
may verify (its type decides, never the token), and what of a set is kept."""

from __future__ import annotations

import base64
import json
from typing import Any

import jwt
import pytest
from pydantic import SecretStr

from helpers_api import assert_problem, open_app, open_client
from helpers_idp import AUDIENCE, ISSUER, IdentityProvider, claims, ec_key, ed_key, mint, rsa_key
from rankline import ManualClock, Settings
from rankline.access.keysets import algorithms_for, parse_key_set

RSA = rsa_key().jwk()
EC = ec_key().jwk()
ED = ed_key().jwk()
SECRET = b"a-symmetric-key-that-has-no-place-in-a-public-set"
OCT = {"kty": "oct", "kid": "oct-1", "k": base64.urlsafe_b64encode(SECRET).rstrip(b"=").decode()}


@pytest.mark.parametrize(
    ("jwk", "algorithms"),
    [
        (RSA, ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512")),
        ({**RSA, "alg": "PS256"}, ("PS256",)),
        ({**RSA, "alg": "HS256"}, ()),  # an HMAC algorithm named on a public key
        ({**RSA, "alg": "none"}, ()),
        ({**RSA, "alg": "ES256"}, ()),
        (EC, ("ES256",)),
        ({**EC, "crv": "P-384"}, ("ES384",)),
        ({**EC, "crv": "secp256k1"}, ()),
        (ED, ("EdDSA",)),
        (OCT, ()),
        ({**OCT, "alg": "HS256"}, ()),
        ({**RSA, "use": "enc"}, ()),
        ({"kty": "unknown"}, ()),
    ],
)
def test_the_algorithms_follow_the_key_type(
    jwk: dict[str, Any], algorithms: tuple[str, ...]
) -> None:
    assert algorithms_for(jwk) == algorithms


def test_a_set_keeps_its_usable_signing_keys_by_kid() -> None:
    body = json.dumps({"keys": [RSA, EC, ED, OCT, {**RSA, "kid": "enc", "use": "enc"}, "junk"]})
    keys = parse_key_set(body.encode())
    assert sorted(k for k in keys if k) == sorted([RSA["kid"], EC["kid"], ED["kid"]])
    for bad, words in [
        (b"not json", "not JSON"),
        (b'{"nokeys": []}', 'no "keys" list'),
        (json.dumps({"keys": [OCT]}).encode(), "no usable signing key"),
    ]:
        with pytest.raises(ValueError, match=words):
            parse_key_set(bad)


@pytest.mark.edge
async def test_an_hmac_key_listed_in_the_set_verifies_nothing(
    settings: Settings, clock: ManualClock
) -> None:
    key = rsa_key()
    idp = IdentityProvider(key).start()
    idp.extra = [{**OCT, "alg": "HS256"}, OCT]
    try:
        configured = settings.model_copy(
            update={
                "player_jwks_url": idp.url,
                "player_jwt_issuer": ISSUER,
                "player_jwt_audience": AUDIENCE,
            }
        )
        async with open_app(configured, clock) as app, open_client(app) as client:
            forged = jwt.encode(claims("p1"), SECRET, algorithm="HS256", headers={"kid": "oct-1"})
            response = await client.get(
                "/v1/boards/none/top", headers={"Authorization": f"Bearer {forged}"}
            )
            assert_problem(response, 401)
            good = mint(key, claims("p1"))
            response = await client.get(
                "/v1/boards/none/top", headers={"Authorization": f"Bearer {good}"}
            )
            assert_problem(response, 404)  # past the token: the board does not exist
    finally:
        idp.stop()


def test_the_secret_is_never_shown_by_the_settings() -> None:
    settings = Settings(player_jwt_secret=SecretStr("s" * 40))
    assert "s" * 40 not in repr(settings) and "s" * 40 not in str(settings.model_dump())
