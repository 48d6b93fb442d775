"""Request bodies and parameters: read within the size limit, decode, validate, or explain."""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, TypeVar
from urllib.parse import parse_qsl

import msgspec
from starlette.requests import Request

from rankline.bodies import body_time as body_time  # their one place
from rankline.bodies import check_id as check_id
from rankline.bodies import given_as as given_as
from rankline.bodies import invalid as invalid
from rankline.errors import (
    BadRequest,
    InvalidInput,
    PayloadTooLarge,
    RanklineError,
    UnsupportedMediaType,
)
from rankline.writing.batches import located as located  # its one place
from rankline.writing.requests import BatchIn, BatchItemIn, ValidBatch
from rankline.writing.scores import check_metadata as check_metadata

T = TypeVar("T")
E = TypeVar("E", bound=RanklineError)


def _well_formed(data: bytes) -> bool:
    try:
        msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return False
    return True


def decode_as(data: bytes, kind: type[T]) -> T:
    try:
        return msgspec.json.decode(data, type=kind)
    except msgspec.ValidationError as exc:
        # a truncated body can fail validation before the parser sees its end: that is 400
        if _well_formed(data):
            raise invalid(exc) from None
    except msgspec.DecodeError:
        pass
    except RecursionError:
        raise BadRequest("the body is nested too deeply") from None
    # NaN and Infinity are not JSON, but clients send them; they are invalid scores (422),
    # not malformed requests (400). The standard library's parser accepts them.
    try:
        loose = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"the body is not valid JSON: {exc}") from None
    except RecursionError:
        raise BadRequest("the body is nested too deeply") from None
    try:
        return msgspec.convert(loose, kind)
    except msgspec.ValidationError as exc:
        raise invalid(exc) from None


async def read_body(request: Request, max_bytes: int) -> bytes:
    """The raw JSON body, checked for its media type and size (not yet decoded)."""
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media != "application/json" and not media.endswith("+json"):
        raise UnsupportedMediaType("send the body as application/json")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise PayloadTooLarge(f"the body is larger than {max_bytes} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > max_bytes:
            raise PayloadTooLarge(f"the body is larger than {max_bytes} bytes")
    if not body:
        raise BadRequest("the request needs a JSON body")
    return bytes(body)


async def read_json(request: Request, kind: type[T], max_bytes: int) -> T:
    return decode_as(await read_body(request, max_bytes), kind)


def batch_items(data: bytes) -> list[BatchItemIn | InvalidInput | BadRequest]:
    """Each item of a batch body, decoded, or the error that concerns it alone (as if the
    item were the body: see ``located``); the body's own errors are raised.

    A batch whose every item is valid decodes in one pass; only one with an invalid item is
    decoded again, item by item, to tell each item's error."""
    try:
        return list(msgspec.json.decode(data, type=ValidBatch).scores)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        pass
    items: list[BatchItemIn | InvalidInput | BadRequest] = []
    for raw in decode_as(data, BatchIn).scores:
        try:
            items.append(decode_as(bytes(raw), BatchItemIn))
        except (InvalidInput, BadRequest) as exc:
            items.append(exc)
    return items


_QUERIES: dict[bytes, Mapping[str, str]] = {}
"""Parsed query strings by their raw bytes: clients send few distinct ones (``?k=5``,
``?limit=100``), and parsing one costs more than a rank read's index lookup. A plain dict
(the oldest forgotten first when full): a cache class's lookup cost a microsecond."""
_QUERIES_MAX = 4096
_QUERY_CACHED_BYTES = 256
_NO_QUERY: Mapping[str, str] = MappingProxyType({})
QUERY_SCOPE = "rankline.query"
"""Where a request's scope keeps its parsed query: parsed once, read by every parameter."""


def parse_query(raw: bytes) -> Mapping[str, str]:
    """A query string as a read-only mapping (the last of repeated names wins, as in
    Starlette): Starlette's multi-dict costs more than the read it serves."""
    if not raw:
        return _NO_QUERY
    parsed = _QUERIES.get(raw)
    if parsed is None:
        parsed = MappingProxyType(dict(parse_qsl(raw.decode("latin-1"), keep_blank_values=True)))
        if len(raw) <= _QUERY_CACHED_BYTES:
            if len(_QUERIES) >= _QUERIES_MAX:
                del _QUERIES[next(iter(_QUERIES))]
            _QUERIES[raw] = parsed
    return parsed


def query(request: Request) -> Mapping[str, str]:
    """The request's query string as a read-only mapping (``parse_query``), parsed once per
    request and kept in its scope."""
    scope = request.scope
    parsed: Mapping[str, str] | None = scope.get(QUERY_SCOPE)
    if parsed is None:
        parsed = scope[QUERY_SCOPE] = parse_query(scope["query_string"])
    return parsed


def check_query(request: Request, known: frozenset[str]) -> None:
    """422 for a query parameter that the endpoint does not take, naming the ones it
    takes: a typo (``?limt=5``) would otherwise be ignored and answer something else than
    was asked. The query string is parsed once per distinct string (``query``); this adds
    a set comparison of its names."""
    names = query(request).keys()
    if names <= known:
        return
    unknown = sorted(names - known)
    takes = f"takes {', '.join(sorted(known))}" if known else "takes no query parameters"
    errors = [
        {"loc": ["query", name], "msg": f"unknown query parameter {name!r}; this endpoint {takes}"}
        for name in unknown
    ]
    listed = ", ".join(repr(name) for name in unknown)
    plural = "s" if len(unknown) > 1 else ""
    raise InvalidInput(
        f"unknown query parameter{plural} {listed}; this endpoint {takes}", errors=errors
    )


def query_str(request: Request, name: str) -> str | None:
    value = query(request).get(name)
    return value if value else None


def to_builtins(value: Any) -> Any:
    return msgspec.to_builtins(value)
