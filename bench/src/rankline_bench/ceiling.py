"""The ceiling: a raw ASGI app that answers every request with the same 20-byte JSON.

No framework, no routing, no work: what the ASGI server itself can do on this machine.
The benchmark serves it with the server software, options and worker count of
``rankline serve`` (both go through ``rankline.http.server.run``), so each endpoint's ratio
to it says how much of the machine rankline's own code leaves.

Run it alone with ``python -m rankline_bench.ceiling --port 8001 [--workers N] [--server
granian]``.
"""

from __future__ import annotations

import argparse

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


def main(argv: list[str] | None = None) -> None:
    from rankline.http import server

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--server", choices=server.SERVERS, default=server.DEFAULT_SERVER)
    args = parser.parse_args(argv)
    server.run(
        args.server,
        "rankline_bench.ceiling:app",
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level=args.log_level,
        log_format="text",
        app=app,
    )


if __name__ == "__main__":
    main()
