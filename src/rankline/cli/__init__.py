"""The ``rankline`` command line: serve, migrate and the operator's tools.

Each command parses its options, calls one function of the feature it concerns, and renders
what it returns; ``cli.shared`` holds what they share (one line per failure, the data
directory's lock), ``cli.commands`` registers them. The package imports them only when the
command line is used (``main``, ``app``): a server's worker process imports the composition
root (``cli.serving``) alone, without typer and rich."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankline.cli.commands import app


def main() -> None:
    from rankline.cli.commands import app

    app()


def __getattr__(name: str) -> Any:
    if name == "app":
        from rankline.cli import commands

        return commands.app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["app", "main"]
