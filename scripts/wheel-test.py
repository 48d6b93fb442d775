"""Install the built wheels into fresh virtual environments and use them, as a studio would.

With one Python (``--python``, default: this one), from the wheels in ``--dist`` (built
first with ``python -m build`` when not given), each in a virtual environment of its own,
with no dev tools:

1. the core (``rankline``): nothing of an extra is installed; ``rankline serve`` on the
   embedded default answers the README's first session (PUT a board, POST a score, GET the
   top), and started with a Redis URL it exits with the one line naming the redis extra;
2. the client alone (``rankline-client``): it installs httpx and what httpx needs, nothing
   more, imports, and calls the core's server;
3. ``rankline[redis,postgres]``: migrated and served on Redis + PostgreSQL (the machine's,
   a database and a Redis database of its own), it answers the same session.

Only the standard library runs here (nox and the tests call it).

    python scripts/wheel-test.py [--python /path/to/python3.13] [--dist dist/]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DISTRIBUTIONS = (".", "clients/python", "bench")
HOST = "127.0.0.1"
SLOT = int(os.environ.get("RANKLINE_TEST_SLOT", "0"))
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
PG_DATABASE = f"rankline_wheels_{SLOT}"
REDIS_URL = f"redis://127.0.0.1:6379/{9 + SLOT}"
EXTRAS_LIBRARIES = ("asyncpg", "asyncmy", "redis", "hiredis", "nats-py", "aiokafka", "grpcio")
EXTRAS_LIBRARIES += (
    "protobuf",
    "orjson",
    "uvicorn",
    "opentelemetry-sdk",
    "pyjwt",
    "openskill",
    "rankline-bench",
)
MISSING_REDIS = "error: RANKLINE_REDIS_URL needs the redis extra: pip install 'rankline[redis]'"

CLOSURE = """
import json, sys
from importlib.metadata import distribution, distributions
from pip._vendor.packaging.requirements import Requirement
from pip._vendor.packaging.utils import canonicalize_name as name

wanted, pending = set(), ["rankline-client"]
while pending:
    dist = distribution(pending.pop())
    if name(dist.metadata["Name"]) in wanted:
        continue
    wanted.add(name(dist.metadata["Name"]))
    for line in dist.requires or []:
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
            pending.append(requirement.name)
installed = {name(d.metadata["Name"]) for d in distributions()} - {"pip", "setuptools"}
json.dump({"wanted": sorted(wanted), "installed": sorted(installed)}, sys.stdout)
"""

CLIENT_CALLS = """
import sys
from rankline_client import Client

with Client(sys.argv[1], server_key=sys.argv[2]) as rl:
    rl.put_board("wheel-client", windows=["all_time"])
    rl.submit("wheel-client", "p:7", 70, match_id="m:7")
    print(rl.top("wheel-client", limit=10)["entries"][0]["player_id"])
"""

DATABASE = """
import asyncio, sys
import asyncpg, redis

