"""The demo's tournament: a short recurring one with cohorts, and a local webhook receiver
that checks each edition's signature and prints its results.

Every ``EVERY_SECONDS`` a new edition of ``sprint`` opens for ``EDITION_SECONDS``; players
of the demo's game submit scores to it as they play, each put in a cohort of
``COHORT_SIZE``. When an edition's grace has passed, the server posts its results to the
receiver, which prints the podium and the rewards.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import random
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from rankline.client import ApiError, AsyncClient

TOURNAMENT = "sprint"
EDITION_SECONDS = 90
EVERY_SECONDS = 120
GRACE_SECONDS = 5
COHORT_SIZE = 10
REWARDS = [
    {"ranks": [1, 1], "reward": {"gems": 500, "title": "Sprint champion"}},
    {"ranks": [2, 3], "reward": {"gems": 200}},
    {"top_percent": 25, "reward": {"gems": 50}},
]
SIGNATURE = "x-rankline-signature"


class Receiver:
    """A webhook receiver on loopback: verifies ``X-Rankline-Signature``, drops a delivery
    it has seen (by ``id``), and hands each edition's results to ``show``."""

    def __init__(self, secret: str, show: Callable[[dict[str, Any]], None]) -> None:
        self.secret = secret
        self.seen: set[str] = set()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                status = receiver.receive(self.headers.get(SIGNATURE, ""), body)
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._show = show
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/rankline"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def receive(self, signature: str, body: bytes) -> int:
        expected = "sha256=" + hmac.new(self.secret.encode(), body, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(signature, expected):
            return 401
        results = json.loads(body)
        with self._lock:
            if results["id"] in self.seen:
                return 200  # a repeated delivery: acknowledged, not shown twice
            self.seen.add(results["id"])
        self._show(results)
        return 200

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def podium(results: dict[str, Any], names: dict[str, str]) -> list[str]:
    """Lines that tell an edition's results: the top three and who got a reward."""
    lines = [
        f"{results['tournament']} edition {results['edition']} is over: "
        f"{results['total']} players (results id {results['id']})"
    ]
    for entry in results["results"][:3]:
        who = names.get(entry["player_id"], entry["player_id"])
        reward = entry.get("reward")
        lines.append(f"  #{entry['rank']} {who} {entry['score']:,}  reward {reward}")
    rewarded = sum(1 for e in results["results"] if e.get("reward"))
    lines.append(f"  {rewarded} players rewarded")
    return lines


async def set_up(rl: AsyncClient, webhook_url: str, secret: str) -> None:
    start = datetime.now(UTC).replace(microsecond=0)
    await rl.put_tournament(
        TOURNAMENT,
        title="Sprint (every 2 minutes)",
        starts_at=start.isoformat().replace("+00:00", "Z"),
        ends_at=(start + timedelta(seconds=EDITION_SECONDS)).isoformat().replace("+00:00", "Z"),
        every_seconds=EVERY_SECONDS,
        grace_seconds=GRACE_SECONDS,
        cohort_size=COHORT_SIZE,
        rewards=REWARDS,
        webhook={"url": webhook_url, "secret": secret},
    )


async def play(rl: AsyncClient, players: list[tuple[str, float]], rng: random.Random) -> None:
    """Players submit runs to the running edition, a few a second, until cancelled; a run
    between two editions is refused (409) and skipped."""
    runs = 0
    while True:
        runs += 1
        player, skill = rng.choice(players)
        score = max(0, round(rng.gauss(skill, skill * 0.2)))
        # Refused between editions (409), or lost on a busy server: the next run tries again.
        with contextlib.suppress(ApiError, httpx.HTTPError):
            await rl.submit_tournament(TOURNAMENT, player, score, match_id=f"run:{runs}")
        await asyncio.sleep(0.2)


__all__ = ["Receiver", "play", "podium", "set_up"]
