"""Measure durable ingest through the real HTTP API: batch and single submissions.

Starts ``rankline serve`` (one worker) on a free loopback port with a temporary data dir,
creates a fresh board, drives ``--events`` submissions from ``--clients`` concurrent httpx
clients, checks every answer, and prints events/s. Every acknowledged submission is durable
(the server answers after its transaction commits), so this is the durable ingest rate.
With ``--respond-async`` the batches ask for 202 answers (taken into the log) and the probe
then waits until every token is applied: the server CPU it prints covers the whole way from
request to applied standings.

    .venv/bin/python scripts/ingest_probe.py                       # embedded: SQLite + memory
    .venv/bin/python scripts/ingest_probe.py --fresh-database \\
        --database-url postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_probe \\
        --redis-url redis://127.0.0.1:6379/15                      # PostgreSQL + Redis
    .venv/bin/python scripts/ingest_probe.py --mode single --clients 64 --events 20000

A PostgreSQL or MariaDB database named in the URL is created and migrated when missing (with
``--fresh-database``, dropped first: deleted boards leave dead rows that only a vacuum
removes, and this machine's PostgreSQL runs without autovacuum); the probe's board is
deleted at the end. The load loop is bounded by ``--events``.

``--preload N`` measures against a board that already holds N players, as ``rankline bench``
does: the bench's board (``rankline.bench.load``: ``p:0`` .. ``p:N-1``, best policy,
all_time) is bulk-loaded once into ``--data-dir`` (SQLite) or the ``--database-url``
database, and kept for the next run; submissions then go to random existing players with
random scores and new match ids (about half beat the stored best). A Redis index in
``--redis-url`` is reused when it is already built. ``--wrk S`` drives it with wrk and the
bench's scripts for S seconds instead (``--mode both``: single submissions, then batches):
one Python client is slower than the server's group commit, so single submissions need it.

    .venv/bin/python scripts/ingest_probe.py --preload 10000000 --data-dir /tmp/probe-10m
    .venv/bin/python scripts/ingest_probe.py --preload 10000000 \\
        --database-url postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_10m \\
        --redis-url redis://127.0.0.1:6379/15 --mode both --wrk 15 --clients 64
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from rankline.bench import servers
from rankline.writing.ingest import make_token, parse_token

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
KEY = "ingest-probe-key"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


async def _preload(args: argparse.Namespace, data_dir: Path) -> None:
    """Bulk-load the bench board with ``--preload`` players unless the store holds it."""
    from rankline.bench import load
    from rankline.clock import SystemClock
    from rankline.settings import Settings
    from rankline.store import migrate
    from rankline.store.sql import SqlStore

    url = args.database_url or Settings(data_dir=data_dir).database
    store = SqlStore(url)
    try:
        await migrate.upgrade(store.engine)
        count = await store.count_standings(load.BOARD_ID)
    finally:
        await store.close()
    if count == args.preload:
        return
    if count:
        raise SystemExit(f"the store holds {count:,} bench standings, not {args.preload:,}")
    now = SystemClock().now()
    data = load.Dataset(args.preload, at0=now - args.preload - 1_000_000)
    started = time.perf_counter()
    await load.prepare(url, now)
    await load.load(url, data, now)
    await load.settle(url)
    print(f"loaded {args.preload:,} players in {time.perf_counter() - started:.0f} s")


async def _ensure_database(url: str, fresh: bool) -> None:
    """Create the server database named in ``url`` if it does not exist (PostgreSQL,
    MariaDB); with ``fresh``, drop it first."""
    parsed = make_url(url)
    dialect = parsed.get_backend_name()
    if dialect == "sqlite" or not parsed.database:
        return
    admin = parsed.set(database="postgres" if dialect == "postgresql" else "mysql")
    engine = create_async_engine(admin, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            if fresh:
                quoted = (
                    f'"{parsed.database}"' if dialect == "postgresql" else f"`{parsed.database}`"
                )
                await conn.execute(text(f"DROP DATABASE IF EXISTS {quoted}"))
            if dialect == "postgresql":
                found = await conn.scalar(
                    text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": parsed.database}
                )
                if not found:
                    await conn.execute(text(f'CREATE DATABASE "{parsed.database}"'))
            else:
                await conn.execute(text(f"CREATE DATABASE IF NOT EXISTS `{parsed.database}`"))
    finally:
        await engine.dispose()


def _env(args: argparse.Namespace, data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RANKLINE_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), env.get("PYTHONPATH")) if p)
    env["RANKLINE_DATA_DIR"] = str(data_dir)
    env["RANKLINE_SERVER_KEYS"] = KEY
    env["RANKLINE_LOG_LEVEL"] = "warning"
    if args.database_url:
        env["RANKLINE_DATABASE_URL"] = args.database_url
    if args.redis_url:
        env["RANKLINE_REDIS_URL"] = args.redis_url
    for item in args.set:
        name, _, value = item.partition("=")
        env[f"RANKLINE_{name.upper()}"] = value
    return env


async def _wait_ready(
    client: httpx.AsyncClient, proc: subprocess.Popen[bytes], within: float
) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"rankline serve exited with {proc.returncode}")
        try:
            if (await client.get("/readyz")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.1)
    raise SystemExit(f"rankline serve was not ready within {within:.0f} s")


def _item(board: str, n: int, players: int, run: str) -> dict[str, Any]:
    if _random is not None:  # --preload: a random existing player, a random score
        player, score = _random.randrange(players), _random.randrange(1_000_000_000)
    else:
        player, score = n % players, (n * 7919) % 1_000_003
    return {"board": board, "player_id": f"p:{player}", "match_id": f"{run}:{n}", "score": score}


_random: random.Random | None = None


def _batch_bodies(args: argparse.Namespace, board: str, run: str, first: int) -> list[bytes]:
    bodies = []
    for start in range(first, first + args.events, args.batch):
        stop = min(start + args.batch, first + args.events)
        items = [_item(board, n, args.players, run) for n in range(start, stop)]
        bodies.append(orjson.dumps({"scores": items}))
    return bodies


def _single_bodies(args: argparse.Namespace, board: str, run: str, first: int) -> list[bytes]:
    bodies = []
    for n in range(first, first + args.events):
        item = _item(board, n, args.players, run)
        del item["board"]
        bodies.append(orjson.dumps(item))
    return bodies


async def _drive(
    client: httpx.AsyncClient,
    path: str,
    bodies: list[bytes],
    clients: int,
    batch: bool,
    tokens: list[str] | None = None,
) -> tuple[float, int]:
    """Send every body from ``clients`` concurrent loops; (seconds, failed items). Given
    ``tokens``, the requests ask for an asynchronous answer (202) and collect its tokens."""
    queue = list(reversed(bodies))
    failed = 0
    expected = 200 if tokens is None else 202
    headers = {} if tokens is None else {"prefer": "respond-async"}

    async def loop() -> None:
        nonlocal failed
        while queue:
            body = queue.pop()
            response = await client.post(path, content=body, headers=headers)
            if response.status_code != expected:
                raise SystemExit(f"{path} answered {response.status_code}: {response.text[:500]}")
            answer = orjson.loads(response.content)
            if batch:
                failed += sum(1 for r in answer["results"] if "error" in r)
            if tokens is not None:
                tokens.append(answer["token"])

    started = time.perf_counter()
    await asyncio.gather(*(loop() for _ in range(clients)))
    return time.perf_counter() - started, failed


async def _settle(client: httpx.AsyncClient, board: str, tokens: list[str]) -> None:
    """Wait until every token is applied (one token naming the last position of each
    partition): a read given ``after=`` answers 503 until then, for 10 minutes at most."""
    last: dict[int, int] = {}
    for token in tokens:
        for partition, position in parse_token(token).items():
            last[partition] = max(last.get(partition, 0), position)
    after = make_token(last)
    deadline = time.monotonic() + 600
    while True:
        if time.monotonic() > deadline:
            raise SystemExit("the submissions were not applied within 10 minutes")
        response = await client.get(f"/v1/boards/{board}/top?limit=1&after={after}")
        if response.status_code == 200:
            return
        if response.status_code != 503:
            raise SystemExit(f"read after {after} answered {response.status_code}")


@contextlib.contextmanager
def _sampled(path: str | None, pid: int) -> Iterator[None]:
    """Sample the server with py-spy (``pip install py-spy``) while the block runs, when
    ``path`` is given; collapsed stacks by thread go to ``path`` (readable by speedscope
    or flamegraph.pl), so the writer's SQLite thread shows apart from the event loop."""
    if path is None:
        yield
        return
    spy = str(Path(sys.executable).with_name("py-spy"))
    argv = [spy, "record", "--pid", str(pid), "--format", "raw", "--output", path]
    argv += ["--rate", "250", "--threads"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)  # let it attach before the load starts
    try:
        yield
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


