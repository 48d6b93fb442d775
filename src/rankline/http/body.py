"""Request bodies and parameters: read within the size limit, decode, validate, or explain."""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

import msgspec
from starlette.requests import Request

from rankline.errors import BadRequest, InvalidInput, PayloadTooLarge, UnsupportedMediaType

T = TypeVar("T")
_PATH_PART = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[\"?([^\]\"]*)\"?\]")


def _loc(path: str, prefix: str) -> list[str | int]:
    loc: list[str | int] = [prefix]
    for name, index, key in _PATH_PART.findall(path.removeprefix("$")):
        loc.append(int(index) if index else name or key)
    return loc


def invalid(exc: msgspec.ValidationError, prefix: str = "body") -> InvalidInput:
    """Turn msgspec's ``Expected `int`, got `float` - at `$.score``` into a located error."""
    message = str(exc)
    msg, _, where = message.partition(" - at `")
    loc = _loc(where.rstrip("`"), prefix) if where else [prefix]
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


async def read_json(request: Request, kind: type[T], max_bytes: int) -> T:
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
    return decode_as(bytes(body), kind)


def query_int(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise InvalidInput.at(["query", name], f"{name} must be an integer") from None
    if not low <= value <= high:
        raise InvalidInput.at(["query", name], f"{name} must be between {low} and {high}")
    return value


def query_str(request: Request, name: str) -> str | None:
    value = request.query_params.get(name)
    return value if value else None


def check_id(value: str, pattern: re.Pattern[str], name: str) -> str:
    if not pattern.match(value):
        raise InvalidInput.at(["path", name], f"{value!r} is not a valid {name}")
    return value


def to_builtins(value: Any) -> Any:
    return msgspec.to_builtins(value)
