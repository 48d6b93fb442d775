"""Prometheus metrics, safe with several worker processes (prometheus-client multiprocess).

With ``--workers`` above 1, ``rankline serve`` points PROMETHEUS_MULTIPROC_DIR at a fresh
directory before the workers start, and ``/metrics`` aggregates every worker's files.
"""

from __future__ import annotations

import math
import os
import shutil
import time
from bisect import bisect_left
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Metric,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample

_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5)
_REQUESTS_HELP = "HTTP requests by route and status."
_LATENCY_HELP = "HTTP request latency by route and status."
MULTIPROCESS = "prometheus_multiproc_dir" in os.environ or "PROMETHEUS_MULTIPROC_DIR" in os.environ
"""Whether the metrics live in files the workers share (prometheus-client decides so when it
is imported, as here)."""
_BOUNDS = (*map(float, _LATENCY_BUCKETS), math.inf)
_BOUND_NAMES = tuple("+Inf" if bound == math.inf else repr(bound) for bound in _BOUNDS)
"""The ``le`` labels, as prometheus-client writes these bounds."""


class _Route:
    """The requests of one route and status: how many fell in each latency bucket (not
    cumulative), their seconds in all, and when the first came."""

    __slots__ = ("buckets", "created", "seconds")

    def __init__(self) -> None:
        self.buckets = [0] * len(_BOUNDS)
        self.seconds = 0.0
        self.created = time.time()


class _Counted(Collector):
    """``rankline_http_requests_total`` and ``rankline_http_request_seconds`` of one process,
    counted in plain numbers and turned into the counter and the histogram when scraped:
    a request costs a dict lookup and two additions, where prometheus-client's counter and
    histogram (a lock per value, a loop over the buckets) cost about 2 µs, a tenth of a
    fast read. The exposition is the same as theirs."""

    def __init__(self) -> None:
        self._routes: dict[tuple[str, int], _Route] = {}

    def count(self, route: str, status: int, seconds: float) -> None:
        counted = self._routes.get((route, status))
        if counted is None:
            counted = self._routes[route, status] = _Route()
        counted.buckets[bisect_left(_BOUNDS, seconds)] += 1
        counted.seconds += seconds

    def collect(self) -> Iterator[Metric]:
        labels = ("route", "status")
        requests = CounterMetricFamily("rankline_http_requests", _REQUESTS_HELP, labels=labels)
        latency = HistogramMetricFamily(
            "rankline_http_request_seconds", _LATENCY_HELP, labels=labels
        )
        created = _created()
        for (route, status), counted in list(self._routes.items()):
            values = [route, str(status)]
            cumulative, total = [], 0
            for name, count in zip(_BOUND_NAMES, counted.buckets, strict=True):
                total += count
                cumulative.append((name, float(total)))
            requests.add_metric(values, total, counted.created if created else None)
            latency.add_metric(values, cumulative, counted.seconds)
            if created:
                at = dict(zip(labels, values, strict=True))
                latency.samples.append(
                    Sample("rankline_http_request_seconds_created", at, counted.created)
                )
        yield requests
        yield latency


def _created() -> bool:
    """Whether ``_created`` series are shown (prometheus-client's own switch)."""
    flag = os.environ.get("PROMETHEUS_DISABLE_CREATED_SERIES", "False")
    return flag.lower() not in ("true", "1", "t")


class _Shared:
    """The same metrics in prometheus-client's counter and histogram: with several workers
    they live in the files ``/metrics`` aggregates."""

    def __init__(self) -> None:
        labels = ["route", "status"]
        self._requests = Counter("rankline_http_requests_total", _REQUESTS_HELP, labels)
        self._latency = Histogram(
            "rankline_http_request_seconds", _LATENCY_HELP, labels, buckets=_LATENCY_BUCKETS
        )
        self._children: dict[tuple[str, int], tuple[Any, Any]] = {}

    def count(self, route: str, status: int, seconds: float) -> None:
        found = self._children.get((route, status))
        if found is None:
            label = str(status)
            found = self._children[route, status] = (
                self._requests.labels(route, label),
                self._latency.labels(route, label),
            )
        found[0].inc()
        found[1].observe(seconds)


