"""Which marks a collected test gets, from what it uses (conftest's collection hook asks
``marks_for``).

``services``: the test needs a server of the machine or one it starts: PostgreSQL, MariaDB,
Redis, the Redis Cluster, NATS, Kafka. ``slow``: an end-to-end test, not in-process: it runs
the CLI, a server process, a browser, the benchmark, process chaos (conftest.py keeps the slow
tests of a module on one xdist worker). A test gets them from

* its ``stack`` (any stack but memory-sqlite has a server);
* the fixtures it requests (``SERVICE_FIXTURES``);
* the code it runs: the names its function and the fixtures of its module refer to (and the
  functions its parameters name: ``BACKENDS["redis"]``), followed through the functions and
  classes of the tests' own modules, found among ``SERVICE_USES`` and ``SLOW_USES``, and the
  service addresses written in it (``...:5432/...``).

So a test that reaches a service by a module constant (``helpers_backends.REDIS_URL``) is
marked like one that requests a fixture. The ``service_guard`` fixture checks the other way at
run time: a test without ``services`` that connects to a service's port fails.
"""

from __future__ import annotations

import contextlib
import inspect
import re
import subprocess
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import CodeType, FunctionType, ModuleType
from typing import Any

import helpers_backends
import helpers_brokers
import helpers_chaos
import helpers_procs
from rankline_bench import run as bench_run

TESTS = Path(__file__).resolve().parent

SERVICE_PORTS = {5432: "PostgreSQL", 3306: "MariaDB", 6379: "Redis", 4222: "NATS"}
"""The machine's services, by port: what ``service_guard`` watches."""

SERVICE_FIXTURES = frozenset({"prepared_databases"})
"""Fixtures of conftest.py that open a server database (its fixtures that depend on the stack
are told by the stack)."""

SERVICE_USES: tuple[object, ...] = (
    helpers_backends.PG_ADMIN,
    helpers_backends.PG_URL,
    helpers_backends.MARIADB_ADMIN,
    helpers_backends.MARIADB_URL,
    helpers_backends.REDIS_URL,
    helpers_backends.CLUSTER_URL,
    helpers_backends.cluster_url,
    helpers_backends.cluster_in_use,
    helpers_backends.prepare_database,
    helpers_backends.empty_database,
    helpers_backends.open_redis_index,
    helpers_brokers.NATS_URL,
    helpers_brokers.drop_nats_log,
    helpers_brokers.tansu_broker,
    helpers_chaos.RedisServer,
    helpers_chaos.PrivatePostgres,
    helpers_chaos.pg_database,
    bench_run.main,
)
"""What the tests reach a service through, besides a stack or a fixture."""

SLOW_USES: tuple[object, ...] = (
    helpers_procs.Server,
    helpers_procs.serving,
    helpers_chaos.RedisServer,
    helpers_chaos.PrivatePostgres,
    subprocess.Popen,
    subprocess.run,
    bench_run.main,
    "playwright",
)
"""What makes a test end-to-end, not in-process: a server process (rankline's, Redis's,
PostgreSQL's), any long-lived process, a command run to its end (``helpers_procs.run_cli``: a Python
process that imports rankline, a second or more each), the benchmark, a browser
(``playwright``, by module name)."""

_ADDRESS = re.compile(r"(127\.0\.0\.1|localhost|}|^):(5432|3306|6379|4222)\b")


def service_address(text: str) -> str | None:
    """The service whose loopback address ``text`` holds, if any."""
    found = _ADDRESS.search(text)
    return f"{SERVICE_PORTS[int(found[2])]} at {found[0].lstrip('}')}" if found else None


def stack_needs_services(stack: object) -> bool:
    """Whether a ``stack`` parameter (a name, or a ``Backend``) has a server in it."""
    backend = helpers_backends.ALL.get(stack) if isinstance(stack, str) else stack
    if not isinstance(backend, helpers_backends.Backend):
        return False  # an empty parameter set (no stack selected): the test is skipped
    return backend.database_url is not None or backend.redis_url is not None


def marks_for(
    params: dict[str, Any],
    fixturenames: Iterable[str],
    code: Iterable[Callable[..., Any]],
    module: ModuleType | None = None,
) -> set[str]:
    """The marks (``services`` and ``slow``) of a test with these parameters,
    these fixtures and this code (its function and its module's fixtures), in this module."""
    marks = set()
    if "stack" in params and stack_needs_services(params["stack"]):
        marks.add("services")
    if SERVICE_FIXTURES & set(fixturenames):
        marks.add("services")
    if module is not None:
        code = [*code, *_named_by(params, module)]
    seen: set[int] = set()
    for found in (u for function in code for u in _uses(function, seen)):
        if _is_in(found, SERVICE_USES) or (isinstance(found, str) and service_address(found)):
            marks.add("services")
        if _is_in(found, SLOW_USES):
            marks.add("slow")
    return marks


