"""The proto's comments say what the declarations say: for every field of an RPC's request
message that twins a query parameter its HTTP operation declares (``Endpoint.request``), the
range and the default its comment states are the declaration's (``Meta(ge=, le=)`` and the
field's default), and so are those the declaration's own description states (the API
document's). A range is stated as ``low..high`` and a default as ``default N``; a range the
text must state is one a person reads (both ends set, the high end at most ``SPOKEN``), as
``1..1000``, where ``0..2**62`` (an offset) or the signed 64-bit range (a score) may go
unsaid."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pytest

from rankline.grpc.status import CODES
from rankline.http.endpoint import Endpoint
from rankline.http.routes import ENDPOINTS
from rankline.parameters import fields_of

PROTO = Path(__file__).resolve().parents[1] / "src/rankline/grpc/proto/rankline/v1/rankline.proto"
SPOKEN = 1_000_000
_MESSAGE = re.compile(r"^\s*message\s+(\w+)\s*\{")
_FIELD = re.compile(r"^\s*(?:optional\s+|repeated\s+)?[\w.]+\s+(\w+)\s*=\s*\d+\s*;")
_COMMENT = re.compile(r"^\s*//\s?(.*)$")
_RANGE = re.compile(r"(-?\d[\d,]*)\s*\.\.\s*(-?\d[\d,]*)")
_DEFAULT = re.compile(r"default:?\s+(-?\d[\d,]*)\b")


def comments(text: str) -> dict[tuple[str, str], str]:
    """Each field's comment, by (message, field): the ``//`` lines right above the field,
    joined (nested messages are not looked into: request messages have none)."""
    found: dict[tuple[str, str], str] = {}
    message: str | None = None
    depth = 0
    lines: list[str] = []
    for line in text.splitlines():
        if depth == 0 and (start := _MESSAGE.match(line)):
            message, depth, lines = start.group(1), 1, []
            continue
        if message is None:
            continue
        if (comment := _COMMENT.match(line)) is not None:
            lines.append(comment.group(1).strip())
            continue
        if depth == 1 and (field := _FIELD.match(line)) is not None:
            found[(message, field.group(1))] = " ".join(lines)
        depth += line.count("{") - line.count("}")
        if depth == 0:
            message = None
        lines = []
    return found


def twins() -> dict[str, Endpoint]:
    """Each RPC's HTTP operation (the endpoint it twins): the one place this test asks."""
    return {e.rpc: e for e in ENDPOINTS if e.rpc is not None}


@dataclass(frozen=True)
class Twin:
    """A request message's field and the declared query parameter it twins."""

    rpc: str
    name: str
    comment: str
    description: str
    low: int | None
    high: int | None
    default: object

    def __str__(self) -> str:
        return f"{self.rpc}Request.{self.name}"


def _declared(kind: type[msgspec.Struct]) -> dict[str, tuple[int | None, int | None, object]]:
    return {
        f.name: (f.low, f.high, f.default)
        for f in fields_of(kind)
        if f.where == "query" and f.kind in ("int", "exact")
    }


def twin_fields() -> list[Twin]:
    found = comments(PROTO.read_text(encoding="utf-8"))
    twinned = []
    for rpc, endpoint in twins().items():
        if endpoint.request is None:
            continue
        descriptions = {f.name: f.description for f in fields_of(endpoint.request)}
        for name, (low, high, default) in _declared(endpoint.request).items():
            comment = found.get((f"{rpc}Request", name))
            if comment is not None:
                twinned.append(Twin(rpc, name, comment, descriptions[name], low, high, default))
    return twinned


TWINS = twin_fields()


def problems(text: str, low: int | None, high: int | None, default: object) -> list[str]:
    """What ``text`` says against the declared ``low``, ``high`` and ``default``."""
    found = []
    ranges = [tuple(int(n.replace(",", "")) for n in m.groups()) for m in _RANGE.finditer(text)]
    spoken = low is not None and high is not None and high <= SPOKEN
    if ranges and ranges != [(low, high)]:
        found.append(f"states the range {ranges}, declared {low}..{high}")
    if spoken and not ranges:
        found.append(f"does not state the range {low}..{high}")
    defaults = [int(n.replace(",", "")) for n in _DEFAULT.findall(text)]
    if defaults and defaults != [default]:
        found.append(f"states the default {defaults}, declared {default}")
    if isinstance(default, int) and not isinstance(default, bool) and not defaults:
        found.append(f"does not state the default {default}")
    return found