def _requests() -> _Counted | _Shared:
    if MULTIPROCESS:
        return _Shared()
    counted = _Counted()
    REGISTRY.register(counted)
    return counted


REQUESTS = _requests()
"""Every HTTP request, by route and status: ``REQUESTS.count(route, status, seconds)``."""
BATCH_SIZE = Histogram(
    "rankline_commit_batch_size",
    "Submissions per group-commit transaction.",
    buckets=(1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2000, 5000),
)
COMMIT_SECONDS = Histogram(
    "rankline_commit_seconds",
    "Group-commit transaction latency (SQL commit and index update).",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
LOOP_LAG = Histogram(
    "rankline_event_loop_lag_seconds",
    "How much later than due a worker's event loop ran a timer, sampled every 10 ms: the "
    "wait a request meets before the application sees it (counted in a write's deadline).",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
ENTRIES = Gauge(
    "rankline_leaderboard_entries",
    "Entries per live leaderboard (as of the last scrape).",
    ["board", "window", "period", "scope"],
    multiprocess_mode="mostrecent",
)
REBUILD_DONE = Gauge(
    "rankline_index_rebuild_done",
    "Standings loaded by the current or last index build.",
    multiprocess_mode="max",
)
REBUILD_TOTAL = Gauge(
    "rankline_index_rebuild_total",
    "Standings to load in the current or last index build.",
    multiprocess_mode="max",
)
DEGRADED = Gauge(
    "rankline_index_degraded",
    "1 while reads are served from SQL because the index cannot answer.",
    multiprocess_mode="max",
)
RUNTIME_KEYS = Gauge(
    "rankline_runtime_keys",
    "Keys made at runtime (POST /v1/keys) that are not revoked, as the workers last read them.",
    multiprocess_mode="max",
)
THROTTLED = Counter(
    "rankline_throttled_total",
    "Requests answered 429 by reason: wait (a write would wait past its deadline), deadline "
    "(its deadline passed before it was written), queue (the write queue was full), key, "
    "address or player (a rate limit per key, per client address or per player was reached).",
    ["reason"],
)
HELD_WRITES = Counter(
    "rankline_held_writes_total",
    "Writes that came on a connection before the Retry-After of its last overload refusal had "
    "passed, and waited until then (RANKLINE_WRITE_HOLD_EARLY).",
)
BACKEND_ERRORS = Counter(
    "rankline_backend_errors_total", "Errors from the durable store and the index.", ["backend"]
)

DEAD_LETTERS = Counter(
    "rankline_dead_letters_total",
    "Submissions taken asynchronously that could not be applied, by reason.",
    ["reason"],
)
LOG_APPLIED = Counter(
    "rankline_log_applied_total",
    "Submissions applied from the ingestion log by this process.",
)
CLIENT_REJECTED = Counter(
    "rankline_client_writes_rejected_total",
    "Players' own score submissions refused, by reason: off (the board takes no client "
    "writes), rate (max_per_minute), range (min_score/max_score), gain (max_gain), "
    "validator (the validator rejected it), validator_error (no verdict, on_error reject).",
    ["reason"],
)
VALIDATOR_ERRORS = Counter(
    "rankline_client_writes_validator_errors_total",
    "Board validators that gave no verdict (a timeout, an error, a malformed answer), "
    "whatever their on_error made of it.",
)


def prepare_multiprocess(data_dir: Path) -> None:
    """Give the workers an empty directory for their metric files (before they start)."""
    path = Path(os.environ.get("PROMETHEUS_MULTIPROC_DIR") or data_dir / "metrics")
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True, exist_ok=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(path)


def render() -> tuple[bytes, str]:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(), CONTENT_TYPE_LATEST
