"""Who makes a change by hand and why, whichever edge it comes by (``attribution``): the
caller's key as the audit log names it (``KeyCheck.actor``: a runtime key by its name and
id, a bootstrap key by a fingerprint, never the key itself) and the change's ``reason``
parameter (``audit.reasons.ReasonRequest``, checked where the edge read it). Board and
tournament definitions, bans, unbans and erasure hand it to the service, which writes the
audit entry in the transaction of the change (as moderation does with the actor)."""

from __future__ import annotations

from rankline.access.admission import KeyCheck
from rankline.store.audit import Attribution


def attribution(keys: KeyCheck, credential: str | None, reason: str | None) -> Attribution:
    """The change's attribution: the admitted caller's ``credential`` (the Authorization
    header's value, or a gRPC call's ``authorization`` metadata) named by ``keys``, and
    the ``reason`` it gives."""
    return Attribution(keys.actor(credential), reason)