def test_the_parser_reads_each_fields_comment() -> None:
    text = (
        "// A message.\nmessage GetTopRequest {\n  // The board.\n  string board_id = 1;\n"
        "  // 1..1000, default 100.\n  // (a page)\n  optional int64 limit = 6;\n"
        "  optional int64 offset = 7;\n}\nmessage Other {\n  // x\n  int64 limit = 1;\n}\n"
    )
    assert comments(text) == {
        ("GetTopRequest", "board_id"): "The board.",
        ("GetTopRequest", "limit"): "1..1000, default 100. (a page)",
        ("GetTopRequest", "offset"): "",
        ("Other", "limit"): "x",
    }


def test_a_disagreement_is_found() -> None:
    assert problems("1..1000, default 100.", 1, 1000, 100) == []
    assert problems("1..500, default 100.", 1, 1000, 100) == [
        "states the range [(1, 500)], declared 1..1000"
    ]
    assert problems("Entries per page, default 50.", 1, 1000, 100) == [
        "does not state the range 1..1000",
        "states the default [50], declared 100",
    ]
    assert problems("0..100.", 0, 100, 5) == ["does not state the default 5"]
    assert problems("Entries to skip, default 0.", 0, 2**62, 0) == []
    assert problems("The score: a signed 64-bit integer.", -(2**63), 2**63 - 1, None) == []


def test_every_bounded_query_field_of_a_request_message_is_covered() -> None:
    covered = {str(t) for t in TWINS}
    for name in ("GetTopRequest.limit", "GetTopRequest.offset", "GetAroundRequest.k"):
        assert name in covered
    assert {"ListAuditEntriesRequest.limit", "GetMeAroundRequest.k"} <= covered
    assert len(covered) >= 12


@pytest.mark.parametrize("twin", TWINS, ids=str)
def test_the_comment_states_the_declared_range_and_default(twin: Twin) -> None:
    assert problems(twin.comment, twin.low, twin.high, twin.default) == [], twin.comment


@pytest.mark.parametrize("twin", TWINS, ids=str)
def test_the_declared_description_states_its_range_and_default(twin: Twin) -> None:
    assert problems(twin.description, twin.low, twin.high, twin.default) == [], twin.description


def said_over_grpc(description: str) -> str:
    """A declared description as the proto may say it: each HTTP status named by its gRPC
    code (``rankline.grpc.status.CODES``: "404 when none" is "NOT_FOUND when none")."""
    return re.sub(
        r"\b(\d{3})\b",
        lambda m: CODES[int(m.group(1))].name if int(m.group(1)) in CODES else m.group(1),
        description,
    )


def test_said_over_grpc() -> None:
    assert said_over_grpc("404 when none; 1..1000, default 100") == (
        "NOT_FOUND when none; 1..1000, default 100"
    )


def every_twin() -> list[tuple[str, str, str, str]]:
    """(RPC, field, comment, declared description) of every field of a request message that
    twins a parameter its operation declares, path parameters and strings included."""
    found = comments(PROTO.read_text(encoding="utf-8"))
    twinned = []
    for rpc, endpoint in twins().items():
        if endpoint.request is None:
            continue
        for field in fields_of(endpoint.request):
            comment = found.get((f"{rpc}Request", field.name))
            if comment is not None:
                twinned.append((rpc, field.name, comment, field.description))
    return twinned


def test_every_twin_comment_is_the_declared_description() -> None:
    """Word for word, or with its statuses said as gRPC codes (``said_over_grpc``)."""
    differing = [
        f"{rpc}Request.{name}: {comment!r}, declared {said_over_grpc(description)!r}"
        for rpc, name, comment, description in every_twin()
        if comment not in (description, said_over_grpc(description))
    ]
    assert differing == []
