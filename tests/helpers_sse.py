"""An open Server-Sent Events stream on an ASGI app, driven by a small ASGI harness that
feeds ``receive`` and parses what ``send`` gets as it arrives (httpx's ASGITransport buffers
whole bodies)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any
from urllib.parse import urlencode

from rankline.http.app import Application


class SSE:
    """One open stream on an ASGI app: ``next()`` returns (event, data) as they arrive."""

    def __init__(
        self, app: Application, board: str, headers: dict[str, str] | None = None, **params: Any
    ) -> None:
        self.app = app
        self.extra = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
        self.path = f"/v1/boards/{board}/stream"
        self.query = urlencode(params).encode()
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.started = asyncio.Event()
        self.events: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.comments = 0
        self.body = b""
        self._buffer = ""
        self._disconnect = asyncio.Event()
        self._requested = False
        self._task: asyncio.Task[None] | None = None

    async def _receive(self) -> dict[str, Any]:
        if not self._requested:
            self._requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self._disconnect.wait()
        return {"type": "http.disconnect"}

    async def _send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = {k.decode(): v.decode() for k, v in message["headers"]}
            self.started.set()
        elif message["type"] == "http.response.body":
            chunk = message.get("body", b"")
            self.body += chunk
            self._buffer += chunk.decode().replace("\r\n", "\n")
            while "\n\n" in self._buffer:
                block, self._buffer = self._buffer.split("\n\n", 1)
                self._parse(block)

    def _parse(self, block: str) -> None:
        name, data = "message", []
        for line in block.split("\n"):
            if line.startswith(":"):
                self.comments += 1
            elif line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
        if data:
            self.events.put_nowait((name, json.loads("\n".join(data))))

    async def __aenter__(self) -> SSE:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": self.path,
            "raw_path": self.path.encode(),
            "root_path": "",
            "query_string": self.query,
            "headers": [
                (b"host", b"rankline.test"),
                (b"accept", b"text/event-stream"),
                *self.extra,
            ],
            "client": ("127.0.0.1", 5000),
            "server": ("rankline.test", 80),
        }
        self._task = asyncio.create_task(self.app(scope, self._receive, self._send))
        await asyncio.wait_for(self.started.wait(), 10)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        self._disconnect.set()
        if self._task is not None:
            await asyncio.wait_for(self._task, 10)
            self._task = None

    async def next(self, within: float = 5.0) -> tuple[str, Any]:
        return await asyncio.wait_for(self.events.get(), within)

    async def quiet(self, seconds: float) -> list[tuple[str, Any]]:
        """Everything that arrives within ``seconds``."""
        got = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                got.append(await asyncio.wait_for(self.events.get(), left))
            except TimeoutError:
                break
        return got
