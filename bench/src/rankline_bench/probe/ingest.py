"""Measure durable ingest through the real HTTP API: batch and single submissions.

Starts ``rankline serve`` (one worker) on a free loopback port with a temporary data dir,
creates a fresh board, drives ``--events`` submissions from ``--clients`` concurrent httpx
clients, checks every answer, and prints events/s. Every acknowledged submission is durable
(the server answers after its transaction commits), so this is the durable ingest rate.
With ``--respond-async`` the batches ask for 202 answers (taken into the log) and the probe
then waits until every token is applied: the server CPU it prints covers the whole way from
request to applied standings. Add ``--intake-only`` for the intake's share alone: the server
takes the submissions without applying any (``RANKLINE_LOG_APPLY=false``), and its CPU per
submission is what taking them into the log costs; then it restarts with its applier, and
the probe times their applying apart.

    rankline bench probe ingest                       # embedded: SQLite + memory
    rankline bench probe ingest --fresh-database \\
        --database-url postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_probe \\
        --redis-url redis://127.0.0.1:6379/15                      # PostgreSQL + Redis
    rankline bench probe ingest --mode single --clients 64 --events 20000

A PostgreSQL or MariaDB database named in the URL is created and migrated when missing (with
``--fresh-database``, dropped first: deleted boards leave dead rows that only a vacuum
removes, and this machine's PostgreSQL runs without autovacuum); the probe's board is
deleted at the end. The load loop is bounded by ``--events``.

``--preload N`` measures against a board that already holds N players, as ``rankline bench``
does: the bench's board (``rankline_bench.load``: ``p:0`` .. ``p:N-1``, best policy,
all_time) is bulk-loaded once into ``--data-dir`` (SQLite) or the ``--database-url``
database, and kept for the next run; submissions then go to random existing players with
random scores and new match ids (about half beat the stored best). A Redis index in
``--redis-url`` is reused when it is already built. ``--wrk S`` drives it with wrk and the
bench's scripts for S seconds instead (``--mode both``: single submissions, then batches):
one Python client is slower than the server's group commit, so single submissions need it.

    rankline bench probe ingest --preload 10000000 --data-dir /tmp/probe-10m
    rankline bench probe ingest --preload 10000000 --data-dir /tmp/probe-10m --profile /tmp/p
    rankline bench probe ingest --preload 10000000 \\
        --database-url postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_10m \\
        --redis-url redis://127.0.0.1:6379/15 --mode both --wrk 15 --clients 64

``--profile FILE`` samples the server with py-spy while the load runs (without stopping it:
``--nonblocking``) and prints how busy each of its threads was: the event loop's, the SQLite
connections' (one per thread), granian's. A thread waiting for the interpreter lock counts
as idle, so the shares say whether one thread is the bound or the lock is.
"""

from __future__ import annotations

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson

from rankline.runtime.clock import SystemClock
from rankline.settings import Settings
from rankline.store.admin import ensure_database
from rankline.store.opening import open_store, store_settings
from rankline.writing.ingest import make_token, parse_token
from rankline_bench import load, probes, servers

HOST = "127.0.0.1"
KEY = "ingest-probe-key"
MODES = ("batch", "single", "both")


@dataclass
class Options:
    database_url: str | None = None
    redis_url: str | None = None
    fresh_database: bool = False
    mode: str = "batch"
    respond_async: bool = False
    intake_only: bool = False
    events: int = 50_000
    warmup: int = 2_000
    batch: int = 1_000
    clients: int = 4
    players: int = 1_000_000
    windows: str = "all_time"
    policy: str = "best"
    preload: int = 0
    data_dir: Path | None = None
    wrk: float = 0
    seed: int | None = None
    ready_timeout: float = 600
    port: int = 0
    set: list[str] = field(default_factory=list)
    gc: str | None = None
    profile: str | None = None
    server_pid: int = 0
    """Set once the server runs."""
    held: tuple[str, list[str]] | None = None
    """``--intake-only``: the board and the tokens of what was taken, not applied yet."""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


async def _preload(args: Options, data_dir: Path) -> None:
    """Bulk-load the bench board with ``--preload`` players unless the store holds it."""
    url = args.database_url or Settings(data_dir=data_dir).database
    async with open_store(store_settings(url), schema="upgraded") as store:
        count = await store.count_standings(load.BOARD_ID)
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