async def _probe(args: argparse.Namespace, base: str, proc: subprocess.Popen[bytes]) -> None:
    headers = {"authorization": f"Bearer {KEY}", "content-type": "application/json"}
    limits = httpx.Limits(max_connections=args.clients, max_keepalive_connections=args.clients)
    async with httpx.AsyncClient(
        base_url=base, headers=headers, timeout=120, limits=limits
    ) as client:
        await _wait_ready(client, proc, args.ready_timeout)
        run = uuid.uuid4().hex[:8]
        board = f"probe-{run}"
        if args.preload:
            board = "bench"
        else:
            spec = {"windows": args.windows.split(","), "policy": args.policy}
            response = await client.put(f"/v1/boards/{board}", content=orjson.dumps(spec))
            response.raise_for_status()
        try:
            if args.wrk:
                _wrk(args, base)
                return
            batch = args.mode == "batch"
            make = _batch_bodies if batch else _single_bodies
            path = "/v1/scores/batch" if batch else f"/v1/boards/{board}/scores"
            if args.warmup:
                warm = argparse.Namespace(**{**vars(args), "events": args.warmup})
                await _drive(client, path, make(warm, board, run, 10**9), args.clients, batch)
            bodies = make(args, board, run, 0)
            tokens: list[str] | None = [] if args.respond_async else None
            applied = 0.0
            with _sampled(args.profile, proc.pid):
                cpu = servers.cpu_seconds(proc.pid)
                started = time.perf_counter()
                seconds, failed = await _drive(client, path, bodies, args.clients, batch, tokens)
                if tokens is not None:
                    await _settle(client, board, tokens)
                    applied = time.perf_counter() - started
                cpu = servers.cpu_seconds(proc.pid) - cpu
            if failed:
                raise SystemExit(f"{failed} submissions failed")
            rate = args.events / seconds
            if tokens is not None:
                print(
                    f"respond-async: taken into the log at {rate:,.0f}/s, all applied after "
                    f"{applied:.2f} s = {args.events / applied:,.0f}/s end to end"
                )
            board_of = (
                f"preloaded board of {args.players:,} players"
                if args.preload
                else f"{args.players} players, windows {args.windows}"
            )
            print(
                f"{args.mode}: {args.events} submissions in {seconds:.2f} s = {rate:,.0f}/s "
                f"({args.clients} clients, batch {args.batch if batch else 1}, {board_of}); "
                f"server CPU {cpu / args.events * 1e6:.1f} us/submission; "
                f"load {os.getloadavg()[0]:.1f}"
            )
        finally:
            if not args.preload:
                await client.delete(f"/v1/boards/{board}")


