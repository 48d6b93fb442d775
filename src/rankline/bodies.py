"""Request bodies declared once, and read the same way at every edge: a body given as built-in
values (an HTTP request's decoded JSON, a gRPC message's fields) becomes its msgspec Struct or
an ``InvalidInput`` located at ``["body", ...]`` (``given_as``, ``decoded_as``, ``invalid``);
a path's identifier is checked against its pattern (``check_id``), its refusal said in words
(``parameters.ALLOWED``); a body's time is read as microseconds (``body_time``). The
operations' body Structs live beside their services (``writing.requests``,
``reading.requests``, ``players.requests``, ...), built from the field types here."""

from __future__ import annotations

import re
from typing import Annotated, Any, TypeVar

import msgspec
from msgspec import Meta

from rankline.boards import (
    BOARD_ID_PATTERN,
    MATCH_ID_PATTERN,
    PLAYER_ID_PATTERN,
    SCOPE_VALUE_PATTERN,
)
from rankline.errors import InvalidInput
from rankline.parameters import ALLOWED
from rankline.runtime.clock import parse_time
from rankline.types import Micros

T = TypeVar("T")

PlayerIdStr = Annotated[str, Meta(pattern=PLAYER_ID_PATTERN, description="A player id.")]
MatchIdStr = Annotated[str, Meta(pattern=MATCH_ID_PATTERN)]
ScopeValues = dict[str, Annotated[str, Meta(pattern=SCOPE_VALUE_PATTERN)]]

BOARD_ID = re.compile(BOARD_ID_PATTERN)
PLAYER_ID = re.compile(PLAYER_ID_PATTERN)
MATCH_ID = re.compile(MATCH_ID_PATTERN)

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


def given_as(given: Any, kind: type[T]) -> T:
    """A body given as built-in values, as ``kind`` (the refusals of a JSON body's decoding,
    at the same places)."""
    try:
        return msgspec.convert(given, kind)
    except msgspec.ValidationError as exc:
        raise invalid(exc) from None


def decoded_as(given: Any, kind: type[T]) -> T:
    """A body given as built-in values, as ``kind``, refused as its JSON is when decoded
    (``given_as`` refuses in another order: a bounded list's length before its items, which
    a JSON decoder checks once it has read them)."""
    try:
        return msgspec.json.decode(msgspec.json.encode(given), type=kind)
    except msgspec.ValidationError as exc:
        raise invalid(exc) from None


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


def body_time(value: str | None) -> Micros | None:
    """A submission's ``at`` as microseconds (None when not given); 422 at ``["body",
    "at"]`` when it is not an RFC 3339 time."""
    if value is None:
        return None
    try:
        return parse_time(value)
    except ValueError as exc:
        raise InvalidInput.at(["body", "at"], str(exc)) from None
