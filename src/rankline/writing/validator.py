"""A board's validator: the studio's service that judges each client submission before it
is written.

The submission is POSTed as JSON, signed as the board webhooks are (``X-Rankline-Signature:
sha256=<hex HMAC-SHA256 of the body>`` with the validator's secret,
``rankline.lifecycle.webhooks.signature``), and the answer is a verdict:

    200 {"accept": true}
    200 {"accept": false, "reason": "impossible score for this level"}

Anything else (no answer within ``timeout_ms``, a status outside 2xx, a body that is not a
verdict, a redirect) is an error, which the board's ``on_error`` turns into a refusal or an
acceptance (``rankline.writing.client_rules``).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, NamedTuple

import msgspec

from rankline.client_writes import ValidatorSpec
from rankline.lifecycle.webhooks import DELIVERY_HEADER, SIGNATURE_HEADER, signature

if TYPE_CHECKING:
    import httpx

MAX_REASON = 500
"""A reject's reason is cut to this many characters in answers and the audit log."""


class Verdict(NamedTuple):
    accept: bool
    reason: str | None = None
    """Why the validator rejected the submission; or, when it could not judge (``failed``),
    what went wrong."""
    failed: bool = False
    """The validator gave no verdict."""


class _Answer(msgspec.Struct):
    accept: bool
    reason: str | None = None


_decode = msgspec.json.Decoder(_Answer).decode


class Validators:
    """Asks boards' validators for verdicts, over one HTTP client (its connections reused);
    ``close`` it when done."""

    def __init__(self) -> None:
        self._client: httpx.AsyncClient | None = None

    async def judge(self, spec: ValidatorSpec, body: bytes, label: str) -> Verdict:
        """The verdict of the validator of ``spec`` on ``body`` (``label`` goes in the
        ``X-Rankline-Delivery`` header), within its ``timeout_ms``."""
        import httpx

        headers = {
            "content-type": "application/json",
            SIGNATURE_HEADER: signature(spec.secret or "", body),
            DELIVERY_HEADER: label,
        }
        seconds = spec.timeout_ms / 1000
        try:
            async with asyncio.timeout(seconds):
                answer = await self._http().post(
                    spec.url, content=body, headers=headers, timeout=seconds
                )
        except (TimeoutError, httpx.TimeoutException):
            return Verdict(False, f"no answer within {spec.timeout_ms} ms", failed=True)
        except httpx.HTTPError as exc:
            return Verdict(False, f"{type(exc).__name__}", failed=True)
        if not 200 <= answer.status_code < 300:
            return Verdict(False, f"HTTP {answer.status_code}", failed=True)
        try:
            verdict = _decode(answer.content)
        except msgspec.DecodeError:
            return Verdict(False, "the answer is not a verdict", failed=True)
        reason = None if verdict.reason is None else verdict.reason[:MAX_REASON]
        return Verdict(verdict.accept, reason)

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx  # here, not at the top: a server without validators starts without it

            self._client = httpx.AsyncClient(follow_redirects=False)
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()


__all__ = ["MAX_REASON", "Validators", "Verdict"]
