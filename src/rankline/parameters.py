"""Requests declared once: what an operation takes in its path and query, as a msgspec Struct
whose fields say each parameter's type, bounds, default and description. ``build`` makes one
from raw text (the edge's path and query, or a gRPC message's fields) or explains what is
wrong with it (``InvalidInput`` at ``[where, name]``); ``described`` gives each parameter's
description and JSON schema for the API document, from the same fields, so that the document
cannot say other than what is accepted.

A field is a query parameter unless its ``Meta`` says ``extra=PATH``. Its type decides how
its text is read:

- ``int`` (bounds from ``ge``/``le``): decimal text (``int()``); with ``extra=EXACT``, only
  digits and a leading ``-`` (a score), blank as absent, and ``range`` naming the bounds in
  words when a value is outside them;
- ``bool``: ``true``/``1`` or ``false``/``0``/blank (any case);
- ``str`` (with an optional ``pattern``): as given, blank as absent; a value the pattern
  refuses is explained in words (``ALLOWED``), naming ``noun``;
- ``int`` with ``extra=INSTANT``: an RFC 3339 time, as microseconds since the epoch.

``check`` in a field's ``extra`` is a further rule, ``check(value, loc) -> value``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Final, TypeVar

import msgspec
from msgspec import Meta, inspect

from rankline.boards import (
    BOARD_ID_PATTERN,
    DIMENSION_PATTERN,
    MATCH_ID_PATTERN,
    PLAYER_ID_PATTERN,
    SEASON_ID_PATTERN,
)
from rankline.clock import parse_time
from rankline.errors import InvalidInput

S = TypeVar("S", bound=msgspec.Struct)

ALLOWED = {
    PLAYER_ID_PATTERN: "1 to 64 characters: letters, digits and _ . : @ -",
    BOARD_ID_PATTERN: "1 to 64 characters: lowercase letters, digits and _ . -, "
    "starting with a letter or digit",
    MATCH_ID_PATTERN: "1 to 128 printable ASCII characters, without spaces",
    DIMENSION_PATTERN: "1 to 32 characters: lowercase letters, digits and _, "
    "starting with a letter",
    SEASON_ID_PATTERN: "1 to 64 characters: letters, digits and _ . -, "
    "starting with a letter or digit",
}
"""What each identifier pattern allows, in words: a message says this, never the regex.
(Scope values, such as ``EU`` in ``region:EU``, take the player id's pattern.)"""

PATH: Final = {"in": "path"}
"""A field's ``Meta(extra=PATH)``: a path parameter (else a query parameter)."""
EXACT: Final = {"exact": True}
"""An integer written exactly: digits and a leading ``-`` only, blank as absent."""
INSTANT: Final = {"instant": True}
"""An integer given as an RFC 3339 time (microseconds since the epoch)."""

BoardIdPath = Annotated[
    str,
    Meta(
        pattern=BOARD_ID_PATTERN,
        description=f"The board id: {ALLOWED[BOARD_ID_PATTERN]}",
        extra=PATH,
    ),
]
PlayerIdPath = Annotated[
    str,
    Meta(
        pattern=PLAYER_ID_PATTERN,
        description=f"The player id: {ALLOWED[PLAYER_ID_PATTERN]}",
        extra=PATH,
    ),
]
Limit = Annotated[int, Meta(ge=1, le=1000, description="1..1000, default 100.")]
"""The parameters most operations share: a board or player in the path, a page's size."""
BoardFilter = Annotated[
    str, Meta(pattern=BOARD_ID_PATTERN, description="Only this board.", extra={"noun": "board id"})
]
"""A ``?board=`` that narrows a list to one board."""


_INTEGER = re.compile(r"-?[0-9]{1,20}", re.ASCII)
_TRUE, _FALSE = frozenset({"true", "1"}), frozenset({"false", "0", ""})
_MISSING: Any = object()


@dataclass(frozen=True)
class Described:
    """One parameter as the API document says it."""

    name: str
    where: str
    description: str
    schema: dict[str, Any]
    required: bool


@dataclass(frozen=True)
class _Field:
    name: str
    where: str
    kind: str
    """int, exact, bool, str or instant"""
    optional: bool
    required: bool
    shown_required: bool
    """Said required in the API document (``required``, or ``extra={"required": True}``
    where the operation itself explains a missing value)."""
    default: Any
    description: str
    extra: Mapping[str, Any]
    low: int | None = None
    high: int | None = None
    pattern: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    schema_extra: Mapping[str, Any] | None = None

    def read(self, raw: str) -> Any:
        """The field's value from its text, or ``_MISSING`` (then its default applies)."""
        name, kind = self.name, self.kind
        loc: list[str | int] = [self.where, self.name]
        value: Any
        if kind == "int":
            try:
                value = int(raw)
            except ValueError:
                raise InvalidInput.at(loc, f"{name} must be an integer") from None
            self._within(value, loc)
        elif kind == "exact":
            if raw == "":
                return self._absent()
            if not _INTEGER.fullmatch(raw):
                raise InvalidInput.at(loc, f"{name} must be an integer")
            value = int(raw)
            self._within(value, loc)
        elif kind == "bool":
            lowered = raw.lower()
            if lowered in _FALSE:
                value = False
            elif lowered in _TRUE:
                value = True
            else:
                raise InvalidInput.at(loc, f"{name} must be true or false")
        elif kind == "instant":
            if raw == "":
                return self._absent()
            try:
                value = parse_time(raw)
            except ValueError as exc:
                raise InvalidInput.at(loc, str(exc)) from None
        else:
            if raw == "":
                return self._absent()
            value = raw
            if self.pattern is not None and not re.match(self.pattern, value):
                message = f"{value!r} is not a valid {self.extra.get('noun', name)}"
                if self.pattern in ALLOWED:
                    message += f": {ALLOWED[self.pattern]}"
                raise InvalidInput.at(loc, message)
        check: Callable[[Any, list[str | int]], Any] | None = self.extra.get("check")
        if check is not None:
            value = check(value, list(loc))
        most = self.max_length
        if most is not None and isinstance(value, str) and len(value) > most:
            raise InvalidInput.at(loc, f"{name} has at most {most} characters")
        return value

    def _absent(self) -> Any:
        if self.required:
            raise InvalidInput.at([self.where, self.name], f"{self.name} is required")
        return _MISSING

    def _within(self, value: int, loc: list[str | int]) -> None:
        low, high = self.low, self.high
        if (low is not None and value < low) or (high is not None and value > high):
            words = self.extra.get("range")
            if words is not None:
                raise InvalidInput.at(loc, f"{self.name} is outside {words}")
            raise InvalidInput.at(loc, f"{self.name} must be between {low} and {high}")

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any]
        if self.kind in ("int", "exact"):
            schema = {"type": "integer"}
            if self.low is not None:
                schema["minimum"] = self.low
            if self.high is not None:
                schema["maximum"] = self.high
        elif self.kind == "bool":
            schema = {"type": "boolean"}
        elif self.kind == "instant":
            schema = {"type": "string", "format": "date-time"}
        else:
            schema = {"type": "string"}
            if self.pattern is not None:
                schema["pattern"] = self.pattern
            if self.min_length is not None:
                schema["minLength"] = self.min_length
            if self.max_length is not None:
                schema["maxLength"] = self.max_length
        if self.default is not None and self.kind != "instant" and self.default != "":
            schema["default"] = self.default
        schema.update(self.schema_extra or {})
        return schema


