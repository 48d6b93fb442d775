"""The proto's checks in `make check` can fail: the style and compatibility check
(scripts/proto-lint.py) finds a renumbered, removed or retyped field and a badly named RPC;
the stubs check (scripts/grpc-stubs.py --check) finds a stub edited by hand."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def lint() -> ModuleType:
    return _script("proto-lint")


def test_the_proto_is_clean_against_its_release(lint: ModuleType) -> None:
    current = lint.compile_file(lint.CURRENT)
    assert current.package == "rankline.v1"
    assert lint.style(current) == []
    assert lint.breaking(lint.compile_file(lint.LOCK), current) == []


def test_breaking_changes_are_found(lint: ModuleType) -> None:
    released = lint.compile_file(lint.LOCK)
    changed = type(released)()
    changed.CopyFrom(released)
    messages = {m.name: m for m in changed.message_type}
    entry = messages["Entry"]
    entry.field[1].number = 99  # player_id renumbered
    del messages["ScoreIn"].field[0]  # player_id removed, not reserved
    messages["TopOut"].field[4].type = 9  # total: int64 -> string
    found = "\n".join(lint.breaking(released, changed))
    assert "Entry.player_id was renumbered 2 -> 99" in found
    assert "ScoreIn.player_id (1) was removed without reserving" in found
    assert "TopOut.total changed its type or label" in found
    reserved = messages["ScoreIn"].reserved_range.add()
    reserved.start, reserved.end = 1, 2
    assert "ScoreIn.player_id" not in "\n".join(lint.breaking(released, changed))
    changed.service[0].method[0].name = "list_boards"
    changed.package = "rankline"
    problems = "\n".join(lint.style(changed))
    assert "rpc list_boards: not PascalCase" in problems
    assert "package 'rankline' is not versioned" in problems
    assert "rpc Rankline.ListBoards was removed" in "\n".join(lint.breaking(released, changed))


def test_the_stubs_check_finds_an_edited_stub(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stubs = _script("grpc-stubs")
    assert stubs.check() == 0
    copy = tmp_path / "gen"
    shutil.copytree(stubs.GEN, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(stubs, "GEN", copy)
    assert stubs.check() == 0
    stub = copy / "rankline/v1/rankline_pb2_grpc.py"
    stub.write_text(stub.read_text() + "\n# edited\n")
    assert stubs.check() == 1
