"""Who makes a change by hand over gRPC and why, as the HTTP edge's ``http.audited`` says it
of a request: the call's ``authorization`` metadata as the admitted caller's key
(``actor``), and the message's ``reason`` field as HTTP's ``?reason=`` (``attribution``:
``audit.reasons.ReasonRequest``, the same checks at ``["query", "reason"]``), both named by
``access.attribution``."""

from __future__ import annotations

from google.protobuf.message import Message

from rankline.access.attribution import attribution as attributed
from rankline.audit.reasons import ReasonRequest
from rankline.grpc.calls import credential
from rankline.grpc.direct import Call
from rankline.grpc.reads import asked
from rankline.store.audit import Attribution


def actor(call: Call) -> str:
    """The caller, as the audit log names them (once admitted: ``Call.admit``)."""
    return call.direct.admission.keys.actor(credential(call.context.invocation_metadata()))


def attribution(call: Call, request: Message) -> Attribution:
    """The caller and the message's ``reason``: what a change made by hand is audited with."""
    reason = asked(ReasonRequest, request).reason
    keys = call.direct.admission.keys
    return attributed(keys, credential(call.context.invocation_metadata()), reason)
