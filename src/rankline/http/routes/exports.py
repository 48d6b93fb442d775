"""The export route: a leaderboard as the file ``rankline export`` writes (CSV or JSON
lines, the format ``rankline import`` reads), streamed from ``service.exports``.
``routes.ENDPOINTS`` includes ``EXPORT_ENDPOINTS``."""

from __future__ import annotations

from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from rankline.http import endpoint as e
from rankline.reading.requests import ExportRequest

MEDIA = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson"}
"""Each format's content type."""
_CHUNK = 64 * 1024
"""Characters sent per chunk of the body (lines are gathered up to about this many)."""


async def export(request: Request) -> Response:
    ask = e.ask(request, ExportRequest)
    fmt = ask.format  # exports.open refuses all but csv and jsonl
    lines = await e.service_of(request).exports.open(ask)
    disposition = f'attachment; filename="{ask.board_id}.{fmt}"'
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


NO_RPC = (
    "a file download (CSV or JSON lines), not a message: over gRPC, page through GetTop, or "
    "run `rankline export`"
)
"""Why the export has no RPC."""


EXPORT_ENDPOINTS: tuple[e.Endpoint, ...] = (
    e.Endpoint(
        "GET",
        "/v1/boards/{board_id}/export",
        export,
        "A leaderboard as the file `rankline export` writes (CSV or JSON lines)",
        auth="board",
        request=ExportRequest,
        params=(e.BOARD,),
        download=tuple(m.split(";")[0] for m in MEDIA.values()),
        tag="boards",
        no_rpc=NO_RPC,
    ),
)
