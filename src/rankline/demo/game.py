"""``rankline demo``: a server and a simulated game, so the page at / moves within seconds.

The server is a ``rankline serve`` subprocess with a generated server key; the game talks
to it only through :class:`rankline.client.AsyncClient`, like a real game server would.
Each player has a skill (normal); each match puts a few players of one region together,
scores them around their skill (normal) and gives them XP (lognormal, capped).
"""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console

from rankline.client import ApiError, AsyncClient
from rankline.demo import tournament as demo_tournament
from rankline.demo.rated_arena import BLITZ, RAPID, RatedArena
from rankline.runtime import tasks

ARENA, XP = "arena-solo", "xp"
REGIONS = ("EU", "NA", "ASIA")
PLAYERS_PER_MATCH = 4
XP_CAP = 500  # the most XP one match gives: an XP score above it is a sum of matches
NAMES = ("Ada", "Bo", "Cyd", "Dax", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lu")
TICK = 0.25  # seconds between submissions
REPORT_EVERY = 3.0  # seconds between progress lines
CATCH_UP = 4
"""A tick sends at most this many ticks' worth of matches: behind that, the game skips ahead
(a busy machine slows the demo's pace instead of piling up a backlog)."""
MAX_MATCHES_PER_TICK = 100

console = Console(stderr=True, soft_wrap=True)


@dataclass(frozen=True)
class Player:
    id: str
    region: str
    skill: float


class Game:
    """The simulated game: players, and matches with realistic scores."""

    def __init__(self, players: int, seed: int | None) -> None:
        self.arena = RatedArena(max(10, players // 10), seed)
        """Chess players of hidden strengths on two rating boards (``demo.rated_arena``)."""
        self.rng = random.Random(seed)
        self.players = [
            Player(f"p:{n}", self.rng.choice(REGIONS), max(100.0, self.rng.gauss(2000, 500)))
            for n in range(1, players + 1)
        ]
        self.matches = 0
        self.submissions = 0
        self.skipped = 0
        """Matches never played because the game fell behind its pace."""
        self.failed = 0
        """Submissions the server did not take (a busy or restarting server)."""

    def match(self) -> list[dict[str, Any]]:
        """One match: a few players of one region, as batch items for both boards."""
        self.matches += 1
        region = self.rng.choice(REGIONS)
        pool = [p for p in self.players if p.region == region] or self.players
        items: list[dict[str, Any]] = []
        for player in self.rng.sample(pool, min(PLAYERS_PER_MATCH, len(pool))):
            score = max(0, round(self.rng.gauss(player.skill, player.skill * 0.15)))
            xp = min(XP_CAP, round(self.rng.lognormvariate(4.0, 0.5)))
            match_id = f"m:{self.matches}:{player.id}"
            arena = {"board": ARENA, "player_id": player.id, "score": score}
            items.append(arena | {"match_id": match_id, "scopes": {"region": player.region}})
            items.append({"board": XP, "player_id": player.id, "score": xp, "match_id": match_id})
        return items


def start_server(host: str, port: int, data_dir: Path, key: str) -> subprocess.Popen[bytes]:
    """``rankline serve`` in a subprocess; its log goes to DATA_DIR/demo-server.log."""
    env = os.environ | {
        "RANKLINE_DATA_DIR": str(data_dir),
        "RANKLINE_SERVER_KEYS": key,
        "RANKLINE_LOG_LEVEL": "warning",
    }
    argv = [sys.executable, "-m", "rankline", "serve", "--host", host, "--port", str(port)]
    with (data_dir / "demo-server.log").open("wb") as log:
        return subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log)


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


async def wait_ready(rl: AsyncClient, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"rankline serve exited with {proc.returncode}")
        try:
            if (await rl.http.get("/readyz")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.1)
    raise RuntimeError("rankline serve was not ready after 60 s")


async def set_up(rl: AsyncClient, game: Game) -> None:
    await rl.put_board(ARENA, windows=["all_time", "daily", "weekly"], scopes=["region"])
    await rl.put_board(XP, policy="sum", windows=["all_time", "daily", "weekly"])
    stars = sorted(game.players, key=lambda p: -p.skill)[: len(NAMES)]  # named, on the page
    for n, player in enumerate(stars):
        await rl.put_player(player.id, display_name=NAMES[n], country=player.region)
    await game.arena.set_up(rl)


async def play(rl: AsyncClient, game: Game, rate: float, duration: float | None) -> None:
    """Submit ``rate`` matches a second: alternately as one batch and as single calls.
    When the machine cannot keep that pace, matches are skipped, never queued up."""
    start = last_report = time.monotonic()
    most = max(1, min(MAX_MATCHES_PER_TICK, round(rate * TICK * CATCH_UP)))
    tick = 0
    while not duration or time.monotonic() - start < duration:
        due = int(rate * (time.monotonic() - start)) - game.matches - game.skipped
        if due > most:
            game.skipped += due - most
            due = most
        items = [item for _ in range(due) for item in game.match()]
        try:
            if items and tick % 2 == 0:
                await rl.submit_batch(items)
            elif items:
                await asyncio.gather(*(rl.submit(**item) for item in items))
            game.submissions += len(items)
            await game.arena.play(rl, due)
        except (ApiError, httpx.HTTPError) as exc:
            game.failed += len(items)
            console.print(f"[yellow]the server did not take {len(items)} submissions: {exc}")
        tick += 1
        if time.monotonic() - last_report >= REPORT_EVERY:
            last_report = time.monotonic()
            await report(rl, game, last_report - start)
        await asyncio.sleep(TICK)


async def report(rl: AsyncClient, game: Game, elapsed: float) -> None:
    leaders = []
    for board in (ARENA, XP):
        try:
            top = (await rl.top(board, limit=1))["entries"]
        except (ApiError, httpx.HTTPError):
            continue  # a busy server: the next report tries again
        if top:
            who = top[0].get("display_name") or top[0]["player_id"]
            leaders.append(f"{board} leader {who} {top[0]['score']:,}")
    for board in (BLITZ, RAPID):
        try:
            fit = await game.arena.convergence(rl, board)
        except (ApiError, httpx.HTTPError):
            continue
        if fit is not None:
            leaders.append(f"{board} ratings vs hidden strength {fit:+.2f}")
    behind = f"  skipped {game.skipped:,} (behind pace)" if game.skipped else ""
    console.print(
        f"[dim]{elapsed:5.0f}s[/dim] matches {game.matches:,}  "
        f"submissions {game.submissions:,}{behind}  " + "  ".join(leaders)
    )


def _show_results(names: dict[str, str]) -> Any:
    def show(results: dict[str, Any]) -> None:
        for line in demo_tournament.podium(results, names):
            console.print(f"[bold magenta]{line}")

    return show


async def _run(url: str, key: str, proc: subprocess.Popen[bytes], **opts: Any) -> None:
    game = Game(opts["players"], opts["seed"])
    stars = sorted(game.players, key=lambda p: -p.skill)[: len(NAMES)]
    names = {player.id: NAMES[n] for n, player in enumerate(stars)}
    receiver = demo_tournament.Receiver(secrets.token_urlsafe(16), _show_results(names))
    async with AsyncClient(url, server_key=key) as rl:
        await wait_ready(rl, proc)
        await set_up(rl, game)
        with receiver:
            await demo_tournament.set_up(rl, receiver.url, receiver.secret)
            sprint = asyncio.create_task(
                demo_tournament.play(rl, [(p.id, p.skill) for p in game.players], game.rng)
            )
            console.print(f"[bold green]open {url}/[/bold green]  (API docs: {url}/docs)")
            console.print(f"server key: {key}")
            console.print(
                "tournament sprint: a 90 s edition every 2 minutes, cohorts of 10; its results "
                f"are posted to {receiver.url} and printed here"
            )
            try:
                await play(rl, game, opts["rate"], opts["duration"])
            finally:
                await tasks.stop(sprint)
                console.print(
                    f"demo done: {game.matches:,} matches, {game.submissions:,} submissions, "
                    f"{len(game.players):,} players"
                    + (f", {game.skipped:,} matches skipped to keep pace" if game.skipped else "")
                    + (f", {game.failed:,} submissions not taken" if game.failed else "")
                )


def run_demo(
    *,
    host: str,
    port: int,
    data_dir: Path | None,
    players: int,
    rate: float,
    duration: float | None,
    seed: int | None,
) -> None:
    """Start the server, play until ``duration`` (None or 0: until Ctrl-C), stop the server."""
    key = "rk_" + secrets.token_urlsafe(32)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C, even in background
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # so `kill` stops the server too
    with tempfile.TemporaryDirectory(prefix="rankline-demo-") as tmp:
        where = data_dir or Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        url = f"http://{host}:{port}"
        console.print(f"starting rankline serve on {url} (data in {where})")
        proc = start_server(host, port, where, key)
        try:
            asyncio.run(
                _run(
                    url,
                    key,
                    proc,
                    players=players,
                    rate=rate,
                    duration=duration,
                    seed=seed,
                )
            )
        except KeyboardInterrupt:
            console.print("stopped")
        except RuntimeError as exc:
            log = (where / "demo-server.log").read_text(errors="replace")
            raise RuntimeError(f"{exc}; its log:\n{log}") from exc
        finally:
            stop_server(proc)
