"""OpenTelemetry traces, with the optional extra ``rankline[otel]``: a server span per request
(its endpoint, board, status and request id, continuing the caller's ``traceparent``), and
under it a span per SQL statement the request makes (the store, the ingestion log on SQL)
and per Redis command it sends through redis-py (the shared index). Sent by OTLP as the
standard ``OTEL_*`` variables say; on when ``OTEL_EXPORTER_OTLP_ENDPOINT`` or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` is set (and ``OTEL_SDK_DISABLED`` is not ``true``)."""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.sampling import Sampler
    from opentelemetry.trace import Tracer, TracerProvider

log = logging.getLogger(__name__)
NAME = "rankline"
_ENDPOINTS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
_sql_tracer: Tracer | None = None
_listening = False


def wanted() -> bool:
    """Whether the environment asks for traces."""
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    return any(os.environ.get(name) for name in _ENDPOINTS)


def tracer_from_env() -> Tracer | None:
    """A tracer exporting by OTLP as the ``OTEL_*`` variables say, with the SQL and Redis
    spans on; None when traces are not asked for, or the ``otel`` extra is not installed."""
    if not wanted():
        return None
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider as SdkTracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        log.warning("OTEL_EXPORTER_OTLP_ENDPOINT is set but rankline[otel] is not installed")
        return None
    attributes = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": NAME}
    configured = SdkTracerProvider().sampler  # as OTEL_TRACES_SAMPLER says
    provider = SdkTracerProvider(
        resource=Resource.create(attributes), sampler=within_requests(configured)
    )
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return instrument(provider)


def within_requests(sampler: Sampler) -> Sampler:
    """``sampler``, but a span that is neither a request's (a server span) nor inside one is
    dropped: the Redis commands of background tasks (index checks, fills, the group commit)
    would otherwise each be a trace of their own."""
    from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult
    from opentelemetry.trace import SpanKind, get_current_span

    class _WithinRequests(Sampler):
        def should_sample(
            self,
            parent_context: Any,
            trace_id: int,
            name: str,
            kind: SpanKind | None = None,
            attributes: Any = None,
            links: Any = None,
            trace_state: Any = None,
        ) -> SamplingResult:
            parent = get_current_span(parent_context).get_span_context()
            if kind != SpanKind.SERVER and not parent.is_valid:
                return SamplingResult(Decision.DROP)
            return sampler.should_sample(
                parent_context, trace_id, name, kind, attributes, links, trace_state
            )

        def get_description(self) -> str:
            return f"WithinRequests{{{sampler.get_description()}}}"

    return _WithinRequests()


def instrument(provider: TracerProvider) -> Tracer:
    """Spans for SQL statements and redis-py commands made while a request is served, and
    the tracer of the request spans, all from ``provider``."""
    global _sql_tracer
    tracer = provider.get_tracer(NAME)
    if not _listening:
        _listen_to_sql()
    _sql_tracer = tracer
    try:
        from opentelemetry.instrumentation.redis import RedisInstrumentor
    except ImportError:
        log.info("no Redis spans: opentelemetry-instrumentation-redis is not installed")
    else:
        instrumentor = RedisInstrumentor()
        if instrumentor.is_instrumented_by_opentelemetry:
            instrumentor.uninstrument()
        instrumentor.instrument(tracer_provider=provider)
    return tracer


def uninstrument() -> None:
    """No more SQL or Redis spans (as before ``instrument``)."""
    global _sql_tracer
    _sql_tracer = None
    try:
        from opentelemetry.instrumentation.redis import RedisInstrumentor
    except ImportError:
        return
    if RedisInstrumentor().is_instrumented_by_opentelemetry:
        RedisInstrumentor().uninstrument()


def _listen_to_sql() -> None:
    """Listeners on every SQLAlchemy engine (the store's, the SQL log's), made once: a span
    per statement executed within a traced request. Statements of background tasks (the
    group commit, the log's applier) have no request to belong to and make none."""
    global _listening
    _listening = True
    from opentelemetry import trace
    from opentelemetry.trace import SpanKind, Status, StatusCode

    @event.listens_for(Engine, "before_cursor_execute")
    def _started(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        tracer = _sql_tracer
        if tracer is None or not trace.get_current_span().get_span_context().is_valid:
            return
        words = statement.split(None, 1)
        operation = words[0].upper() if words else "SQL"
        span = tracer.start_span(
            f"{operation} {conn.engine.url.database or ''}".strip(),
            kind=SpanKind.CLIENT,
            attributes={
                "db.system.name": conn.dialect.name,
                "db.operation.name": operation,
                "db.query.text": statement[:2000],
            },
        )
        conn.info.setdefault("rankline_spans", []).append(span)

    @event.listens_for(Engine, "after_cursor_execute")
    def _ended(conn: Any, *args: Any) -> None:
        spans = conn.info.get("rankline_spans")
        if spans:
            spans.pop().end()

    @event.listens_for(Engine, "handle_error")
    def _failed(context: Any) -> None:
        connection = context.connection
        spans = connection.info.get("rankline_spans") if connection is not None else None
        if spans:
            span = spans.pop()
            span.set_status(Status(StatusCode.ERROR, type(context.original_exception).__name__))
            span.end()
