"""The ``rankline`` command line: serve, migrate and the operator's tools."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Annotated

import typer
from rich.console import Console

from rankline import __version__
from rankline.settings import Settings, documented_settings

console = Console(stderr=True, soft_wrap=True)
app = typer.Typer(
    name="rankline",
    help="rankline: real-time leaderboards for games.\n\n"
    "Every setting is an environment variable; run `rankline settings` to list them.",
    no_args_is_help=True,
    add_completion=False,
)


def _setup_logging(level: str) -> None:
    logging.basicConfig(
        level=level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )


@app.command()
def serve(
    host: Annotated[
        str | None, typer.Option(help="Interface to listen on [env RANKLINE_HOST].")
    ] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on [env RANKLINE_PORT].")] = None,
) -> None:
    """Run the HTTP server (embedded default: in-process index + SQLite in ./rankline-data)."""
    import uvicorn

    from rankline.http import create_app
    from rankline.http.auth import KEY_FILE, ensure_server_key

    settings = Settings()
    host = host or settings.host
    port = settings.port if port is None else port
    _setup_logging(settings.log_level)
    if settings.server_key_list:
        key_note = "server keys: from RANKLINE_SERVER_KEYS"
    else:
        key, created = ensure_server_key(settings.data_dir)
        path = settings.data_dir / KEY_FILE
        key_note = (
            f"server key: {key}  (generated now; stored in {path})"
            if created
            else f"server key: stored in {path}"
        )
    console.print(f"rankline {__version__} serving on http://{host}:{port}  (docs: /docs)")
    console.print(key_note)
    console.print(f"durable store: {_redact(settings.database)}; ranking index: memory")
    uvicorn.run(
        create_app(settings),
        host=host,
        port=port,
        loop="uvloop",
        http="httptools",
        log_level=settings.log_level,
        access_log=False,
        timeout_graceful_shutdown=10,
    )


@app.command()
def migrate() -> None:
    """Create or upgrade the durable store's schema to the current revision."""
    from rankline.store import migrate as migrations
    from rankline.store.sql import SqlStore

    settings = Settings()

    async def run() -> str | None:
        store = SqlStore(settings.database)
        try:
            await migrations.upgrade(store.engine)
            return await migrations.current_revision(store.engine)
        finally:
            await store.close()

    revision = asyncio.run(run())
    console.print(f"{_redact(settings.database)} is at revision {revision}")


@app.command("settings")
def show_settings() -> None:
    """List every setting (environment variable), its current value and what it does."""
    current = Settings()
    for env, help_text in documented_settings().items():
        name = env.removeprefix("RANKLINE_").lower()
        value = getattr(current, name)
        if "keys" in name and value:
            value = "(set)"
        elif name == "database_url" and value:
            value = _redact(value)
        shown = os.environ.get(env) is not None
        console.print(f"[bold]{env}[/bold] = {value!s}{'' if shown else '  (default)'}")
        console.print(f"    {help_text}")


@app.command()
def version() -> None:
    """Print the version."""
    print(__version__)


def _redact(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def main() -> None:
    app()