def _env(args: Options, data_dir: Path) -> dict[str, str]:
    """The server's environment, built as the bench's (``servers.bench_env``); ``--set``
    settings last."""
    settings = {"data_dir": str(data_dir), "server_keys": KEY, "log_level": "warning"}
    if args.database_url:
        settings["database_url"] = args.database_url
    if args.redis_url:
        settings["redis_url"] = args.redis_url
    for item in args.set:
        name, _, value = item.partition("=")
        settings[name] = value
    return servers.bench_env(**settings)


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


def _batch_bodies(args: Options, board: str, run: str, first: int) -> list[bytes]:
    bodies = []
    for start in range(first, first + args.events, args.batch):
        stop = min(start + args.batch, first + args.events)
        items = [_item(board, n, args.players, run) for n in range(start, stop)]
        bodies.append(orjson.dumps({"scores": items}))
    return bodies


def _single_bodies(args: Options, board: str, run: str, first: int) -> list[bytes]:
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
    argv = [spy, "record", "--pid", str(pid), "--subprocesses", "--format", "raw"]
    argv += ["--output", path]
    argv += ["--rate", str(_SAMPLES_PER_SECOND), "--threads", "--nonblocking"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)  # let it attach before the load starts
    started = time.perf_counter()
    try:
        yield
    finally:
        seconds = time.perf_counter() - started
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    if not Path(path).is_file():
        print(f"py-spy wrote no profile to {path} (exit status {proc.returncode})")
        return
    _print_threads(Path(path).read_text(), seconds)


_SAMPLES_PER_SECOND = 250


def _print_threads(collapsed: str, seconds: float) -> None:
    """Each busy thread's share of the load's wall time, and the busiest one's top frames:
    where a process bound by one thread (the event loop, holding the interpreter lock)
    spends it."""
    shares = [
        t
        for t in probes.thread_shares(collapsed, seconds, _SAMPLES_PER_SECOND)
        if t["busy"] >= 0.01
    ]
    print(f"server threads busy during the {seconds:.1f} s (py-spy samples, idle left out):")
    for thread in shares:
        print(f"  {thread['busy']:6.0%}  {thread['thread']}")
    if shares:
        print(f"  on top of the busiest's stacks ({shares[0]['thread']}):")
        for frame in shares[0]["self"]:
            print(f"  {frame['share']:6.1%}  {frame['frame']}")


async def _probe(args: Options, base: str, proc: subprocess.Popen[bytes]) -> None:
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
            held: list[str] | None = [] if args.intake_only else None  # applied later
            if args.warmup:
                warm = Options(**{**vars(args), "events": args.warmup})
                warm_bodies = make(warm, board, run, 10**9)
                await _drive(client, path, warm_bodies, args.clients, batch, held)
            bodies = make(args, board, run, 0)
            tokens: list[str] | None = [] if args.respond_async else None
            applied = 0.0
            with _sampled(args.profile, proc.pid):
                cpu = servers.tree_cpu_seconds(proc.pid)
                started = time.perf_counter()
                seconds, failed = await _drive(client, path, bodies, args.clients, batch, tokens)
                if tokens is not None and not args.intake_only:
                    await _settle(client, board, tokens)
                    applied = time.perf_counter() - started
                cpu = servers.tree_cpu_seconds(proc.pid) - cpu
                wall = time.perf_counter() - started  # the time the CPU was measured over
            if failed:
                raise SystemExit(f"{failed} submissions failed")
            rate = args.events / seconds
            if held is not None and tokens is not None:
                held += tokens
                print(
                    f"intake: {args.events} submissions taken into the log in {seconds:.2f} s "
                    f"= {rate:,.0f}/s ({args.clients} clients, batch {args.batch}); server CPU "
                    f"{cpu / args.events * 1e6:.1f} us/submission (the intake alone: the "
                    f"server applies nothing); load {os.getloadavg()[0]:.1f}"
                )
                args.held = (board, held)
                return
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
                f"server CPU {cpu / args.events * 1e6:.1f} us/submission "
                f"({cpu / wall:.2f} of a core); load {os.getloadavg()[0]:.1f}"
            )
        finally:
            if not args.preload and args.held is None:
                await client.delete(f"/v1/boards/{board}")


