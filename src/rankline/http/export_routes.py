"""The export route: a leaderboard as the file ``rankline export`` writes (CSV or JSON
lines, the format ``rankline import`` reads), streamed from ``service.exports``.
``routes.ENDPOINTS`` includes ``EXPORT_ENDPOINTS``."""

from __future__ import annotations

from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from rankline.http import endpoint as e
from rankline.http.body import query_str

MEDIA = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson"}
"""Each format's content type."""
_CHUNK = 64 * 1024
"""Characters sent per chunk of the body (lines are gathered up to about this many)."""


async def export(request: Request) -> Response:
    query = e.read_query(request)
    fmt = query_str(request, "format") or ""  # exports.open refuses all but csv and jsonl
    lines = await e.service_of(request).exports.open(
        query.board, query.window, query.period, query.scope, fmt=fmt, metadata=query.metadata
    )
    disposition = f'attachment; filename="{query.board}.{fmt}"'
    return StreamingResponse(
        _chunks(lines), media_type=MEDIA[fmt], headers={"Content-Disposition": disposition}
    )


async def _chunks(lines: AsyncIterator[str]) -> AsyncIterator[bytes]:
    """``lines`` encoded, gathered into chunks of about ``_CHUNK`` characters."""
    held: list[str] = []
    size = 0
    async for line in lines:
        held.append(line)
        size += len(line)
        if size >= _CHUNK:
            yield "".join(held).encode()
            held, size = [], 0
    if held:
        yield "".join(held).encode()


EXPORT_ENDPOINTS: tuple[e.Endpoint, ...] = (
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/export",
        export,
        "A leaderboard as the file `rankline export` writes (CSV or JSON lines)",
        auth="board",
        params=(
            e.BOARD,
            *e.WHERE[:3],
            e.Param(
                "format",
                "query",
                "csv (a header row, then one row per standing) or jsonl (one JSON object per "
                "standing).",
                {"type": "string", "enum": ["csv", "jsonl"]},
                True,
            ),
            e.Param(
                "metadata",
                "query",
                "true (jsonl): each row carries the metadata of the submission that set it.",
                {"type": "boolean"},
            ),
        ),
        download=tuple(m.split(";")[0] for m in MEDIA.values()),
        tag="boards",
    ),
)
