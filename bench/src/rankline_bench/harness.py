"""What the benchmark's extra sections (``cluster_run``, ``dense_run``) get from the run that
calls them: its options, data and helpers, as a ``Harness`` (``run.Bench`` is one). They
depend on this contract, not on ``run``, so nothing in the benchmark imports ``run`` back."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rankline.boards import Board
from rankline.types import Micros
from rankline_bench import servers, wrk
from rankline_bench.load import BOARD_ID, Dataset


@dataclass(frozen=True)
class Backend:
    name: str
    label: str
    database_url: str | None
    redis_url: str | None
    workers: int
    log_url: str = ""
    """Where the servers keep the ingestion log (``RANKLINE_LOG_URL``; empty: the store's
    default)."""
    log_name: str = ""
    """The log's name there (``RANKLINE_LOG_NAME``), with ``log_url``: one of this run's own."""


class RunOptions(Protocol):
    """The options of a run the sections read."""

    @property
    def n(self) -> int: ...
    @property
    def duration(self) -> float: ...
    @property
    def connections(self) -> int: ...
    @property
    def workers(self) -> int: ...
    @property
    def server(self) -> str: ...
    @property
    def ready_timeout(self) -> float: ...


class Harness(Protocol):
    @property
    def o(self) -> RunOptions: ...
    @property
    def key(self) -> str: ...
    @property
    def now(self) -> Micros: ...
    @property
    def data(self) -> Dataset: ...
    @property
    def tmp(self) -> Path: ...

    def step(self, text: str) -> None: ...

    def bar(
        self, label: str, total: int, seconds: bool = False
    ) -> AbstractContextManager[Callable[[int], None]]: ...

    def wrk(
        self,
        server: servers.Server,
        endpoint: str,
        connections: int,
        seconds: float,
        *,
        delay: float = 0.0,
        label: str | None = None,
        board: str = BOARD_ID,
    ) -> wrk.WrkResult: ...

    def prepared(
        self, plan: Backend, data_dir: Path, boards: Sequence[Board] = ()
    ) -> tuple[dict[str, str], str, int]: ...

    def memory_at(
        self, env: dict[str, str], plan: Backend, rss_empty: int, n: int
    ) -> dict[str, Any]: ...
