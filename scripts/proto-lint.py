"""The proto's style and compatibility, what `buf lint` and `buf breaking` would check here
(buf is not on PyPI): run by `make check`.

Style: the package is versioned (``rankline.v1``, in ``rankline/v1/``); messages, enums,
services and RPCs are PascalCase, fields lower_snake_case; each RPC takes a request message of
its own, named after it (``GetTopRequest``).

Compatibility, against the proto of the last release (``rankline.v1.lock.proto`` beside the
package directory): every message, field, RPC and service it has is still there; a field keeps
its number, name, type and label, and a number is never given to another field (a field taken
out must be ``reserved``); an RPC keeps its request, answer and streaming. Adding is free.
Update the lock file when a version is released, never to make this check pass.

    python scripts/proto-lint.py    # exit 1 with each finding listed
"""

from __future__ import annotations

import re
import sys
import tempfile
from importlib.resources import files
from pathlib import Path

from google.protobuf import descriptor_pb2
from grpc_tools import protoc

ROOT = Path(__file__).resolve().parents[1] / "src/rankline/grpc/proto"
CURRENT = "rankline/v1/rankline.proto"
LOCK = "rankline.v1.lock.proto"
PASCAL = re.compile(r"^[A-Z][A-Za-z0-9]*$")
SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


def compile_file(name: str) -> descriptor_pb2.FileDescriptorProto:
    with tempfile.TemporaryDirectory() as temp:
        out = Path(temp) / "set.pb"
        include = str(files("grpc_tools").joinpath("_proto"))
        args = ["protoc", f"-I{ROOT}", f"-I{include}", f"--descriptor_set_out={out}", name]
        if protoc.main(args) != 0:
            raise SystemExit(f"protoc cannot compile {name}")
        found = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    [file] = found.file
    return file


def _messages(
    prefix: str, messages: list[descriptor_pb2.DescriptorProto]
) -> dict[str, descriptor_pb2.DescriptorProto]:
    found = {}
    for message in messages:
        name = f"{prefix}{message.name}"
        found[name] = message
        found.update(_messages(f"{name}.", list(message.nested_type)))
    return found


def style(file: descriptor_pb2.FileDescriptorProto) -> list[str]:
    problems = []
    if not re.fullmatch(r"[a-z]+\.v\d+", file.package):
        problems.append(f"package {file.package!r} is not versioned (name.vN)")
    if Path(file.name).parent.as_posix() != file.package.replace(".", "/"):
        problems.append(f"{file.name} is not in the directory of its package {file.package}")
    for name, message in _messages("", list(file.message_type)).items():
        if message.options.map_entry:
            continue
        if not PASCAL.match(message.name):
            problems.append(f"message {name}: not PascalCase")
        for field in message.field:
            if not SNAKE.match(field.name):
                problems.append(f"field {name}.{field.name}: not lower_snake_case")
    for enum in file.enum_type:
        if not PASCAL.match(enum.name):
            problems.append(f"enum {enum.name}: not PascalCase")
    requests: dict[str, str] = {}
    for service in file.service:
        if not PASCAL.match(service.name):
            problems.append(f"service {service.name}: not PascalCase")
        for method in service.method:
            if not PASCAL.match(method.name):
                problems.append(f"rpc {method.name}: not PascalCase")
            request = method.input_type.rsplit(".", 1)[-1]
            if request != f"{method.name}Request":
                problems.append(f"rpc {method.name} takes {request}, not {method.name}Request")
            if request in requests:
                problems.append(f"rpc {method.name} shares {request} with {requests[request]}")
            requests[request] = method.name
    return problems


def _reserved(message: descriptor_pb2.DescriptorProto, number: int) -> bool:
    return any(r.start <= number < r.end for r in message.reserved_range)


def breaking(
    old: descriptor_pb2.FileDescriptorProto, new: descriptor_pb2.FileDescriptorProto
) -> list[str]:
    problems = []
    if old.package != new.package:
        problems.append(f"the package changed: {old.package} -> {new.package}")
    old_messages = _messages("", list(old.message_type))
    new_messages = _messages("", list(new.message_type))
    for name, before in old_messages.items():
        after = new_messages.get(name)
        if after is None:
            problems.append(f"message {name} was removed")
            continue
        by_number = {f.number: f for f in after.field}
        by_name = {f.name: f for f in after.field}
        for field in before.field:
            now = by_number.get(field.number)
            if now is None:
                if field.name in by_name:
                    moved = by_name[field.name].number
                    problems.append(f"{name}.{field.name} was renumbered {field.number} -> {moved}")
                elif not _reserved(after, field.number):
                    problems.append(
                        f"{name}.{field.name} ({field.number}) was removed without reserving"
                    )
                continue
            if now.name != field.name:
                problems.append(f"{name}: field {field.number} {field.name} became {now.name}")
            if (now.type, now.type_name, now.label) != (field.type, field.type_name, field.label):
                problems.append(f"{name}.{field.name} changed its type or label")
            if now.HasField("oneof_index") != field.HasField("oneof_index"):
                problems.append(f"{name}.{field.name} moved into or out of a oneof")
    old_services = {s.name: s for s in old.service}
    new_services = {s.name: s for s in new.service}
    for name, service in old_services.items():
        if name not in new_services:
            problems.append(f"service {name} was removed")
            continue
        methods = {m.name: m for m in new_services[name].method}
        for method in service.method:
            now = methods.get(method.name)
            if now is None:
                problems.append(f"rpc {name}.{method.name} was removed")
                continue
            shape = ("input_type", "output_type", "client_streaming", "server_streaming")
            if any(getattr(now, a) != getattr(method, a) for a in shape):
                problems.append(f"rpc {name}.{method.name} changed its messages or streaming")
    return problems


def main() -> int:
    current = compile_file(CURRENT)
    problems = style(current) + breaking(compile_file(LOCK), current)
    for problem in problems:
        print(f"{CURRENT}: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
