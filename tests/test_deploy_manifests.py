"""The files that deploy rankline: the dependency lock the image installs, the compose files
(by the compose specification's schema) and the Kubernetes objects (by Kubernetes' schemas)."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import PackageNotFoundError, distribution

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from procs import REPO

LOCK = REPO / "requirements.lock"

# --- requirements.lock -------------------------------------------------------------------


def _pins() -> dict[str, str]:
    text = LOCK.read_text(encoding="utf-8")
    pins = dict(re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", text, re.MULTILINE))
    assert pins, f"{LOCK} pins nothing"
    return {canonicalize_name(name): version for name, version in pins.items()}


def _dependencies() -> list[Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(line) for line in project["dependencies"]]


def _closure(requirements: list[Requirement], *, markers: bool = True) -> set[str]:
    """The names of every distribution ``requirements`` pull in on this Python, with their
    extras (read from the installed distributions' metadata); with ``markers=False``, on any
    Python and with every extra."""
    seen: set[tuple[str, frozenset[str]]] = set()
    names: set[str] = set()
    pending = [(r, frozenset[str]()) for r in requirements]
    while pending:
        requirement, parent_extras = pending.pop()
        environments = [{"extra": e} for e in parent_extras] or [{"extra": ""}]
        marker = requirement.marker
        if markers and marker and not any(marker.evaluate(env) for env in environments):
            continue
        name = canonicalize_name(requirement.name)
        key = (name, frozenset(requirement.extras))
        if key in seen:
            continue
        seen.add(key)
        names.add(name)
        try:
            requires = distribution(name).requires or []
        except PackageNotFoundError:
            continue  # not installed here: the name check below still names it
        pending += [(Requirement(line), key[1]) for line in requires]
    return names


def test_the_lock_pins_every_dependency_within_pyprojects_ranges() -> None:
    pins = _pins()
    for requirement in _dependencies():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is not in requirements.lock: run `make lock`"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"requirements.lock pins {name}=={pins[name]}, outside pyproject's "
            f"{requirement.specifier}: run `make lock`"
        )


def test_the_lock_holds_exactly_the_dependencies_closure_with_hashes() -> None:
    pins = set(_pins())
    needed = _closure(_dependencies())
    assert needed - pins == set(), "missing from requirements.lock: run `make lock`"
    wanted = _closure(_dependencies(), markers=False)  # on the lock's Python, maybe another
    assert pins - wanted == set(), "no longer needed by pyproject.toml: run `make lock`"
    blocks = re.split(r"^(?=[A-Za-z0-9])", LOCK.read_text(encoding="utf-8"), flags=re.MULTILINE)
    unhashed = [b.split("==")[0] for b in blocks if "==" in b and "--hash=sha256:" not in b]
    assert unhashed == [], "pins without hashes (the image installs with --require-hashes)"
