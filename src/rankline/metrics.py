"""Prometheus metrics, safe with several worker processes (prometheus-client multiprocess).

With ``--workers`` above 1, ``rankline serve`` points PROMETHEUS_MULTIPROC_DIR at a fresh
directory before the workers start, and ``/metrics`` aggregates every worker's files.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

REQUESTS = Counter(
    "rankline_http_requests_total", "HTTP requests by route and status.", ["route", "status"]
)
LATENCY = Histogram(
    "rankline_http_request_seconds",
    "HTTP request latency by route and status.",
    ["route", "status"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
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
THROTTLED = Counter(
    "rankline_throttled_total",
    "Requests answered 429 by reason: queue (the write queue was full), key or address "
    "(a rate limit per key or per client address was reached).",
    ["reason"],
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
