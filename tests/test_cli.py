"""What an operator sees from ``rankline``: one line naming the cause when a store cannot be
used, and help texts that read as written."""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import subprocess
import sys
import uuid
from itertools import pairwise
from pathlib import Path

import pytest

from helpers_chaos import pg_database
from helpers_procs import HOST, cli_env, free_port, run_cli

STORE_COMMANDS = ["migrate", "rebuild", "verify", "archive", "replay", "serve"]


def _env(tmp_path: Path, database_url: str, redis_url: str) -> dict[str, str]:
    env = cli_env(tmp_path / "data", database_url=database_url, redis_url=redis_url)
    env["RANKLINE_PORT"] = str(free_port())
    env["COLUMNS"] = "80"  # one line means one line, not one line cut to the terminal
    return env


def _one_line_error(done: subprocess.CompletedProcess[str], *causes: str) -> str:
    stdout, stderr = done.stdout, done.stderr
    output = stdout + stderr
    assert done.returncode == 1, output
    assert "Traceback" not in output, output
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and stdout.strip() == "", output
    assert lines[0].startswith("error: "), output
    assert any(cause in lines[0] for cause in causes), output
    return lines[0]


@pytest.mark.parametrize("command", STORE_COMMANDS)
def test_a_database_that_does_not_exist_is_one_line(tmp_path: Path, command: str) -> None:
    missing = f"rl_missing_{uuid.uuid4().hex[:12]}"
    url = f"postgresql+asyncpg://postgres@{HOST}:5432/{missing}"
    done = run_cli(command, env=_env(tmp_path, url, f"redis://{HOST}:{free_port()}/0"))
    line = _one_line_error(done, f'database "{missing}" does not exist')
    assert "durable store" in line


@pytest.mark.parametrize("command", STORE_COMMANDS)
def test_an_unreachable_database_is_one_line(tmp_path: Path, command: str) -> None:
    url = f"postgresql+asyncpg://postgres@{HOST}:{free_port()}/rankline"
    done = run_cli(command, env=_env(tmp_path, url, f"redis://{HOST}:{free_port()}/0"))
    line = _one_line_error(done, "Connect call failed", "Connection refused")
    assert "durable store" in line


@pytest.mark.parametrize("command", ["migrate", "archive", "replay", "serve"])
def test_an_embedded_store_that_cannot_be_created_is_one_line(tmp_path: Path, command: str) -> None:
    (tmp_path / "taken").write_text("a file, where the data directory should go")
    env = cli_env(tmp_path / "taken" / "data")
    env["RANKLINE_PORT"] = str(free_port())
    line = _one_line_error(run_cli(command, env=env), "Not a directory", "File exists")
    assert "durable store" in line


def test_a_store_whose_log_records_would_be_left_unapplied_is_one_line(tmp_path: Path) -> None:
    """The embedded log lives in rankline-log.db; a store that holds unapplied records of
    its own log beside that file (a downgrade and upgrade, say) stops ``serve`` before it
    starts, in one line: those records would never be applied."""
    env = cli_env(tmp_path / "data")
    env["RANKLINE_PORT"] = str(free_port())
    assert run_cli("migrate", env=env).returncode == 0
    store = sqlite3.connect(tmp_path / "data" / "rankline.db")
    with contextlib.closing(store):
        store.execute(
            "INSERT INTO rl_log_partitions (log_name, part, next_seq, committed, owner, "
            "lease_until, epoch) VALUES ('rankline', 0, 4, 1, NULL, 0, 0)"
        )
        store.commit()
    sqlite3.connect(tmp_path / "data" / "rankline-log.db").close()
    line = _one_line_error(run_cli("serve", env=env), "would never be applied")
    assert "2 record(s)" in line


@pytest.mark.parametrize("command", ["rebuild", "verify"])
def test_an_unreachable_index_is_one_line(tmp_path: Path, command: str) -> None:
    """The embedded SQLite is there and migrated; the Redis index is not reachable."""
    env = cli_env(tmp_path / "data", redis_url=f"redis://:secret@{HOST}:{free_port()}/0")
    migrated = run_cli("migrate", env=env)
    assert migrated.returncode == 0, migrated.stderr
    line = _one_line_error(run_cli(command, env=env), "Connect call failed", "refused")
    assert "ranking index" in line and "secret" not in line


