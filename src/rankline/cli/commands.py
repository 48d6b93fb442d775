"""The ``rankline`` command: every subcommand registered on the one typer app, in the order
``rankline --help`` lists them."""

from __future__ import annotations

from rankline.cli import about, data, keys, measure, operate, serve
from rankline.cli.shared import RootGroup, app

# The order `rankline --help` lists them in: the server, then the operator's tools, then the
# measurements.
RootGroup.ORDER = [
    "serve",
    "migrate",
    "rebuild",
    "verify",
    "dead-letters",
    "keys",
    "archive",
    "import",
    "export",
    "replay",
    "demo",
    "bench",
    "soak",
    "check-history",
    "settings",
    "openapi",
    "version",
    "ratings",
]
app.command()(serve.serve)
app.command()(data.migrate)
app.command()(operate.rebuild)
app.command()(operate.verify)
app.command("dead-letters")(operate.dead_letters)
app.add_typer(keys.keys_app, name="keys")
app.command()(operate.archive)
app.command("import")(data.import_standings)
app.command("export")(data.export_standings)
app.command()(operate.replay)
app.command()(serve.demo)
app.add_typer(measure.bench_app, name="bench")
app.command()(measure.soak)
app.command("check-history")(measure.check_history)
app.command("settings")(about.show_settings)
app.command()(about.openapi)
app.command()(about.version)
app.add_typer(operate.ratings_app, name="ratings")

__all__ = ["app"]
