"""The lean reference: a plain raw-ASGI app answering rank, around and top over the bench's
N players from a sorted Python list and a dict.

It answers the same shapes as rankline (the same fields, the same JSON encoder and time
format) with as little as tight Python needs: no framework, no validation beyond what the
three paths need, no caches, no index abstraction. Served by the same server software as
rankline and the ceiling, in the same run, it says how far rankline's own overhead is from
plain code doing the same work: rankline's rate over the lean reference's, per endpoint.

Run it alone with ``python -m rankline_bench.lean --n 1000000 --port 8002``.
"""

from __future__ import annotations

import argparse
import os
from bisect import bisect_left
from typing import Any
from urllib.parse import parse_qs

import msgspec
from starlette.types import Receive, Scope, Send

from rankline import ordering
from rankline.reading.cursors import encode_cursor
from rankline.runtime.clock import SystemClock, format_time
from rankline_bench.load import BOARD_ID, Dataset

_encoder = msgspec.json.Encoder()
_HEADERS = [(b"content-type", b"application/json")]
_NOT_FOUND = b'{"status":404}'
_HEAD = {
    "board": BOARD_ID,
    "window": "all_time",
    "period": "all",
    "scope": "global",
    "period_ends_at": None,
    "closes_at": None,
}
_Key = tuple[int, int, str]
"""(-score, achieved_at, player_id): ascending order is the rank order of a desc board."""


class LeanBoard:
    """The bench board as a sorted list of keys and a dict player → key."""

    def __init__(self, data: Dataset) -> None:
        keys = [(-data.score(i), data.at0 + i, f"p:{i}") for i in range(data.n)]
        keys.sort()
        self.keys: list[_Key] = keys
        self.by_player: dict[str, _Key] = {key[2]: key for key in keys}

    def rank(self, key: _Key) -> int:
        return bisect_left(self.keys, key) + 1

    def view(self, key: _Key, rank: int) -> dict[str, Any]:
        total = len(self.keys)
        return {
            "player_id": key[2],
            "score": -key[0],
            "rank": rank,
            "competition_rank": bisect_left(self.keys, (key[0],)) + 1,
            "percentile": round(100.0 * (total - rank) / total, 4),
            "achieved_at": format_time(key[1]),
            "previous_rank": None,  # movement: a loaded board's players have none known
            "best_rank": None,
        }

    def entries(self, start: int, stop: int) -> list[dict[str, Any]]:
        """Entries of ranks ``start + 1`` to ``stop``."""
        return [
            {"rank": start + n, "player_id": k[2], "score": -k[0], "achieved_at": format_time(k[1])}
            for n, k in enumerate(self.keys[start:stop], 1)
        ]


class LeanApp:
    """The ASGI app: three paths under ``/v1/boards/bench``, everything else 404."""

    def __init__(self, data: Dataset) -> None:
        self.data = data
        self.board: LeanBoard | None = None
        self.clock = SystemClock()
        self.prefix = f"/v1/boards/{BOARD_ID}/"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        status, body = self._answer(scope["path"], scope["query_string"])
        await send({"type": "http.response.start", "status": status, "headers": _HEADERS})
        await send({"type": "http.response.body", "body": body})

    def load(self) -> None:
        """Build the players (the lifespan's startup does; in process, call it first)."""
        self.board = LeanBoard(self.data)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.load()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return

    def _answer(self, path: str, query: bytes) -> tuple[int, bytes]:
        board = self.board
        if board is None or not path.startswith(self.prefix):
            return 404, _NOT_FOUND
        rest = path[len(self.prefix) :]
        params = {k: v[-1] for k, v in parse_qs(query.decode()).items()}
        head = _HEAD | {"total": len(board.keys), "as_of": format_time(self.clock.now())}
        if rest == "top":
            offset = int(params.get("offset", 0))
            limit = int(params.get("limit", 100))
            entries = board.entries(offset, offset + limit)
            page = head | {"entries": entries}
            if entries and offset + limit < len(board.keys):  # a cursor to the next page
                score, at, player = board.keys[offset + limit - 1]
                page["next"] = encode_cursor(ordering.encode(-score, at, player, "desc"))
            return 200, _encoder.encode(page)
        if not rest.startswith("players/"):
            return 404, _NOT_FOUND
        player, _, tail = rest[len("players/") :].partition("/")
        key = board.by_player.get(player)
        if key is None:
            return 404, _NOT_FOUND
        rank = board.rank(key)
        if tail == "":
            return 200, _encoder.encode(head | board.view(key, rank))
        if tail == "around":
            k = int(params.get("k", 5))
            entries = board.entries(max(0, rank - 1 - k), rank + k)
            view = board.view(key, rank)
            return 200, _encoder.encode(head | {"player": view, "entries": entries})
        return 404, _NOT_FOUND


def app_from_env() -> LeanApp:
    """The app for the players the environment names (what ``main`` passes to workers)."""
    return LeanApp(
        Dataset(
            int(os.environ["RANKLINE_LEAN_N"]),
            at0=int(os.environ["RANKLINE_LEAN_AT0"]),
            seed=int(os.environ.get("RANKLINE_LEAN_SEED", "1")),
        )
    )


def main(argv: list[str] | None = None) -> None:
    from rankline.http import server

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, required=True, help="players p:0 .. p:n-1")
    parser.add_argument("--at0", type=int, default=1_700_000_000_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8002)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--server", choices=server.SERVERS, default=server.DEFAULT_SERVER)
    args = parser.parse_args(argv)
    os.environ["RANKLINE_LEAN_N"] = str(args.n)
    os.environ["RANKLINE_LEAN_AT0"] = str(args.at0)
    os.environ["RANKLINE_LEAN_SEED"] = str(args.seed)
    server.run(
        args.server,
        "rankline_bench.lean:app_from_env",
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level=args.log_level,
        app=app_from_env(),
        factory=True,
        # each worker builds its players in one long stretch holding the GIL (the sort of N
        # keys), during which it cannot answer the supervisor's health check: at 10M that
        # takes longer than uvicorn's 5 s, and the worker would be killed and started anew
        health_seconds=600,
    )


if __name__ == "__main__":
    main()