def _field(field: inspect.Field) -> _Field:
    kind_of: Any = field.type
    optional = False
    if isinstance(kind_of, inspect.UnionType):
        members = [t for t in kind_of.types if not isinstance(t, inspect.NoneType)]
        if len(members) != 1 or len(members) == len(kind_of.types):
            raise TypeError(f"{field.name}: a parameter is one type, or one type or None")
        kind_of, optional = members[0], True
    extra: dict[str, Any] = {}
    schema_extra: dict[str, Any] = {}
    while isinstance(kind_of, inspect.Metadata):
        extra |= kind_of.extra or {}
        schema_extra |= kind_of.extra_json_schema or {}
        kind_of = kind_of.type
    description = schema_extra.pop("description", "")
    where = extra.get("in", "query")
    default = None if field.default is msgspec.NODEFAULT else field.default
    common = {
        "name": field.encode_name,
        "where": where,
        "optional": optional,
        "required": field.required,
        "shown_required": field.required or bool(extra.get("required")),
        "default": default,
        "description": description,
        "extra": extra,
        "schema_extra": schema_extra or None,
    }
    if isinstance(kind_of, inspect.IntType):
        kind = "instant" if extra.get("instant") else "exact" if extra.get("exact") else "int"
        return _Field(kind=kind, low=kind_of.ge, high=kind_of.le, **common)
    if isinstance(kind_of, inspect.BoolType):
        return _Field(kind="bool", **common)
    if isinstance(kind_of, inspect.StrType):
        return _Field(
            kind="str",
            pattern=kind_of.pattern,
            min_length=kind_of.min_length,
            max_length=kind_of.max_length,
            **common,
        )
    raise TypeError(f"{field.name}: a parameter is an int, a bool or a str")


_PLANS: dict[type, tuple[_Field, ...]] = {}


def fields_of(kind: type[msgspec.Struct]) -> tuple[_Field, ...]:
    """The parameters ``kind`` declares, in its fields' order (read once per type)."""
    plan = _PLANS.get(kind)
    if plan is None:
        info = inspect.type_info(kind)
        if not isinstance(info, inspect.StructType):
            raise TypeError(f"{kind!r} is not a msgspec Struct")
        plan = _PLANS[kind] = tuple(_field(f) for f in info.fields)
    return plan


def build(kind: type[S], path: Mapping[str, str], query: Mapping[str, str], **given: Any) -> S:
    """A ``kind`` from the raw text of its path and query parameters, read in the order of
    its fields: the first that is wrong is raised (``InvalidInput`` at ``[where, name]``).
    ``given`` are values known valid (such as a player token's own id), taken as they are."""
    values: dict[str, Any] = {}
    for field in fields_of(kind):
        name = field.name
        if name in given:
            values[name] = given[name]
            continue
        raw = (path if field.where == "path" else query).get(name)
        if raw is None:
            if field.required:
                raise InvalidInput.at([field.where, name], f"{name} is required")
            continue
        value = field.read(raw)
        if value is not _MISSING:
            values[name] = value
    return kind(**values)


_NAMES: dict[type, frozenset[str]] = {}


def query_names(kind: type[msgspec.Struct]) -> frozenset[str]:
    """The names of the query parameters ``kind`` declares."""
    names = _NAMES.get(kind)
    if names is None:
        names = _NAMES[kind] = frozenset(f.name for f in fields_of(kind) if f.where == "query")
    return names


def described(kind: type[msgspec.Struct], where: str = "query") -> tuple[Described, ...]:
    """The parameters of ``kind`` found in ``where``, as the API document says them."""
    return tuple(
        Described(f.name, f.where, f.description, f.schema(), f.shown_required)
        for f in fields_of(kind)
        if f.where == where
    )


def bounds(kind: type[msgspec.Struct]) -> dict[str, tuple[int | None, int | None]]:
    """Each integer query parameter's declared bounds (low, high)."""
    return {
        f.name: (f.low, f.high)
        for f in fields_of(kind)
        if f.where == "query" and f.kind in ("int", "exact")
    }
