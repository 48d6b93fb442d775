"""Helpers shared by tests/test_lifecycle.py and tests/test_archive_reads.py: live snapshots
of a period's leaderboards, the archive's rows and the period states, read the same way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
from sqlalchemy import select

from helpers_api import get_json, top
from rankline import Rankline
from rankline.runtime.clock import format_time
from rankline.store import schema as t

Row = tuple[int, str, int, str]
"""(rank, player_id, score, achieved_at as the API renders it)."""


async def live(
    client: httpx.AsyncClient, board: str, window: str, period: str, scopes: Sequence[str]
) -> dict[str, list[Row]]:
    """Every entry of each scope's leaderboard of a period, as GET /top answers."""
    found = {}
    for scope in scopes:
        body = await top(client, board, window=window, period=period, scope=scope, limit=1000)
        assert len(body["entries"]) == body["total"] < 1000
        found[scope] = [
            (e["rank"], e["player_id"], e["score"], e["achieved_at"]) for e in body["entries"]
        ]
    return found


async def archived(service: Rankline, board: str, window: str, period: str) -> dict[str, list[Row]]:
    """The archive's rows of a period, by scope, in rank order."""
    a = t.archive
    query = (
        select(a.c.scope, a.c.rank, a.c.player_id, a.c.score, a.c.achieved_at)
        .where(a.c.board_id == board, a.c.window == window, a.c.period == period)
        .order_by(a.c.scope, a.c.rank)
    )
    found: dict[str, list[Row]] = {}
    async with service.store.engine.connect() as conn:
        for scope, rank, player, score, at in await conn.execute(query):
            found.setdefault(scope, []).append((rank, player, score, format_time(at)))
    return found


async def period_rows(service: Rankline, board: str) -> dict[tuple[str, str], dict[str, Any]]:
    """rl_periods of a board: (window, period) → state, total, archived_at, claimed_until."""
    p = t.periods
    query = select(
        p.c.window, p.c.period, p.c.state, p.c.total, p.c.archived_at, p.c.claimed_until
    ).where(p.c.board_id == board)
    async with service.store.engine.connect() as conn:
        return {
            (w, n): {"state": s, "total": total, "archived_at": at, "claimed_until": claimed}
            for w, n, s, total, at, claimed in await conn.execute(query)
        }


async def states(client: httpx.AsyncClient, board: str, window: str) -> dict[str, tuple[str, int]]:
    """GET /periods of a window: period → (state, total)."""
    body = await get_json(client, f"/v1/boards/{board}/periods", window=window)
    return {p["period"]: (p["state"], p["total"]) for p in body["periods"]}
