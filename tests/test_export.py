"""``rankline export``: a leaderboard out in the format ``rankline import`` reads, so export
then import into an empty board gives the same standings (windows, scopes, subscores and
metadata), on every stack."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from helpers_api import AUTH, open_app, open_client, put_board, submit
from helpers_backends import flush_redis
from rankline import ManualClock, Settings
from rankline.cli import app as cli_app
from rankline.reading import export
from rankline.runtime.clock import format_time
from rankline.service import Rankline
from rankline.store import schema
from rankline.writing import importing

SPEC: dict[str, Any] = {
    "windows": ["all_time", "daily"],
    "scopes": ["region"],
    "subscore": "asc",
}
WHERES = [
    {"window": w, "scope": s}
    for w in ("all_time", "daily")
    for s in ("global", "region:EU", "region:US")
]


def _at(minute: int) -> str:
    return f"2026-11-21T10:{minute:02d}:00.000Z"


async def _fill(client: httpx.AsyncClient) -> None:
    await put_board(client, "arena", **SPEC)
    for i in range(12):
        region = "EU" if i % 3 else "US"
        player = f"p:{i}"
        # two submissions each, the second better for some; ties broken by subscore
        await submit(
            client,
            "arena",
            player,
            100 + i % 4,
            f"a{i}",
            at=_at(i),
            subscore=i % 2,
            scopes={"region": region},
            metadata={"kills": i},
        )
        await submit(
            client,
            "arena",
            player,
            100 + i % 5,
            f"b{i}",
            at=_at(20 + i),
            subscore=1,
            scopes={"region": region},
            metadata={"kills": 2 * i, "map": "dust"},
        )


async def _reads(client: httpx.AsyncClient) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for where in WHERES:
        response = await client.get("/v1/boards/arena/top", params={**where, "limit": 100})
        body = response.json()
        found[str(where)] = (
            body["total"],
            [
                (e["rank"], e["player_id"], e["score"], e["subscore"], e["achieved_at"])
                for e in body["entries"]
            ],
        )
    return found


async def _events(service: Rankline) -> dict[tuple[str, str], tuple[str, str]]:
    """(player, at) -> (scopes, metadata) of the board's score events."""
    e = schema.score_events
    async with service.store.engine.connect() as conn:
        rows = await conn.execute(
            select(e.c.player_id, e.c.at, e.c.scopes, e.c.metadata).where(e.c.board_id == "arena")
        )
        return {(r[0], format_time(r[1])): (r[2], r[3]) for r in rows}


@pytest.mark.cases  # JSON lines on every stack, CSV on the embedded one
@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
async def test_export_then_import_gives_the_same_standings(
    settings: Settings, clock: ManualClock, tmp_path: Path, fmt: str
) -> None:
    path = tmp_path / f"arena.{fmt}"
    async with open_app(settings, clock) as app, open_client(app) as client:
        await _fill(client)
        before = await _reads(client)
        service: Rankline = app.state.service
        all_events = await _events(service)
        top = (await client.get("/v1/boards/arena/top", params={"limit": 100})).json()
        setting = {
            (e["player_id"], e["achieved_at"]): all_events[e["player_id"], e["achieved_at"]]
            for e in top["entries"]
        }
        board = await service.boards.find("arena")
        leaderboard = export.leaderboard_of(board, None, None, None, clock.now())
        seen: list[tuple[int, int]] = []
        with path.open("w", encoding="utf-8", newline="") as out:
            async for line in export.export_lines(
                service.store,
                board,
                leaderboard,
                fmt=fmt,
                metadata=True,
                progress=lambda done, total: seen.append((done, total)),
            ):
                out.write(line)
        assert seen[-1] == (12, 12)
        # an empty board of the same definition
        assert (await client.delete("/v1/boards/arena", headers=AUTH)).status_code == 204
        await put_board(client, "arena", **SPEC)
        summary = await importing.import_file(service.store, path, "arena", clock=clock)
        assert (summary.imported, summary.rejected) == (12, 0), summary.first_rejected
    if settings.redis_url:
        flush_redis(settings.redis_url)
    async with open_app(settings, clock) as app, open_client(app) as client:
        assert await _reads(client) == before
        # each imported submission carries the scopes and metadata of the one it stands for
        imported = await _events(app.state.service)
    if fmt == "jsonl":
        assert imported == setting
    else:  # CSV has no metadata column
        assert {k: v[0] for k, v in imported.items()} == {k: v[0] for k, v in setting.items()}


