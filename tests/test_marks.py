"""The marks the collection hook gives (helpers_marks.py), and the guard that keeps them true.

The samples are kept in a read-only mapping, which the hook does not follow (it follows the
functions a test names and the entries of a module's dicts that a parameter names), so these
tests need no service themselves."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any

import pytest

import helpers_backends
import helpers_procs
from helpers_backends import ALL, EDGE_STACK
from helpers_marks import GUARD, marks_for, stack_needs_services


def _pure() -> int:
    return sum(range(3))


def _redis() -> str:
    return helpers_backends.REDIS_URL


def _through_a_helper() -> str:
    return _redis()


def _cluster() -> str:
    return helpers_backends.cluster_url()


def _written_address() -> str:
    return "postgresql+asyncpg://postgres@127.0.0.1:5432/elsewhere"


def _server(tmp_path: Path) -> None:
    with helpers_procs.serving(tmp_path, tmp_path / "log"):
        pass


def _command() -> None:
    helpers_procs.run_cli("--version")


SAMPLES: Mapping[str, Any] = MappingProxyType(
    {
        "pure": _pure,
        "redis": _redis,
        "helper": _through_a_helper,
        "cluster": _cluster,
        "address": _written_address,
        "server": _server,
        "command": _command,
    }
)


@pytest.mark.parametrize(
    ("sample", "expected"),
    [
        ("pure", set()),
        ("redis", {"services"}),
        ("helper", {"services"}),
        ("cluster", {"services"}),
        ("address", {"services"}),
        ("server", {"slow"}),
        ("command", {"slow"}),
    ],
)
def test_the_code_a_test_runs_gives_its_marks(sample: str, expected: set[str]) -> None:
    assert marks_for({}, (), [SAMPLES[sample]]) == expected


def test_a_stack_with_a_server_and_a_database_fixture_give_services() -> None:
    assert marks_for({"stack": "memory-sqlite"}, ("client",), []) == set()
    for name in ("redis-sqlite", "memory-postgresql", "redis-mariadb", "cluster-postgresql"):
        assert marks_for({"stack": name}, ("client",), []) == {"services"}
        assert marks_for({"stack": ALL[name]}, (), []) == {"services"}
    assert marks_for({}, ("prepared_databases",), []) == {"services"}


def test_a_parameter_naming_code_in_a_table_of_the_module_gives_its_marks() -> None:
    module = ModuleType("sample")
    module.TABLE = dict(SAMPLES)  # type: ignore[attr-defined]
    assert marks_for({"sample": "redis"}, (), [], module) == {"services"}
    assert marks_for({"sample": "server"}, (), [], module) == {"slow"}
    assert marks_for({"sample": "pure"}, (), [], module) == set()


def _collected(*args: str) -> list[str]:
    """The test ids ``pytest --collect-only`` lists for ``args``, on every stack."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        cwd=helpers_procs.REPO,
        env={**os.environ, "RANKLINE_TEST_BACKENDS": ",".join(ALL)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_the_hook_marks_by_stack_and_runs_edge_tests_on_one_stack() -> None:
    target = "tests/test_api_reads.py"
    everything = _collected(target)
    served = set(_collected(target, "-m", "services"))
    edge = _collected(target, "-m", "edge")
    assert served and edge and len(everything) > len(served)
    for test in everything:
        stack = _stack(test)
        if stack is not None:
            assert (test in served) == stack_needs_services(stack), test
    assert {_stack(test) for test in edge} - {None} == {EDGE_STACK}
    assert f"{target}::test_top_of_empty_board[cluster-postgresql]" in served
    assert f"{target}::test_top_of_empty_board[memory-sqlite]" in everything


def test_a_cases_test_runs_every_case_on_the_edge_stack_and_its_first_on_every_stack() -> None:
    target = "tests/test_api_boards.py::test_immutable_field_change_with_entries_is_409"
    collected = _collected(target)
    by_stack: dict[str | None, list[str]] = {}
    for test in collected:
        by_stack.setdefault(_stack(test), []).append(test)
    assert set(by_stack) == set(ALL)
    cases = len(by_stack[EDGE_STACK])
    assert cases > 1
    first = by_stack[EDGE_STACK][0].partition("[")[2].removeprefix(EDGE_STACK)
    for stack, tests in by_stack.items():
        if stack != EDGE_STACK:
            assert [t.partition("[")[2].removeprefix(str(stack)) for t in tests] == [first]


def _stack(test: str) -> str | None:
    params = test.partition("[")[2]
    return next((name for name in ALL if params.startswith(name)), None)


def test_the_guard_notes_a_connection_to_a_service_port() -> None:
    with GUARD.watching() as reached:
        _connect(5432)
    assert reached == ["PostgreSQL at 127.0.0.1:5432"]


def test_the_guard_ignores_other_ports_and_notes_for_the_innermost_watch() -> None:
    with GUARD.watching() as outer:
        with GUARD.watching() as inner:
            _connect(5432)
        _connect(helpers_procs.free_port())
    assert inner == ["PostgreSQL at 127.0.0.1:5432"]
    assert outer == []


def _connect(port: int) -> None:
    with socket.socket() as sock, contextlib.suppress(OSError):
        # noted before the connection is tried: whether a server listens is moot
        sock.settimeout(0.5)
        sock.connect(("127.0.0.1", port))


def test_the_summary_line_of_unraisable_warnings_names_their_kinds() -> None:
    from conftest import _unraisable_kinds

    def warning(cause: BaseException, where: str) -> pytest.PytestUnraisableExceptionWarning:
        made = pytest.PytestUnraisableExceptionWarning(f"Exception ignored in: {where}\n\nmore")
        made.__cause__ = cause
        return made

    group = BaseExceptionGroup(
        "multiple unraisable exception warnings (4 sub-exceptions)",
        [warning(ResourceWarning("unclosed transport"), "<transport>")] * 3
        + [warning(RuntimeError("Event loop is closed"), "<function Conn.__del__>")],
    )
    assert _unraisable_kinds(group) == (
        "3 x ResourceWarning: unclosed transport (in <transport>); "
        "1 x RuntimeError: Event loop is closed (in <function Conn.__del__>)"
    )
