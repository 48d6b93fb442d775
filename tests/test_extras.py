"""The core and its extras: every module of the core imports with no extra installed, the
embedded default serves with none, and a setting (or a command) that needs a missing extra
stops at start with one line naming the extra to install.

An extra is "missing" here because a ``sitecustomize`` put first on the subprocess's path
refuses to import its top-level modules (``BLOCK_IMPORTS``), in that process and in every
process it starts (granian's workers); the wheel test (test_wheels.py) does it for real in a
virtual environment with only the core installed."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import httpx
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from helpers_procs import REPO, Server, cli_env
from rankline.cli import extras

BLOCKER = '''
import os, sys

BLOCKED = frozenset(filter(None, os.environ.get("BLOCK_IMPORTS", "").split(",")))


class Refuse:
    """Refuses the blocked top-level packages, as if they were not installed."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)
        return None


sys.meta_path.insert(0, Refuse())
'''

EVERY_EXTRA = sorted({m.partition(".")[0] for mods in extras.EXTRAS.values() for m in mods})
"""The top-level packages of every extra: blocked, nothing but the core is left."""
EXTRAS_OF = {extra: {m.partition(".")[0] for m in mods} for extra, mods in extras.EXTRAS.items()}
"""The top-level packages of each extra."""

EXTRA_PARTS = {
    "rankline.grpc": "grpc",
    "rankline.index.redis": "redis",
    "rankline.reading.redis_feed": "redis",
    "rankline.log.nats": "nats",
    "rankline.log.kafka": "kafka",
    "rankline.access.tokens": "tokens",
    "rankline.access.keysets": "tokens",
}
"""rankline's own modules that use an extra: imported only once a setting asks for them."""

IMPORT_ALL = """
import importlib, pkgutil, rankline
for found in pkgutil.walk_packages(rankline.__path__, "rankline."):
    if found.name.endswith("__main__"):
        continue
    try:
        importlib.import_module(found.name)
    except ImportError as exc:
        print("failed", found.name, exc.name)
    else:
        print("imported", found.name)
"""


def _blocked_env(tmp_path: Path, env: dict[str, str], blocked: list[str]) -> dict[str, str]:
    site = tmp_path / "blocker"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    env = dict(env)
    env["PYTHONPATH"] = f"{site}:{env['PYTHONPATH']}"
    env["BLOCK_IMPORTS"] = ",".join(blocked)
    return env


def _in_extra(module: str) -> bool:
    return any(module == part or module.startswith(part + ".") for part in EXTRA_PARTS)


def test_every_core_module_imports_with_every_extra_refused(tmp_path: Path) -> None:
    env = _blocked_env(tmp_path, cli_env(), EVERY_EXTRA)
    refused = subprocess.run(
        [sys.executable, "-c", "import redis"], env=env, capture_output=True, text=True
    )
    assert refused.returncode == 1 and "blocked" in refused.stderr  # the blocker works
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    lines = [line.split() for line in done.stdout.splitlines()]
    imported = [line[1] for line in lines if line[0] == "imported"]
    failed = {line[1]: line[2] for line in lines if line[0] == "failed"}
    assert len(imported) > 100, done.stdout
    assert {"rankline.cli.serve", "rankline.http.app", "rankline.service"} <= set(imported)
    core_failures = {m: by for m, by in failed.items() if not _in_extra(m)}
    assert core_failures == {}, "core modules that import an extra's package"
    # each extra part fails on its own extra's packages, never on another's
    for module, blocked in failed.items():
        extra = next(EXTRA_PARTS[p] for p in EXTRA_PARTS if module.startswith(p))
        assert blocked.partition(".")[0] in {m.partition(".")[0] for m in extras.EXTRAS[extra]}


def test_the_embedded_default_serves_with_every_extra_refused(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    server = Server(data_dir, tmp_path / "server.log")
    server.env = _blocked_env(tmp_path, server.env, EVERY_EXTRA)
    try:
        server.start()
        server.wait_ready()
        key = (data_dir / "server-key").read_text(encoding="utf-8").strip()
        auth = {"Authorization": f"Bearer {key}"}
        with httpx.Client(base_url=server.url, timeout=10) as client:
            put = client.put("/v1/boards/arena", json={"windows": ["all_time"]}, headers=auth)
            assert put.status_code in (200, 201), put.text
            score = {"player_id": "p:1", "score": 4500, "match_id": "m:1"}
            posted = client.post("/v1/boards/arena/scores", json=score, headers=auth)
            assert posted.status_code in (200, 201), posted.text
            top = client.get("/v1/boards/arena/top").json()
        assert [(e["player_id"], e["score"]) for e in top["entries"]] == [("p:1", 4500)]
    finally:
        server.stop()
    assert "blocked" not in server.output(), server.output()


OPENSKILL_LINE = (
    "rating.system openskill needs the openskill extra: pip install 'rankline[openskill]'"
)


def test_an_openskill_board_without_the_openskill_extra_is_refused_by_name(tmp_path: Path) -> None:
    """Created with the extra, then served without it: a new such board is a 422 naming the
    extra, the stored one keeps its reads and refuses match results (503), Elo still rates."""
    data_dir = tmp_path / "data"
    skill = {"policy": "rating", "rating": {"system": "openskill", "provisional_sigma": 100}}
    match = {
        "match_id": "m:1",
        "results": [{"player_id": "a", "place": 1}, {"player_id": "b", "place": 2}],
    }
    with_extra = Server(data_dir, tmp_path / "with.log")
    try:
        with_extra.start()
        with_extra.wait_ready()
        auth = {"Authorization": f"Bearer {(data_dir / 'server-key').read_text().strip()}"}
        with httpx.Client(base_url=with_extra.url, timeout=10) as client:
            assert client.put("/v1/boards/skill", json=skill, headers=auth).status_code == 201
            assert (
                client.post("/v1/boards/skill/matches", json=match, headers=auth).status_code == 200
            )
    finally:
        with_extra.stop()
    without = Server(data_dir, tmp_path / "without.log")
    without.env = _blocked_env(tmp_path, without.env, ["openskill"])
    try:
        without.start()
        without.wait_ready()
        with httpx.Client(base_url=without.url, timeout=10) as client:
            created = client.put("/v1/boards/skill2", json=skill, headers=auth)
            assert created.status_code == 422, created.text
            assert created.json()["errors"] == [
                {"loc": ["body", "rating", "system"], "msg": OPENSKILL_LINE}
            ]
            top = client.get("/v1/boards/skill/top").json()
            assert [e["player_id"] for e in top["entries"]] == ["a", "b"]
            again = {**match, "match_id": "m:2"}
            refused = client.post("/v1/boards/skill/matches", json=again, headers=auth)
            assert refused.status_code == 503, refused.text
            assert refused.headers["content-type"] == "application/problem+json"
            assert refused.json()["type"].endswith("/extra-missing")
            assert OPENSKILL_LINE in refused.json()["detail"]
            assert "retry-after" not in refused.headers
            elo = {"policy": "rating", "rating": {"system": "elo"}}
            assert client.put("/v1/boards/elo", json=elo, headers=auth).status_code == 201
            assert (
                client.post("/v1/boards/elo/matches", json=match, headers=auth).status_code == 200
            )
    finally:
        without.stop()
    assert "Traceback" not in without.output(), without.output()


SETTINGS_CASES = [
    ({"DATABASE_URL": "postgresql+asyncpg://u@127.0.0.1:1/db"}, "DATABASE_URL", "postgres"),
    ({"DATABASE_URL": "mysql+asyncmy://u@127.0.0.1:1/db"}, "DATABASE_URL", "mariadb"),
    ({"REDIS_URL": "redis://127.0.0.1:1/0"}, "REDIS_URL", "redis"),
    ({"REDIS_URL": "redis+cluster://127.0.0.1:1"}, "REDIS_URL", "redis"),
    ({"LOG_URL": "nats://127.0.0.1:1"}, "LOG_URL", "nats"),
    ({"LOG_URL": "kafka://127.0.0.1:1"}, "LOG_URL", "kafka"),
    ({"GRPC_PORT": "0"}, "GRPC_PORT", "grpc"),
    ({"SERVER": "uvicorn"}, "SERVER", "uvicorn"),
    (
        {
            "PLAYER_JWKS_URL": "https://id.example/jwks.json",
            "PLAYER_JWT_ISSUER": "https://id.example",
            "PLAYER_JWT_AUDIENCE": "game",
        },
        "PLAYER_JWKS_URL",
        "tokens",
    ),
    ({"PLAYER_JWT_SECRET": "s" * 32}, "PLAYER_JWT_SECRET", "tokens"),
]


@pytest.mark.parametrize(("settings", "setting", "extra"), SETTINGS_CASES)
def test_a_setting_whose_extra_is_missing_stops_serve_in_one_line(
    tmp_path: Path, settings: dict[str, str], setting: str, extra: str
) -> None:
    env = _blocked_env(tmp_path, cli_env(tmp_path / "data", **settings), list(EXTRAS_OF[extra]))
    done = subprocess.run(
        [sys.executable, "-m", "rankline", "serve", "--port", "1"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    line = f"RANKLINE_{setting} needs the {extra} extra: pip install 'rankline[{extra}]'"
    assert (done.returncode, done.stderr.strip()) == (2, f"error: {line}"), done.stdout


def test_the_same_settings_with_their_extras_installed_pass_the_check() -> None:
    from rankline.settings import Settings

    for settings, _, extra in SETTINGS_CASES:
        chosen = Settings(**{k.lower(): v for k, v in settings.items()})
        assert extras.needed(chosen)[-1][1] == extra
        extras.check(chosen)  # every extra is installed here: no MissingExtra
    assert extras.needed(Settings(database_url="sqlite+aiosqlite:///x.db")) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "--quick"],
        ["bench", "probe", "reads"],
        ["soak", "--minutes", "1"],
        ["check-history", "--seconds", "1"],
    ],
)
def test_a_bench_command_without_the_bench_extra_says_which_to_install(
    tmp_path: Path, argv: list[str]
) -> None:
    env = _blocked_env(tmp_path, cli_env(tmp_path / "data"), ["rankline_bench"])
    done = subprocess.run(
        [sys.executable, "-m", "rankline", *argv],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    command = argv[0]
    line = f"rankline {command} needs the bench extra: pip install 'rankline[bench]'"
    assert (done.returncode, done.stderr.strip()) == (2, f"error: {line}"), done.stdout


def test_pyprojects_extras_are_the_ones_the_check_knows() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    optional = project["optional-dependencies"]
    assert set(optional) == set(extras.EXTRAS) | {"dev", "all"}
    (everything,) = optional["all"]
    assert Requirement(everything).extras == set(extras.EXTRAS)
    core = {canonicalize_name(Requirement(r).name) for r in project["dependencies"]}
    for extra in extras.EXTRAS:
        names = {canonicalize_name(Requirement(r).name) for r in optional[extra]}
        assert core & names == set(), f"the core lists what the {extra} extra installs"
