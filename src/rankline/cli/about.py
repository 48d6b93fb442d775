"""``rankline settings``, ``rankline version`` and ``rankline openapi``: what this rankline
is, how it is set, and the HTTP API it serves."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from rankline import __version__
from rankline.cli.shared import console
from rankline.settings import Settings, documented_settings


def show_settings() -> None:
    """List every setting (environment variable), its current value and what it does."""
    from rankline.store.opening import redacted

    current = Settings()
    for env, help_text in documented_settings().items():
        name = env.removeprefix("RANKLINE_").lower()
        value = getattr(current, name)
        if "keys" in name and value:
            value = "(set)"
        elif name.endswith("_url") and value:
            value = redacted(value)
        shown = os.environ.get(env) is not None or os.environ.get(f"{env}_FILE") is not None
        console.print(f"[bold]{env}[/bold] = {value!s}{'' if shown else '  (default)'}")
        console.print(f"    {help_text}")


def version() -> None:
    """Print the version."""
    print(__version__)


def openapi(
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", dir_okay=False, help="Write it to this file instead of stdout."
        ),
    ] = None,
) -> None:
    """Print the OpenAPI 3.1 document of the HTTP API, the one a server serves at
    /openapi.json, without starting one: generate a client in any language from it."""
    from rankline.http.openapi import build_openapi

    text = json.dumps(build_openapi(), indent=2, ensure_ascii=False) + "\n"
    if output is None:
        print(text, end="")
    else:
        output.write_text(text, encoding="utf-8")
