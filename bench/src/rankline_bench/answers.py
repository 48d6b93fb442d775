"""``rankline bench answers``: record every answer of a fixed script (``answers_script``) from
a fresh server, over HTTP and over gRPC, and compare two recordings.

A refactoring that must change no answer is checked by recording on the code before it and
on the code after it, then comparing. Each answer is kept as the client sees it: over HTTP
the status, the body (JSON, or its text) and a few headers; over gRPC the status code, the
details, the problem in the status details, the response message as JSON and the trailing
metadata. What differs from one run to the next by itself is masked: values under volatile
keys (``VOLATILE``), and every RFC 3339 time, date, period name and microseconds since the
epoch inside a text (today's periods are named after it; a results id holds a time).

Each protocol plays the script on a server of its own (``rankline serve --grpc-port``,
embedded stack in a temporary directory), so that the gRPC side meets the same state the
HTTP side did. A call with no gRPC form (an HTTP-only header, a raw body, a query parameter
or body field the RPC's message lacks, a value its field cannot hold, an operation with no
RPC) is recorded as ``unsent`` on that side, with the reason.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import grpc
import httpx
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from grpc_status import rpc_status

from rankline.grpc.gen.rankline.v1 import rankline_pb2, rankline_pb2_grpc
from rankline.grpc.messages import from_json, to_json
from rankline_bench.answers_script import PLAYER_READS, Call, script
from rankline_bench.servers import HOST, bench_env, free_port, player_token, rankline_server

KEY = "answers-server-key"
READ_KEY = "answers-read-key"
PROTOCOLS = ("http", "grpc")
HEADERS = (
    "content-type",
    "etag",
    "location",
    "retry-after",
    "www-authenticate",
    "allow",
    "cache-control",
    "preference-applied",
)
"""The response headers recorded (by their lowercase names)."""
VOLATILE = frozenset(
    {
        "etag",
        "retry-after",
        "x-request-id",
        "request_id",
        "request-id",
        "token",
        "cursor",
        "next",
        "next_cursor",
    }
)
"""Keys (of a JSON object, a header or trailing metadata) whose values are masked: they hold
the server's times or what is made of them (an ETag, a cursor, an accepted token, a request
id, the seconds left of a rate limit's window)."""
MASK = "<masked>"
_TIMES = (
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?"), "<time>"),
    (re.compile(r"\b\d{4}-W\d{2}\b"), "<week>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}\b"), "<date>"),
    (re.compile(r"\b\d{4}-\d{2}\b"), "<month>"),
    (re.compile(r"\b1\d{15}\b"), "<micros>"),
)
_FIXED = re.compile(r"\b2026-01-0\d\b")
"""The script's own dates (January 2026) are kept: only the server's today is masked."""


