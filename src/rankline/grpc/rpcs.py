"""The RPCs of rankline.v1.Rankline as its descriptor declares them: each one's name, its
request and response messages (the generated classes), and whether it streams its answer.

Each RPC twins an operation of the HTTP API and is admitted under the same ``Rule``
(``rankline.access.admission``): the server is given each RPC's rule by whoever builds it.
An RPC's request carries the operation's path parameters and query parameters as fields of
the same names, its body as ``body``, and ``respond_async`` for ``Prefer: respond-async``;
its credential is the call's ``authorization`` metadata, never a field (the stream's
``access_token`` query parameter, which exists for browsers, has none).
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf import message_factory
from google.protobuf.message import Message

from rankline.grpc.gen.rankline.v1 import rankline_pb2

SERVICE = "rankline.v1.Rankline"
DESCRIPTOR = rankline_pb2.DESCRIPTOR.services_by_name["Rankline"]


@dataclass(frozen=True)
class Rpc:
    """One RPC: its name, its messages, and whether its answer is a stream of them."""

    name: str
    request: type[Message]
    response: type[Message]
    streams: bool


def rpcs() -> dict[str, Rpc]:
    """Every RPC of the service, by name, in the proto's order."""
    return {
        method.name: Rpc(
            method.name,
            message_factory.GetMessageClass(method.input_type),
            message_factory.GetMessageClass(method.output_type),
            method.server_streaming,
        )
        for method in DESCRIPTOR.methods
    }
