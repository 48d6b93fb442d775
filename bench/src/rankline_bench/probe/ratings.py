"""Measure rated matches through the real HTTP API: two-player matches on a rating board.

Starts ``rankline serve`` (one worker, the embedded default: SQLite + memory index unless
``--database-url``/``--redis-url`` say otherwise) on a free loopback port with a temporary data
dir, creates a rating board, sends ``--matches`` two-player matches between ``--players``
players, ``--batch`` a request to ``POST /v1/matches/batch`` (or one a request with
``--batch 1``, to ``POST /v1/boards/{id}/matches``) from ``--clients`` concurrent clients,
checks every answer and prints matches/s. Every answer comes after its matches are durable
and rated, so this is the rated-match rate.

    rankline bench probe ratings                          # elo, batches of 1,000
    rankline bench probe ratings --system glicko2
    rankline bench probe ratings --respond-async          # 202s, timed until rated
    rankline bench probe ratings --batch 1 --clients 16 --matches 2000
    rankline bench probe ratings --profile /tmp/rating.svg  # py-spy of the server
"""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from rankline_bench import servers

KEY = "probe-key"
SYSTEMS = ("elo", "glicko2", "openskill")
AUTH = {"Authorization": f"Bearer {KEY}"}


@dataclass(frozen=True)
class Options:
    system: str = "elo"
    matches: int = 50_000
    players: int = 10_000
    batch: int = 1000
    clients: int = 2
    seed: int = 18
    respond_async: bool = False
    database_url: str | None = None
    redis_url: str | None = None
    profile: str | None = None


def _match(n: int, rng: random.Random, players: int) -> dict[str, object]:
    a, b = rng.sample(range(players), 2)
    place_a, place_b = rng.choice(((1, 2), (2, 1), (1, 1)))
    return {
        "match_id": f"m{n}",
        "results": [
            {"player_id": f"p{a}", "place": place_a},
            {"player_id": f"p{b}", "place": place_b},
        ],
    }


async def _probe(args: Options, base: str) -> None:
    rng = random.Random(args.seed)
    limits = httpx.Limits(max_connections=args.clients)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as client:
        board = "probe-rated"
        rating = {
            "system": args.system,
            **({"provisional_games": 0} if args.system == "elo" else {}),
        }
        r = await client.put(
            f"/v1/boards/{board}", json={"policy": "rating", "rating": rating}, headers=AUTH
        )
        r.raise_for_status()
        bodies: list[tuple[str, object]] = []
        for start in range(0, args.matches, args.batch):
            items = [
                _match(n, rng, args.players)
                for n in range(start, min(start + args.batch, args.matches))
            ]
            if args.batch == 1:
                bodies.append((f"/v1/boards/{board}/matches", items[0]))
            else:
                bodies.append(
                    ("/v1/matches/batch", {"matches": [{"board": board, **m} for m in items]})
                )
        queue = list(reversed(bodies))
        latencies: list[float] = []
        tokens: list[str] = []
        headers = {**AUTH, "Prefer": "respond-async"} if args.respond_async else AUTH

        async def worker() -> None:
            while queue:
                path, body = queue.pop()
                started = time.perf_counter()
                response = await client.post(path, json=body, headers=headers)
                latencies.append(time.perf_counter() - started)
                if args.respond_async and response.status_code == 202:
                    tokens.append(response.json()["token"])
                    continue
                if response.status_code != 200:
                    raise SystemExit(f"{response.status_code}: {response.text[:300]}")
                answer = response.json()
                for item in answer.get("results", [answer]) if args.batch > 1 else [answer]:
                    if "error" in item:
                        raise SystemExit(f"an item failed: {item}")

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(args.clients)))
        for token in tokens:  # rated: every token applied
            while (
                await client.get(f"/v1/boards/{board}/top", params={"after": token})
            ).status_code != 200:
                pass
        elapsed = time.perf_counter() - started
        latencies.sort()
        p50 = latencies[len(latencies) // 2] * 1000
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
        print(
            f"{args.matches} {args.system} matches, batch {args.batch}, {args.clients} clients"
            f"{' (respond-async, until rated)' if args.respond_async else ''}: "
            f"{args.matches / elapsed:,.0f} matches/s ({elapsed:.2f} s; request p50 {p50:.1f} ms, "
            f"p99 {p99:.1f} ms)"
        )


def run(args: Options) -> None:
    if args.system not in SYSTEMS:
        raise ValueError(f"--system takes {', '.join(SYSTEMS)}, not {args.system!r}")
    if not 1 <= args.batch <= 1000:
        raise ValueError(f"--batch takes 1 to 1000 matches a request, not {args.batch}")
    with tempfile.TemporaryDirectory(prefix="rankline-rating-probe-") as tmp:
        settings = {"data_dir": str(Path(tmp) / "data"), "server_keys": KEY}
        settings["log_level"] = "warning"
        if args.database_url:
            settings["database_url"] = args.database_url
        if args.redis_url:
            settings["redis_url"] = args.redis_url
        env = servers.bench_env(**settings)
        if args.database_url:
            subprocess.run([sys.executable, "-m", "rankline", "migrate"], env=env, check=True)
        server = servers.rankline_server(env, 1, Path(tmp) / "serve.log")
        with servers.running(server, timeout=60):
            spy = None
            if args.profile:
                kind = "raw" if args.profile.endswith(".txt") else "flamegraph"
                py_spy = str(Path(sys.executable).parent / "py-spy")
                argv = [py_spy, "record", "-o", args.profile, "--pid", str(server.pid)]
                argv += ["--nonblocking", "--subprocesses", "--format", kind]
                spy = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                asyncio.run(_probe(args, server.url))
            finally:
                if spy is not None:
                    spy.send_signal(signal.SIGINT)
                    spy.wait(timeout=60)
