"""rankline on every Python it supports: the fast lane of the tests and the wheel test, on
Python 3.11, 3.12 and 3.13 (the classifiers of pyproject.toml name the same versions).

    nox                          # every session (`nox -l` lists them)
    nox -s test-fast-3.13        # the fast lane (`make test-fast`) on Python 3.13
    nox -s wheels                # scripts/wheel-test.py on each version
    nox -s test-fast-3.12 -- tests/test_boards.py   # pytest arguments after --

Each version is looked up on the PATH as python3.X; where pyenv is installed, its newest
3.X comes first (pyenv's shims answer only for the versions it has made active).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import nox

PYTHONS = ["3.11", "3.12", "3.13"]

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.needs_version = ">=2025.2"


def _pyenv_interpreters() -> None:
    """Put pyenv's newest 3.X of each version on the PATH, before its shims."""
    pyenv = shutil.which("pyenv")
    if pyenv is None:
        return
    root = Path(subprocess.run([pyenv, "root"], capture_output=True, text=True).stdout.strip())
    found: list[str] = []
    for version in PYTHONS:
        named = [p for p in (root / "versions").glob(f"{version}.*") if p.name[-1].isdigit()]
        newest = max(named, key=lambda p: [int(n) for n in p.name.split(".")], default=None)
        if newest is not None and (newest / "bin" / f"python{version}").exists():
            found.append(str(newest / "bin"))
    os.environ["PATH"] = os.pathsep.join([*found, os.environ.get("PATH", "")])


_pyenv_interpreters()

DEV = ("-e", "./clients/python", "-e", "./bench", "-e", ".[dev]")


@nox.session(name="test-fast", python=PYTHONS)
def test_fast(session: nox.Session) -> None:
    """`make test-fast` on this Python: the pure and in-process tests on the embedded
    default, on three workers."""
    session.install("--upgrade", "pip>=24")  # as `make install-dev` does (the Makefile says why)
    session.install(*DEV)
    session.run(
        "pytest",
        "-n",
        os.environ.get("WORKERS", "3"),
        "--dist",
        "loadgroup",
        "-m",
        "not services and not slow",
        *session.posargs,
        env={"RANKLINE_TEST_BACKENDS": "memory-sqlite", "PYTHONDONTWRITEBYTECODE": ""},
    )


@nox.session(python=PYTHONS)
def wheels(session: nox.Session) -> None:
    """Build every distribution, then install and use the wheels in fresh virtual
    environments on this Python (scripts/wheel-test.py): the core on the embedded default,
    the client alone, rankline[redis,postgres]."""
    session.install("build>=1.2,<2")
    dist = Path(session.create_tmp()) / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    for where in (".", "clients/python", "bench"):
        session.run("python", "-m", "build", "--outdir", str(dist), where, silent=True)
    session.run("python", "scripts/wheel-test.py", "--dist", str(dist))
