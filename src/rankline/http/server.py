"""Serving an ASGI app: the server software and its options, in one place.

``rankline serve`` and the benchmark's ceiling (``rankline.bench.ceiling``) both run through
``run``, so the ceiling is served by the same software with the same options, whichever is
chosen (``RANKLINE_SERVER``):

- ``uvicorn`` (the default): uvloop and httptools, no access log. One worker runs in the
  calling process; more are processes of its own.
- ``granian``: a Rust HTTP server driving the same ASGI app on uvloop. Its I/O runs on a
  thread of its own and every worker is a process of its own, also with one worker (the
  calling process only supervises). Measured here at 1M players, same run: the raw ASGI
  ceiling ~49K → ~74K req/s, a rank read ~12K → ~16K, a top-100 page ~15K → ~26K.
"""

from __future__ import annotations

from typing import Any, Literal

Server = Literal["uvicorn", "granian"]
SERVERS: tuple[Server, ...] = ("uvicorn", "granian")
GRACEFUL_SECONDS = 10
"""How long a stopping server waits for requests in flight (and the app's shutdown)."""


def uvicorn_options(host: str, port: int, log_level: str) -> dict[str, Any]:
    """The keyword arguments given to ``uvicorn.run`` besides the app and the workers."""
    return {
        "host": host,
        "port": port,
        "loop": "uvloop",
        "http": "httptools",
        "log_level": log_level,
        "access_log": False,
        "timeout_graceful_shutdown": GRACEFUL_SECONDS,
    }


def granian_options(host: str, port: int, log_level: str) -> dict[str, Any]:
    """The keyword arguments given to ``granian.Granian`` besides the target, the workers
    and ``factory``."""
    return {
        "address": host,
        "port": port,
        "interface": "asgi",
        "loop": "uvloop",
        "websockets": False,
        "log_level": log_level,
        "log_access": False,
        "workers_kill_timeout": GRACEFUL_SECONDS,
    }


def run(
    server: Server,
    target: str,
    *,
    host: str,
    port: int,
    workers: int,
    log_level: str,
    factory: bool = False,
    app: Any = None,
    health_seconds: int = 5,
) -> None:
    """Serve ``target`` (``module:attribute``; with ``factory``, a function making the app)
    until stopped. ``app``: the app object itself, which uvicorn serves in this process
    when there is one worker (granian always imports ``target`` in its workers).
    ``health_seconds``: how long uvicorn's supervisor lets a worker take to answer its
    health check before it kills and restarts it (with more than one worker)."""
    if server == "granian":
        from granian import Granian

        options = granian_options(host, port, log_level)
        Granian(target, workers=workers, factory=factory, **options).serve()
        return
    import uvicorn

    options = uvicorn_options(host, port, log_level)
    if workers > 1 or app is None:
        uvicorn.run(
            target,
            factory=factory,
            workers=workers,
            timeout_worker_healthcheck=health_seconds,
            **options,
        )
    else:
        uvicorn.run(app, **options)
