"""The TypeScript client (clients/typescript): its types are what the server's OpenAPI
document generates, it builds with tsc and packs with npm, and Node's test runner drives the
built client against a real ``rankline serve``.

``npm ci`` runs once per change of package-lock.json (a stamp in node_modules says which
lock it installed); Node and npm come from the machine (scripts/ensure-tools.sh)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from procs import REPO, serving
from rankline import __version__
from rankline.http.openapi import build_openapi

PACKAGE = REPO / "clients" / "typescript"
SERVER_KEY = "ts-client-key"


def _run(*argv: str, env: dict[str, str] | None = None, timeout: float = 180) -> str:
    tool = shutil.which(argv[0])
    assert tool, f"{argv[0]} is not installed: run scripts/ensure-tools.sh node npm"
    done = subprocess.run(
        [tool, *argv[1:]],
        cwd=PACKAGE,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, f"{' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def built() -> Path:
    """node_modules as package-lock.json says, and dist/ built from src/."""
    lock = hashlib.sha256((PACKAGE / "package-lock.json").read_bytes()).hexdigest()[:16]
    stamp = PACKAGE / "node_modules" / f".rankline-lock-{lock}"
    if not stamp.exists():
        _run("npm", "ci", "--no-audit", "--no-fund")
        stamp.touch()
    _run("npm", "run", "build")
    return PACKAGE / "dist"


def test_the_committed_types_are_what_the_openapi_document_generates(
    built: Path, tmp_path: Path
) -> None:
    document = tmp_path / "openapi.json"
    document.write_text(json.dumps(build_openapi()), encoding="utf-8")
    _run("node", "scripts/generate.mjs", "--check", "--from", str(document))


def test_the_package_holds_the_built_javascript_and_its_types(built: Path, tmp_path: Path) -> None:
    packed = json.loads(
        _run("npm", "pack", "--json", "--ignore-scripts", "--pack-destination", str(tmp_path))
    )
    with tarfile.open(tmp_path / packed[0]["filename"]) as tarball:
        names = set(tarball.getnames())
    for module in ("index", "client", "http", "stream", "sse", "batch", "errors", "schema"):
        assert {f"package/dist/{module}.js", f"package/dist/{module}.d.ts"} <= names, module
    assert {"package/package.json", "package/README.md"} <= names
    assert not any("node_modules" in name or "/test/" in name for name in names), names
    assert packed[0]["version"] == __version__  # the client of this version of the API


def test_the_readme_examples_type_check(built: Path, tmp_path: Path) -> None:
    """The Node examples of the package's README and of the project's README compile
    against the built client's types."""
    files = []
    for readme in (PACKAGE / "README.md", REPO / "README.md"):
        example = re.search(r"```ts\n(.*?)```", readme.read_text(encoding="utf-8"), re.DOTALL)
        assert example, f"no ts block in {readme}"
        name = f"example{len(files)}.ts"
        (tmp_path / name).write_text(
            "declare const process: { env: Record<string, string | undefined> };\n"
            + example.group(1),
            encoding="utf-8",
        )
        files.append(name)
    (tmp_path / "package.json").write_text('{"type": "module"}', encoding="utf-8")
    options = {
        "target": "ES2022",
        "lib": ["ES2022", "DOM", "DOM.Iterable"],
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "strict": True,
        "noEmit": True,
        "types": [],
        "paths": {"@rankline/client": [str(built / "index.d.ts")]},
    }
    config = {"compilerOptions": options, "files": files}
    (tmp_path / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    _run("node", "node_modules/typescript/bin/tsc", "-p", str(tmp_path / "tsconfig.json"))


def test_node_drives_the_client_against_a_real_server(built: Path, tmp_path: Path) -> None:
    # Reads that send a key are limited to 2 a second per key: the retry test meets 429s;
    # the other tests read without a key (reads are public here).
    with serving(
        tmp_path / "data",
        tmp_path / "server.log",
        server_keys=SERVER_KEY,
        rate_limit_key_reads="2/second",
        rate_limit_address_reads="",
    ) as server:
        env = {
            "PATH": str(Path(shutil.which("node") or "node").parent),
            "RANKLINE_URL": server.url,
            "RANKLINE_SERVER_KEY": SERVER_KEY,
        }
        files = sorted(str(p.relative_to(PACKAGE)) for p in (PACKAGE / "test").glob("*.test.mjs"))
        done = subprocess.run(
            ["node", "--test", "--test-reporter=tap", *files],
            cwd=PACKAGE,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, f"{done.stdout}\n{done.stderr}\n{server.output()}"
    counted = dict(re.findall(r"^# (tests|pass) (\d+)$", done.stdout, re.MULTILINE))
    assert counted.get("tests", "0") != "0", done.stdout
    assert counted["pass"] == counted["tests"], done.stdout
