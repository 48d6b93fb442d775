"""``rankline serve`` and ``rankline demo``: a server, and a server with a game playing on it."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Annotated

import typer

from rankline import __version__
from rankline.cli.shared import (
    console,
    data_dir_held,
    fail,
    needs_extras,
    run_on_stores,
    setup_logging,
)
from rankline.settings import Settings


def serve(
    host: Annotated[
        str | None, typer.Option(help="Interface to listen on (env RANKLINE_HOST).")
    ] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on (env RANKLINE_PORT).")] = None,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            help="Worker processes sharing the port. More than 1 needs RANKLINE_REDIS_URL "
            "and a PostgreSQL or MariaDB RANKLINE_DATABASE_URL.",
        ),
    ] = 1,
    server: Annotated[
        str | None,
        typer.Option(help="HTTP server: granian (the default) or uvicorn (env RANKLINE_SERVER)."),
    ] = None,
    grpc_port: Annotated[
        int | None,
        typer.Option(
            min=0,
            max=65535,
            help="Also serve the gRPC API on this port (env RANKLINE_GRPC_PORT; default off).",
        ),
    ] = None,
) -> None:
    """Run the HTTP server (embedded default: in-process index + SQLite in ./rankline-data),
    and the gRPC API beside it with --grpc-port."""
    from rankline.access.credentials import check_settings
    from rankline.http import server as serving
    from rankline.http.auth import KEY_FILE, ensure_server_key
    from rankline.store.opening import redacted

    if grpc_port is not None:  # the workers read their settings from the environment
        os.environ["RANKLINE_GRPC_PORT"] = str(grpc_port)
        if host:
            os.environ["RANKLINE_HOST"] = host
    settings = Settings()
    chosen = server or settings.server
    if chosen not in serving.SERVERS:
        fail(f"--server must be one of {', '.join(serving.SERVERS)}, not {chosen!r}")
    needs_extras(settings, chosen)
    host = host or settings.host
    port = settings.port if port is None else port
    setup_logging(settings.log_level, settings.log_format)
    try:
        check_settings(settings)
    except ValueError as exc:
        fail(str(exc))
    if workers > 1 and not settings.redis_url:
        fail("--workers above 1 needs a shared index: set RANKLINE_REDIS_URL")
    if workers > 1 and settings.is_embedded:
        fail("--workers above 1 needs PostgreSQL or MariaDB: set RANKLINE_DATABASE_URL")
    with data_dir_held(settings):
        pass  # only a check: the server takes the lock as it starts (in its worker process)
    run_on_stores(settings, _startable(settings))
    if settings.server_key_list:
        key_note = "server keys: from RANKLINE_SERVER_KEYS"
    else:
        try:
            key, created = ensure_server_key(settings.data_dir)
        except OSError as exc:
            fail(f"cannot keep the server key in {settings.data_dir}: {exc}", 1)
        path = settings.data_dir / KEY_FILE
        key_note = (
            f"server key: {key}  (generated now; stored in {path})"
            if created
            else f"server key: stored in {path}"
        )
    index = "memory (in-process)"
    if settings.redis_url:
        cluster = settings.redis_url.startswith("redis+cluster://")
        index = "redis cluster" if cluster else "redis"
    # With JSON logs, the banner is log lines too: stderr stays one JSON object per line.
    note = console.print if settings.log_format == "text" else logging.getLogger(__name__).info
    note(f"rankline {__version__} serving on http://{host}:{port}  (docs: /docs)")
    note(key_note)
    note(f"durable store: {redacted(settings.database)}; ranking index: {index}")
    note(f"HTTP server: {chosen}, {workers} worker(s)")
    if settings.grpc_port is not None:
        note(f"gRPC: {host}:{settings.grpc_port} (rankline.v1.Rankline, health, reflection)")
    app_object = None
    if workers > 1:
        from rankline.metrics import prepare_multiprocess

        prepare_multiprocess(settings.data_dir)
    elif chosen == "uvicorn" and settings.log_format == "text":
        # With JSON logs uvicorn makes the app itself (app_from_env), once it has configured
        # its logging, so that its loggers' lines go through the JSON handler too.
        from rankline.cli.serving import observed_app

        app_object = observed_app(settings)
    serving.run(
        chosen,
        "rankline.cli.serving:app_from_env",
        host=host,
        port=port,
        workers=workers,
        log_level=settings.log_level,
        log_format=settings.log_format,
        factory=True,
        app=app_object,
    )


async def _startable(settings: Settings) -> None:
    """The durable store can be opened and a server database is migrated (the embedded
    SQLite migrates itself when the server starts), and a SQLite store's ingestion log can
    be placed (``embedded_log``): what would stop a server as it starts."""
    from rankline.log.factory import embedded_log
    from rankline.store.opening import check_store

    await check_store(settings)
    if not settings.log_url:
        embedded_log(settings.database, settings.log_name, warn=False)


def demo(
    host: Annotated[str, typer.Option(help="Interface the demo server listens on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port the demo server listens on.")] = 8000,
    data_dir: Annotated[
        Path | None, typer.Option(help="Data directory (default: a temporary one).")
    ] = None,
    players: Annotated[int, typer.Option(min=1, help="Simulated players.")] = 500,
    rate: Annotated[float, typer.Option(min=0.1, help="Matches per second.")] = 50.0,
    duration: Annotated[
        float | None, typer.Option(min=0, help="Seconds to run (default or 0: until Ctrl-C).")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Random seed, for a repeatable game.")] = None,
) -> None:
    """Start a server and a simulated game (players, matches, an arena, an XP board, chess
    players rated on chess-blitz and chess-rapid, and a tournament every 2 minutes with
    cohorts, whose results a local webhook receiver prints) so the page at / moves; stops the
    server on exit or Ctrl-C."""
    from rankline.demo.game import run_demo

    try:
        run_demo(
            host=host,
            port=port,
            data_dir=data_dir,
            players=players,
            rate=rate,
            duration=duration,
            seed=seed,
        )
    except RuntimeError as exc:
        fail(str(exc))
