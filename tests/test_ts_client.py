"""The TypeScript client (clients/typescript): its types are what the server's OpenAPI
document generates, it builds with tsc and packs with npm, and Node's test runner drives the
built client against a real ``rankline serve``.

``npm ci`` runs once per change of package-lock.json (a stamp in node_modules says which
lock it installed); Node and npm come from the machine (scripts/ensure-tools.sh)."""

from __future__ import annotations

import fcntl
import hashlib
import json
import re
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from helpers_idp import SECRET, claims, mint_hs256
from helpers_procs import REPO, Server, serving
from rankline import __version__
from rankline.http.openapi import build_openapi

PACKAGE = REPO / "clients" / "typescript"
SERVER_KEY = "ts-client-key"
AUTH = {"Authorization": f"Bearer {SERVER_KEY}"}
CHROMIUM = "/usr/bin/chromium"

# npm ci empties node_modules and tsc rewrites dist/: one worker builds, and every test of this
# module runs on it (a second worker building beside it reads half-written files)
pytestmark = pytest.mark.slow


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
    """node_modules as package-lock.json says, and dist/ built from src/; under a file lock, so
    that two pytest runs in one checkout never build over each other."""
    lock = hashlib.sha256((PACKAGE / "package-lock.json").read_bytes()).hexdigest()[:16]
    stamp = PACKAGE / "node_modules" / f".rankline-lock-{lock}"
    with (PACKAGE / ".build.lock").open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
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


def test_the_sources_are_formatted(built: Path) -> None:
    _run("node", "node_modules/prettier/bin/prettier.cjs", "--check", ".")


