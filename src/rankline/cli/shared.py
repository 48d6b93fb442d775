"""The ``rankline`` typer app, its help rendering, and what every command shares: one line
per failure (``fail``, ``run_on_stores``), the data directory's lock, and logging."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, ClassVar, Literal, NoReturn, TypeVar
from urllib.parse import urlsplit

import typer
import typer.core
from rich.console import Console
from rich.markup import escape

from rankline.cli import extras
from rankline.errors import IndexUnavailable, RanklineError, Unavailable
from rankline.settings import Settings

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
console = Console(stderr=True, soft_wrap=True)


def _unwrapped(text: str | None) -> str | None:
    """``text`` with each paragraph on one line. Typer's help keeps a docstring's line
    breaks, so a description broke where the source line did, mid-sentence; rich wraps
    each paragraph to the terminal itself."""
    if not text:
        return text
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in paragraphs)


def _untyped_flags(params: list[Any]) -> list[Any]:
    """A flag takes no value, but typer's help shows its type (``--quick <bool>``, even
    ``--help <bool>``) as if it took one: an empty metavar shows none."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    return params


class _Command(typer.core.TyperCommand):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = _unwrapped(self.help)

    def get_params(self, ctx: Any) -> list[Any]:
        return _untyped_flags(super().get_params(ctx))


class Group(typer.core.TyperGroup):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = _unwrapped(self.help)

    def get_params(self, ctx: Any) -> list[Any]:
        return _untyped_flags(super().get_params(ctx))


class RootGroup(Group):
    """``rankline`` itself: its commands listed in ``ORDER`` (the order a newcomer meets
    them), whether typer registered them as commands or as groups (which it lists last)."""

    ORDER: ClassVar[list[str]] = []

    def list_commands(self, ctx: Any) -> list[str]:
        names = super().list_commands(ctx)
        rank = {name: i for i, name in enumerate(self.ORDER)}
        return sorted(names, key=lambda name: rank.get(name, len(rank)))


class Typer(typer.Typer):
    """Typer, with every command's help rendered as ``_Command`` renders it."""

    def command(self, *args: Any, **kwargs: Any) -> Callable[[F], F]:
        kwargs["cls"] = kwargs.get("cls") or _Command
        decorator: Callable[[F], F] = super().command(*args, **kwargs)
        return decorator


app = Typer(
    cls=RootGroup,
    name="rankline",
    help="rankline: real-time leaderboards for games.\n\n"
    "Every setting is an environment variable; run `rankline settings` to list them.",
    no_args_is_help=True,
    add_completion=False,
)


def setup_logging(level: str, log_format: Literal["text", "json"] = "text") -> None:
    from rankline.observability import configure_logging  # as in the workers a server starts

    configure_logging(level, log_format)


def fail(message: str, code: int = 2) -> NoReturn:
    console.print(f"[bold red]error:[/bold red] {escape(message)}", highlight=False)
    raise typer.Exit(code)


def needs_extras(settings: Settings, server: str | None = None) -> None:
    """Exit with one line when a setting needs an extra that is not installed
    (``extras.check``)."""
    try:
        extras.check(settings, server)
    except extras.MissingExtra as exc:
        fail(str(exc))


def needs_bench(command: str) -> None:
    """Exit with one line when the benchmark's distribution is not installed."""
    try:
        extras.check_bench(command)
    except extras.MissingExtra as exc:
        fail(str(exc))


def run_measure(options: Callable[[], T], main: Callable[[T, Console], int]) -> None:
    """Run a measuring command: its options (a ValueError is a usage error, exit 2), then
    the command itself, whose exit code is the command's (1: a goal missed)."""
    try:
        made = options()
    except ValueError as exc:
        fail(str(exc))
    code = main(made, console)
    if code:
        raise typer.Exit(code)


def run_on_stores(settings: Settings, work: Coroutine[Any, Any, T]) -> T:
    """Run ``work``, which opens the stores the settings name. When a store cannot be
    reached (a database that does not exist, a refused connection, a schema not
    migrated), print one line naming the cause and exit 1: the operator needs the
    cause, not the traceback of every layer it went through."""
    needs_extras(settings)
    store_log = logging.getLogger("rankline.store")
    level = store_log.level
    # The store logs each error it maps, with its traceback; here the error reaches the
    # operator as the one line below.
    store_log.setLevel(logging.CRITICAL)
    try:
        return asyncio.run(work)
    except (RanklineError, OSError) as exc:  # OSError: a file the log needs, say
        fail(explain(exc, settings), 1)
    finally:
        store_log.setLevel(level)


def explain(exc: BaseException, settings: Settings) -> str:
    """``exc`` as one line: what could not be reached and the innermost cause, in the
    driver's words (``database "x" does not exist``, ``Connect call failed``)."""
    from rankline.store.opening import redacted

    chain = [exc]
    while (cause := _cause_of(chain[-1])) is not None and len(chain) < 20:
        chain.append(cause)
    if isinstance(exc, RanklineError) and not isinstance(exc, Unavailable):
        return exc.detail  # rankline's own words: not migrated, not found
    if any(isinstance(e, IndexUnavailable) for e in chain):
        what = f"the ranking index at {redacted_redis(settings.redis_url or '')}"
    else:
        what = f"the durable store at {redacted(settings.database)}"
    innermost = chain[-1]
    lines = str(innermost).strip().splitlines()
    words = lines[0] if lines else type(innermost).__name__
    return f"cannot use {what}: {words}"


def _cause_of(exc: BaseException) -> BaseException | None:
    if exc.__cause__ is not None:
        return exc.__cause__
    return None if exc.__suppress_context__ else exc.__context__


@contextmanager
def data_dir_held(settings: Settings) -> Iterator[None]:
    """Hold the embedded data directory's lock (see ``rankline.store.lock``), or fail with
    one line naming the process that holds it."""
    from rankline.store.lock import DataDirInUse, embedded_lock

    lock = embedded_lock(settings.data_dir, settings.database, bool(settings.redis_url))
    if lock is None:
        yield
        return
    try:
        lock.acquire()
    except DataDirInUse as exc:
        fail(exc.detail)
    except RanklineError as exc:  # the data directory cannot be made or opened
        fail(explain(exc, settings), 1)
    try:
        yield
    finally:
        lock.release()


def redacted_redis(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@")).geturl()
