"""The Python client: every call against the real app, retries, errors, the sync flavour
against a real server process."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from helpers_api import SERVER_KEY, open_app
from helpers_procs import serving
from rankline import ManualClock, Settings
from rankline.client import ApiError, AsyncClient, Client, batches


async def test_async_client_covers_the_board_and_score_endpoints(
    tmp_path: Path, clock: ManualClock
) -> None:
    settings = Settings(data_dir=tmp_path / "data", server_keys=SERVER_KEY)
    async with open_app(settings, clock) as app:
        transport = httpx.ASGITransport(app=app)
        async with AsyncClient("http://t", server_key=SERVER_KEY, transport=transport) as rl:
            created = await rl.put_board("arena", windows=["all_time", "daily"], scopes=["region"])
            assert created["windows"] == ["all_time", "daily"]
            assert [b["id"] for b in (await rl.list_boards())["boards"]] == ["arena"]
            assert (await rl.get_board("arena"))["scopes"] == ["region"]
            answer = await rl.submit(
                "arena", "p:1", 2**53 + 1, match_id="m1", scopes={"region": "EU"}
            )
            assert answer["score"] == 2**53 + 1 and answer["applied"] is True
            items = [
                {"board": "arena", "player_id": f"p:{i}", "score": i, "match_id": f"b{i}"}
                for i in range(2, 2503)
            ]
            items[1_500]["score"] = 1.5  # one bad item, in the second request
            results = (await rl.submit_batch(items))["results"]  # three requests
            assert [r["index"] for r in results] == list(range(2501))
            assert [r["index"] for r in results if "error" in r] == [1_500]
            assert results[1_500]["error"]["status"] == 422
            assert results[1_500]["error"]["errors"][0]["loc"] == ["body", "scores", 1_500, "score"]
            assert results[2_500]["player_id"] == "p:2502" and results[2_500]["applied"]
            assert len(results) == 2501
            top = await rl.top("arena", limit=3, scope="region:EU")
            assert [e["player_id"] for e in top["entries"]] == ["p:1"]
            assert (await rl.player("arena", "p:2502"))["rank"] == 2
            around = await rl.around("arena", "p:2000", k=1, window="daily")
            assert [e["player_id"] for e in around["entries"]] == ["p:2001", "p:2000", "p:1999"]
            friends = await rl.friends("arena", "p:5", ["p:6", "p:4", "nobody"])
            assert [e["player_id"] for e in friends["entries"]] == ["p:6", "p:5", "p:4"]
            rank_of = await rl.rank_of("arena", 4, window="daily")
            assert (rank_of["rank"], rank_of["competition_rank"]) == (2500, 2499)
            ranks = await rl.ranks("arena", ["p:3", "p:1"])
            assert [e["rank"] for e in ranks["entries"]] == [1, 2500]  # p:1502 was refused
            periods = await rl.periods("arena", window="daily")
            assert [p["period"] for p in periods["periods"]] == ["2026-11-21"]
            assert (await rl.health())["status"] == "ok"
            with pytest.raises(ApiError) as missing:
                await rl.player("arena", "nobody")
            assert missing.value.status == 404 and missing.value.problem["status"] == 404
            assert await rl.delete_board("arena") is None


async def test_async_client_sends_subscores(tmp_path: Path, clock: ManualClock) -> None:
    settings = Settings(data_dir=tmp_path / "data", server_keys=SERVER_KEY)
    async with open_app(settings, clock) as app:
        transport = httpx.ASGITransport(app=app)
        async with AsyncClient("http://t", server_key=SERVER_KEY, transport=transport) as rl:
            assert (await rl.put_board("duel", subscore="asc"))["subscore"] == "asc"
            await rl.submit("duel", "a", 10, match_id="m1", subscore=5)
            answer = await rl.submit("duel", "b", 10, match_id="m2", subscore=-5)
            assert (answer["subscore"], answer["standings"][0]["rank"]) == (-5, 1)
            top = await rl.top("duel")
            assert [(e["player_id"], e["subscore"]) for e in top["entries"]] == [
                ("b", -5),
                ("a", 5),
            ]
            rank_of = await rl.rank_of("duel", 10, subscore=0)
            assert (rank_of["rank"], rank_of["competition_rank"], rank_of["subscore"]) == (2, 2, 0)
            with pytest.raises(ApiError) as missing:
                await rl.submit("duel", "c", 10, match_id="m3")
            assert missing.value.problem["errors"][0]["loc"] == ["body", "subscore"]


async def test_async_client_zones_cron_windows_and_board_events(
    tmp_path: Path, clock: ManualClock
) -> None:
    settings = Settings(data_dir=tmp_path / "data", server_keys=SERVER_KEY)
    event = {"id": "friday-event", "cron": "0 18 * * FRI", "timezone": "Europe/Paris"}
    hook = {"url": "http://127.0.0.1:9/hook", "secret": "s", "top": 10}
    async with open_app(settings, clock) as app:
        transport = httpx.ASGITransport(app=app)
        async with AsyncClient("http://t", server_key=SERVER_KEY, transport=transport) as rl:
            board = await rl.put_board(
                "live", windows=["daily", event], timezone="Asia/Tokyo", webhook=hook
            )
            assert (board["timezone"], board["windows"][1]) == ("Asia/Tokyo", event)
            assert board["webhook"] == {"url": hook["url"], "top": 10}
            await rl.submit("live", "p:1", 5, match_id="m1")  # Saturday 21:00 in Tokyo
            daily = await rl.top("live", window="daily")
            assert (daily["period"], daily["period_ends_at"]) == (
                "2026-11-21",
                "2026-11-21T15:00:00.000Z",
            )
            weekly = await rl.top("live", window="friday-event")
            assert weekly["period"] == "2026-11-20T17:00:00Z"
            clock.set(datetime(2026, 11, 21, 15, 5, 11, tzinfo=UTC))
            await app.state.service.archive_periods()
            listed = await rl.deliveries("live", window="daily", limit=5)
            assert [(d["period"], d["scope"], d["state"]) for d in listed["deliveries"]] == [
                ("2026-11-21", "global", "pending")
            ]


async def test_async_client_reads_metadata_cursors_and_snapshots(
    tmp_path: Path, clock: ManualClock
) -> None:
    settings = Settings(
        data_dir=tmp_path / "data", server_keys=SERVER_KEY, snapshot_check_seconds=0
    )
    async with open_app(settings, clock) as app:
        transport = httpx.ASGITransport(app=app)
        async with AsyncClient("http://t", server_key=SERVER_KEY, transport=transport) as rl:
            await rl.put_board("arena", snapshots={"every_seconds": 10, "k": 2})
            for i in range(5):
                await rl.submit("arena", f"p{i}", 10 - i, match_id="m", metadata={"car": i})
            first = await rl.top("arena", limit=2, metadata=True)
            assert [e["metadata"] for e in first["entries"]] == [{"car": 0}, {"car": 1}]
            rest = await rl.top("arena", limit=10, cursor=first["next"])
            assert [e["player_id"] for e in rest["entries"]] == ["p2", "p3", "p4"]
            assert "next" not in rest and "metadata" not in rest["entries"][0]
            assert (await rl.player("arena", "p3", metadata=True))["metadata"] == {"car": 3}
            around = await rl.around("arena", "p3", k=1, metadata=True)
            assert [e["metadata"]["car"] for e in around["entries"]] == [2, 3, 4]
            friends = await rl.friends("arena", "p1", ["p4"], metadata=True)
            assert [e["metadata"]["car"] for e in friends["entries"]] == [1, 4]
            ranks = await rl.ranks("arena", ["p4"], metadata=True)
            assert ranks["entries"][0]["metadata"] == {"car": 4}
            taken = await app.state.service.snapshots.take_due()
            assert len(taken) == 1
            listing = await rl.snapshots("arena")
            [snapshot] = listing["snapshots"]
            assert (snapshot["total"], snapshot["entries"]) == (5, 2)
            then = await rl.top("arena", at=snapshot["taken_at"])
            assert [e["player_id"] for e in then["entries"]] == ["p0", "p1"]
            assert then["taken_at"] == snapshot["taken_at"]
            assert (await rl.snapshots("arena", before=snapshot["taken_at"]))["snapshots"] == []


def test_a_large_upload_is_split_into_batches_of_1000() -> None:
    sizes: list[int] = []

    def answer(request: httpx.Request) -> httpx.Response:
        items = json.loads(request.content)["scores"]
        sizes.append(len(items))
        return httpx.Response(200, json={"results": [{"index": i} for i in range(len(items))]})

    with Client("http://t", transport=httpx.MockTransport(answer)) as rl:
        results = rl.submit_batch([{"board": "b"}] * 2_001)["results"]
    assert sizes == [1000, 1000, 1]
    assert [r["index"] for r in results] == list(range(2_001))
    assert [len(c) for c in batches([{}] * 2500)] == [1000, 1000, 500]


def _flaky(statuses: list[int]) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    """A transport answering the given statuses in turn (the last one from then on)."""
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        status = statuses[min(len(seen), len(statuses)) - 1]
        if status >= 400:
            problem = {"type": "t", "title": "busy", "status": status, "detail": "later"}
            return httpx.Response(status, json=problem, headers={"Retry-After": "0"})
        return httpx.Response(status, json={"ok": True})

    return httpx.MockTransport(answer), seen


def test_503_and_429_are_retried_with_the_same_request() -> None:
    transport, seen = _flaky([503, 429, 200])
    with Client("http://t", server_key="k", backoff=0.001, transport=transport) as rl:
        assert rl.submit("b", "p", 1, match_id="m") == {"ok": True}
    assert len(seen) == 3
    assert {r.content for r in seen} == {seen[0].content}
    assert all(r.headers["authorization"] == "Bearer k" for r in seen)


async def test_retries_give_up_with_the_last_problem() -> None:
    transport, seen = _flaky([503])

    async def handler(request: httpx.Request) -> httpx.Response:
        return transport.handle_request(request)

    async with AsyncClient(
        "http://t", retries=2, backoff=0.001, transport=httpx.MockTransport(handler)
    ) as rl:
        with pytest.raises(ApiError) as failed:
            await rl.top("b")
    assert failed.value.status == 503 and len(seen) == 3


def test_other_errors_are_not_retried() -> None:
    transport, seen = _flaky([422, 200])
    with Client("http://t", transport=transport) as rl, pytest.raises(ApiError) as failed:
        rl.put_board("b", order="sideways")
    assert failed.value.status == 422 and len(seen) == 1


def test_reads_use_the_read_key_and_writes_the_server_key() -> None:
    transport, seen = _flaky([200])
    with Client("http://t", server_key="s", read_key="r", transport=transport) as rl:
        rl.top("b")
        rl.ban("p")
    assert [r.headers["authorization"] for r in seen] == ["Bearer r", "Bearer s"]


def test_sync_client_against_a_real_server(tmp_path: Path) -> None:
    with (
        serving(tmp_path / "data", tmp_path / "log", server_keys="real") as server,
        Client(server.url, server_key="real") as rl,
    ):
        rl.put_board("speed", order="asc")
        for i, score in enumerate([30, 10, 20]):
            rl.submit("speed", f"p{i}", score, match_id=f"m{i}")
        assert [e["score"] for e in rl.top("speed")["entries"]] == [10, 20, 30]
        again = rl.submit("speed", "p0", 30, match_id="m0")
        assert again["duplicate"] is True
        assert rl.rank_of("speed", 20)["rank"] == 3  # after the 20 there, before the 30
        rl.put_board("dense", dense_rank=True)
        for i, score in enumerate([5, 9, 9]):
            rl.submit("dense", f"p{i}", score, match_id=f"m{i}")
        me = rl.player("dense", "p0")
        assert (me["rank"], me["dense_rank"], me["previous_rank"], me["best_rank"]) == (
            3,
            2,
            None,
            1,
        )
        assert [e["dense_rank"] for e in rl.top("dense")["entries"]] == [1, 1, 2]
        assert rl.rank_of("dense", 7)["dense_rank"] == 2