def test_the_package_holds_the_built_javascript_and_its_types(built: Path, tmp_path: Path) -> None:
    packed = json.loads(
        _run("npm", "pack", "--json", "--ignore-scripts", "--pack-destination", str(tmp_path))
    )
    with tarfile.open(tmp_path / packed[0]["filename"]) as tarball:
        names = set(tarball.getnames())
    for module in ("index", "client", "http", "json", "stream", "sse", "batch", "errors", "schema"):
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
        "skipLibCheck": True,
        "types": [],
        "paths": {"@rankline/client": [str(built / "index.d.ts")]},
    }
    config = {"compilerOptions": options, "files": files}
    (tmp_path / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    _run("node", "node_modules/typescript/bin/tsc", "-p", str(tmp_path / "tsconfig.json"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for Node's tests and the browser's. Reads that send a key are limited to 2
    a second per key: the retry test meets 429s; the other tests read without a key (reads
    are public here)."""
    where = tmp_path_factory.mktemp("server")
    with serving(
        where / "data",
        where / "server.log",
        server_keys=SERVER_KEY,
        player_jwt_secret=SECRET,
        rate_limit_key_reads="2/second",
        rate_limit_address_reads="",
    ) as server:
        yield server


def test_node_drives_the_client_against_a_real_server(built: Path, server: Server) -> None:
    env = {
        "PATH": str(Path(shutil.which("node") or "node").parent),
        "RANKLINE_URL": server.url,
        "RANKLINE_SERVER_KEY": SERVER_KEY,
        # a player's token, and one of theirs that has expired (HS256, the studio's secret)
        "RANKLINE_PLAYER_TOKEN": mint_hs256(claims("p:ts")),
        "RANKLINE_EXPIRED_TOKEN": mint_hs256(claims("p:ts", ttl=-3600)),
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


PACKED_USE = """
import { Client } from "@rankline/client";

const rl = new Client(process.env.RANKLINE_URL, { serverKey: process.env.RANKLINE_SERVER_KEY });
await rl.putBoard("packed", { windows: ["all_time"] });
await rl.submit("packed", { player_id: "p:9", score: 90, match_id: "m:packed" });
const top = await rl.top("packed");
console.log(JSON.stringify(top.entries.map((e) => [e.player_id, e.score])));
"""


def test_the_packed_tarball_installs_into_a_fresh_node_project_and_calls_a_server(
    built: Path, server: Server, tmp_path: Path
) -> None:
    """What a game server does: `npm install` the `npm pack` tarball into a project of its
    own (nothing else installed), import the package by its name, call the server."""
    packed = json.loads(
        _run("npm", "pack", "--json", "--ignore-scripts", "--pack-destination", str(tmp_path))
    )
    project = tmp_path / "game-server"
    project.mkdir()
    (project / "package.json").write_text(
        '{"name": "game-server", "private": true, "type": "module"}', encoding="utf-8"
    )
    tarball = tmp_path / packed[0]["filename"]
    npm = shutil.which("npm")
    node = shutil.which("node")
    assert npm and node, "node and npm are not installed: run scripts/ensure-tools.sh node npm"
    installing = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--offline", str(tarball)],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert installing.returncode == 0, installing.stderr
    installed = sorted(p.name for p in (project / "node_modules").iterdir() if p.name[0] != ".")
    assert installed == ["@rankline"]  # no runtime dependency came with it
    (project / "use.mjs").write_text(PACKED_USE, encoding="utf-8")
    env = {
        "PATH": str(Path(node).parent),
        "RANKLINE_URL": server.url,
        "RANKLINE_SERVER_KEY": SERVER_KEY,
    }
    done = subprocess.run(
        [node, "use.mjs"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, f"{done.stderr}\n{server.output()}"
    assert json.loads(done.stdout) == [["p:9", 90]]


PAGE = """<!doctype html>
<script>
  // Count the EventSource connections the client opens.
  window.opened = [];
  const Native = EventSource;
  window.EventSource = class extends Native {
    constructor(url, init) { super(url, init); window.opened.push(String(url)); }
  };
  window.events = [];
</script>
<script type="module">
  import { Client } from "/ts/index.js";
  const rl = new Client(location.origin);
  window.total = (board) => rl.top(board).then((top) => top.total);
  window.follow = async (board) => {
    for await (const event of rl.stream(board, { limit: 5 })) window.events.push(event);
  };
  window.ready = true;
</script>
"""


def test_a_browser_page_follows_the_stream_through_eventsource(built: Path, server: Server) -> None:
    """In a browser (Debian's chromium, headless) the client reads with fetch and follows
    the stream through EventSource. The page and the built modules are served at /ts/ on the
    server's origin, as a studio's page would be behind the same proxy."""
    from playwright.sync_api import Route, sync_playwright

    assert Path(CHROMIUM).exists(), "chromium is not installed: run `make tools`"

    def local(route: Route) -> None:
        name = route.request.url.removeprefix(f"{server.url}/ts/")
        if name == "page.html":
            route.fulfill(body=PAGE, content_type="text/html")
        else:
            path = built / name
            assert path.is_file() and path.parent == built, name
            route.fulfill(path=path, content_type="text/javascript")

    board = "browser-live"
    with httpx.Client(base_url=server.url, timeout=30, headers=AUTH) as api:
        assert api.put(f"/v1/boards/{board}", json={}).status_code == 201
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
            )
            try:
                page = browser.new_page()
                errors: list[str] = []
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                page.route(f"{server.url}/ts/**", local)
                page.goto(f"{server.url}/ts/page.html")
                page.wait_for_function("() => window.ready === true")
                page.evaluate("(board) => { window.follow(board); }", board)
                page.wait_for_function("() => window.events.length > 0")
                score = {"player_id": "p:1", "score": 99, "match_id": "m:1"}
                assert api.post(f"/v1/boards/{board}/scores", json=score).status_code == 200
                page.wait_for_function(
                    "() => window.events.some((e) => e.event === 'top' && e.data.total === 1)"
                )
                assert page.evaluate("(board) => window.total(board)", board) == 1
                opened = page.evaluate("() => window.opened")
                events = page.evaluate("() => window.events")
            finally:
                browser.close()
    assert opened == [f"{server.url}/v1/boards/{board}/stream?limit=5"]
    assert events[0]["event"] == "top" and events[0]["data"]["entries"] == []
    assert events[-1]["data"]["entries"][0]["player_id"] == "p:1"
    assert errors == []
