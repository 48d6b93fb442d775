"""The files that deploy rankline: the dependency lock the image installs, settings read from
secret files, the compose files (by the compose specification's schema) and the Kubernetes
objects (by Kubernetes' schemas)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from pydantic_settings import SettingsError
from sqlalchemy.engine import make_url

from helpers_procs import REPO, cli_env, run_cli
from rankline.settings import FILE_SUFFIX, Settings, documented_settings

LOCK = REPO / "requirements.lock"
IN_TREE = {"rankline-client"}
"""Distributions built from this repository: the image installs them from the tree."""

# --- requirements.lock -------------------------------------------------------------------


def _pins() -> dict[str, str]:
    text = LOCK.read_text(encoding="utf-8")
    pins = dict(re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", text, re.MULTILINE))
    assert pins, f"{LOCK} pins nothing"
    return {canonicalize_name(name): version for name, version in pins.items()}


def _image_extras() -> list[str]:
    """The extras the image installs: the Makefile's IMAGE_EXTRAS, which `make lock` locks."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    block = re.search(r"^IMAGE_EXTRAS = ((?:.*\\\n)*.*)$", makefile, re.MULTILINE)
    assert block, "the Makefile names no IMAGE_EXTRAS"
    return re.findall(r"--extra (\w+)", block.group(1))


