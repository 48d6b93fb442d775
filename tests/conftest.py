"""Shared fixtures: a manual clock, settings for each backend, a started service, the ASGI
app and a client for it; and the hooks that mark and group the tests.

``settings`` is parametrized over the backend matrix of ``helpers_backends.py``, so every test that
uses it (directly or through ``service``, ``app`` or ``client``) runs on the in-process and
the Redis index, and on SQLite, PostgreSQL and MariaDB. A test marked ``edge`` (it checks the
HTTP edge, not what differs per stack) runs on one stack, memory-sqlite; a test marked
``cases`` (its cases vary what a rule is given, not what a stack stores) runs every case on
memory-sqlite and its first case on every stack.

Every test is marked ``services`` and ``slow`` by what it uses (helpers_marks.py), never by
hand, and a test without ``services`` that connects to a service's port fails
(``service_guard``). Under pytest-xdist the slow tests of one module (servers, a browser,
the benchmark, CLI runs) stay on one worker, so that a module's fixtures start once; the
other tests are shared out one by one. Each worker has its own test slot
(helpers_backends.py) and starts its own Redis Cluster when a test needs one (about 8 s).
"""

from __future__ import annotations

import asyncio
import inspect
import shutil
import sys
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from hypothesis import settings as hypothesis_settings

from helpers_api import SERVER_KEY
from helpers_backends import (
    ALL,
    EDGE_STACK,
    Backend,
    Emptier,
    flush_redis,
    prepare_database,
    real_url,
    selected,
)
from helpers_marks import GUARD, marks_for
from rankline import ManualClock, Rankline, Settings
from rankline.http import create_app
from rankline.http.app import Application

# Hypothesis's default deadline (200 ms an example) is a timing threshold: on a loaded machine it
# fails properties that hold. Each property is bounded by its number of examples instead.
hypothesis_settings.register_profile("rankline", deadline=None)
hypothesis_settings.load_profile("rankline")

START = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
_PARAM = type(pytest.param(None))
"""What ``pytest.param`` makes (pytest names the class publicly from 9.2 only)."""


_loop = asyncio.new_event_loop()
threading.Thread(target=_loop.run_forever, name="conftest-loop", daemon=True).start()


def _run(coroutine: Any) -> Any:
    """Run a coroutine on the session's own event loop (in a thread of its own), apart from
    the tests' loops: the session's engines live there."""
    return asyncio.run_coroutine_threadsafe(coroutine, _loop).result()


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """An ``edge`` test runs on one stack: its ``stack`` is parametrized here, before the
    fixture's own parameters would be (a parametrize mark takes precedence over them)."""
    if "stack" not in metafunc.fixturenames or not metafunc.definition.get_closest_marker("edge"):
        return
    for mark in metafunc.definition.iter_markers("parametrize"):
        if "stack" in str(mark.args[0]):
            return  # the test names its stacks itself
    names = [EDGE_STACK] if EDGE_STACK in selected() else selected()[:1]
    metafunc.definition.add_marker(pytest.mark.parametrize("stack", names, indirect=True))


def _module_fixtures(item: pytest.Function) -> list[Callable[..., Any]]:
    """The functions of the fixtures ``item`` uses that its own module defines."""
    found = []
    for name in item.fixturenames:
        fixture = getattr(item.module, name, None)
        function = inspect.unwrap(fixture) if fixture is not None else None
        if function is not fixture and inspect.isfunction(function):
            found.append(function)
    return found


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (its hook appends them to node ids)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test ``services`` and ``slow`` by what it uses; the slow tests of a module
    share one xdist group (one worker runs them, and their module's fixtures once).
    Deselect the cases of a ``cases`` test beyond its first on any stack but the edge's."""
    extra = {id(item) for item in items if _extra_case(item)}
    if extra:
        config.hook.pytest_deselected(items=[item for item in items if id(item) in extra])
        items[:] = [item for item in items if id(item) not in extra]
    for item in items:
        if not isinstance(item, pytest.Function):
            continue
        params = item.callspec.params if hasattr(item, "callspec") else {}
        code = [item.function, *_module_fixtures(item)]
        marks = marks_for(params, item.fixturenames, code, item.module)
        if _only_on_servers(item):
            marks.add("services")
        # a long CLI command (a soak) is marked slow by hand: the hook cannot see its length
        if "slow" in marks or item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))
        for name in sorted(marks):
            if item.get_closest_marker(name) is None:
                item.add_marker(name)
    # the long groups first: the workers take them while the many short tests are left to
    # even out the end (a sort by this key keeps the collection order otherwise)
    items.sort(key=lambda item: item.get_closest_marker("xdist_group") is None)


_UNGROUPED = pytest.StashKey[bool]()


class _GroupCheck:
    """Under ``--dist loadgroup``, a grouped test whose node id did not get its group (a
    pytest that pytest-xdist cannot group on, which would spread a module's slow tests and
    its expensive fixtures over both workers without a word) fails at setup, saying why."""

    @pytest.hookimpl(trylast=True)  # after xdist's hook has added the groups
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        if not config.getoption("loadgroup", default=False):
            return
        for item in items:
            if item.get_closest_marker("xdist_group") and "@" not in item.nodeid:
                item.stash[_UNGROUPED] = True

    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if item.stash.get(_UNGROUPED, False):
            pytest.fail(
                "pytest-xdist did not put this test in its group: this pytest and "
                "pytest-xdist do not work together (see the pins in pyproject.toml)",
                pytrace=False,
            )


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_GroupCheck(), "rankline-group-check")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Iterator[pytest.TestReport]:
    """Name what the unraisable warnings were in the one-line summary: objects the garbage
    collector freed while a test ran may come from an earlier test, and a CI log's tail
    may hold only that line."""
    report: pytest.TestReport = yield
    error = call.excinfo.value if call.excinfo is not None else None
    crash = getattr(report.longrepr, "reprcrash", None)
    if isinstance(error, BaseExceptionGroup) and "unraisable" in str(error) and crash:
        crash.message += " [" + _unraisable_kinds(error) + "]"
    return report