async def main(action):
    conn = await asyncpg.connect("{admin}")
    await conn.execute('DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
    if action == "create":
        await conn.execute('CREATE DATABASE "{db}"')
    await conn.close()
    redis.Redis.from_url("{redis}").flushdb()

asyncio.run(main(sys.argv[1]))
"""


def step(text: str) -> None:
    print(f"  - {text}", flush=True)


def run(*argv: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in argv], env=env, cwd=cwd, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"{' '.join(map(str, argv))} exited {done.returncode}:\n{done.stderr}")
    return done.stdout


def build(dist: Path) -> None:
    for where in DISTRIBUTIONS:
        run(sys.executable, "-m", "build", "--outdir", dist, REPO / where)


def venv(python: str, path: Path, *requirements: str, dist: Path) -> Path:
    """A fresh virtual environment with ``requirements`` from ``dist`` (and the index)."""
    run(python, "-m", "venv", path)
    pip = [path / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    run(*pip, "--find-links", dist, *requirements)
    return path


def installed(env: Path) -> set[str]:
    listing = run(env / "bin" / "python", "-m", "pip", "list", "--format=json")
    return {p["name"].lower().replace("_", "-") for p in json.loads(listing)}


def size(path: Path) -> str:
    return run("du", "-sh", path).split()[0]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def request(method: str, url: str, body: object = None, key: str = "") -> object:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} if data else {}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    with urllib.request.urlopen(req, timeout=30) as answer:
        return json.loads(answer.read() or b"null")


class Serving:
    """``rankline serve`` from ``env`` on a free loopback port, stopped by SIGTERM."""

    def __init__(self, env: Path, data: Path, **settings: str) -> None:
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.data = data
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("RANKLINE_", "PYTHON"))}
        clean |= {f"RANKLINE_{k.upper()}": v for k, v in settings.items()}
        clean["RANKLINE_DATA_DIR"] = str(data)
        self.log = data.parent / f"serve-{self.port}.log"
        argv = [env / "bin" / "rankline", "serve", "--host", HOST, "--port", str(self.port)]
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                argv, env=clean, cwd=data.parent, stdout=log, stderr=subprocess.STDOUT
            )

    def ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"rankline serve exited:\n{self.log.read_text()}")
            try:
                request("GET", f"{self.url}/readyz")
                return
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
        raise SystemExit(f"rankline serve not ready in {timeout} s:\n{self.log.read_text()}")

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def first_session(url: str, key: str) -> None:
    """The README's first session: a board, a score, the top."""
    board = {"windows": ["all_time", "daily", "weekly"], "scopes": ["region"]}
    request("PUT", f"{url}/v1/boards/arena-solo", board, key)
    score = {"player_id": "p:42", "score": 4500, "match_id": "m:9981", "scopes": {"region": "EU"}}
    request("POST", f"{url}/v1/boards/arena-solo/scores", score, key)
    top = request("GET", f"{url}/v1/boards/arena-solo/top?limit=10")
    assert isinstance(top, dict)
    entries = [(e["player_id"], e["score"]) for e in top["entries"]]
    if entries != [("p:42", 4500)]:
        raise SystemExit(f"the top is {entries}, not [('p:42', 4500)]")


def core_and_client(python: str, dist: Path, tmp: Path) -> None:
    core = venv(python, tmp / "core", "rankline", dist=dist)
    extra = sorted(installed(core) & set(EXTRAS_LIBRARIES))
    if extra:
        raise SystemExit(f"the core installed libraries of the extras: {extra}")
    step(f"core: {len(installed(core))} distributions, {size(core)}, no extra's library")
    server = Serving(core, tmp / "core-data")
    try:
        server.ready()
        key = (tmp / "core-data" / "server-key").read_text().strip()
        first_session(server.url, key)
        step("core: rankline serve (embedded default) answered the first session")
        client = venv(python, tmp / "client", "rankline-client", dist=dist)
        closure = json.loads(run(client / "bin" / "python", "-c", CLOSURE))
        if closure["installed"] != closure["wanted"]:
            raise SystemExit(f"rankline-client installed {closure['installed']}: {closure}")
        answer = run(client / "bin" / "python", "-c", CLIENT_CALLS, server.url, key).strip()
        if answer != "p:7":
            raise SystemExit(f"the client read {answer!r} at the top, not 'p:7'")
        step(
            f"client: {len(closure['installed'])} distributions ({', '.join(closure['installed'])})"
            f", {size(client)}; imported and called the server"
        )
    finally:
        code = server.stop()
    if code not in (0, -signal.SIGTERM):
        raise SystemExit(f"rankline serve exited {code}:\n{server.log.read_text()}")
    refused = Serving(core, tmp / "refused-data", redis_url=REDIS_URL)
    refused.proc.wait(timeout=120)
    said = refused.log.read_text().strip()
    if (refused.proc.returncode, said) != (2, MISSING_REDIS):
        raise SystemExit(f"with a Redis URL the core exited {refused.proc.returncode}: {said}")
    step(f"core with RANKLINE_REDIS_URL: exit 2, {said!r}")


def redis_postgres(python: str, dist: Path, tmp: Path) -> None:
    env = venv(python, tmp / "redis-postgres", "rankline[redis,postgres]", dist=dist)
    python_bin = env / "bin" / "python"
    script = DATABASE.format(admin=PG_ADMIN, db=PG_DATABASE, redis=REDIS_URL)
    run(python_bin, "-c", script, "create")
    settings = {
        "database_url": f"postgresql+asyncpg://postgres@127.0.0.1:5432/{PG_DATABASE}",
        "redis_url": REDIS_URL,
    }
    data = tmp / "redis-postgres-data"
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("RANKLINE_", "PYTHON"))}
    clean |= {f"RANKLINE_{k.upper()}": v for k, v in settings.items()}
    clean["RANKLINE_DATA_DIR"] = str(data)
    try:
        run(env / "bin" / "rankline", "migrate", env=clean, cwd=tmp)
        server = Serving(env, data, **settings)
        try:
            server.ready()
            first_session(server.url, (data / "server-key").read_text().strip())
        finally:
            code = server.stop()
        if code not in (0, -signal.SIGTERM):
            raise SystemExit(f"rankline serve exited {code}:\n{server.log.read_text()}")
        step(f"rankline[redis,postgres]: {size(env)}; served the first session on Redis + PG")
    finally:
        run(python_bin, "-c", script, "drop")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="The Python to install into.")
    parser.add_argument("--dist", type=Path, help="The built wheels (default: build them).")
    args = parser.parse_args()
    version = run(args.python, "-c", "import sys; print(sys.version.split()[0])").strip()
    print(f"wheel test on Python {version}", flush=True)
    with tempfile.TemporaryDirectory(prefix="rankline-wheels-") as scratch:
        tmp = Path(scratch)
        dist = args.dist or tmp / "dist"
        if args.dist is None:
            build(dist)
        core_and_client(args.python, dist.resolve(), tmp)
        redis_postgres(args.python, dist.resolve(), tmp)
    print(f"wheel test on Python {version}: passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