def mask(value: Any, key: str | None = None) -> Any:
    """``value`` with what varies by itself masked: a value under a ``VOLATILE`` key, and
    each time, date, ISO week, month and microseconds since the epoch written in a text (but
    the script's own days)."""
    if key is not None and key.lower() in VOLATILE and value not in (None, "", [], {}):
        return MASK
    if isinstance(value, dict):
        return {k: mask(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    if isinstance(value, str):
        return _mask_text(value)
    return value


def _mask_text(text: str) -> str:
    kept: list[str] = []

    def keep(found: re.Match[str]) -> str:
        kept.append(found.group(0))
        return f"\x00{len(kept) - 1}\x00"

    text = _FIXED.sub(keep, text)
    for pattern, replacement in _TIMES:
        text = pattern.sub(replacement, text)
    return re.sub("\x00(\\d+)\x00", lambda m: kept[int(m.group(1))], text)


def credential(auth: str) -> str | None:
    """The ``authorization`` value of a call made as ``auth`` (``answers_script.Auth``)."""
    if auth == "server":
        return f"Bearer {KEY}"
    if auth == "read":
        return f"Bearer {READ_KEY}"
    if auth == "wrong":
        return "Bearer not-a-key"
    if auth == "basic":
        return "Basic dXNlcjpwYXNz"
    if auth.startswith("player:"):
        return f"Bearer {player_token(auth.removeprefix('player:'))}"
    return None


# --- HTTP ---------------------------------------------------------------------------------


def http_answer(client: httpx.Client, call: Call) -> dict[str, Any]:
    """The recorded answer of ``call`` over HTTP."""
    headers = dict(call.headers)
    if (value := credential(call.auth)) is not None:
        headers["Authorization"] = value
    if call.raw is not None:
        response = client.request(
            call.method, call.path, params=call.query, content=call.raw, headers=headers
        )
    else:
        body = None if call.body is None else json.dumps(call.body).encode()
        if body is not None:
            headers.setdefault("Content-Type", "application/json")
        response = client.request(
            call.method, call.path, params=call.query, content=body, headers=headers
        )
    try:
        content: Any = response.json() if response.content else None
    except ValueError:
        content = response.text
    kept = {name: response.headers[name] for name in HEADERS if name in response.headers}
    return {"status": response.status_code, "headers": kept, "body": content}


# --- gRPC ---------------------------------------------------------------------------------


def _routes() -> list[tuple[re.Pattern[str], str, str]]:
    """(path pattern, method, RPC) of each RPC's HTTP operation."""
    found = []
    for rpc, (method, template) in rpc_operations().items():
        pattern = re.escape(template)
        for name in re.findall(r"\{(\w+)\}", template):
            group = ".+" if name == "match_id" else "[^/]+"
            pattern = pattern.replace(re.escape(f"{{{name}}}"), f"(?P<{name}>{group})")
        found.append((re.compile(f"^{pattern}$"), method, rpc))
    return found


def rpc_operations() -> dict[str, tuple[str, str]]:
    """Each RPC's HTTP operation (method, path template): the one place this module asks the
    gRPC edge which operation an RPC twins (each endpoint names its RPC; a server of an
    earlier release kept the pairs in ``rankline.grpc.operations``)."""
    from rankline.http.routes import ENDPOINTS

    named: dict[str, tuple[str, str]] = {}
    for endpoint in ENDPOINTS:
        rpc = getattr(endpoint, "rpc", None)
        if rpc is not None:
            named[rpc] = (endpoint.method, endpoint.path)
    if named:
        return named
    from rankline.grpc.operations import RPCS  # type: ignore[import-not-found,unused-ignore]

    return dict(RPCS)


class Unsent(Exception):
    """The call has no gRPC form; the message says why."""


def grpc_request(call: Call, routes: list[tuple[re.Pattern[str], str, str]]) -> tuple[str, Message]:
    """The RPC and its request message that twin ``call``, or ``Unsent``."""
    from urllib.parse import unquote

    if call.raw is not None:
        raise Unsent("a raw body")
    if set(call.headers) - {"Prefer"}:
        raise Unsent(f"the header {sorted(set(call.headers) - {'Prefer'})[0]}")
    rpc, path = _route(call, routes)
    kind: type[Message] = getattr(rankline_pb2, f"{rpc}Request")
    fields = kind.DESCRIPTOR.fields_by_name
    values: dict[str, Any] = {k: unquote(v) for k, v in path.items()}
    for name, raw in call.query.items():
        field = fields.get(name)
        if field is None:
            raise Unsent(f"no field {name}")
        values[name] = _typed(field, raw)
    if call.body is not None:
        if "body" not in fields:
            raise Unsent("no body field")
        values["body"] = call.body
    if "Prefer" in call.headers:
        values["respond_async"] = True
    try:
        message = from_json(values, kind)
    except (TypeError, ValueError) as exc:
        raise Unsent(f"not a message: {type(exc).__name__}") from None
    if call.body is not None and _kept(to_json(message).get("body")) != _kept(call.body):
        raise Unsent("the body holds what the message cannot")
    return rpc, message


def _kept(value: Any) -> Any:
    """A JSON value without what a message cannot tell from its absence: null, [] and {}."""
    if isinstance(value, dict):
        kept = {k: _kept(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in (None, [], {})}
    if isinstance(value, list):
        return [_kept(v) for v in value]
    return value


def _route(
    call: Call, routes: list[tuple[re.Pattern[str], str, str]]
) -> tuple[str, dict[str, str]]:
    """The RPC of ``call``'s operation and the path parameters, or ``Unsent``."""
    for pattern, method, rpc in routes:
        found = pattern.match(call.path)
        if found is not None and method == call.method:
            return rpc, found.groupdict()
    raise Unsent("no RPC")


def _typed(field: Any, raw: str) -> Any:
    """A query parameter's text as its message field's value, or ``Unsent``."""
    if field.type in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_INT32):
        try:
            value = int(raw)
        except ValueError:
            raise Unsent(f"{field.name}={raw!r} is not an integer") from None
        if not -(2**63) <= value < 2**63:
            raise Unsent(f"{field.name} beyond int64")
        return value
    if field.type == FieldDescriptor.TYPE_BOOL:
        if raw.lower() not in ("true", "false", "1", "0"):
            raise Unsent(f"{field.name}={raw!r} is not a bool")
        return raw.lower() in ("true", "1")
    return raw


def grpc_answer(
    stub: rankline_pb2_grpc.RanklineStub,
    call: Call,
    routes: list[tuple[re.Pattern[str], str, str]],
) -> dict[str, Any]:
    """The recorded answer of ``call`` over gRPC."""
    try:
        rpc, request = grpc_request(call, routes)
    except Unsent as exc:
        return {"unsent": str(exc)}
    value = credential(call.auth)
    metadata = () if value is None else (("authorization", value),)
    method = getattr(stub, rpc)
    try:
        if rpc == "Watch":
            stream = method(request, metadata=metadata, timeout=10)
            first = next(iter(stream))
            stream.cancel()
            return {"code": "OK", "first": to_json(first)}
        response, outcome = method.with_call(request, metadata=metadata, timeout=30)
        return {
            "code": "OK",
            "body": to_json(response),
            "trailers": _trailers(outcome.trailing_metadata()),
        }
    except grpc.RpcError as error:
        status = rpc_status.from_call(error)  # type: ignore[arg-type]
        problems = []
        for detail in status.details if status is not None else ():
            problem = rankline_pb2.Problem()
            if detail.Unpack(problem):
                problems.append(to_json(problem))
        return {
            "code": error.code().name,
            "details": error.details(),
            "problems": problems,
            "trailers": _trailers(error.trailing_metadata()),
        }


def _trailers(metadata: Iterable[Any] | None) -> dict[str, str]:
    return {
        item.key: item.value
        for item in metadata or ()
        if not item.key.endswith("-bin") and not item.key.startswith("grpc-")
    }


# --- running ------------------------------------------------------------------------------


def play(
    protocol: str,
    http_url: str,
    grpc_target: str,
    calls: list[Call],
) -> list[dict[str, Any]]:
    """Every call's masked answer over ``protocol``, in order."""
    found = []
    if protocol == "http":
        with httpx.Client(base_url=http_url, timeout=30) as client:
            for call in calls:
                found.append(_entry(call, http_answer(client, call)))
    else:
        routes = _routes()
        with grpc.insecure_channel(grpc_target) as channel:
            stub = rankline_pb2_grpc.RanklineStub(channel)  # type: ignore[no-untyped-call]
            for call in calls:
                found.append(_entry(call, grpc_answer(stub, call, routes)))
    return found


def _entry(call: Call, answer: dict[str, Any]) -> dict[str, Any]:
    query = "&".join(f"{k}={v}" for k, v in call.query.items())
    request = f"{call.method} {call.path}{'?' + query if query else ''}"
    return {"call": call.label, "request": request[:200], "answer": mask(answer)}


def server_env(data_dir: str, grpc_port: int) -> dict[str, str]:
    """The environment of an answers server: keys, a read key (so a read without a
    credential is refused), and a player's read rate low enough to reach 429."""
    return bench_env(
        data_dir=data_dir,
        server_keys=KEY,
        read_keys=READ_KEY,
        grpc_port=str(grpc_port),
        log_level="warning",
        rate_limit_player_reads=f"{PLAYER_READS}/hour",
    )


def record(
    protocols: Iterable[str],
    progress: Callable[[str], None] = print,
    calls: list[Call] | None = None,
) -> dict[str, Any]:
    """Play the script (or ``calls``) over each protocol, each on a fresh server; the
    recording."""
    from rankline_bench.servers import running

    calls = script() if calls is None else calls
    labels = [c.label for c in calls]
    duplicated = sorted({label for label in labels if labels.count(label) > 1})
    if duplicated:
        raise ValueError(f"labels used twice in the script: {duplicated}")
    found: dict[str, Any] = {"calls": len(calls), "answers": {}}
    for protocol in protocols:
        with tempfile.TemporaryDirectory(prefix="rankline-answers-") as temp:
            grpc_port = free_port()
            server = rankline_server(server_env(temp, grpc_port), 1, Path(temp) / "server.log")
            with running(server, timeout=120):
                progress(f"{protocol}: {len(calls)} calls against {server.url}")
                found["answers"][protocol] = play(
                    protocol, server.url, f"{HOST}:{grpc_port}", calls
                )
    return found


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Each answer that differs between two recordings, in words (empty: none)."""
    found = []
    for protocol in sorted(set(a["answers"]) | set(b["answers"])):
        left = {e["call"]: e for e in a["answers"].get(protocol, [])}
        right = {e["call"]: e for e in b["answers"].get(protocol, [])}
        for label in [*left, *(k for k in right if k not in left)]:
            if label not in right or label not in left:
                where = "second" if label not in right else "first"
                found.append(f"{protocol} {label!r}: not in the {where} recording")
                continue
            one, other = left[label]["answer"], right[label]["answer"]
            if one != other:
                found.append(
                    f"{protocol} {label!r} ({left[label]['request']}):\n"
                    f"  - {json.dumps(one, sort_keys=True)[:2000]}\n"
                    f"  + {json.dumps(other, sort_keys=True)[:2000]}"
                )
    return found


def count(recording: dict[str, Any]) -> dict[str, int]:
    """Answers recorded per protocol, and those sent (not ``unsent``)."""
    found = {}
    for protocol, entries in recording["answers"].items():
        found[protocol] = len(entries)
        found[f"{protocol} sent"] = sum("unsent" not in e["answer"] for e in entries)
    return found


def write(recording: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(recording, indent=1, sort_keys=True) + "\n")


def read(path: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(path.read_text())
    return found


def main(out: Path | None, with_grpc: bool, compare: tuple[Path, Path] | None) -> int:
    """The command: record to ``out`` (HTTP, and gRPC with ``with_grpc``), or compare two
    recordings (exit status 1 when any answer differs)."""
    if compare is not None:
        found = differences(read(compare[0]), read(compare[1]))
        for line in found:
            print(line)
        print(f"{len(found)} answers differ")
        return 1 if found else 0
    if out is None:
        raise ValueError("give --out FILE to record, or --compare A B")
    recording = record(PROTOCOLS if with_grpc else ("http",))
    write(recording, out)
    print(", ".join(f"{k}: {v}" for k, v in count(recording).items()), f"-> {out}")
    return 0


if __name__ == "__main__":  # the recording of another checkout: python answers.py OUT [--grpc]
    import sys

    raise SystemExit(main(Path(sys.argv[1]), "--grpc" in sys.argv[2:], None))
