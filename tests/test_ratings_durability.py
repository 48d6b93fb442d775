"""SIGKILL of the real server while it rates matches: after a restart every acknowledged match
is recorded, each exactly once, and the stored ratings are what the stored matches give in
their serial order, to the last digit.

``rankline serve`` (embedded: SQLite, the ingestion log in it) takes batches of matches from 2
connections and single matches from 4, all synchronous, on an Elo board, and is killed
mid-stream. After the restart one more match is sent with ``Prefer: respond-async`` and waited
for (the board's records are in one partition, applied in order). Then every attempted match
is sent again: ``duplicate: true`` means it was recorded before. Checked: every acknowledged
match was recorded; each player's game count is exactly the number of recorded matches they
played (none rated twice); and ``rerate.verify`` recomputes every stored state from the
stored matches and finds them identical, before and after the resubmission.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from sqlalchemy import select, update

from helpers_procs import Server, cli_env, run_cli
from rankline.boards import Board, BoardSpec
from rankline.ratings.rerate import verify
from rankline.settings import Settings
from rankline.store import schema
from rankline.store.ratings import RatingStore
from rankline.store.sql import SqlStore

pytestmark = pytest.mark.timeout(180)

KEY = "k"
AUTH = {"Authorization": f"Bearer {KEY}"}
BOARD = "elo"
PLAYERS = 30
BATCH = 200


@dataclass(frozen=True, slots=True)
class Game:
    match_id: str
    winner: str
    loser: str

    def body(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "results": [
                {"player_id": self.winner, "place": 1},
                {"player_id": self.loser, "place": 2},
            ],
        }


@dataclass
class Traffic:
    attempted: list[Game] = field(default_factory=list)
    acked: list[Game] = field(default_factory=list)
    killed: bool = False


def _game(rng: random.Random, match_id: str) -> Game:
    a, b = rng.sample(range(PLAYERS), 2)
    return Game(match_id, f"p{a}", f"p{b}")


async def _batch_sender(url: str, n: int, traffic: Traffic, rng: random.Random) -> None:
    async with httpx.AsyncClient(base_url=url, headers=AUTH, timeout=30) as client:
        seq = 0
        while not traffic.killed:
            games = [_game(rng, f"b{n}-{seq + i}") for i in range(BATCH)]
            seq += BATCH
            traffic.attempted += games
            body = {"matches": [{"board": BOARD, **g.body()} for g in games]}
            try:
                response = await client.post("/v1/matches/batch", json=body)
            except httpx.TransportError:
                return
            if response.status_code == 200:
                results = response.json()["results"]
                assert all("error" not in r for r in results), results[:2]
                traffic.acked += games
            else:
                assert response.status_code in (429, 503), response.text


async def _single_sender(url: str, n: int, traffic: Traffic, rng: random.Random) -> None:
    async with httpx.AsyncClient(base_url=url, headers=AUTH, timeout=30) as client:
        seq = 0
        while not traffic.killed:
            game = _game(rng, f"s{n}-{seq}")
            seq += 1
            traffic.attempted.append(game)
            try:
                response = await client.post(f"/v1/boards/{BOARD}/matches", json=game.body())
            except httpx.TransportError:
                return
            if response.status_code == 200:
                traffic.acked.append(game)
            else:
                assert response.status_code in (429, 503), response.text


async def _settle_everything(client: httpx.AsyncClient) -> None:
    marker = {
        "match_id": f"marker-{time.monotonic_ns()}",
        "results": [{"player_id": "m1", "place": 1}, {"player_id": "m2", "place": 2}],
    }
    headers = {**AUTH, "Prefer": "respond-async"}
    response = await client.post(f"/v1/boards/{BOARD}/matches", json=marker, headers=headers)
    assert response.status_code == 202, response.text
    token = response.json()["token"]
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        read = await client.get(f"/v1/boards/{BOARD}/top", params={"after": token})
        if read.status_code == 200:
            return
        assert read.status_code == 503, read.text
    raise AssertionError("the log was not applied within 90 s of the restart")


async def _games(client: httpx.AsyncClient) -> dict[str, int]:
    found = {}
    for n in range(PLAYERS):
        response = await client.get(f"/v1/boards/{BOARD}/players/p{n}/rating")
        if response.status_code == 200:
            found[f"p{n}"] = response.json()["games"]
    return found


async def _recorded(client: httpx.AsyncClient, games: list[Game]) -> dict[Game, bool]:
    duplicate: dict[Game, bool] = {}
    for start in range(0, len(games), 1000):
        chunk = games[start : start + 1000]
        body = {"matches": [{"board": BOARD, **g.body()} for g in chunk]}
        response = await client.post("/v1/matches/batch", json=body, headers=AUTH)
        assert response.status_code == 200, response.text
        for game, result in zip(chunk, response.json()["results"], strict=True):
            assert "error" not in result, result
            duplicate[game] = result["duplicate"]
    return duplicate


async def _verify(data_dir: Path, definition: dict[str, Any]) -> tuple[int, bool]:
    store = SqlStore(Settings(data_dir=data_dir).database)
    await store.start()
    try:
        board = Board(msgspec.convert(definition, BoardSpec))
        report = await verify(RatingStore(store), board)
        return report.matches, report.identical
    finally:
        await store.close()


async def _tamper(data_dir: Path, player: str) -> None:
    store = SqlStore(Settings(data_dir=data_dir).database)
    st = schema.rating_states
    try:
        async with store.engine.begin() as conn:
            row = (
                await conn.execute(
                    select(st.c.window, st.c.state).where(
                        st.c.board_id == BOARD, st.c.player_id == player
                    )
                )
            ).first()
            assert row is not None
            state = msgspec.json.decode(row.state)
            state["rating"] += 1e-6
            await conn.execute(
                update(st)
                .where(st.c.board_id == BOARD, st.c.player_id == player)
                .values(state=msgspec.json.encode(state).decode())
            )
    finally:
        await store.close()


def _expected_games(games: list[Game]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for g in games:
        for player in (g.winner, g.loser):
            counts[player] = counts.get(player, 0) + 1
    return counts


async def test_acknowledged_matches_survive_sigkill_rated_once(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    first = Server(data_dir, tmp_path / "first.log", server_keys=KEY)
    second = Server(data_dir, tmp_path / "second.log", server_keys=KEY)
    traffic = Traffic()
    try:
        first.start()
        await asyncio.to_thread(first.wait_ready)
        async with httpx.AsyncClient(base_url=first.url, timeout=30) as client:
            rating = {"system": "elo", "provisional_games": 0}
            response = await client.put(
                f"/v1/boards/{BOARD}", json={"policy": "rating", "rating": rating}, headers=AUTH
            )
            assert response.status_code == 201, response.text
            definition = response.json()
        rng = random.Random(20261124)
        tasks = [
            asyncio.create_task(_batch_sender(first.url, n, traffic, random.Random(rng.random())))
            for n in range(2)
        ] + [
            asyncio.create_task(_single_sender(first.url, n, traffic, random.Random(rng.random())))
            for n in range(4)
        ]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if len(traffic.acked) >= 1500:
                break
            await asyncio.sleep(0.02)
        traffic.killed = True
        first.kill9()
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
        assert len(traffic.acked) >= 1500, len(traffic.acked)

        second.start()
        await asyncio.to_thread(second.wait_ready)
        async with httpx.AsyncClient(base_url=second.url, timeout=60) as client:
            await _settle_everything(client)
            before = await _games(client)
            duplicate = await _recorded(client, traffic.attempted)
            after = await _games(client)
        second.stop()
        recorded = [g for g in traffic.attempted if duplicate[g]]
        acked = len(traffic.acked)
        print(f"attempted={len(traffic.attempted)} acked={acked} recorded={len(recorded)}")
        lost = [g for g in traffic.acked if not duplicate[g]]
        assert not lost, f"{len(lost)} acknowledged matches lost, e.g. {lost[:3]}"
        assert before == _expected_games(recorded)
        assert after == _expected_games(traffic.attempted)
        matches, identical = await _verify(data_dir, definition)
        assert matches == len(traffic.attempted) + 1  # and the marker
        assert identical
        env = cli_env(data_dir)
        checked = await asyncio.to_thread(run_cli, "ratings", "verify", env=env)
        assert checked.returncode == 0, checked.stderr + checked.stdout
        said = checked.stdout + checked.stderr
        assert f"{BOARD}: {matches:,} matches" in said and "identical" in said, said
        await _tamper(data_dir, "p0")  # a stored rating off by a millionth: found
        checked = await asyncio.to_thread(run_cli, "ratings", "verify", env=env)
        said = checked.stdout + checked.stderr
        assert checked.returncode == 1 and "1 differ" in said, said
        assert "differs:" in said and " p0" in said, said
    finally:
        first.stop()
        second.stop()
