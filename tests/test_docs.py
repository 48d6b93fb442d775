"""The README documents every setting and every ``rankline`` command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer.main

from rankline.cli import app
from rankline.settings import documented_settings

README = Path(__file__).resolve().parents[1] / "README.md"


def _readme() -> str:
    assert README.is_file(), f"{README} is missing"
    return README.read_text(encoding="utf-8")


def _commands() -> list[str]:
    commands = list(typer.main.get_command(app).commands)
    assert commands, "no command registered on rankline.cli.app"
    return sorted(commands)


@pytest.mark.parametrize("name", sorted(documented_settings()))
def test_readme_documents_setting(name: str) -> None:
    assert re.search(rf"\b{name}\b", _readme()), f"{name} is not in README.md"


@pytest.mark.parametrize("command", _commands())
def test_readme_documents_command(command: str) -> None:
    assert re.search(rf"\brankline\s+{re.escape(command)}\b", _readme()), (
        f"`rankline {command}` is not in README.md"
    )
