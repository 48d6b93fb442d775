"""A test identity provider: signing keys made here (RSA, EC P-256, Ed25519), their public
JSON Web Key Set served over real HTTP on 127.0.0.1 from a thread, every request counted;
keys can be rotated, the server stopped and started again on the same port, or made to fail.
And the tokens: minted with PyJWT, and forged the ways an attacker would."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm

from rankline import Settings

ISSUER = "https://idp.rankline.test/"
AUDIENCE = "rankline-test"
REFETCH = 1.0
"""The least time between two fetches of the key set that the tests' servers use."""
SECRET = "a-shared-secret-of-at-least-32-bytes!"


@dataclass
class SigningKey:
    kid: str
    alg: str
    private: Any

    @property
    def public(self) -> Any:
        return self.private.public_key()

    def jwk(self) -> dict[str, Any]:
        if self.alg.startswith(("RS", "PS")):
            found = json.loads(RSAAlgorithm.to_jwk(self.public))
        elif self.alg.startswith("ES"):
            found = json.loads(ECAlgorithm.to_jwk(self.public))
        else:
            found = json.loads(OKPAlgorithm.to_jwk(self.public))
        return {**found, "kid": self.kid, "use": "sig"}

    def public_pem(self) -> bytes:
        return bytes(
            self.public.public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )


def rsa_key(kid: str = "rsa-1") -> SigningKey:
    return SigningKey(kid, "RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048))


def ec_key(kid: str = "ec-1") -> SigningKey:
    return SigningKey(kid, "ES256", ec.generate_private_key(ec.SECP256R1()))


def ed_key(kid: str = "ed-1") -> SigningKey:
    return SigningKey(kid, "EdDSA", ed25519.Ed25519PrivateKey.generate())


def claims(player: str = "p1", *, ttl: float = 600, **extra: Any) -> dict[str, Any]:
    now = int(time.time())
    return {
        "sub": player,
        "iss": ISSUER,
        "aud": AUDIENCE,
        "iat": now,
        "exp": now + int(ttl),
        **extra,
    }


def mint(key: SigningKey, body: dict[str, Any] | None = None, **header: Any) -> str:
    """A token ``key`` signs (its kid in the header unless ``header`` says otherwise)."""
    headers = {"kid": key.kid, **header}
    return jwt.encode(body or claims(), key.private, algorithm=key.alg, headers=headers)


def mint_hs256(body: dict[str, Any] | None = None, secret: str = SECRET) -> str:
    return jwt.encode(body or claims(), secret, algorithm="HS256")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _json(value: Any) -> str:
    return _b64(json.dumps(value, separators=(",", ":")).encode())


def unsigned(body: dict[str, Any], kid: str) -> str:
    """``alg: none``: no signature at all."""
    return f"{_json({'alg': 'none', 'typ': 'JWT', 'kid': kid})}.{_json(body)}."


def hmac_over_public_key(key: SigningKey, body: dict[str, Any]) -> str:
    """HS256 with the RSA public key's PEM as the HMAC secret (the algorithm confusion
    attack: a verifier that takes the token's alg would check it with the public key)."""
    signing_input = f"{_json({'alg': 'HS256', 'typ': 'JWT', 'kid': key.kid})}.{_json(body)}"
    mac = hmac.new(key.public_pem(), signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{_b64(mac)}"


def with_payload(token: str, body: dict[str, Any]) -> str:
    """``token`` with its payload replaced and its signature kept."""
    header, _, signature = token.split(".")
    return f"{header}.{_json(body)}.{signature}"


class IdentityProvider:
    """Serves ``/jwks.json`` (the public keys of ``published``) on 127.0.0.1 and counts the
    requests; ``failing`` answers 503 (still counted); ``stop`` closes the port."""

    def __init__(self, *keys: SigningKey) -> None:
        self.published: list[SigningKey] = list(keys)
        self.extra: list[dict[str, Any]] = []
        """Raw JWKs listed after the published keys' (what an identity provider should not
        list, for the attacks)."""
        self.requests = 0
        self.failing = False
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/jwks.json"

    def key_set(self) -> bytes:
        return json.dumps({"keys": [*(key.jwk() for key in self.published), *self.extra]}).encode()

    def start(self) -> IdentityProvider:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with provider._lock:
                    provider.requests += 1
                    failing, body = provider.failing, provider.key_set()
                if failing or self.path.partition("?")[0] != "/jwks.json":
                    self.send_response(503 if failing else 404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        ThreadingHTTPServer.allow_reuse_address = True
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            assert self._thread is not None
            self._thread.join(5)
            self._server = None

    def count(self) -> int:
        with self._lock:
            return self.requests


def refused_tokens(key: SigningKey) -> dict[str, str]:
    """Tokens a server trusting ``key`` (issuer ISSUER, audience AUDIENCE) must refuse, by
    what is wrong with each."""
    now = int(time.time())
    everything = claims("p1")
    impostor = SigningKey(key.kid, key.alg, rsa_key().private)  # a listed kid, another key
    return {
        "expired": mint(key, claims("p1", exp=now - 31)),
        "not yet valid (nbf)": mint(key, claims("p1", nbf=now + 120)),
        "issued in the future (iat)": mint(key, claims("p1", iat=now + 120)),
        "wrong issuer": mint(key, claims("p1", iss="https://other.example/")),
        "wrong audience": mint(key, claims("p1", aud="another-game")),
        "no audience": mint(key, {k: v for k, v in everything.items() if k != "aud"}),
        "no exp": mint(key, {k: v for k, v in everything.items() if k != "exp"}),
        "alg none": unsigned(everything, key.kid),
        "HS256 over the RSA public key": hmac_over_public_key(key, everything),
        "a changed payload": with_payload(mint(key, everything), claims("p2")),
        "a key not in the set": mint(rsa_key("stranger"), everything),
        "another key under a listed kid": mint(impostor, everything),
        "a player id that is not one": mint(key, claims("p 1/../x")),
        "not a JWT inside": "abc.def.ghi",
    }


def with_key_set(settings: Settings, idp: IdentityProvider, **changes: Any) -> Settings:
    """``settings`` verifying player tokens with ``idp``'s key set, its issuer and audience."""
    return settings.model_copy(
        update={
            "player_jwks_url": idp.url,
            "player_jwt_issuer": ISSUER,
            "player_jwt_audience": AUDIENCE,
            "player_jwks_refetch_seconds": REFETCH,
            **changes,
        }
    )
