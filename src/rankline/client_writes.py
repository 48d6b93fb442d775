"""Client writes as a board defines them: whether players may submit their own scores with
their tokens, and the limits and the validator those submissions pass
(``rankline.writing.client_rules`` applies them).

    "client_writes": {"max_per_minute": 10, "max_gain": 5000,
                      "validator": {"url": "https://…", "secret": "…", "timeout_ms": 300,
                                    "on_error": "reject"}}

Without it a board is server-authoritative: only keys write to it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from rankline.errors import InvalidInput
from rankline.ordering import SCORE_MAX
from rankline.types import Policy

DEFAULT_PER_MINUTE = 10
MAX_PER_MINUTE = 600
DEFAULT_TIMEOUT_MS = 300
GAIN_POLICIES = ("best", "sum")
"""The policies ``max_gain`` applies to."""


class ValidatorSpec(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Where each client submission is posted for a verdict before it is written, signed
    with ``secret`` as the board webhooks are (shown without it)."""

    url: Annotated[str, Meta(pattern=r"^https?://", max_length=2000)]
    secret: Annotated[str, Meta(min_length=1, max_length=500)] | None = None
    """Required on PUT; never shown."""
    timeout_ms: Annotated[int, Meta(ge=50, le=5000)] = DEFAULT_TIMEOUT_MS
    on_error: Literal["reject", "accept"] = "reject"
    """What a submission gets when the validator times out or answers anything but a
    verdict: ``reject`` (503, nothing written) or ``accept`` (written)."""


class ClientWritesSpec(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Players may submit their own scores with their tokens, within these limits; without
    it a board takes scores from keys only."""

    max_per_minute: Annotated[int, Meta(ge=1, le=MAX_PER_MINUTE)] = DEFAULT_PER_MINUTE
    """A player's submissions to the board in any 60 seconds, whoever sent them."""
    max_gain: Annotated[int, Meta(ge=1, le=SCORE_MAX)] | None = None
    """The largest step one client submission may make, in the board's order, on the
    player's current score in the primary leaderboard (``best``: the new score against the
    current one, or against 0 when there is none; ``sum``: the score added). Only on
    ``best`` and ``sum`` boards."""
    validator: ValidatorSpec | None = None


def check_client_writes(writes: ClientWritesSpec, policy: Policy) -> None:
    """InvalidInput when ``writes`` does not fit a board with ``policy``."""
    if writes.max_gain is not None and policy not in GAIN_POLICIES:
        raise InvalidInput.at(
            ["body", "client_writes", "max_gain"],
            "max_gain applies to boards with policy best or sum",
        )
    if writes.validator is not None and writes.validator.secret is None:
        raise InvalidInput.at(
            ["body", "client_writes", "validator", "secret"],
            "a validator needs the secret that signs the submissions it is sent",
        )


def client_writes_shown(writes: ClientWritesSpec) -> dict[str, Any]:
    """Every limit as it applies (defaults included), the validator without its secret."""
    data: dict[str, Any] = {"max_per_minute": writes.max_per_minute}
    if writes.max_gain is not None:
        data["max_gain"] = writes.max_gain
    if (check := writes.validator) is not None:
        data["validator"] = {
            "url": check.url,
            "timeout_ms": check.timeout_ms,
            "on_error": check.on_error,
        }
    return data


__all__ = [
    "ClientWritesSpec",
    "ValidatorSpec",
    "check_client_writes",
    "client_writes_shown",
]
