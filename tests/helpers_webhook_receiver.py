"""A real HTTP receiver on loopback for webhook tests: records every request it gets and
answers 500 to the first ``failures`` of them, then 200; or, given ``answer``, what it
returns for each request (a board validator's verdicts, a slow answer)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    failures: int = 0
    requests: list[tuple[dict[str, str], bytes, int]] = field(default_factory=list)
    """(headers, body, the status answered) of each request, in arrival order."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def acknowledged(self) -> list[bytes]:
        with self.lock:
            return [body for _, body, status in self.requests if status == 200]


Answer = Callable[[bytes], tuple[int, bytes]]
"""Given a request's body, the status and the JSON body to answer (it may take its time)."""


@contextmanager
def receiver(failures: int = 0, answer: Answer | None = None) -> Iterator[tuple[str, Received]]:
    """A started receiver: its URL and what it received."""
    got = Received(failures)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            content = b""
            if answer is not None:
                status, content = answer(body)
            with got.lock:
                if answer is None:
                    status = 500 if len(got.requests) < got.failures else 200
                got.requests.append(({k.lower(): v for k, v in self.headers.items()}, body, status))
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the caller gave up waiting

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook", got
    finally:
        server.shutdown()
        server.server_close()