async def _apply_held(args: Options, base: str, proc: subprocess.Popen[bytes]) -> None:
    """``--intake-only``, second part: the server restarted with its applier applies what
    the first took (the timed submissions and the warm-up), timed from its readiness."""
    assert args.held is not None
    board, tokens = args.held
    headers = {"authorization": f"Bearer {KEY}", "content-type": "application/json"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=120) as client:
        await _wait_ready(client, proc, args.ready_timeout)
        try:
            cpu = servers.tree_cpu_seconds(proc.pid)
            started = time.perf_counter()
            await _settle(client, board, tokens)
            seconds = time.perf_counter() - started
            cpu = servers.tree_cpu_seconds(proc.pid) - cpu
            n = args.events + args.warmup
            print(
                f"applied after a restart with the applier: {n} submissions in "
                f"{seconds:.2f} s = {n / seconds:,.0f}/s; server CPU "
                f"{cpu / n * 1e6:.1f} us/submission; load {os.getloadavg()[0]:.1f}"
            )
        finally:
            if not args.preload:
                await client.delete(f"/v1/boards/{board}")


def _wrk(args: Options, base: str) -> None:
    """Drive the preloaded board with wrk and the bench's script (``--wrk``): one Python
    client spends more CPU per request than the server's group commit, so on a small
    machine it, not the server, sets the single-submission rate. Every 2xx answer came
    after its commit."""
    for mode in ("single", "batch") if args.mode == "both" else (args.mode,):
        _wrk_run(Options(**{**vars(args), "mode": mode}), base)


def _wrk_run(args: Options, base: str) -> None:
    from rankline_bench import wrk

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
        cpu = servers.tree_cpu_seconds(args.server_pid)
        result = wrk.run(
            base, endpoint, connections=connections, threads=1, seconds=args.wrk, args=wrk_args
        )
        cpu = servers.tree_cpu_seconds(args.server_pid) - cpu
    wrk.check(endpoint, result)
    per = 1000 if endpoint == "batch" else 1
    submissions = result.requests * per
    print(
        f"{args.mode} (wrk): {submissions} submissions in {args.wrk:.0f} s = "
        f"{result.rps * per:,.0f}/s ({connections} connections, batch {per}, preloaded board "
        f"of {args.players:,} players); p50 {result.p50_ms:.0f} "
        f"ms; server CPU {cpu / max(submissions, 1) * 1e6:.1f} us/submission "
        f"({cpu / args.wrk:.2f} of a core); load {os.getloadavg()[0]:.1f}"
    )


def run(args: Options) -> None:
    global _random
    if args.mode not in MODES:
        raise ValueError(f"--mode takes {', '.join(MODES)}, not {args.mode!r}")
    if args.respond_async and (args.wrk or args.mode != "batch"):
        raise ValueError("--respond-async times batches from Python clients: not with --wrk")
    if args.intake_only and not args.respond_async:
        raise ValueError("--intake-only goes with --respond-async")
    if args.database_url:
        asyncio.run(ensure_database(args.database_url, fresh=args.fresh_database))
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
        if args.intake_only:
            env["RANKLINE_LOG_APPLY"] = "false"
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
        base = f"http://{HOST}:{port}"
        with (Path(tmp) / "serve.log").open("wb") as log:
            proc = _serve(argv, env, tmp, log)
            args.server_pid = proc.pid
            try:
                asyncio.run(_probe(args, base, proc))
            finally:
                _stop(proc)
            if args.held is not None and proc.returncode in (0, -15):
                env["RANKLINE_LOG_APPLY"] = "true"
                proc = _serve(argv, env, tmp, log)
                try:
                    asyncio.run(_apply_held(args, base, proc))
                finally:
                    _stop(proc)
        if proc.returncode not in (0, -15):
            print((Path(tmp) / "serve.log").read_text(errors="replace")[-3000:])


def _serve(argv: list[str], env: dict[str, str], cwd: str, log: Any) -> subprocess.Popen[bytes]:
    return subprocess.Popen(argv, env=env, cwd=cwd, stdout=log, stderr=subprocess.STDOUT)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