def _is_in(found: object, uses: tuple[object, ...]) -> bool:
    """Whether ``found`` is one of ``uses``: the same object, a subclass of a class there, a
    string there, or a member of a package named there."""
    if isinstance(found, str):
        return found in uses
    module = found.__name__ if isinstance(found, ModuleType) else getattr(found, "__module__", "")
    if isinstance(module, str) and module.split(".")[0] in uses:
        return True
    if isinstance(found, type):
        return any(any(base is use for use in uses) for base in found.__mro__)
    return any(found is use for use in uses)


def _ours(found: object) -> bool:
    """A function or class of the tests' own modules (whose code is followed)."""
    try:
        source = inspect.getsourcefile(found)  # type: ignore[arg-type]
    except TypeError:
        return False
    return source is not None and Path(source).resolve().parent == TESTS


def _codes(code: CodeType) -> Iterator[CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _codes(const)


def _uses(function: Callable[..., Any], seen: set[int]) -> Iterator[object]:
    """Every object and string constant ``function`` refers to (by a global name or from its
    closure), and, through the functions and classes of the tests' own modules among them,
    what those refer to."""
    function = inspect.unwrap(function)
    hypothesis = getattr(function, "hypothesis", None)  # a @given test: the test it runs
    function = getattr(hypothesis, "inner_test", function)
    if id(function) in seen or not isinstance(function, FunctionType):
        return
    seen.add(id(function))
    names = {name for code in _codes(function.__code__) for name in code.co_names}
    for code in _codes(function.__code__):
        yield from (c for c in code.co_consts if isinstance(c, str))
    scope = function.__globals__
    found = [scope[name] for name in names if name in scope]
    for cell in function.__closure__ or ():
        with contextlib.suppress(ValueError):  # an empty cell
            found.append(cell.cell_contents)
    for each in found:
        yield each
        yield from _follow(each, names, seen)


def _follow(found: object, names: set[str], seen: set[int]) -> Iterator[object]:
    target = inspect.unwrap(found) if callable(found) else found
    if isinstance(target, ModuleType):
        # `helpers_backends.cluster_url()`, `subprocess.Popen(...)`: the attribute's name is among
        # the names too
        yield from (getattr(target, n) for n in names if hasattr(target, n))
    if not _ours(target):
        return
    if isinstance(target, ModuleType):
        for n in names:
            if hasattr(target, n):
                yield from _follow(getattr(target, n), set(), seen)
    elif isinstance(target, type):
        yield from target.__mro__
        for member in vars(target).values():
            method = member.fget if isinstance(member, property) else member
            method = getattr(method, "__func__", method)
            if isinstance(method, FunctionType):
                yield from _uses(method, seen)
    elif isinstance(target, FunctionType):
        yield from _uses(target, seen)


def _named_by(params: dict[str, Any], module: ModuleType) -> Iterator[Callable[..., Any]]:
    """The code a test's parameters stand for: a function given as a parameter, or the
    function a parameter names in a dict of its module (``BACKENDS["redis"]``)."""
    tables = [v for v in vars(module).values() if isinstance(v, dict)]
    for value in params.values():
        if isinstance(value, FunctionType):
            yield value
        elif isinstance(value, str):
            for table in tables:
                entry = table.get(value)
                if callable(entry):
                    yield entry


class ServiceGuard:
    """Notes the services reached while it watches: a connection to a service's port, or a
    process started with a service's address in its arguments or environment. Its ``audit``
    is a ``sys.addaudithook`` hook (it sees every thread's connections)."""

    def __init__(self) -> None:
        self.reached: list[str] | None = None

    @contextlib.contextmanager
    def watching(self) -> Iterator[list[str]]:
        """Watch until the block ends; yields the list of what was reached (a watch inside
        another notes for itself until it ends)."""
        outer, self.reached = self.reached, []
        try:
            yield self.reached
        finally:
            self.reached = outer

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        if self.reached is None:
            return
        if event == "socket.connect":
            address = args[1]
            if isinstance(address, tuple) and len(address) >= 2 and address[1] in SERVICE_PORTS:
                self.reached.append(f"{SERVICE_PORTS[address[1]]} at {address[0]}:{address[1]}")
        elif event == "subprocess.Popen":
            _, argv, _, env = args
            for text in [*(argv or ()), *(env or {}).values()]:
                found = service_address(str(text))
                if found:
                    self.reached.append(f"{found} (handed to a process)")


GUARD = ServiceGuard()
