"""The files that deploy rankline: the dependency lock the image installs, settings read from
secret files, the compose files (by the compose specification's schema) and the Kubernetes
objects (by Kubernetes' schemas)."""

from __future__ import annotations

import os
import re
import tomllib
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from pydantic_settings import SettingsError
from sqlalchemy.engine import make_url

from procs import REPO, cli_env, run_cli
from rankline.settings import Settings

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


# --- settings from secret files ----------------------------------------------------------


def _clean_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in os.environ if n.startswith("RANKLINE_")]:
        monkeypatch.delenv(name)


def test_any_setting_can_come_from_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _clean_settings(monkeypatch)
    keys = tmp_path / "server_keys"
    keys.write_text("rk_one,rk_two:arena-*\n", encoding="utf-8")
    port = tmp_path / "port"
    port.write_text("9001\n", encoding="utf-8")
    monkeypatch.setenv("RANKLINE_SERVER_KEYS_FILE", str(keys))
    monkeypatch.setenv("RANKLINE_PORT_FILE", str(port))
    monkeypatch.setenv("RANKLINE_HOST", "0.0.0.0")
    settings = Settings()
    assert settings.server_key_list == ["rk_one", "rk_two:arena-*"]
    assert settings.port == 9001
    assert settings.host == "0.0.0.0"


def test_the_database_password_from_a_file_goes_into_the_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _clean_settings(monkeypatch)
    secret = tmp_path / "db_password"
    secret.write_text("s3cr@t/pw\n", encoding="utf-8")
    monkeypatch.setenv("RANKLINE_DATABASE_URL", "postgresql+asyncpg://rankline:old@db:5432/rl")
    monkeypatch.setenv("RANKLINE_DATABASE_PASSWORD_FILE", str(secret))
    url = make_url(Settings().database)
    assert (url.username, url.password, url.host, url.database) == (
        "rankline",
        "s3cr@t/pw",
        "db",
        "rl",
    )
    assert "s3cr@t" not in repr(Settings())


def test_a_setting_given_twice_or_an_unreadable_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _clean_settings(monkeypatch)
    keys = tmp_path / "server_keys"
    keys.write_text("rk_one", encoding="utf-8")
    monkeypatch.setenv("RANKLINE_SERVER_KEYS_FILE", str(keys))
    monkeypatch.setenv("RANKLINE_SERVER_KEYS", "rk_other")
    with pytest.raises(SettingsError, match="RANKLINE_SERVER_KEYS or RANKLINE_SERVER_KEYS_FILE"):
        Settings()
    monkeypatch.delenv("RANKLINE_SERVER_KEYS")
    monkeypatch.setenv("RANKLINE_SERVER_KEYS_FILE", str(tmp_path / "missing"))
    with pytest.raises(SettingsError, match="cannot read"):
        Settings()


def test_rankline_settings_shows_a_setting_from_a_file_masked(tmp_path: Path) -> None:
    secret = tmp_path / "db_password"
    secret.write_text("hunter2\n", encoding="utf-8")
    env = cli_env(tmp_path / "data", DATABASE_PASSWORD_FILE=str(secret))
    done = run_cli("settings", env=env)
    assert done.returncode == 0, done.stderr
    listing = done.stderr  # the console's
    line = next(
        line for line in listing.splitlines() if line.startswith("RANKLINE_DATABASE_PASSWORD ")
    )
    assert "hunter2" not in listing + done.stdout
    assert "(default)" not in line and "*" in line
