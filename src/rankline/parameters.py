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
from rankline.errors import InvalidInput
from rankline.runtime.clock import parse_time

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
                # a blank query parameter is one not given (``_absent``): the document allows it
                blank = self.where == "query"
                schema["pattern"] = f"^$|{self.pattern}" if blank else self.pattern
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


Reader = Callable[[str], Any]


def _reader(field: _Field) -> Reader:
    """``field.read``, with a shortcut for the usual values: a plain text, a whole number
    within its bounds, a yes/no, an identifier its pattern allows (anything else is read by
    ``field.read``, which explains it)."""
    read = field.read
    if field.extra.get("check") is not None or field.kind in ("exact", "instant"):
        return read
    if field.kind == "int":
        low = -(2**64) if field.low is None else field.low
        high = 2**64 if field.high is None else field.high

        def whole(raw: str) -> Any:
            try:
                value = int(raw)
            except ValueError:
                return read(raw)
            return value if low <= value <= high else read(raw)

        return whole
    if field.kind == "bool":
        known = {"true": True, "1": True, "false": False, "0": False, "": False}

        def yes_no(raw: str) -> Any:
            value = known.get(raw)
            return read(raw) if value is None else value

        return yes_no
    if field.max_length is not None:
        return read
    if field.pattern is not None:
        allowed = re.compile(field.pattern).match

        def identifier(raw: str) -> Any:
            return raw if raw and allowed(raw) else read(raw)

        return identifier

    def plain(raw: str) -> Any:
        return raw if raw else read(raw)

    return plain


@dataclass(frozen=True)
class _Plan:
    fields: tuple[_Field, ...]
    path: tuple[tuple[str, Reader], ...]
    query: Mapping[str, Reader]
    required: tuple[str, ...]


_PLANS: dict[type, _Plan] = {}


def fields_of(kind: type[msgspec.Struct]) -> tuple[_Field, ...]:
    """The parameters ``kind`` declares, in its fields' order (read once per type)."""
    return _plan(kind).fields


def _plan(kind: type[msgspec.Struct]) -> _Plan:
    plan = _PLANS.get(kind)
    if plan is None:
        info = inspect.type_info(kind)
        if not isinstance(info, inspect.StructType):
            raise TypeError(f"{kind!r} is not a msgspec Struct")
        fields = tuple(_field(f) for f in info.fields)
        plan = _PLANS[kind] = _Plan(
            fields,
            tuple((f.name, _reader(f)) for f in fields if f.where == "path"),
            {f.name: _reader(f) for f in fields if f.where == "query"},
            tuple(f.name for f in fields if f.required),
        )
    return plan


def build(kind: type[S], path: Mapping[str, str], query: Mapping[str, str], **given: Any) -> S:
    """A ``kind`` from the raw text of its path and query parameters, or the
    ``InvalidInput`` (at ``[where, name]``) of the first wrong one in the order of its fields
    (a query parameter it does not declare is ignored: the edge refuses those first).
    ``given`` are values known valid (such as a player token's own id), taken as they are."""
    plan = _plan(kind)
    values: dict[str, Any] = {}
    try:
        for name, read in plan.path:
            raw = path.get(name)
            if raw is not None:
                value = read(raw)
                if value is not _MISSING:
                    values[name] = value
        if query:
            readers = plan.query
            for name, raw in query.items():
                reader = readers.get(name)
                if reader is not None:
                    value = reader(raw)
                    if value is not _MISSING:
                        values[name] = value
    except InvalidInput:
        _first_wrong(plan, path, query, given)
        raise
    if given:
        values.update(given)
    for name in plan.required:
        if name not in values:
            _first_wrong(plan, path, query, given)
    return kind(**values)


def _first_wrong(
    plan: _Plan, path: Mapping[str, str], query: Mapping[str, str], given: Mapping[str, Any]
) -> None:
    """Raise what is wrong with the first wrong field, in the order of the fields."""
    for field in plan.fields:
        if field.name in given:
            continue
        raw = (path if field.where == "path" else query).get(field.name)
        if raw is None:
            if field.required:
                raise InvalidInput.at([field.where, field.name], f"{field.name} is required")
            continue
        field.read(raw)


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
