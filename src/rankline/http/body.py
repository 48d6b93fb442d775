"""Request bodies and parameters: read within the size limit, decode, validate, or explain."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any, TypeVar
from urllib.parse import parse_qsl

import msgspec
from msgspec import Meta
from starlette.requests import Request

from rankline.errors import (
    BadRequest,
    InvalidInput,
    PayloadTooLarge,
    RanklineError,
    UnsupportedMediaType,
)
from rankline.http.schemas import BatchIn, BatchItemIn
from rankline.parameters import ALLOWED
from rankline.writing.batches import body_time as body_time  # their one place
from rankline.writing.batches import located as located
from rankline.writing.scores import check_metadata as check_metadata

T = TypeVar("T")
E = TypeVar("E", bound=RanklineError)
_PATH_PART = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[\"?([^\]\"]*)\"?\]")
_IN_WORDS = {f"Expected `str` matching regex {p!r}": words for p, words in ALLOWED.items()}


def _loc(path: str, prefix: str) -> list[str | int]:
    loc: list[str | int] = [prefix]
    for name, index, key in _PATH_PART.findall(path.removeprefix("$")):
        loc.append(int(index) if index else name or key)
    return loc


def invalid(exc: msgspec.ValidationError, prefix: str = "body") -> InvalidInput:
    """Turn msgspec's ``Expected `int`, got `float` - at `$.score``` into a located error."""
    message = str(exc)
    msg, _, where = message.partition(" - at `")
    where = where.rstrip("`")
    loc = _loc(where, prefix) if where else [prefix]
    words = _IN_WORDS.get(msg)
    if words is not None:
        field = where.removeprefix("$.") or "the value"
        if field.endswith("[...]"):  # a value of an object
            field = f"each value of {field.removesuffix('[...]')}"
        msg = f"{field} must be {words}"
    return InvalidInput(msg, errors=[{"loc": loc, "msg": msg}])


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


class _ValidBatch(msgspec.Struct, forbid_unknown_fields=True):
    scores: Annotated[list[BatchItemIn], Meta(max_length=1000)]


class _GivenBatch(msgspec.Struct, forbid_unknown_fields=True):
    scores: Annotated[list[Any], Meta(max_length=1000)]


def given_batch_items(given: Any) -> list[BatchItemIn | InvalidInput]:
    """``batch_items`` of a body given as built-in values (a gRPC message's fields), with
    the same answers: each item, or the error that concerns it alone."""
    try:
        return list(msgspec.convert(given, _ValidBatch).scores)
    except msgspec.ValidationError:
        pass
    try:
        whole = msgspec.convert(given, _GivenBatch)
    except msgspec.ValidationError as exc:
        raise invalid(exc) from None
    items: list[BatchItemIn | InvalidInput] = []
    for raw in whole.scores:
        try:
            items.append(msgspec.convert(raw, BatchItemIn))
        except msgspec.ValidationError as exc:
            items.append(invalid(exc))
    return items


def given_as(given: Any, kind: type[T]) -> T:
    """``decode_as`` of a body given as built-in values."""
    try:
        return msgspec.convert(given, kind)
    except msgspec.ValidationError as exc:
        raise invalid(exc) from None


def batch_items(data: bytes) -> list[BatchItemIn | InvalidInput | BadRequest]:
    """Each item of a batch body, decoded, or the error that concerns it alone (as if the
    item were the body: see ``located``); the body's own errors are raised.

    A batch whose every item is valid decodes in one pass; only one with an invalid item is
    decoded again, item by item, to tell each item's error."""
    try:
        return list(msgspec.json.decode(data, type=_ValidBatch).scores)
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


def check_id(
    value: str, pattern: re.Pattern[str], name: str, where: str = "path", field: str = ""
) -> str:
    """``value``, or a 422 that says what ``name`` allows (at ``where``: path or query)."""
    if not pattern.match(value):
        message = f"{value!r} is not a valid {name}"
        if pattern.pattern in ALLOWED:
            message += f": {ALLOWED[pattern.pattern]}"
        raise InvalidInput.at([where, field or name], message)
    return value


def to_builtins(value: Any) -> Any:
    return msgspec.to_builtins(value)
