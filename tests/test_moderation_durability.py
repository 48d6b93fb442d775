"""SIGKILL of the real server while it voids matches on a rating board: after a restart each
void is either wholly done or not at all (its rating changes, states, standings and audit
entry commit together), ``rankline ratings verify`` finds every stored rating is what the
stored matches (without the voided ones) give in serial order, and voiding the rest then
leaves the board exactly where a board that never had those matches is. And SIGKILL while
it voids matches on a tournament: each void's standing and the submission it gives back
commit together."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers_procs import Server, cli_env, run_cli

pytestmark = pytest.mark.timeout(180)

KEY = "k"
AUTH = {"Authorization": f"Bearer {KEY}"}
DEFINITION = {"policy": "rating", "rating": {"system": "elo", "provisional_games": 0}}
MATCHES = 400
VOIDED = [f"m{i}" for i in range(5, 120, 5)]


def _games() -> list[dict[str, Any]]:
    rng = random.Random(20261126)
    games = []
    for i in range(MATCHES):
        a, b = rng.sample(range(20), 2)
        results = [{"player_id": f"p{a}", "place": 1}, {"player_id": f"p{b}", "place": 2}]
        games.append({"match_id": f"m{i}", "results": results})
    return games


async def _load(client: httpx.AsyncClient, board: str, games: list[dict[str, Any]]) -> None:
    response = await client.put(f"/v1/boards/{board}", json=DEFINITION, headers=AUTH)
    assert response.status_code == 201, response.text
    body = {"matches": [{"board": board, **g} for g in games]}
    response = await client.post("/v1/matches/batch", json=body, headers=AUTH)
    assert response.status_code == 200, response.text
    assert all("error" not in r for r in response.json()["results"])


async def _voider(url: str, acked: list[str], some: asyncio.Event) -> None:
    async with httpx.AsyncClient(base_url=url, headers=AUTH, timeout=30) as client:
        for match in VOIDED:
            try:
                response = await client.post(f"/v1/boards/elo/matches/{match}/void")
            except httpx.TransportError:
                return
            assert response.status_code == 200, response.text
            acked.append(match)
            if len(acked) == 4:
                some.set()


async def _ranking(client: httpx.AsyncClient, board: str) -> list[tuple[str, int]]:
    response = await client.get(f"/v1/boards/{board}/top", params={"limit": 100})
    assert response.status_code == 200, response.text
    return [(e["player_id"], e["score"]) for e in response.json()["entries"]]


async def test_voids_survive_sigkill_and_ratings_verify(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    first = Server(data_dir, tmp_path / "first.log", server_keys=KEY)
    second = Server(data_dir, tmp_path / "second.log", server_keys=KEY)
    games = _games()
    acked: list[str] = []
    try:
        first.start()
        await asyncio.to_thread(first.wait_ready)
        async with httpx.AsyncClient(base_url=first.url, timeout=60) as client:
            await _load(client, "elo", games)
        some = asyncio.Event()
        task = asyncio.create_task(_voider(first.url, acked, some))
        await asyncio.wait_for(some.wait(), 30)
        first.kill9()  # while the fifth void is under way
        await asyncio.wait_for(task, 30)
        assert 4 <= len(acked) < len(VOIDED), len(acked)

        env = cli_env(data_dir)
        checked = await asyncio.to_thread(run_cli, "ratings", "verify", env=env)
        said = checked.stdout + checked.stderr
        assert checked.returncode == 0 and "identical" in said, said

        second.start()
        await asyncio.to_thread(second.wait_ready)
        async with httpx.AsyncClient(base_url=second.url, headers=AUTH, timeout=60) as client:
            done = []
            for match in VOIDED:
                response = await client.post(f"/v1/boards/elo/matches/{match}/void")
                assert response.status_code in (200, 409), response.text
                if response.status_code == 409:
                    done.append(match)
            # every acknowledged void was recorded, and at most the one in flight besides
            assert done[: len(acked)] == acked and len(done) <= len(acked) + 1
            audit = (await client.get("/v1/audit", params={"board": "elo"})).json()["items"]
            voids = [i["match_id"] for i in audit if i["action"] == "match.void"]
            assert sorted(voids) == sorted(VOIDED)  # each once
            await _load(client, "twin", [g for g in games if g["match_id"] not in VOIDED])
            assert await _ranking(client, "elo") == await _ranking(client, "twin")
        second.stop()
        checked = await asyncio.to_thread(run_cli, "ratings", "verify", env=env)
        said = checked.stdout + checked.stderr
        assert checked.returncode == 0 and "identical" in said, said
    finally:
        first.stop()
        second.stop()


PLAYERS = [f"p{i:02d}" for i in range(80)]


async def _tournament_voider(url: str, acked: list[str], some: asyncio.Event) -> None:
    async with httpx.AsyncClient(base_url=url, headers=AUTH, timeout=30) as client:
        for player in PLAYERS:
            match = f"{player}-best"
            try:
                response = await client.post(f"/v1/boards/cup/matches/{match}/void")
            except httpx.TransportError:
                return
            assert response.status_code == 200, response.text
            acked.append(match)
            if len(acked) == 4:
                some.set()


async def test_tournament_voids_survive_sigkill_with_their_counts(tmp_path: Path) -> None:
    """SIGKILL while matches are voided on a tournament with ``max_submissions``: after a
    restart, each player's void is wholly done (their best score gone and the submission
    given back) or not at all (both kept), never one without the other."""
    data_dir = tmp_path / "data"
    first = Server(data_dir, tmp_path / "first.log", server_keys=KEY)
    second = Server(data_dir, tmp_path / "second.log", server_keys=KEY)
    now = datetime.now(UTC)
    spec = {
        "title": "Cup",
        "starts_at": (now - timedelta(hours=1)).isoformat(),
        "ends_at": (now + timedelta(hours=1)).isoformat(),
        "max_submissions": 2,
    }
    acked: list[str] = []
    try:
        first.start()
        await asyncio.to_thread(first.wait_ready)
        async with httpx.AsyncClient(base_url=first.url, headers=AUTH, timeout=60) as client:
            response = await client.put("/v1/tournaments/cup", json=spec)
            assert response.status_code == 201, response.text
            for player in PLAYERS:
                for match, score in ((f"{player}-first", 10), (f"{player}-best", 12)):
                    body = {"player_id": player, "score": score, "match_id": match}
                    response = await client.post("/v1/tournaments/cup/scores", json=body)
                    assert response.status_code == 200, response.text
        some = asyncio.Event()
        task = asyncio.create_task(_tournament_voider(first.url, acked, some))
        await asyncio.wait_for(some.wait(), 30)
        first.kill9()
        await asyncio.wait_for(task, 30)
        assert 4 <= len(acked) < len(PLAYERS), len(acked)

        second.start()
        await asyncio.to_thread(second.wait_ready)
        async with httpx.AsyncClient(base_url=second.url, headers=AUTH, timeout=60) as client:
            response = await client.get("/v1/boards/cup/top", params={"limit": 1000})
            assert response.status_code == 200, response.text
            scores = {e["player_id"]: e["score"] for e in response.json()["entries"]}
            assert sorted(scores) == PLAYERS
            recorded = []
            for player in PLAYERS:
                body = {"player_id": player, "score": 1, "match_id": f"{player}-after"}
                again = await client.post("/v1/tournaments/cup/scores", json=body)
                assert again.status_code in (200, 409), again.text
                void = await client.post(f"/v1/boards/cup/matches/{player}-best/void")
                assert void.status_code in (200, 409), void.text
                done = void.status_code == 409
                # the void's three effects, all or none
                assert (scores[player] == 10, again.status_code == 200) == (done, done), player
                if done:
                    recorded.append(f"{player}-best")
            # every acknowledged void was recorded, and at most the one in flight besides
            assert recorded[: len(acked)] == acked and len(recorded) <= len(acked) + 1
    finally:
        first.stop()
        second.stop()