@pytest.mark.parametrize("command", ["rebuild", "verify", "archive", "replay"])
def test_an_unmigrated_database_asks_for_migrate(tmp_path: Path, command: str) -> None:
    with pg_database("rl_cli_unmigrated") as url:
        done = run_cli(command, env=_env(tmp_path, url, f"redis://{HOST}:{free_port()}/0"))
    assert re.search(r"run `rankline migrate`", _one_line_error(done, "rankline migrate"))


# --- help --------------------------------------------------------------------------

HELP_WIDTHS = [80, 120]


def _commands() -> list[str]:
    import typer.main

    from rankline.cli import app

    root = typer.main.get_command(app)
    commands = sorted(root.commands)  # type: ignore[attr-defined]
    probes = root.commands["bench"].commands["probe"].commands  # type: ignore[attr-defined]
    return [*commands, "bench probe", *(f"bench probe {name}" for name in sorted(probes))]


def _cut_short(help_text: str, width: int) -> list[str]:
    """Lines a greedy wrap would not have ended where they end: the next line continues
    the same description, and its first word would have fitted. (Rich wraps greedily, so
    such a line broke where the source's docstring did, mid-sentence.)"""
    blocks: list[list[str]] = [[], []]  # the prose above the panels, the panels' rows
    for line in help_text.splitlines():
        if line.startswith("│") and line.rstrip().endswith("│"):
            blocks[1].append(line.rstrip()[1:-1])
        elif line.startswith(("╭", "╰")):
            blocks[1].append("")
        else:
            blocks[0].append(line)
    broken: list[str] = []
    for in_panel, lines in enumerate(blocks):
        limit = width - 3 if in_panel else width - 1  # borders and padding
        for line, after in pairwise(lines):
            text, following = line.rstrip(), after.strip()
            # In a panel, a row's first column is empty where its description goes on.
            continues = bool(text.strip()) and bool(following)
            if in_panel:
                continues = continues and after[1:2].isspace()
            if not continues or following.startswith("["):  # [default: …] goes on its own line
                continue
            if len(text) + 1 + len(following.split()[0]) <= limit:
                broken.append(f"{text.strip()!r} / {following!r}")
    return broken


def _help(command: str, width: int) -> str:
    """What ``rankline COMMAND --help`` prints in a terminal ``width`` columns wide, rendered
    in this process (typer's runner; rich reads the width from COLUMNS)."""
    from typer.testing import CliRunner

    from rankline.cli import app

    done = CliRunner().invoke(
        app, [*command.split(), "--help"], env={"COLUMNS": str(width)}, prog_name="rankline"
    )
    assert done.exit_code == 0, done.output
    return done.output


@pytest.mark.parametrize("width", HELP_WIDTHS)
@pytest.mark.parametrize("command", ["", *_commands()])
def test_help_reads_as_written(command: str, width: int) -> None:
    help_text = _help(command, width)
    assert "--help" in help_text
    assert "<bool>" not in help_text, help_text  # flags take no value
    assert _cut_short(help_text, width) == [], help_text


def test_the_command_prints_the_help_rendered_in_process() -> None:
    """The helps above are rendered in process: the command itself prints the same."""
    env = cli_env()
    env["COLUMNS"] = "100"
    done = run_cli("bench", "probe", "--help", env=env)
    assert done.returncode == 0, done.stderr
    printed = done.stdout.replace("Usage: python -m rankline", "Usage: rankline")
    rendered = _help("bench probe", 100)
    assert [line.rstrip() for line in printed.splitlines()] == [
        line.rstrip() for line in rendered.splitlines()
    ]


def test_openapi_prints_the_document_the_server_serves(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from rankline.cli import app
    from rankline.http.openapi import build_openapi

    printed = run_cli("openapi")
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout) == build_openapi()
    written = CliRunner().invoke(app, ["openapi", "--output", str(tmp_path / "openapi.json")])
    assert written.exit_code == 0, written.output
    assert (tmp_path / "openapi.json").read_text(encoding="utf-8") == printed.stdout


def test_a_worker_imports_the_composition_root_without_the_command_line() -> None:
    """A server's worker builds its app from ``rankline.cli.serving`` (``app_from_env``); the
    command line's libraries (typer, rich) and commands are not imported with it."""
    code = (
        "import sys, rankline.cli.serving; "
        "print(sorted(m for m in ('typer', 'rich', 'rankline.cli.commands') if m in sys.modules))"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert found.stdout.strip() == "[]", found.stdout + found.stderr
