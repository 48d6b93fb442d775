"""The RPCs reading the logs across boards, answered directly (``direct``):
``ListAuditEntries`` and ``ListDeadLetters``. Each calls the service method its HTTP
operation's handler calls, after the same rule: a key limited to boards names one of its own
(``access.scopes.board_named``)."""

from __future__ import annotations

from rankline.access.scopes import board_named
from rankline.audit.requests import AuditRequest
from rankline.grpc.direct import Call, answered
from rankline.grpc.gen.rankline.v1 import rankline_pb2 as pb
from rankline.grpc.reads import asked
from rankline.moderation.dead_letters import dead_letters
from rankline.moderation.requests import DeadLettersRequest


async def list_audit_entries(call: Call, request: pb.ListAuditEntriesRequest) -> pb.AuditOut:
    """``GET /v1/audit`` (a server key)."""
    caller = await call.admit()
    ask = asked(AuditRequest, request)
    board_named(caller.scope, ask.board)
    return answered(await call.direct.service.audit.page(ask), pb.AuditOut)


async def list_dead_letters(call: Call, request: pb.ListDeadLettersRequest) -> pb.DeadLettersOut:
    """``GET /v1/dead-letters`` (a server key)."""
    caller = await call.admit()
    ask = asked(DeadLettersRequest, request)
    board_named(caller.scope, ask.board)
    answer = await dead_letters(call.direct.service.dead_letters, ask)
    return answered(answer, pb.DeadLettersOut)
