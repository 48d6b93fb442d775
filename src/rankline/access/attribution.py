"""Who makes a change by hand and why, whatever edge it came by (``attributed``): the
caller's key as the audit log names it (``Actors.actor``: its name, or a fingerprint, never
the key) and the change's reason, already checked (``ReasonRequest``). Board and tournament
definitions, bans, unbans and erasure hand it to the service, which writes the audit entry
in the transaction of the change."""

from __future__ import annotations

from typing import Protocol

from rankline.audit.reasons import ReasonRequest
from rankline.store.audit import Attribution


class Actors(Protocol):
    """How the audit log names the caller of a credential (``rankline.http.auth.Keys``)."""

    def actor(self, credential: str | None) -> str: ...


def attributed(actors: Actors, credential: str | None, ask: ReasonRequest) -> Attribution:
    """The attribution of a change made with ``credential`` (the ``Authorization`` header's
    value, or a gRPC call's ``authorization`` metadata) for ``ask``'s reason."""
    return Attribution(actors.actor(credential), ask.reason)
