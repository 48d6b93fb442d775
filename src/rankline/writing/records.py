"""The ingestion log's records of score submissions: their layouts, keys and payloads.

A request's submissions to one board are one batch record (``batch_records``): a
``BatchPayload`` (the request's receive time and its ``Item``s, in order), cut at
``BATCH_ITEMS`` submissions or ``BATCH_BYTES``, keyed ``board/batch/<digest>`` by a SHA-256
of the encoded items. The receive time is left out of the digest, and so is ``at`` where the
client gave none: an identical retry of the request has the same keys, and the log keeps it
once. A single submission is a record of its own (``record_of``: a ``Payload`` keyed
``board/<digest>``), the one layout earlier versions wrote for every submission; match
records (``board/match/<digest>``) are ``rankline.ratings.rated``'s. The applier
(``rankline.writing.ingest``) reads all three.

    records = batch_records("arena", now, [item_of(sub) for sub in submissions])
    [record] = [record_of(submission)]            # a request of one submission
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import msgspec

from rankline.boards import Board
from rankline.log.base import LogRecord
from rankline.writing.writer import Submission


class Payload(msgspec.Struct, array_like=True, frozen=True):
    """A submission as the log keeps it (its board is the record's)."""

    player: str
    match_id: str
    score: int
    at: int
    received_at: int
    at_given: bool
    scopes: dict[str, str]
    metadata: dict[str, Any]
    subscore: int | None = None
    """Last, so that records written before subscores existed decode unchanged."""


class Item(msgspec.Struct, array_like=True, frozen=True):
    """A submission in a batch record (its board and receive time are the record's)."""

    player: str
    match_id: str
    score: int
    at: int | None
    """None when the client gave none: the record's ``received_at`` then."""
    scopes: dict[str, str]
    metadata: dict[str, Any]
    subscore: int | None = None


class BatchPayload(msgspec.Struct, array_like=True, frozen=True):
    """A batch record's payload: the submissions of one request to one board, in order."""

    received_at: int
    items: list[Item]


BATCH_KEY = "batch"
"""The middle part of a batch record's log key (``board/batch/digest``), which tells it from a
record of one submission (``board/digest``) and from a match record (``board/match/digest``)."""
BATCH_ITEMS = 1000
"""Submissions one batch record holds at most."""
BATCH_BYTES = 512 * 1024
"""Bytes of submissions one batch record holds at most: well within the 1 MB a NATS or Kafka
message may take by default."""

_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder(Payload).decode
_decode_batch = msgspec.msgpack.Decoder(BatchPayload).decode
_json = msgspec.json.Encoder()


def record_of(sub: Submission) -> LogRecord:
    """The log record of a submission. Its dedup key covers the payload a retry repeats
    (``at`` only when the client gave it): an identical retry is kept once by the log, and
    the same (player, match_id) with another payload is not swallowed there but reaches
    the applier, which records it as a dead letter (a reused key)."""
    payload = payload_of(sub)
    identity = _json.encode(
        [
            sub.player,
            sub.match_id,
            sub.score,
            sub.at if sub.at_given else None,
            sub.scopes,
            sub.metadata,
            # only on boards with a subscore: other boards' keys stay as they were
            *(() if sub.subscore is None else (sub.subscore,)),
        ]
    )
    digest = hashlib.sha256(identity).hexdigest()[:40]
    return LogRecord(sub.board.id, f"{sub.board.id}/{digest}", _encode(payload))


def batch_records(board: str, received_at: int, items: Sequence[Item]) -> list[LogRecord]:
    """The log records of one request's submissions to ``board``: as few as
    ``BATCH_ITEMS`` and ``BATCH_BYTES`` allow, in order. A record's dedup key is a digest of
    its submissions as encoded (``at`` only where the client gave it; not the receive
    time): an identical retry of the request is kept once by the log, and a submission
    repeated with another payload reaches the applier, which records it as a dead letter."""
    records: list[LogRecord] = []
    for start in range(0, len(items), BATCH_ITEMS):
        _chunk(board, received_at, items[start : start + BATCH_ITEMS], records)
    return records


def _chunk(board: str, received_at: int, items: Sequence[Item], records: list[LogRecord]) -> None:
    encoded = _encode(items)
    if len(encoded) > BATCH_BYTES and len(items) > 1:
        half = len(items) // 2
        _chunk(board, received_at, items[:half], records)
        _chunk(board, received_at, items[half:], records)
        return
    digest = hashlib.sha256(encoded).hexdigest()[:40]
    payload = _encode((received_at, msgspec.Raw(encoded)))
    records.append(LogRecord(board, f"{board}/{BATCH_KEY}/{digest}", payload))


def is_batch_record(record: LogRecord) -> bool:
    return record.key.split("/", 2)[1:2] == [BATCH_KEY]


def item_of(sub: Submission) -> Item:
    """A submission as a batch record keeps it (``batch_records``)."""
    return Item(
        sub.player,
        sub.match_id,
        sub.score,
        sub.at if sub.at_given else None,
        sub.scopes,
        sub.metadata,
        sub.subscore,
    )


def decode_payload(record: LogRecord) -> Payload:
    """The submission of a record of one (``record_of``)."""
    return _decode(record.payload)


def decode_batch(record: LogRecord) -> BatchPayload:
    """The submissions of a batch record (``is_batch_record``)."""
    return _decode_batch(record.payload)


def item_submission(board: Board, item: Item, received_at: int) -> Submission:
    at = item.at
    return Submission(
        board,
        item.player,
        item.match_id,
        item.score,
        received_at if at is None else at,
        received_at,
        dict(item.scopes),
        dict(item.metadata),
        at_given=at is not None,
        subscore=item.subscore,
    )


def payload_of_item(item: Item, received_at: int) -> Payload:
    at = item.at
    return Payload(
        item.player,
        item.match_id,
        item.score,
        received_at if at is None else at,
        received_at,
        at is not None,
        item.scopes,
        item.metadata,
        item.subscore,
    )


def payload_of(sub: Submission) -> Payload:
    return Payload(
        sub.player,
        sub.match_id,
        sub.score,
        sub.at,
        sub.received_at,
        sub.at_given,
        sub.scopes,
        sub.metadata,
        sub.subscore,
    )


def submission_of(board: Board, p: Payload) -> Submission:
    return Submission(
        board,
        p.player,
        p.match_id,
        p.score,
        p.at,
        p.received_at,
        dict(p.scopes),
        dict(p.metadata),
        at_given=p.at_given,
        subscore=p.subscore,
    )


__all__ = [
    "BATCH_BYTES",
    "BATCH_ITEMS",
    "BATCH_KEY",
    "BatchPayload",
    "Item",
    "Payload",
    "batch_records",
    "decode_batch",
    "decode_payload",
    "is_batch_record",
    "item_of",
    "item_submission",
    "payload_of",
    "payload_of_item",
    "record_of",
    "submission_of",
]