def _wrk(args: argparse.Namespace, base: str) -> None:
    """Drive the preloaded board with wrk and the bench's script (``--wrk``): one Python
    client spends more CPU per request than the server's group commit, so on a small
    machine it, not the server, sets the single-submission rate. Every 2xx answer came
    after its commit."""
    for mode in ("single", "batch") if args.mode == "both" else (args.mode,):
        _wrk_run(argparse.Namespace(**{**vars(args), "mode": mode}), base)


def _wrk_run(args: argparse.Namespace, base: str) -> None:
    from rankline.bench import wrk

    endpoint = "batch" if args.mode == "batch" else "submit"
    connections = 4 if endpoint == "batch" else args.clients  # as ``rankline bench``
    wrk_args = {
        "n": args.players,
        "board": "bench",
        "key": KEY,
        "run": uuid.uuid4().hex[:8],
        # A seed per run (and per endpoint, for --mode both): with one seed every run would
        # resend the players and scores of the last one, and those repeats change no standing.
        "seed": 2 * (random.randrange(1, 2**30) if args.seed is None else args.seed)
        + (endpoint == "batch"),
    }
    profile = f"{args.profile}.{endpoint}" if args.profile else None
    with _sampled(profile, args.server_pid):
        cpu = servers.cpu_seconds(args.server_pid)
        result = wrk.run(
            base, endpoint, connections=connections, threads=1, seconds=args.wrk, args=wrk_args
        )
        cpu = servers.cpu_seconds(args.server_pid) - cpu
    wrk.check(endpoint, result)
    per = 1000 if endpoint == "batch" else 1
    submissions = result.requests * per
    print(
        f"{args.mode} (wrk): {submissions} submissions in {args.wrk:.0f} s = "
        f"{result.rps * per:,.0f}/s ({connections} connections, batch {per}, preloaded board "
        f"of {args.players:,} players); p50 {result.p50_ms:.0f} "
        f"ms; server CPU {cpu / max(submissions, 1) * 1e6:.1f} us/submission; "
        f"load {os.getloadavg()[0]:.1f}"
    )