@pytest.mark.edge
def test_the_command_writes_the_file(
    settings: Settings, clock: ManualClock, tmp_path: Path
) -> None:
    async def fill() -> None:
        async with open_app(settings, clock) as app, open_client(app) as client:
            await _fill(client)

    asyncio.run(fill())
    env = {"RANKLINE_DATABASE_URL": settings.database, "RANKLINE_DATA_DIR": str(tmp_path)}
    runner = CliRunner()
    missing = runner.invoke(cli_app, ["export", "--format", "csv"], env=env)
    assert missing.exit_code != 0 and "--board is required" in missing.output
    bad = runner.invoke(cli_app, ["export", "--board", "arena"], env=env)
    assert bad.exit_code != 0 and "--format" in bad.output
    out = tmp_path / "arena.csv"
    args = ["export", "--board", "arena", "--window", "daily", "--period", "2026-11-21"]
    done = runner.invoke(
        cli_app, [*args, "--scope", "region:US", "--format", "csv", "-o", str(out)], env=env
    )
    assert done.exit_code == 0, done.output
    assert "exported 4 rows" in done.output
    lines = out.read_text().splitlines()
    assert lines[0] == "player_id,score,subscore,achieved_at,match_id,region"
    assert sorted(line.split(",")[0] for line in lines[1:]) == ["p:0", "p:3", "p:6", "p:9"]
    assert all(line.endswith(",US") for line in lines[1:])


EXPORTS = [
    ({"format": "csv"}, ["--format", "csv"]),
    ({"format": "jsonl"}, ["--format", "jsonl"]),
    ({"format": "jsonl", "metadata": "true"}, ["--format", "jsonl", "--metadata"]),
]
PLACES = [
    ({}, []),
    ({"scope": "region:EU"}, ["--scope", "region:EU"]),
    (
        {"window": "daily", "period": "2026-11-21", "scope": "region:US"},
        ["--window", "daily", "--period", "2026-11-21", "--scope", "region:US"],
    ),
]


@pytest.mark.edge
def test_the_api_serves_the_bytes_the_command_writes(
    settings: Settings, clock: ManualClock, tmp_path: Path
) -> None:
    """``GET /v1/boards/{id}/export`` (the console's download) answers exactly the file
    ``rankline export`` writes, for each format and leaderboard; a bad request is a problem."""
    served: dict[int, bytes] = {}

    async def fill_and_download() -> None:
        async with open_app(settings, clock) as app, open_client(app) as client:
            await _fill(client)
            for i, ((given, _), (where, _)) in enumerate((x, y) for x in EXPORTS for y in PLACES):
                response = await client.get(
                    "/v1/boards/arena/export", params={**given, **where}, headers=AUTH
                )
                assert response.status_code == 200, response.text
                fmt = given["format"]
                assert response.headers["content-disposition"] == (
                    f'attachment; filename="arena.{fmt}"'
                )
                kind = "text/csv" if fmt == "csv" else "application/x-ndjson"
                assert response.headers["content-type"].startswith(kind)
                served[i] = response.content
            for params, status, loc in [
                ({}, 422, ["query", "format"]),
                ({"format": "xml"}, 422, ["query", "format"]),
                ({"format": "csv", "window": "weekly"}, 422, ["query", "window"]),
                ({"format": "csv", "scope": "planet:mars"}, 422, None),
            ]:
                response = await client.get("/v1/boards/arena/export", params=params, headers=AUTH)
                assert response.status_code == status, response.text
                assert response.headers["content-type"] == "application/problem+json"
                if loc is not None:
                    assert response.json()["errors"][0]["loc"] == loc
            missing = await client.get("/v1/boards/absent/export?format=csv", headers=AUTH)
            assert missing.status_code == 404
            assert missing.json()["title"] == "Not found"
            assert (await client.get("/v1/boards/arena/export?format=csv")).status_code == 401

    asyncio.run(fill_and_download())
    env = {"RANKLINE_DATABASE_URL": settings.database, "RANKLINE_DATA_DIR": str(tmp_path)}
    runner = CliRunner()
    for i, ((_, options), (_, place)) in enumerate((x, y) for x in EXPORTS for y in PLACES):
        out = tmp_path / f"export-{i}"
        done = runner.invoke(
            cli_app, ["export", "--board", "arena", *options, *place, "-o", str(out)], env=env
        )
        assert done.exit_code == 0, done.output
        assert served[i] == out.read_bytes(), (options, place)
        assert served[i].count(b"\n") >= 2  # rows, not just a header
        assert (b'"metadata":' in served[i]) == ("--metadata" in options)
