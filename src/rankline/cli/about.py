"""``rankline settings`` and ``rankline version``: what this rankline is and how it is set."""

from __future__ import annotations

import os

from rankline import __version__
from rankline.cli.app import console
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
