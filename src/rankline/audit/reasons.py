"""Why a change is made by hand: a reason's bounds (``check_reason``), and the ``?reason=``
a change takes, declared once (``ReasonRequest``, ``rankline.parameters``)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from rankline.errors import InvalidInput

MAX_REASON = 1000
"""Characters a reason may have."""


def check_reason(reason: str | None, loc: list[str | int]) -> str | None:
    """A reason as stored: at most ``MAX_REASON`` characters of valid text; blank is none."""
    if reason is None or not reason.strip():
        return None
    if len(reason) > MAX_REASON:
        raise InvalidInput.at(loc, f"a reason has at most {MAX_REASON} characters")
    if "\x00" in reason:
        raise InvalidInput.at(loc, "the text contains a NUL character")
    try:
        reason.encode()
    except UnicodeEncodeError:
        raise InvalidInput.at(loc, "the text is not valid Unicode") from None
    return reason


Reason = Annotated[
    str,
    Meta(
        max_length=MAX_REASON,
        description="Why the change is made (up to 1,000 characters), kept in the audit log "
        "(GET /v1/audit).",
        extra={"check": check_reason},
    ),
]
"""A change's ``?reason=``, checked by ``check_reason``."""


class ReasonRequest(msgspec.Struct, frozen=True, kw_only=True):
    """The query of a change made by hand (a board or tournament defined or deleted, a
    player banned, unbanned or erased, a key made or revoked): its reason."""

    reason: Reason | None = None
