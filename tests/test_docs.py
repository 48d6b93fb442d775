"""The README documents every setting and every ``rankline`` command."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from helpers_procs import cli_env, serving
from rankline.cli import app
from rankline.settings import documented_settings

README = Path(__file__).resolve().parents[1] / "README.md"


def _readme() -> str:
    assert README.is_file(), f"{README} is missing"
    return README.read_text(encoding="utf-8")


def _commands() -> list[str]:
    commands = list(typer.main.get_command(app).commands)
    assert commands, "no command registered on the rankline command"
    return sorted(commands)


@pytest.mark.parametrize("name", sorted(documented_settings()))
def test_readme_documents_setting(name: str) -> None:
    assert re.search(rf"\b{name}\b", _readme()), f"{name} is not in README.md"


@pytest.mark.parametrize("command", _commands())
def test_readme_documents_command(command: str) -> None:
    assert re.search(rf"\brankline\s+{re.escape(command)}\b", _readme()), (
        f"`rankline {command}` is not in README.md"
    )


# --- the docs speak to users, and the README's examples run -------------------------------

DOCS = [*sorted((README.parent / "docs").glob("*.md")), README]
_INTERNAL = re.compile(
    r"(?-i:\bDESIGN\.md|\bAPI\.md|\bSTYLE\.md)|\bbriefs?\b|\bissues? ?(#|no\.? ?)?\d+|the issue\b|"
    r"issue note|closing note|\bseeds?/",
    re.IGNORECASE,
)


@pytest.mark.parametrize("page", DOCS, ids=lambda p: p.name)
def test_docs_speak_to_users_not_of_internal_documents(page: Path) -> None:
    found = [
        f"{page.name}:{n}: {line.strip()}"
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if _INTERNAL.search(line)
    ]
    assert not found, "\n".join(found)


def _block(after_heading: str, language: str) -> str:
    """The first ``language`` code block of the README after ``after_heading``."""
    text = _readme()
    start = text.index(after_heading)
    match = re.compile(rf"```{language}\n(.*?)```", re.DOTALL).search(text, start)
    assert match, f"no {language} block after {after_heading!r}"
    return match.group(1)


def test_the_readme_first_session_then_python_examples_run(tmp_path: Path) -> None:
    """A newcomer's path: `make run`, the curl session, then the Python client, in that
    order, against a fresh embedded server whose key it generated."""
    shell = _block("## A first session", "sh")
    python = _block("### Python", "python")
    with serving(tmp_path / "rankline-data", tmp_path / "server.log") as server:
        here = f"localhost:{server.port}"
        session = "set -e\n" + shell.replace("curl ", "curl -sS --fail-with-body ")
        session = session.replace("localhost:8000", here)
        done = subprocess.run(
            ["bash", "-c", session], cwd=tmp_path, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert '"player_id":"p:42"' in done.stdout
        script = python.replace("http://127.0.0.1:8000", server.url)
        done = subprocess.run(
            [sys.executable, "-c", script],
            cwd=tmp_path,
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr + server.output()
        assert done.stdout.splitlines()[0] == "2500"
        assert "'player_id': 'p:42'" in done.stdout
