"""Serving an ASGI app: the server software and its options, in one place.

``rankline serve`` and the benchmark's ceiling (``rankline_bench.ceiling``) both run through
``run``, so the ceiling is served by the same software with the same options, whichever is
chosen (``RANKLINE_SERVER``):

- ``granian`` (the default): a Rust HTTP server driving the same ASGI app on uvloop. Its
  I/O runs on a thread of its own and every worker is a process of its own, also with one
  worker (the calling process only supervises: it passes SIGTERM on, starts a worker again
  if one dies, and takes its workers with it if it is killed). Faster on reads than
  uvicorn (docs/performance.md).
- ``uvicorn``: uvloop and httptools, no access log. One worker runs in the calling
  process; more are processes of its own.

Both trust ``X-Forwarded-For`` from ``FORWARDED_ALLOW_IPS`` (uvicorn's variable; default
127.0.0.1), give requests in flight ``GRACEFUL_SECONDS`` to finish when stopped, and, with
JSON logs, log their own lines as JSON objects too.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import pkgutil
import signal
import sys
from functools import partial
from typing import Any, Literal

from rankline.settings import Settings

Server = Literal["uvicorn", "granian"]
LogFormat = Literal["text", "json"]
SERVERS: tuple[Server, ...] = ("uvicorn", "granian")
DEFAULT_SERVER: Server = Settings.model_fields["server"].default
"""The server of ``rankline serve`` when none is chosen: the benchmark's servers follow it."""
GRACEFUL_SECONDS = 10
"""How long a stopping server waits for requests in flight (and the app's shutdown)."""
WORKER_STOP_SECONDS = 25
"""How long granian lets a stopping worker take before it kills it: the requests in flight
and then the app's shutdown (finishing queued writes, releasing the log's partitions,
closing connections), which uvicorn never cuts short. Under the 30 s that the deploy
manifests give a stopping container (compose's ``stop_grace_period``, Kubernetes'
``terminationGracePeriodSeconds``)."""


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


def granian_options(
    host: str, port: int, log_level: str, log_format: LogFormat = "text"
) -> dict[str, Any]:
    """The keyword arguments given to ``granian.Granian`` besides the target, the workers
    and ``factory``. With JSON logs, granian's own lines (its supervisor's too, which
    never runs the app) are JSON objects on stderr like rankline's."""
    logging = {"log_dictconfig": _GRANIAN_JSON_LOGGING} if log_format == "json" else {}
    return {
        "address": host,
        "port": port,
        "interface": "asgi",
        "loop": "uvloop",
        "websockets": False,
        "log_level": log_level,
        "log_access": False,
        "workers_kill_timeout": WORKER_STOP_SECONDS,
        # as uvicorn's supervisor does; a worker that dies twice within a few seconds
        # stops the server instead
        "respawn_failed_workers": True,
        **logging,
    }


_GRANIAN_JSON_LOGGING = {
    "formatters": {"json": {"()": "rankline.observability.logs.JsonFormatter"}},
    "filters": {"redacting": {"()": "rankline.observability.logs.Redacting"}},
    "handlers": {
        "json": {
            "class": "logging.StreamHandler",
            "formatter": "json",
            "filters": ["redacting"],
            "stream": "ext://sys.stderr",
        }
    },
    "loggers": {
        name: {"handlers": ["json"], "level": "INFO", "propagate": False}
        for name in ("_granian", "granian.access")
    },
}


def run(
    server: Server,
    target: str,
    *,
    host: str,
    port: int,
    workers: int,
    log_level: str,
    log_format: LogFormat = "text",
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

        options = granian_options(host, port, log_level, log_format)
        # Granian starts its workers as multiprocessing does by default: on Linux, a fork
        # of this process, which has built what the workers must build anew (the metrics,
        # set up before PROMETHEUS_MULTIPROC_DIR was). Spawned, they start clean, as
        # uvicorn's do.
        multiprocessing.set_start_method("spawn", force=True)
        granian = Granian(target, workers=workers, factory=factory, **options)
        granian.serve(target_loader=partial(_granian_worker_app, factory=factory))
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


_PR_SET_PDEATHSIG = 1
_TRUSTED = "FORWARDED_ALLOW_IPS"


def _granian_worker_app(target: str, *, factory: bool) -> Any:
    """What a granian worker serves: ``target`` loaded as granian loads it, once the worker
    is bound to its supervisor's life, behind ``X-Forwarded-For`` from the addresses that
    uvicorn trusts (``FORWARDED_ALLOW_IPS``, default 127.0.0.1), as uvicorn does."""
    from granian.utils.proxies import wrap_asgi_with_proxy_headers

    _die_with_supervisor()
    loaded = pkgutil.resolve_name(target)
    app = loaded() if factory else loaded
    return wrap_asgi_with_proxy_headers(app, os.environ.get(_TRUSTED, "127.0.0.1"))


def _die_with_supervisor() -> None:
    """Nothing tells granian's workers that their supervisor was killed (SIGKILL): they
    would go on serving, holding the port and the data directory, and the server started
    again could not take them. On Linux the kernel kills the worker with its supervisor
    (PR_SET_PDEATHSIG), so a killed server dies whole, as a uvicorn process does."""
    parent = multiprocessing.parent_process()
    if sys.platform != "linux" or parent is None:
        return
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent.pid:  # the supervisor died before the line above
        os.kill(os.getpid(), signal.SIGKILL)