def _unraisable_kinds(group: BaseExceptionGroup[BaseException]) -> str:
    """The three most frequent kinds in ``group``: each warning's cause and its object."""
    kinds: Counter[str] = Counter()
    for warning in group.exceptions:
        cause = warning.__cause__ or warning
        where = str(warning).split("\n", 1)[0].removeprefix("Exception ignored in: ")
        kinds[f"{type(cause).__name__}: {str(cause)[:120]} (in {where[:80]})"] += 1
    return "; ".join(f"{count} x {kind}" for kind, count in kinds.most_common(3))


def _extra_case(item: pytest.Item) -> bool:
    """Whether ``item`` is a case of a test marked ``cases`` other than its first, on a stack
    other than the one that runs every case (the edge's, or the first selected)."""
    if not isinstance(item, pytest.Function) or not item.get_closest_marker("cases"):
        return False
    callspec = getattr(item, "callspec", None)
    if callspec is None or "stack" not in callspec.params:
        return False
    every_case = EDGE_STACK if EDGE_STACK in selected() else selected()[0]
    if callspec.params["stack"] == every_case:
        return False
    for mark in item.iter_markers("parametrize"):
        names = mark.args[0]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        if "stack" in names:
            continue
        first = mark.args[1][0]
        if isinstance(first, _PARAM):  # a pytest.param
            first = first.values
        values = first if len(names) > 1 else (first,)
        if any(callspec.params[n] is not v for n, v in zip(names, values, strict=True)):
            return True
    return False


def _only_on_servers(item: pytest.Function) -> bool:
    """True for a test whose ``stack`` list lost every stack to RANKLINE_TEST_BACKENDS: it
    runs on server stacks only (pytest collects it as a skip with an empty parameter set), so
    it is a services test, which the fast lane deselects rather than reports skipped."""
    return any(
        "empty parameter set" in str(mark.kwargs.get("reason", ""))
        for mark in item.iter_markers("skip")
    )


sys.addaudithook(GUARD.audit)


@pytest.fixture(autouse=True)
def service_guard(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test not marked ``services`` fails when it connects to a service's port (or hands a
    service's address to a process): the marks stay true, and the fast lane needs no server."""
    if request.node.get_closest_marker("services"):
        yield
        return
    with GUARD.watching() as reached:
        yield
    if reached:
        pytest.fail(
            f"not marked services, yet reached {', '.join(sorted(set(reached)))}: "
            "tell helpers_marks.py how this test reaches it"
        )


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture(scope="session")
def prepared_databases() -> Iterator[dict[str, Emptier]]:
    """Server databases created and migrated so far in this session, each with its emptier
    (one engine for the session)."""
    found: dict[str, Emptier] = {}
    yield found
    for emptier in found.values():
        _run(emptier.dispose())


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir whose SQLite database is already migrated (migrating is the slow part of
    starting an app on SQLite); tests copy it instead of migrating a fresh database."""
    data_dir = tmp_path_factory.mktemp("template") / "data"

    async def migrate() -> None:
        service = Rankline(Settings(data_dir=data_dir, server_keys=SERVER_KEY))
        await service.start(wait_ready=True)
        await service.close()

    _run(migrate())
    (data_dir / "server-key").unlink(missing_ok=True)
    return data_dir


@pytest.fixture(params=selected())
def stack(request: pytest.FixtureRequest) -> Backend:
    """The index and durable store under test (see helpers_backends.py)."""
    return ALL[request.param]


@pytest.fixture
def settings(
    stack: Backend,
    tmp_path: Path,
    migrated_template: Path,
    request: pytest.FixtureRequest,
) -> Settings:
    data_dir = tmp_path / "data"
    if stack.database_url is None:
        shutil.copytree(migrated_template, data_dir)
    else:
        prepared: dict[str, Emptier] = request.getfixturevalue("prepared_databases")
        if stack.database_url not in prepared:
            _run(prepare_database(stack.database_url))
            prepared[stack.database_url] = Emptier(stack.database_url)
        _run(prepared[stack.database_url].empty())
    redis_url = real_url(stack.redis_url)
    if redis_url is not None:
        flush_redis(redis_url)
    return Settings(
        data_dir=data_dir,
        server_keys=SERVER_KEY,
        database_url=stack.database_url,
        redis_url=redis_url,
        index_check_seconds=0.1,
        # The server's 1 s write deadline is a timing threshold on a loaded machine: the
        # tests of deadlines set their own (test_deadlines.py), the others never meet it.
        write_deadline_ms=30_000,
    )


@pytest.fixture
async def service(settings: Settings, clock: ManualClock) -> AsyncIterator[Rankline]:
    svc = Rankline(settings, clock=clock)
    await svc.start(wait_ready=True)
    try:
        yield svc
    finally:
        await svc.close()


@pytest.fixture
async def app(settings: Settings, clock: ManualClock) -> AsyncIterator[Application]:
    application = create_app(settings, clock=clock)
    async with LifespanManager(application, startup_timeout=60, shutdown_timeout=60):
        await application.state.service.wait_ready()
        yield application


@pytest.fixture
async def client(app: Application) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://rankline.test") as c:
        yield c
