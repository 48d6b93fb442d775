"""The distributions as a studio gets them: each wheel built with ``python -m build`` holds
its licence and only its own package (the service's holds no benchmark), its long
description reads on a package index, and the wheels installed into fresh virtual
environments serve (scripts/wheel-test.py, on this Python; nox runs it on each version)."""

from __future__ import annotations

import email
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers_procs import REPO

DISTRIBUTIONS = {
    "rankline": (".", "rankline"),
    "rankline_client": ("clients/python", "rankline_client"),
    "rankline_bench": ("bench", "rankline_bench"),
}
"""Each wheel's name, the directory it is built from, and the one package it ships."""


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("dist")
    for where, _ in DISTRIBUTIONS.values():
        subprocess.run(
            [sys.executable, "-m", "build", "--outdir", str(out), str(REPO / where)],
            check=True,
            capture_output=True,
            timeout=900,
        )
    yield out


def _wheel(dist: Path, name: str) -> zipfile.ZipFile:
    (path,) = dist.glob(f"{name}-*-py3-none-any.whl")
    return zipfile.ZipFile(path)


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_each_wheel_ships_its_package_its_licence_and_nothing_else(dist: Path, name: str) -> None:
    with _wheel(dist, name) as wheel:
        files = wheel.namelist()
        metadata = email.message_from_bytes(
            wheel.read(next(f for f in files if f.endswith(".dist-info/METADATA")))
        )
    package = DISTRIBUTIONS[name][1]
    tops = {f.split("/")[0] for f in files if not f.split("/")[0].endswith(".dist-info")}
    assert tops == {package}
    assert f"{package}/py.typed" in files
    licences = {f.rsplit("/", 1)[1] for f in files if ".dist-info/licenses/" in f}
    assert licences == {"LICENSE", "NOTICE"}
    assert metadata["License-Expression"] == "Apache-2.0"
    assert not any(f.startswith(("bench/", f"{package}/bench/")) for f in files)
    assert not any("/tests/" in f or f.startswith("tests/") for f in files)


def test_the_licence_and_notice_are_the_same_in_every_distribution() -> None:
    for where in ("clients/python", "bench"):
        for name in ("LICENSE", "NOTICE"):
            assert (REPO / where / name).read_bytes() == (REPO / name).read_bytes()


def test_the_long_description_has_no_link_or_image_that_resolves_only_in_the_repository(
    dist: Path,
) -> None:
    with _wheel(dist, "rankline") as wheel:
        raw = wheel.read("rankline-0.1.0.dist-info/METADATA")
    metadata = email.message_from_bytes(raw)
    assert metadata["Description-Content-Type"] == "text/markdown"
    body = metadata.get_payload()
    assert isinstance(body, str) and body.startswith("# rankline")
    targets = re.findall(r"\]\(([^)]+)\)", body)
    assert targets, "the README links to its docs"
    relative = [t for t in targets if not t.startswith(("https://", "http://", "#"))]
    assert relative == []
    assert "![" not in body
    urls = {v.split(", ", 1)[0] for k, v in metadata.items() if k == "Project-URL"}
    assert {"Homepage", "Source", "Changelog", "Documentation"} <= urls


@pytest.mark.services  # the script reaches PostgreSQL and Redis itself
def test_the_wheels_install_and_serve_in_fresh_environments(dist: Path) -> None:
    """scripts/wheel-test.py on this Python: the core serves the README's first session on
    the embedded default and stops in one line on a Redis URL; the client alone installs
    httpx and its needs only and calls the server; rankline[redis,postgres] serves on Redis
    + PostgreSQL."""
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "wheel-test.py"), "--dist", str(dist)],
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("passed"), done.stdout
