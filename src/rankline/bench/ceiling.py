"""The ceiling: a raw ASGI app that answers every request with the same 20-byte JSON.

No framework, no routing, no work: what the ASGI server itself can do on this machine.
The benchmark serves it with the server software, options and worker count of
``rankline serve`` (``uvicorn_options`` mirrors them; a test keeps the two equal), so each
endpoint's ratio to it says how much of the machine rankline's own code leaves.

Run it alone with ``python -m rankline.bench.ceiling --port 8001 [--workers N]``.
"""

from __future__ import annotations

import argparse
from typing import Any

from starlette.types import Receive, Scope, Send

BODY = b'{"status":"ceiling"}'
_HEADERS = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(BODY))]


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": _HEADERS})
    await send({"type": "http.response.body", "body": BODY})


def uvicorn_options(host: str, port: int, log_level: str) -> dict[str, Any]:
    """The keyword arguments ``rankline serve`` gives ``uvicorn.run`` (besides the app and
    the worker count)."""
    return {
        "host": host,
        "port": port,
        "loop": "uvloop",
        "http": "httptools",
        "log_level": log_level,
        "access_log": False,
        "timeout_graceful_shutdown": 10,
    }


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--log-level", default="info")
    args = parser.parse_args(argv)
    options = uvicorn_options(args.host, args.port, args.log_level)
    if args.workers > 1:
        uvicorn.run("rankline.bench.ceiling:app", workers=args.workers, **options)
    else:
        uvicorn.run(app, **options)


if __name__ == "__main__":
    main()