def main(args: argparse.Namespace) -> None:
    global _random
    if args.respond_async and (args.wrk or args.mode != "batch"):
        raise SystemExit("--respond-async times batches from Python clients: not with --wrk")
    if args.database_url:
        asyncio.run(_ensure_database(args.database_url, args.fresh_database))
    with tempfile.TemporaryDirectory(prefix="rankline-probe-") as tmp:
        data_dir = Path(args.data_dir) if args.data_dir else Path(tmp) / "data"
        env = _env(args, data_dir)
        if args.preload:
            args.players = args.preload
            _random = random.Random(args.seed)
            asyncio.run(_preload(args, data_dir))
        elif args.database_url:
            subprocess.run(
                [sys.executable, "-m", "rankline", "migrate"], env=env, check=True, cwd=tmp
            )
        port = args.port or _free_port()
        argv = [sys.executable, "-m", "rankline", "serve", "--host", HOST, "--port", str(port)]
        if args.gc:
            # an experiment: the server with other garbage-collector thresholds
            boot = (
                f"import gc, sys; gc.set_threshold({args.gc}); "
                f"sys.argv = ['rankline', *{argv[3:]!r}]; "
                "from rankline.cli import main; main()"
            )
            argv = [sys.executable, "-c", boot]
        with (Path(tmp) / "serve.log").open("wb") as log:
            proc = subprocess.Popen(argv, env=env, cwd=tmp, stdout=log, stderr=subprocess.STDOUT)
            args.server_pid = proc.pid
            try:
                asyncio.run(_probe(args, f"http://{HOST}:{port}", proc))
            finally:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        if proc.returncode not in (0, -15):
            print((Path(tmp) / "serve.log").read_text(errors="replace")[-3000:])


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="RANKLINE_DATABASE_URL (default: embedded SQLite)")
    parser.add_argument("--redis-url", help="RANKLINE_REDIS_URL (default: in-process index)")
    parser.add_argument(
        "--fresh-database",
        action="store_true",
        help="drop and create the --database-url database first (repeatable runs)",
    )
    parser.add_argument(
        "--mode", choices=("batch", "single", "both"), default="batch", help="both: --wrk only"
    )
    parser.add_argument(
        "--respond-async",
        action="store_true",
        help="ask for 202 answers (Prefer: respond-async) and time until all are applied: "
        "the server CPU is then from request to applied standings",
    )
    parser.add_argument("--events", type=int, default=50_000, help="submissions to time")
    parser.add_argument("--warmup", type=int, default=2_000, help="untimed submissions first")
    parser.add_argument("--batch", type=int, default=1_000, help="items per batch request")
    parser.add_argument("--clients", type=int, default=4, help="concurrent connections")
    parser.add_argument("--players", type=int, default=1_000_000, help="distinct player ids")
    parser.add_argument("--windows", default="all_time", help="the board's windows, a,b,c")
    parser.add_argument("--policy", default="best")
    parser.add_argument(
        "--preload",
        type=int,
        default=0,
        help="players on the bench board, bulk-loaded once and kept (see above)",
    )
    parser.add_argument(
        "--data-dir", help="RANKLINE_DATA_DIR to keep between runs (default: a temporary one)"
    )
    parser.add_argument(
        "--wrk",
        type=float,
        default=0,
        help="with --preload: drive the board with wrk for this many seconds instead",
    )
    parser.add_argument("--seed", type=int, help="random players and scores (default: new ones)")
    parser.add_argument("--ready-timeout", type=float, default=600, help="seconds to start")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--set", action="append", default=[], help="NAME=value server setting")
    parser.add_argument("--gc", help="gc.set_threshold arguments for the server: 50000,20,100")
    parser.add_argument(
        "--profile",
        help="sample the server with py-spy; collapsed stacks by thread to this file "
        "(with --wrk, to PATH.submit and PATH.batch)",
    )
    return parser


if __name__ == "__main__":
    main(_parser().parse_args())
