"""Request metrics: every request counted by route and status, in the exposition that
prometheus-client's own counter and histogram give."""

from __future__ import annotations

import re

import pytest
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest

from rankline import metrics
from rankline.http.measured import count

_SECONDS = [0.0001, 0.0005, 0.0007, 0.003, 0.003, 0.2, 2.5, 9.0]


def _lines(text: str, route: str) -> list[str]:
    """The request metrics' lines of ``route``, with the creation times left out."""
    return [
        re.sub(r"(_created\{[^}]*\}) \S+", r"\1 T", line)
        for line in text.splitlines()
        if f'route="{route}"' in line
    ]


@pytest.mark.skipif(metrics.MULTIPROCESS, reason="counted by prometheus-client itself")
def test_requests_are_exposed_as_prometheus_clients_counter_and_histogram_would() -> None:
    for seconds in _SECONDS:
        count("measured_probe", 200, seconds)
    count("measured_probe", 404, 0.001)

    reference = CollectorRegistry()
    requests = Counter("rankline_http_requests_total", "", ["route", "status"], registry=reference)
    latency = Histogram(
        "rankline_http_request_seconds",
        "",
        ["route", "status"],
        buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
        registry=reference,
    )
    for status, seconds in [*((200, s) for s in _SECONDS), (404, 0.001)]:
        requests.labels("measured_probe", str(status)).inc()
        latency.labels("measured_probe", str(status)).observe(seconds)

    shown = _lines(generate_latest(REGISTRY).decode(), "measured_probe")
    expected = _lines(generate_latest(reference).decode(), "measured_probe")
    assert shown == expected
    assert 'rankline_http_requests_total{route="measured_probe",status="200"} 8.0' in shown
    assert 'rankline_http_request_seconds_count{route="measured_probe",status="404"} 1.0' in shown
