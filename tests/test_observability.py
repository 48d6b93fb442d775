"""Request ids, JSON log lines and traces (rankline.observability): through the ASGI app
in-process, and from a real server's stderr, parsed line by line."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_ON
from opentelemetry.trace import SpanKind

from helpers_backends import REDIS_URL, flush_redis
from helpers_procs import serving
from rankline.http.app import create_app
from rankline.observability import observe, tracing
from rankline.observability.logs import SERVER_LOGGERS
from rankline.settings import Settings

KEY = "observability-key"
AUTH = {"Authorization": f"Bearer {KEY}"}


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(data_dir=tmp_path, server_keys=KEY)
    app = create_app(settings)
    async with LifespanManager(app):
        transport = httpx.ASGITransport(app=observe(app))
        async with httpx.AsyncClient(transport=transport, base_url="http://rankline") as client:
            yield client


async def test_a_request_without_an_id_gets_a_new_one_in_its_answer(
    client: httpx.AsyncClient,
) -> None:
    first = await client.get("/healthz")
    second = await client.get("/healthz")
    assert first.status_code == 200
    ids = [first.headers["x-request-id"], second.headers["x-request-id"]]
    assert ids[0] != ids[1]
    assert all(len(i) >= 24 and int(i, 16) >= 0 for i in ids)


async def test_a_usable_request_id_is_echoed_and_an_unusable_one_replaced(
    client: httpx.AsyncClient,
) -> None:
    given = await client.get("/readyz", headers={"X-Request-ID": "lb-7f3a:42"})
    assert given.headers["x-request-id"] == "lb-7f3a:42"
    odd = await client.get("/readyz", headers={"X-Request-ID": "no spaces, please"})
    assert odd.headers["x-request-id"] != "no spaces, please"


async def test_a_problem_carries_its_request_id(client: httpx.AsyncClient) -> None:
    missing = await client.get("/v1/boards/ghost/top", headers={"X-Request-ID": "req-1"})
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")
    problem = missing.json()
    assert problem["request_id"] == "req-1"
    assert problem["status"] == 404 and problem["type"]
    assert int(missing.headers["content-length"]) == len(missing.content)


def _lines(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    entries = [json.loads(line) for line in text.splitlines() if line.strip()]
    for entry in entries:
        assert {"time", "level", "logger", "message"} <= set(entry), entry
    return entries


def test_json_logs_give_every_request_one_object_with_its_id(tmp_path: Path) -> None:
    log_path = tmp_path / "server.log"
    with (
        serving(tmp_path / "data", log_path, log_format="json", server_keys=KEY) as server,
        httpx.Client(base_url=server.url, timeout=30) as http,
    ):
        put = http.put("/v1/boards/arena", headers={**AUTH, "X-Request-ID": "put-1"}, json={})
        assert put.status_code in (200, 201), put.text
        score = http.post(
            "/v1/boards/arena/scores",
            headers={**AUTH, "X-Request-ID": "score-1"},
            json={"player_id": "p1", "score": 10, "match_id": "m1"},
        )
        assert score.status_code == 200, score.text
        bad = http.post(
            "/v1/boards/arena/scores",
            headers={**AUTH, "X-Request-ID": "bad-1"},
            json={"player_id": "p1", "score": "ten"},
        )
        assert bad.status_code == 422
        problem_type = bad.json()["type"]
        top = http.get("/v1/boards/arena/top")
        generated = top.headers["x-request-id"]
    entries = _lines(log_path)  # every line, the server's own included, is one JSON object
    requests = {
        e["request_id"]: e
        for e in entries
        if e["logger"] == "rankline.requests" and e["path"].startswith("/v1/")
    }
    assert set(requests) == {"put-1", "score-1", "bad-1", generated}
    assert requests["score-1"]["board"] == "arena"
    assert requests["score-1"]["status"] == 200
    assert requests["score-1"]["method"] == "POST"
    assert requests["score-1"]["duration_ms"] >= 0
    assert requests["bad-1"]["status"] == 422
    assert requests["bad-1"]["problem_type"] == problem_type
    assert "problem_type" not in requests["score-1"]
    assert requests[generated]["path"] == "/v1/boards/arena/top"
    assert any(e["logger"] in SERVER_LOGGERS for e in entries)  # the HTTP server's own lines


# --- traces ------------------------------------------------------------------------------


@pytest.fixture
def spans() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(sampler=tracing.within_requests(ALWAYS_ON))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    tracing.uninstrument()


async def test_a_trace_shows_each_request_and_the_sql_it_made(
    tmp_path: Path, spans: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    provider, exporter = spans
    app = create_app(Settings(data_dir=tmp_path, server_keys=KEY))
    traced = observe(app, tracer_provider=provider)
    parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    async with LifespanManager(app):
        transport = httpx.ASGITransport(app=traced)
        async with httpx.AsyncClient(transport=transport, base_url="http://rankline") as http:
            put = await http.put(
                "/v1/boards/arena",
                headers={**AUTH, "X-Request-ID": "put-1", "traceparent": parent},
                json={},
            )
            assert put.status_code in (200, 201), put.text
            missing = await http.get("/v1/boards/ghost/top")
            assert missing.status_code == 404
    finished = exporter.get_finished_spans()
    requests = {
        s.attributes["rankline.request_id"]: s for s in finished if s.kind == SpanKind.SERVER
    }
    put_span = requests["put-1"]
    assert put_span.attributes["rankline.board"] == "arena"
    assert put_span.attributes["http.response.status_code"] == put.status_code
    assert put_span.attributes["rankline.endpoint"]
    assert put_span.name == f"PUT {put_span.attributes['rankline.endpoint']}"
    assert f"{put_span.context.trace_id:032x}" == parent.split("-")[1]  # the caller's trace
    sql = [s for s in finished if s.parent and s.parent.span_id == put_span.context.span_id]
    assert sql, "the board's creation made no SQL span under its request"
    assert all(
        s.kind == SpanKind.CLIENT and s.attributes["db.system.name"] == "sqlite" for s in sql
    )
    assert {s.attributes["db.operation.name"] for s in sql} & {"INSERT", "UPDATE"}
    other = requests[missing.headers["x-request-id"]]
    assert other.attributes["http.response.status_code"] == 404
    assert other.attributes["rankline.board"] == "ghost"


def test_spans_outside_requests_are_dropped(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = spans
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("background", kind=SpanKind.CLIENT):
        pass  # a background task's command: no request around it
    with (
        tracer.start_as_current_span("GET top", kind=SpanKind.SERVER),
        tracer.start_as_current_span("EVALSHA", kind=SpanKind.CLIENT),
    ):
        pass
    assert sorted(s.name for s in exporter.get_finished_spans()) == ["EVALSHA", "GET top"]


async def test_on_redis_a_request_span_holds_its_index_and_store_spans(
    tmp_path: Path, spans: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    provider, exporter = spans
    flush_redis(REDIS_URL)
    settings = Settings(data_dir=tmp_path, server_keys=KEY, redis_url=REDIS_URL)
    app = create_app(settings)
    traced = observe(app, tracer_provider=provider)
    async with LifespanManager(app):
        await app.state.service.wait_ready()
        transport = httpx.ASGITransport(app=traced)
        async with httpx.AsyncClient(transport=transport, base_url="http://rankline") as http:
            put = await http.put("/v1/boards/arena", headers=AUTH, json={})
            assert put.status_code in (200, 201), put.text
    finished = exporter.get_finished_spans()
    (request,) = [s for s in finished if s.kind == SpanKind.SERVER]
    children = [s for s in finished if s.parent and s.parent.span_id == request.context.span_id]
    systems = {
        s.attributes.get("db.system") or s.attributes.get("db.system.name") for s in children
    }
    assert {"redis", "sqlite"} <= systems  # the index's commands and the store's statements
    assert all(s.parent is not None for s in finished if s.kind != SpanKind.SERVER)