def _dependencies() -> list[Requirement]:
    """The runtime dependencies and those of the extras the image uses: what it installs."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = list(project["dependencies"])
    for extra in _image_extras():
        lines += project["optional-dependencies"][extra]
    requirements = [Requirement(line) for line in lines]
    return [r for r in requirements if canonicalize_name(r.name) not in IN_TREE]


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


def test_the_image_has_every_engine_and_edge_but_the_benchmark() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    servers = {"uvicorn"}  # granian, the core's, serves in the image
    wanted = set(project["optional-dependencies"]) - {"dev", "all", "bench"} - servers
    assert set(_image_extras()) == wanted


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


# --- deploy/compose.yaml -----------------------------------------------------------------

DEPLOY = REPO / "deploy"
COMPOSE = [DEPLOY / "compose.yaml", DEPLOY / "compose.cluster.yaml"]


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_the_compose_files_follow_the_compose_specification() -> None:
    """By the schema check-jsonschema ships (vendor.compose-spec), with no network."""
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec"]
        + [str(path) for path in COMPOSE],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_stack_migrates_once_then_serves_two_workers_on_the_production_stores() -> None:
    services = _yaml(COMPOSE[0])["services"]
    assert {"postgres", "redis", "nats", "migrate", "rankline"} <= set(services)
    assert services["migrate"]["command"] == ["migrate"]
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    rankline = services["rankline"]
    assert rankline["command"] == ["serve", "--workers", "2"]
    assert rankline["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    for store in ("redis", "nats"):
        assert rankline["depends_on"][store]["condition"] == "service_healthy"
    for name in ("postgres", "redis", "nats", "rankline"):
        assert services[name]["healthcheck"]["test"], f"{name} has no health check"
    env = rankline["environment"]
    assert env["RANKLINE_DATABASE_URL"].startswith("postgresql+asyncpg://")
    assert env["RANKLINE_REDIS_URL"].startswith("redis://")
    assert env["RANKLINE_LOG_URL"].startswith("nats://")


def test_the_compose_secrets_are_files_that_name_real_settings() -> None:
    stack = _yaml(COMPOSE[0])
    declared_secrets = set(stack["secrets"])
    declared_volumes = set(stack["volumes"])
    settings = set(documented_settings())
    for name, service in stack["services"].items():
        env = service.get("environment", {})
        secrets = set(service.get("secrets", []))
        assert secrets <= declared_secrets, name
        for variable, value in env.items():
            if not variable.startswith("RANKLINE_"):
                continue
            setting = variable.removesuffix(FILE_SUFFIX)
            assert setting in settings, f"{name}: {variable} is no setting"
            if variable.endswith(FILE_SUFFIX):
                assert value.removeprefix("/run/secrets/") in secrets, f"{name}: {variable}"
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            assert source.startswith("./") or source in declared_volumes, f"{name}: {volume}"
            if source.startswith("./"):
                assert (DEPLOY / source).is_file(), f"{name}: {source} is missing"
    rankline = stack["services"]["rankline"]["environment"]
    assert {"RANKLINE_SERVER_KEYS_FILE", "RANKLINE_DATABASE_PASSWORD_FILE"} <= set(rankline)
    assert not {"RANKLINE_SERVER_KEYS", "RANKLINE_DATABASE_PASSWORD"} & set(rankline)
    assert stack["services"]["postgres"]["environment"]["POSTGRES_PASSWORD_FILE"] == (
        "/run/secrets/db_password"
    )


def test_the_cluster_file_runs_six_redis_nodes_and_points_rankline_at_them() -> None:
    cluster = _yaml(COMPOSE[1])
    services = cluster["services"]
    nodes = [name for name, s in services.items() if "--cluster-enabled" in s.get("command", [])]
    assert len(nodes) == 6
    init = services["redis-cluster-init"]
    assert "--cluster-replicas 1" in init["command"][0]
    assert {n: "service_healthy" for n in nodes} == {
        n: d["condition"] for n, d in init["depends_on"].items()
    }
    rankline = services["rankline"]
    seeds = rankline["environment"]["RANKLINE_REDIS_URL"].removeprefix("redis+cluster://")
    assert {seed.split(":")[0] for seed in seeds.split(",")} <= set(nodes)
    assert rankline["depends_on"]["redis-cluster-init"]["condition"] == (
        "service_completed_successfully"
    )
    base = _yaml(COMPOSE[0])
    volumes = set(base["volumes"]) | set(cluster["volumes"])
    for node in nodes:
        for volume in services[node].get("volumes", base["services"]["redis"]["volumes"]):
            assert volume.split(":")[0] in volumes


# --- deploy/kubernetes -------------------------------------------------------------------

KUBERNETES = DEPLOY / "kubernetes"
# The oldest Kubernetes these objects are checked against, and the newest schema shipped.
KUBERNETES_VERSIONS = ["1.29.0", kubernetes_validate.latest_version()]


def _objects() -> dict[str, dict[str, Any]]:
    objects = {}
    for path in sorted(KUBERNETES.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            objects[f"{document['kind']}/{document['metadata']['name']}"] = document
    return objects


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_the_kubernetes_objects_follow_kubernetes_schemas(version: str) -> None:
    objects = _objects()
    assert set(objects) == {
        "ConfigMap/rankline",
        "Secret/rankline",
        "Deployment/rankline",
        "Service/rankline",
        "PodDisruptionBudget/rankline",
        "Job/rankline-migrate",
    }
    for name, document in objects.items():
        try:
            kubernetes_validate.validate(document, version, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{name} (Kubernetes {version}): {exc.message} at {list(exc.path)}")


def test_the_kustomization_lists_every_object_but_the_example_secret() -> None:
    kustomization = _yaml(KUBERNETES / "kustomization.yaml")
    files = {p.name for p in KUBERNETES.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(kustomization["resources"]) == files - {"secret.example.yaml"}
    assert [image["name"] for image in kustomization["images"]] == ["rankline"]


def test_the_workers_probe_read_their_settings_and_keys_and_survive_a_drain() -> None:
    objects = _objects()
    pod = objects["Deployment/rankline"]["spec"]["template"]
    (container,) = pod["spec"]["containers"]
    assert container["args"] == ["serve"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["resources"]["requests"] and container["resources"]["limits"]
    assert pod["spec"]["securityContext"]["runAsUser"] == 10001  # the image's user
    assert container["envFrom"] == [{"configMapRef": {"name": "rankline"}}]
    secret = objects["Secret/rankline"]
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    files = {v["name"]: v["secret"]["secretName"] for v in pod["spec"]["volumes"] if "secret" in v}
    assert files == {"secrets": "rankline"}
    settings = set(documented_settings())
    for variable in [e["name"] for e in container["env"]]:
        assert variable.removesuffix(FILE_SUFFIX) in settings
    for item in container["env"]:
        key = item["value"].removeprefix(mounts["secrets"] + "/")
        assert key in secret["stringData"], item
    assert set(objects["ConfigMap/rankline"]["data"]) <= settings
    selector = objects["PodDisruptionBudget/rankline"]["spec"]["selector"]["matchLabels"]
    assert selector.items() <= pod["metadata"]["labels"].items()
    assert objects["Service/rankline"]["spec"]["selector"].items() <= (
        pod["metadata"]["labels"].items()
    )
    job = objects["Job/rankline-migrate"]["spec"]["template"]["spec"]
    assert job["containers"][0]["args"] == ["migrate"]
    assert job["restartPolicy"] == "Never"
