"""``rankline bench``: its pure parts (wrk and redis-benchmark output, ratios, pauses,
profiles, reports), the bulk loader on every backend (the server then answers the ranks
the data says), and every wrk script against a real server (answered without errors)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from rich.console import Console
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import create_async_engine

from helpers_api import AUTH, serve
from helpers_backends import PG_URL, REDIS_URL
from helpers_brokers import NATS_URL
from helpers_procs import run_cli
from rankline import ManualClock, Settings
from rankline.http import create_app
from rankline.log import LogOptions, open_log
from rankline.runtime.clock import SystemClock
from rankline.store import schema as t
from rankline.store.sql import SqlStore
from rankline_bench import ceiling, lean, load, probes, report, run, servers, wrk
from rankline_bench.bulk import load_first_scores

WRK_OUTPUT = """Running 10s test @ http://127.0.0.1:8000/
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.00ms    1.00ms  40.00ms   90.00%
  120000 requests in 10.00s, 20.00MB read
Requests/sec:  12000.00
@@rankline-wrk {"requests":120000,"duration_us":10000000,"bytes":20971520,\
"errors":{"connect":0,"read":0,"write":0,"status":60,"timeout":0},\
"latency_us":{"mean":2000.5,"stdev":1000.0,"max":40000,\
"percentiles":{"50":1800,"75":2300,"90":3000,"95":3500,"99":6200,"99.9":15000}}}
"""


# --- pure parts ----------------------------------------------------------------------------


def test_wrk_result_line_is_parsed_into_rates_and_milliseconds() -> None:
    result = wrk.parse(WRK_OUTPUT, connections=64, delay_ms=1.5)
    assert result.requests == 120_000
    assert result.seconds == 10.0
    assert result.rps == 12_000.0
    assert (result.p50_ms, result.p95_ms, result.p99_ms, result.p999_ms) == (1.8, 3.5, 6.2, 15.0)
    assert result.max_ms == 40.0
    assert result.error_count == 60
    assert result.error_rate == pytest.approx(0.0005)
    assert result.to_json()["rps"] == 12_000.0
    assert (result.connections, result.delay_ms) == (64, 1.5)


def test_wrk_output_without_a_result_line_is_an_error() -> None:
    with pytest.raises(wrk.WrkError, match="no result line"):
        wrk.parse("unable to connect to 127.0.0.1:1 Connection refused\n")


def test_an_endpoint_with_more_than_a_tenth_of_a_percent_errors_fails() -> None:
    fine = wrk.parse(WRK_OUTPUT)  # 0.05% errors
    wrk.check("rank", fine)
    broken = wrk.parse(WRK_OUTPUT.replace('"status":60', '"status":121'))
    with pytest.raises(wrk.WrkError, match=r"rank: 121 errors in 120,000 requests"):
        wrk.check("rank", broken)
    empty = wrk.parse(WRK_OUTPUT.replace('"requests":120000', '"requests":0'))
    with pytest.raises(wrk.WrkError):
        wrk.check("rank", empty)


def test_every_endpoint_has_a_script_that_reports_percentiles() -> None:
    for endpoint in [*(e.name for e in run.ENDPOINTS), "ceiling"]:
        text = wrk.script_text(endpoint)
        assert "function request()" in text
        assert "function done(" in text and wrk.MARK.strip() in text


def test_wrk_command_passes_script_arguments_after_the_url() -> None:
    argv = wrk.command(
        "http://h:1", Path("s.lua"), connections=8, threads=4, seconds=2.4, args={"n": 5}
    )
    assert argv[:7] == ["wrk", "-t", "4", "-c", "8", "-d", "2s"]
    assert argv[-3:] == ["http://h:1", "--", "n=5"]
    assert wrk.command("u", Path("s"), connections=2, threads=4, seconds=1, args={})[2] == "2"


def test_ratios_and_the_pause_that_holds_a_rate() -> None:
    assert report.ratio(5_000, 20_000) == 0.25
    assert report.ratio(None, 20_000) is None and report.ratio(1.0, 0) is None
    # 64 connections at 8,000 req/s: one request every 8 ms each, 0.5 ms of it answering.
    assert run.pause_ms(8_000, 64, 0.5) == pytest.approx(7.5)
    assert run.pause_ms(1e9, 64, 0.5) == 0.0
    assert run.latency_from(7.5, 8_000, 64) == pytest.approx(0.5)


def test_every_wrk_run_draws_from_a_seed_of_its_own() -> None:
    """A write endpoint must not resend the last run's players and scores: the repeats
    would change no standing and make writes look cheaper. A bench still repeats."""
    options = run.make_options(
        quick=True,
        n=1000,
        duration=1,
        backends="memory",
        json_path=None,
        markdown=None,
        workers=1,
        connections=4,
        threads=1,
        profile=False,
        seed=7,
        command="rankline bench",
    )
    benches = [run.Bench(options, Console(quiet=True)) for _ in range(2)]
    labels = ["POST score (single)", "POST batch", "GET rank at 80%", "GET rank at 80%"]
    try:
        seeds = [[bench.run_seed(label) for label in labels] for bench in benches]
        benches[1].wrk_runs.clear()  # a new backend
        again = [benches[1].run_seed(label) for label in labels]
    finally:
        for bench in benches:
            shutil.rmtree(bench.tmp, ignore_errors=True)
    assert len(set(seeds[0])) == len(labels)
    assert seeds[0] == seeds[1] == again


def test_options_default_to_the_quick_and_full_sizes() -> None:
    common: dict[str, Any] = {
        "n": None,
        "duration": None,
        "backends": "memory, redis",
        "json_path": None,
        "markdown": None,
        "workers": 1,
        "connections": 64,
        "threads": 1,
        "profile": False,
        "seed": 1,
        "command": "rankline bench",
    }
    quick = run.make_options(quick=True, **common)
    assert (quick.n, quick.duration, quick.backends) == (1_000_000, 10.0, ("memory", "redis"))
    assert quick.json_path.parent == Path("bench-results")
    full = run.make_options(quick=False, **common)
    assert (full.n, full.duration) == (10_000_000, 30.0)
    with pytest.raises(ValueError, match="memory, redis, cluster and/or dense"):
        run.make_options(quick=True, **(common | {"backends": "memcached"}))
    assert [e.name for e in full.measured] == [e.name for e in run.ENDPOINTS]
    some = run.make_options(quick=True, endpoints="matches, rank", **common)
    assert [e.name for e in some.measured] == ["rank", "matches"]
    with pytest.raises(ValueError, match="--endpoints takes some of rank, around"):
        run.make_options(quick=True, endpoints="rank,ranks", **common)


def test_redis_memory_per_entry_leaves_out_the_servers_fixed_memory() -> None:
    before = {"used_memory": 1_000_000, "mem_clients_normal": 20_000, "used_memory_scripts": 0}
    after = {
        "used_memory": 161_000_000 + 900_000,
        "mem_clients_normal": 820_000,  # a second worker's connections
        "used_memory_scripts": 100_000,  # the scripts its workers loaded
    }
    found = probes.memory_per_entry(before, after, 1_000_000)
    assert found["bytes_per_entry"] == 160.0
    assert found["raw_bytes_per_entry"] == 160.9
    assert (found["used_memory_delta"], found["fixed_delta"]) == (160_900_000, 900_000)


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert probes.percentile(values, 50) == 50
    assert probes.percentile(values, 99) == 99
    assert probes.percentile(values, 100) == 100
    assert probes.percentile([3.0], 99) == 3.0


def test_redis_benchmark_csv_is_parsed() -> None:
    csv = (
        '"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms",'
        '"p99_latency_ms","max_latency_ms"\n'
        '"ZREVRANK rlbench:zset m:__rand_int__","54495.91","0.579","0.096","0.479","1.207",'
        '"2.991","7.879"\n'
    )
    assert probes.parse_redis_benchmark(csv) == {"rps": 54495.91, "p50_ms": 0.479, "p99_ms": 2.991}


def test_profile_frames_are_ranked_by_self_and_total_samples() -> None:
    collapsed = (
        "run (asyncio/runners.py:118);handle (app.py:10);rank (reads.py:5) 6\n"
        "run (asyncio/runners.py:118);handle (app.py:10);dumps (json.py:1) 3\n"
        "run (asyncio/runners.py:118);poll (loop.py:7) 1\n"
        "garbage line\n"
    )
    found = probes.top_frames(collapsed, top=2)
    assert found["samples"] == 10
    assert found["self"] == [
        {"frame": "rank (reads.py:5)", "share": 0.6},
        {"frame": "dumps (json.py:1)", "share": 0.3},
    ]
    assert found["total"][0] == {"frame": "run (asyncio/runners.py:118)", "share": 1.0}
    assert probes.top_frames("") == {"samples": 0, "self": [], "total": []}


def test_thread_shares_say_how_busy_each_thread_was_and_where() -> None:
    collapsed = (
        'process 7:"python";thread (11): MainThread;run (loop.py:1);apply (memory.py:9) 150\n'
        'process 7:"python";thread (11): MainThread;run (loop.py:1) 50\n'
        'process 7:"python";thread (12): Thread-1 (_worker);step (sqlite.py:3) 100\n'
        'process 7:"python";thread (13);poll (io.py:2) 1\n'
        "garbage line\n"
    )
    found = probes.thread_shares(collapsed, seconds=2.0, rate=250)
    assert [t["thread"] for t in found] == [
        "MainThread (11)",
        "Thread-1 (_worker) (12)",
        "thread (13)",
    ]
    assert [t["busy"] for t in found] == [0.4, 0.2, 0.002]
    assert found[0]["self"] == [
        {"frame": "apply (memory.py:9)", "share": 0.75},
        {"frame": "run (loop.py:1)", "share": 0.25},
    ]
    assert probes.thread_shares("no threads here 3", 1.0, 100) == []


def _point(rps: float, p99: float, **extra: Any) -> dict[str, Any]:
    return {"rps": rps, "p50_ms": p99 / 4, "p95_ms": p99 / 2, "p99_ms": p99, **extra}


def _results() -> dict[str, Any]:
    """A small result, shaped as ``run`` builds it."""
    endpoints = {
        name: _point(rps, 4.0, label=name, ratio=rps / 20_000)
        for name, rps in (
            ("rank", 12_000),
            ("around", 9_000),
            ("top", 4_000),
            ("friends", 3_000),
            ("submit", 6_000),
        )
    }
    endpoints["submit"] |= {"durable_events_per_s": 6_000}
    endpoints["batch"] = _point(60, 400.0, label="batch", ratio=None)
    return {
        "command": "rankline bench --quick",
        "started_at": "2026-11-22 03:00 UTC",
        "wall_seconds": 480.0,
        "mode": "quick",
        "n": 1_000_000,
        "duration_s": 10.0,
        "connections": 64,
        "threads": 1,
        "machine": {"cpu": "CPU", "cores": 2, "ram_gb": 23.5, "kernel": "6.1", "load_before": "0"},
        "versions": {"python": "3.11.7", "rankline": "0.1.0"},
        "backends": {
            "memory": {
                "label": "memory index + SQLite",
                "workers": 1,
                "ceiling": _point(20_000, 3.0),
                "endpoints": endpoints,
                "at_80": {name: _point(9_000, 12.0, fraction=0.8) for name in report.READS},
                "sweeps": {"rank": [_point(5_000, 1.0), _point(12_000, 9.0)]},
                "batch_ingest": {"events_per_s": 60_000},
                "async_ingest": {
                    "accepted_per_s": 45_000,
                    "applied_per_s": 20_000,
                    "caught_up_s": 12.0,
                },
                "write_visible": {"p50_ms": 2.0, "p99_ms": 25.0},
                "rebuild": {"entries_per_s": 600_000},
                "memory": {"bytes_per_entry": 170.0, "entries": 1_000_000},
                "load": {"rows_per_s": 100_000},
                "profile": {"self": [{"frame": "rank (reads.py:5)", "share": 0.25}]},
            }
        },
    }


def test_targets_compare_each_figure_with_its_goal() -> None:
    verdicts = {t["target"]: t["met"] for t in report.targets(_results())}
    assert verdicts["rank >= 50% of ceiling"] is True  # 60%
    assert verdicts["top >= 50% of ceiling"] is False  # 20%
    assert verdicts["friends-100 >= 25% of ceiling"] is False  # 15%
    assert verdicts["rank p99 <= 10 ms at 80% of max (ms)"] is False  # 12 ms
    assert verdicts["sync batch ingest >= 20,000 durable/s"] is True
    assert verdicts["async batch burst >= 50,000 durable/s"] is False  # 45,000
    assert verdicts["async burst applied within 30 s after it (s)"] is True  # 12 s
    assert verdicts["single submissions >= 25% of ceiling"] is True  # 30%
    assert verdicts["write->visible p99 <= 20 ms"] is False
    assert verdicts["rebuild >= 500,000 entries/s"] is True
    assert verdicts["memory <= 150 B/entry at 1M entries"] is False  # 170 B
    assert "HTTP rank >= 100x faster than naive SQL" not in verdicts  # no PostgreSQL here
    assert "rank >= 0.9x the lean reference" not in [  # no lean run: not measured
        t["target"] for t in report.targets(_results()) if t["met"] is not None
    ]


def test_reads_are_judged_against_the_lean_reference() -> None:
    results = _results()
    section = results["backends"]["memory"]
    section["lean"] = {"rank": _point(10_000, 5.0), "around": _point(10_000, 5.0)}
    section["lean"]["top"] = _point(1_000, 5.0)
    for name in report.READS:  # as ``run.Bench.measure`` sets it
        rps = section["endpoints"][name]["rps"]
        section["endpoints"][name]["of_lean"] = rps / section["lean"][name]["rps"]
    verdicts = {t["target"]: t for t in report.targets(results)}
    assert verdicts["rank >= 0.9x the lean reference"]["met"] is True  # 1.2x
    assert verdicts["around >= 1.0x the lean reference"]["met"] is False  # 0.9x
    assert verdicts["top >= 4.0x the lean reference"]["met"] is True  # 4x
    rows = {(r[0], r[1]): r[2] for r in report.target_rows(results)}
    assert rows["memory", "around >= 1.0x the lean reference"] == "0.90x"
    labels = [row[0] for row in report.endpoint_rows(section)]
    assert labels[1:4] == [
        "lean reference: GET player rank",
        "lean reference: GET around k=5",
        "lean reference: GET top-100",
    ]
    _, figures = report.figure_rows(results)
    assert ["rank: rankline's req/s over the lean reference's", "1.20x"] in figures


def test_memory_targets_are_judged_at_one_million_entries() -> None:
    results = _results()
    section = results["backends"]["memory"]
    section["memory"] = {"bytes_per_entry": 170.0, "entries": 10_000_000}
    verdicts = {t["target"]: t for t in report.targets(results)}
    assert verdicts["memory <= 150 B/entry at 1M entries"]["met"] is None  # not measured at 1M
    section["memory_1m"] = {"bytes_per_entry": 120.0, "entries": 1_000_000}
    verdicts = {t["target"]: t for t in report.targets(results)}
    assert verdicts["memory <= 150 B/entry at 1M entries"]["measured"] == 120.0
    assert verdicts["memory <= 150 B/entry at 1M entries"]["met"] is True
    _, rows = report.figure_rows(results)
    by_label = {r[0]: r[1:] for r in rows}
    assert by_label["memory per entry at 1M entries (bytes)"] == ["120"]
    assert by_label["memory per entry at N (bytes)"] == ["170"]


def test_endpoint_rows_start_with_the_ceiling_and_show_failures() -> None:
    section = _results()["backends"]["memory"]
    section["endpoints"]["top"]["failed"] = "GET top-100: 3 errors in 100 requests"
    rows = report.endpoint_rows(section)
    assert rows[0] == ["ceiling (raw ASGI, 20-byte JSON)", "20,000", "0.75", "1.50", "3.00", "100%"]
    assert rows[1] == ["rank", "12,000", "1.00", "2.00", "4.00", "60%"]
    assert rows[3][:2] == ["top", "FAILED"]
    assert next(r for r in rows if r[0] == "batch")[-1] == "—"


def test_markdown_section_replaces_only_the_generated_part(tmp_path: Path) -> None:
    page = tmp_path / "performance.md"
    page.write_text(f"# Perf\n\nHow to run.\n\n{report.BEGIN}\nold table\n{report.END}\n\nEnd.\n")
    results = _results()
    report.write_markdown(page, results, "performance.png")
    report.write_markdown(page, results, "performance.png")
    text = page.read_text()
    assert text.startswith("# Perf\n\nHow to run.\n\n") and text.endswith("\n\nEnd.\n")
    assert text.count(report.BEGIN) == 1 and "old table" not in text
    assert "## Results: N=1,000,000 (quick run)" in text
    assert "`rankline bench --quick`" in text
    assert "| rank | 12,000 | 1.00 | 2.00 | 4.00 | 60% |" in text
    assert "![p99 latency against throughput](performance.png)" in text
    assert "`rank (reads.py:5)`" in text
    fresh = tmp_path / "new.md"
    report.write_markdown(fresh, results, None)
    assert fresh.read_text().count(report.END) == 1


def test_the_chart_is_drawn_from_the_sweeps(tmp_path: Path) -> None:
    chart = tmp_path / "chart.png"
    assert report.plot(_results(), chart)
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_json_result_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "out" / "r.json"
    report.write_json(path, _results())
    assert json.loads(path.read_text())["backends"]["memory"]["endpoints"]["rank"]["rps"] == 12_000


# --- the ceiling ---------------------------------------------------------------------------


def test_the_ceiling_answers_20_bytes_of_json() -> None:
    assert len(ceiling.BODY) == 20
    assert json.loads(ceiling.BODY) == {"status": "ceiling"}


async def test_the_ceiling_app_answers_every_path() -> None:
    async with LifespanManager(ceiling.app):  # type: ignore[arg-type]
        transport = httpx.ASGITransport(app=ceiling.app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://c") as client:
            for path in ("/", "/v1/anything"):
                response = await client.get(path)
                assert response.status_code == 200
                assert response.content == ceiling.BODY
                assert response.headers["content-type"] == "application/json"


# --- the lean reference --------------------------------------------------------------------


async def test_the_lean_reference_answers_what_rankline_answers(
    tmp_path: Path, clock: ManualClock
) -> None:
    """Same players, same shapes, same values: only ``as_of`` differs. Otherwise the
    comparison would weigh different work."""
    now = clock.now()
    data = load.Dataset(1_200, at0=now - 10_000_000, seed=7)
    settings = Settings(data_dir=tmp_path / "data", server_keys="k")
    await load.prepare(settings.database, now)
    await load.load(settings.database, data, now)
    order = sorted(range(data.n), key=lambda i: -data.score(i))
    paths = ["/v1/boards/bench/top?limit=100", "/v1/boards/bench/top?limit=7&offset=1190"]
    for i in (order[0], order[1], 5, 600, order[-2], order[-1]):
        player = data.player(i)
        paths += [f"/v1/boards/bench/players/{player}"]
        paths += [f"/v1/boards/bench/players/{player}/around?k={k}" for k in (0, 5, 100)]
    reference = lean.LeanApp(data)
    application = create_app(settings, clock=clock)
    async with (
        LifespanManager(application, startup_timeout=60),
        LifespanManager(reference),  # type: ignore[arg-type]
    ):
        await application.state.service.wait_ready()
        apps = (application, reference)
        transports = [httpx.ASGITransport(app=a) for a in apps]  # type: ignore[arg-type]
        async with (
            httpx.AsyncClient(transport=transports[0], base_url="http://rl") as ours,
            httpx.AsyncClient(transport=transports[1], base_url="http://lean") as theirs,
        ):
            for path in paths:
                expected, got = (await ours.get(path)).json(), (await theirs.get(path)).json()
                expected.pop("as_of"), got.pop("as_of")
                assert got == expected, path
            assert (await theirs.get("/v1/boards/bench/players/nobody")).status_code == 404
            assert (await theirs.get("/v1/boards/other/top")).status_code == 404


# --- the bulk loader, on every backend -----------------------------------------------------


async def test_a_load_in_two_parts_stores_what_one_load_does(
    settings: Settings, clock: ManualClock
) -> None:
    """A full run loads the first 1M players, measures memory, then loads the rest."""
    now = clock.now()
    data = load.Dataset(1_500, at0=now - 10_000_000, seed=5)
    url = settings.database
    await load.prepare(url, now)
    assert await load.load(url, data, now, first=0, end=600) == 600
    assert await load.load(url, data, now, first=600) == 900
    await _assert_rows(url, 1_500)


async def test_a_subscore_board_loads_with_its_subscores(
    settings: Settings, clock: ManualClock
) -> None:
    """What ``--memory-only`` measures: the bench board with a subscore, bulk-loaded with
    subscores over the whole 64-bit range, is built by a server from SQL with every entry
    and its subscore (the bench's scores are distinct, so the scores alone order it)."""
    now = clock.now()
    data = load.Dataset(400, at0=now - 10_000_000, seed=5)
    board = load.bench_board(subscore="desc")
    url = settings.database
    await load.prepare(url, now, [board])
    assert await load.load(url, data, now, board=board) == 400
    subscores = [data.subscore(i) for i in range(data.n)]
    assert min(subscores) < -(2**62) and max(subscores) > 2**62  # the whole 64-bit range
    order = sorted(range(data.n), key=lambda i: (-data.score(i), -data.subscore(i)))
    async with serve(settings, clock) as client:
        top = (await client.get("/v1/boards/bench/top?limit=1000")).json()
    assert [(e["player_id"], e["subscore"]) for e in top["entries"]] == [
        (data.player(i), data.subscore(i)) for i in order
    ]


def test_memory_only_is_an_option_of_its_own() -> None:
    options = run.make_options(
        quick=True,
        n=None,
        duration=None,
        backends="memory",
        json_path=None,
        markdown=None,
        workers=1,
        connections=1,
        threads=1,
        profile=False,
        seed=1,
        command="rankline bench --memory-only",
        memory_only=True,
    )
    assert options.memory_only and options.n == 1_000_000


async def test_bulk_load_then_the_server_answers_the_ranks_the_data_says(
    settings: Settings, clock: ManualClock
) -> None:
    now = clock.now()
    data = load.Dataset(2_500, at0=now - 10_000_000, seed=3)
    url = settings.database
    await load.prepare(url, now)
    store = SqlStore(url)
    seen: list[int] = []
    try:
        written = await load_first_scores(
            store,
            load.bench_board(),
            data.rows(chunk=1_000),  # several transactions, as a big load has
            match_id=load.MATCH_ID,
            now=now,
            progress=seen.append,
        )
    finally:
        await store.close()
    assert written == 2_500 and seen == [1_000, 2_000, 2_500]
    await _assert_rows(url, 2_500)

    order = sorted(range(data.n), key=lambda i: -data.score(i))
    expected = {data.player(i): rank for rank, i in enumerate(order, start=1)}
    application = create_app(settings, clock=clock)
    async with LifespanManager(application, startup_timeout=60, shutdown_timeout=60):
        await application.state.service.wait_ready()
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://rl") as client:
            for i in (0, 1, 17, 1_234, 2_499, order[0], order[-1]):
                player = data.player(i)
                body = (await client.get(f"/v1/boards/bench/players/{player}")).json()
                assert (body["rank"], body["score"], body["total"]) == (
                    expected[player],
                    data.score(i),
                    2_500,
                )
            top = (await client.get("/v1/boards/bench/top?limit=3")).json()
            assert [e["player_id"] for e in top["entries"]] == [data.player(i) for i in order[:3]]
            # The write path takes over from the loaded state: a retried load event is a
            # duplicate (another score under its match id is a reused key: 409), a better
            # score moves the player up and becomes revision 2.
            last = data.player(order[-1])
            again = {"player_id": last, "score": data.score(order[-1]), "match_id": load.MATCH_ID}
            answer = await client.post("/v1/boards/bench/scores", json=again, headers=AUTH)
            assert answer.json()["duplicate"] is True
            reused = again | {"score": 1}
            answer = await client.post("/v1/boards/bench/scores", json=reused, headers=AUTH)
            assert answer.status_code == 409
            better = {"player_id": last, "score": data.score(order[0]) + 1, "match_id": "m2"}
            answer = await client.post("/v1/boards/bench/scores", json=better, headers=AUTH)
            assert answer.json()["applied"] is True
            assert answer.json()["standings"][0]["rank"] == 1
    assert await _revision(url, last) == 2


async def test_the_write_floor_writes_what_the_group_commit_would(
    settings: Settings, clock: ManualClock
) -> None:
    """The storage floor's transactions are the writer's: every event it counts is stored,
    marked applied exactly when it beat the player's best so far, and each standing holds
    that best at one revision per applied event."""
    now = clock.now()
    data = load.Dataset(300, at0=now - 10_000_000, seed=9)
    url = settings.database
    await load.prepare(url, now)
    await load.load(url, data, now)
    floor = await probes.write_floor(url, data, 1.0, batch=50, seed=4)
    assert floor["transactions"] > 1 and floor["batch"] == 50
    assert 1.0 <= floor["seconds"] < 60
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            e, st = t.score_events, t.standings
            stored = list(
                await conn.execute(
                    select(e.c.player_id, e.c.match_id, e.c.score, e.c.applied).order_by(e.c.id)
                )
            )
            standings = {
                player: (score, revision)
                for player, score, revision in await conn.execute(
                    select(st.c.player_id, st.c.score, st.c.revision)
                )
            }
    finally:
        await engine.dispose()
    assert sum(1 for _, match, _, _ in stored if match.startswith("floor-")) == floor["events"]
    best: dict[str, int] = {}
    revisions: dict[str, int] = {}
    for player, _, score, applied in stored:  # in the order they were written
        beats = player not in best or score > best[player]
        assert applied == beats, (player, score, best.get(player))
        if beats:
            best[player] = score
            revisions[player] = revisions.get(player, 0) + 1
    assert standings == {p: (best[p], revisions[p]) for p in best}
    assert max(revisions.values()) > 1  # some standings moved on


def test_the_write_floor_shows_beside_the_batch_ingest() -> None:
    results = _results()  # a batch ingest of 60,000 events/s
    section = results["backends"]["memory"]
    section["write_floor"] = {"events_per_s": 80_000.0}
    label = "storage floor: the group commit's SQL alone (events/s; batch ingest's share)"
    rows = {r[0]: r[1:] for r in report.figure_rows(results)[1]}
    assert rows[label] == ["80,000 (75%)"]
    del section["batch_ingest"]  # the batch run failed
    rows = {r[0]: r[1:] for r in report.figure_rows(results)[1]}
    assert rows[label] == ["80,000"]
    del section["write_floor"]
    rows = {r[0]: r[1:] for r in report.figure_rows(results)[1]}
    assert rows[label] == ["—"]


def test_redis_memory_reads_every_field_it_corrects_by() -> None:
    found = probes.redis_memory(REDIS_URL)
    assert set(found) == {"used_memory", *probes.FIXED_MEMORY}
    assert found["used_memory"] > 0 and found["used_memory_scripts"] >= 0


async def _assert_rows(url: str, n: int) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            e = t.score_events
            events = await conn.execute(select(func.count()).select_from(e))
            applied = await conn.execute(select(func.count()).where(e.c.applied.is_(True)))
            assert (events.scalar_one(), applied.scalar_one()) == (n, n)
            standings = await conn.execute(
                select(func.count(), func.max(t.standings.c.revision)).where(
                    t.standings.c.board_id == load.BOARD_ID
                )
            )
            assert tuple(standings.one()) == (n, 1)
            periods = await conn.execute(select(t.periods.c.window, t.periods.c.period))
            assert [tuple(r) for r in periods] == [("all_time", "all")]
    finally:
        await engine.dispose()


async def _revision(url: str, player: str) -> int:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            s = t.standings
            row = await conn.execute(select(s.c.revision).where(s.c.player_id == player))
            return int(row.scalar_one())
    finally:
        await engine.dispose()


# --- every script against a real server ----------------------------------------------------


def test_every_wrk_script_is_answered_without_errors(tmp_path: Path) -> None:
    """Each endpoint's script, one second against a real ``rankline serve`` on a small
    bulk-loaded board: no 4xx or 5xx (a script asking for a wrong path or body would be
    a benchmark of error pages), and the writes reach SQL; the reads' scripts on the lean
    reference too. ``make test`` installs wrk."""
    if shutil.which("wrk") is None:
        pytest.fail("wrk is not installed: run `make tools` (apt-get install wrk)")
    now = SystemClock().now()
    data = load.Dataset(500, at0=now - 10_000_000)
    data_dir = tmp_path / "data"
    url = Settings(data_dir=data_dir).database
    asyncio.run(load.prepare(url, now))
    asyncio.run(load.load(url, data, now))
    env = servers.bench_env(data_dir=str(data_dir), server_keys="bench-key", log_level="warning")
    args = {"n": data.n, "board": load.BOARD_ID, "key": "bench-key", "run": "t", "seed": 1}
    server = servers.rankline_server(env, 1, tmp_path / "server.log")
    with servers.running(server, timeout=60):
        for e in run.ENDPOINTS:
            count = probes.count_matches if e.rated else probes.count_events
            before = asyncio.run(count(url))
            # Each script its own match ids: a script reusing another's with a new score is
            # answered 409 (match id reused), rightly.
            mine = args | {"run": f"t-{e.name}"}
            if e.rated:
                mine["board"] = load.RATED_BOARD_ID
            # a rated board's first match loads its rating model: on a busy machine, more
            # than the second the other scripts get
            seconds = 3 if e.rated else 1
            result = wrk.run(
                server.url, e.name, connections=2, threads=1, seconds=seconds, args=mine
            )
            assert result.requests > 0 and result.error_count == 0, (e.name, result, server.log())
            if e.events:
                # An asynchronous batch is applied behind the log: give the applier time.
                deadline = time.monotonic() + (30 if e.asynchronous else 0)
                while asyncio.run(count(url)) <= before:
                    assert time.monotonic() < deadline, f"{e.name}: nothing reached SQL"
                    time.sleep(0.2)
            if e.rated:  # every match of every answered request is rated, and once (the two
                # connections' requests in flight when wrk stopped may land too)
                rated = asyncio.run(count(url)) - before
                assert result.requests * e.events <= rated <= (result.requests + 2) * e.events
        paced = wrk.run(
            server.url, "rank", connections=2, threads=1, seconds=1, args=args | {"delay": 2.5}
        )
        assert paced.requests > 0 and paced.error_count == 0
        assert server.rss_bytes() > 0
    with servers.running(servers.ceiling_server(env, 1, tmp_path / "c.log"), 30) as c:
        result = wrk.run(c.url, "ceiling", connections=2, threads=1, seconds=1, args={})
        assert result.requests > 0 and result.error_count == 0
    reference = servers.lean_server(env, 1, tmp_path / "l.log", data.n, data.at0, data.seed)
    with servers.running(reference, 30):
        for name in report.READS:
            result = wrk.run(reference.url, name, connections=2, threads=1, seconds=1, args=args)
            assert result.requests > 0 and result.error_count == 0, (name, reference.log())


def test_the_server_log_gives_the_build_rate_and_the_last_errors(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text(
        "INFO rankline.index: building the ranking index from 1,000,000 standings\n"
        "2026-11-22 03:06:22,1 INFO rankline.index: ranking index built: 1,000,000 in 6.9 s"
        " (144221/s)\n"
        "2026-11-22 03:07:00,2 ERROR rankline: unhandled error on GET /v1/boards/b/top\n"
        "Traceback (most recent call last):\n"
        '  File "x.py", line 1, in f\n'
        "AttributeError: 'MemoryIndex' object has no attribute 'page'\n"
    )
    server = servers.Server("rankline", ["true"], {}, log, 1)
    assert server.logged_build() == (1_000_000, 6.9, 144_221.0)
    assert server.errors() == [
        "2026-11-22 03:07:00,2 ERROR rankline: unhandled error on GET /v1/boards/b/top",
        "AttributeError: 'MemoryIndex' object has no attribute 'page'",
    ]
    assert servers.Server("ceiling", ["true"], {}, tmp_path / "none.log", 1).logged_build() is None


def test_the_ceiling_run_again_after_the_reads_shows_beside_the_first() -> None:
    section = _results()["backends"]["memory"]
    section["ceiling_after"] = _point(30_000, 2.0)  # the machine sped up: mean 25,000
    assert report.mean_ceiling(section) == 25_000
    rows = report.endpoint_rows(section)
    assert rows[0][0] == "ceiling (raw ASGI, 20-byte JSON)" and rows[0][-1] == "80%"
    assert rows[1][:2] == ["ceiling again, after the reads", "30,000"]
    assert rows[1][-1] == "120%"


def test_the_mean_ceiling_is_the_single_run_when_there_is_one() -> None:
    section = _results()["backends"]["memory"]
    assert report.mean_ceiling(section) == 20_000
    assert report.mean_ceiling({}) is None


def test_a_p99_measured_well_below_80_percent_does_not_judge_the_target() -> None:
    results = _results()
    at_80 = results["backends"]["memory"]["at_80"]
    at_80["rank"] = _point(6_000, 7.0, fraction=0.68)  # within 10 ms, at 68% of max
    at_80["top"] = _point(8_000, 12.0, fraction=0.68)  # over 10 ms even at 68%: not met
    at_80["around"] = _point(8_500, 8.0, fraction=0.79)
    verdicts = {t["target"]: t["met"] for t in report.targets(results) if t["backend"] == "memory"}
    assert verdicts["rank p99 <= 10 ms at 80% of max (ms)"] is None
    assert verdicts["top p99 <= 10 ms at 80% of max (ms)"] is False
    assert verdicts["around p99 <= 10 ms at 80% of max (ms)"] is True
    rows = {(r[0], r[1]): r[3] for r in report.target_rows(results)}
    assert rows["memory", "rank p99 <= 10 ms at 80% of max (ms)"] == "not measured (at 68% of max)"


def _tiny(
    tmp_path: Path, backends: str, n: int, markdown: Path | None = None, **more: Any
) -> run.Options:
    """The options of a run of ``helpers_backends`` at a tiny N, its JSON in ``tmp_path`` (``more``:
    further options)."""
    return run.make_options(
        quick=True,
        n=n,
        duration=1,
        backends=backends,
        json_path=tmp_path / f"{backends}.json",
        markdown=markdown,
        workers=1,
        connections=8,
        threads=1,
        profile=False,
        seed=3,
        command=f"rankline bench --backends {backends} --n {n}",
        **more,
    )


def test_the_cluster_run_measures_both_boards_and_writes_its_own_section(tmp_path: Path) -> None:
    """``rankline bench --backends cluster`` end to end at a tiny N: a local cluster, both
    boards loaded and served, each read measured on both, memory and the raw baseline; its
    markdown section goes between its own markers and leaves the backends' section alone."""
    if shutil.which("wrk") is None:
        pytest.fail("wrk is not installed: `make tools` installs it")
    page = tmp_path / "performance.md"
    page.write_text(f"# Perf\n\n{report.BEGIN}\nthe backends' table\n{report.END}\n")
    options = _tiny(tmp_path, "cluster", 3000, page)
    with (tmp_path / "out.txt").open("w") as out:
        assert run.main(options, Console(file=out)) == 0
    results = json.loads((tmp_path / "cluster.json").read_text())
    cluster = results["cluster"]
    assert results["backends"] == {}
    for board in (load.BOARD_ID, "bench-sharded"):
        for read in ("rank", "around", "top"):
            assert cluster["boards"][board][read]["rps"] > 0, (board, read)
    shares = cluster["sharded_share"]
    assert all(0 < share < 10 for share in shares.values()), shares
    for board in (load.BOARD_ID, "bench-sharded"):
        memory = cluster["memory"][board]
        assert memory["entries"] == 3000
        primaries = memory["primaries"]["bytes_per_entry"]
        assert 0 < primaries < memory["with_replicas"]["bytes_per_entry"], memory
        assert cluster["ready_seconds"][board] > 0
    assert cluster["redis_benchmark"]["members"] == 3000
    text = page.read_text()
    assert "the backends' table" in text and text.count(report.CLUSTER_BEGIN) == 1
    assert "## Redis Cluster: N=3,000 per board" in text
    assert "| rank |" in text and "sharded / unsharded" in text


def test_the_dense_run_measures_a_plain_and_a_dense_rank_board(tmp_path: Path) -> None:
    """``rankline bench --backends dense`` end to end at a tiny N: on each backend, a plain
    board and a dense-rank board of the same players, each in a fresh store and measured on
    a server of its own; on Redis the distinct scores are keys of their own."""
    options = _tiny(tmp_path, "dense", 2000)
    with (tmp_path / "out.txt").open("w") as out:
        assert run.main(options, Console(file=out)) == 0
    results = json.loads((tmp_path / "dense.json").read_text())
    dense = results["dense"]
    assert results["backends"] == {} and dense["entries"] == 2000
    assert dense["distinct_scores"] == 2000
    for name in ("memory", "redis"):
        found = dense["backends"][name]
        assert found["plain"]["entries"] == found["dense_rank"]["entries"] == 2000
        extra = found["dense_rank"]["bytes_per_entry"] - found["plain"]["bytes_per_entry"]
        assert found["dense_rank_extra_bytes_per_entry"] == pytest.approx(extra)
    redis = dense["backends"]["redis"]
    assert redis["dense_rank"]["keys"] == redis["plain"]["keys"] + 1  # the distinct scores
    assert redis["dense_rank"]["keys_bytes_per_entry"] > redis["plain"]["keys_bytes_per_entry"]


def test_a_run_puts_a_nats_log_in_front_of_the_writes_and_drops_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``rankline bench --log-url nats://…`` end to end at a small N: the server takes the
    asynchronous batches into a NATS stream of the run's own and applies every one it
    accepted; the report names the engine wherever the backend's figures are; the stream is
    dropped at the end."""
    if shutil.which("wrk") is None:
        pytest.fail("wrk is not installed: `make tools` installs it")
    held: dict[str, dict[str, int]] = {}

    async def drop_log(log_url: str, name: str) -> None:
        held[name] = await _positions(log_url, name)  # what the servers left in it
        await dropping(log_url, name)

    dropping = probes.drop_log
    monkeypatch.setattr(probes, "drop_log", drop_log)
    page = tmp_path / "performance.md"
    options = _tiny(tmp_path, "memory", 2000, page, endpoints="batch_async", log_url=NATS_URL)
    with (tmp_path / "out.txt").open("w") as out:
        assert run.main(options, Console(file=out, width=200)) == 0
    results = json.loads((tmp_path / "memory.json").read_text())
    section = results["backends"]["memory"]
    log = section["log"]
    assert re.fullmatch(r"bench_[0-9a-f]{6}_memory", log["name"]), log
    assert log == {
        "engine": "NATS JetStream",
        "url": NATS_URL,
        "name": log["name"],
        "dropped": True,
    }
    assert section["label"] == "memory index + SQLite + NATS JetStream"
    burst = section["endpoints"]["batch_async"]
    assert "failed" not in burst, burst
    # Every submission answered 202 was applied; a request still in flight when wrk stopped
    # (4 connections, 1,000 submissions each) may be taken and applied uncounted by wrk.
    assert 0 < burst["accepted"] <= burst["applied"] <= burst["accepted"] + 4 * 1000
    assert section["async_ingest"]["applied_per_s"] > 0
    # The submissions went through the stream and were applied from it, all but (at most)
    # the four requests in flight when wrk stopped: the server stops without waiting for
    # its applier, and leaves what it did not apply in the log.
    positions = held[log["name"]]
    assert 0 < positions["committed"] <= positions["last"] <= positions["committed"] + 4
    assert not any(log["name"] in stream for stream in asyncio.run(_nats_streams()))
    text = page.read_text()
    title = (
        "### memory index + SQLite + NATS JetStream (1 worker(s); ingestion log: NATS JetStream)"
    )
    assert title in text
    assert "| ingestion log (asynchronous submissions, rated matches) | NATS JetStream |" in text
    assert "| memory + NATS JetStream | async batch burst >= 50,000 durable/s |" in text


async def _positions(log_url: str, name: str) -> dict[str, int]:
    """The highest last and committed positions over the partitions of the log ``name``."""
    log = open_log(log_url, "", LogOptions(name=name))
    await log.start()
    try:
        parts = range(log.partitions)
        return {
            "last": max([await log.last_position(p) for p in parts]),
            "committed": max([await log.committed(p) for p in parts]),
        }
    finally:
        await log.close()


async def _nats_streams() -> set[str]:
    import nats

    nc = await nats.connect(NATS_URL)
    try:
        return {info.config.name for info in await nc.jetstream().streams_info()}
    finally:
        await nc.close()


def test_the_log_url_is_checked_before_a_run(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="--log-url: unknown scheme 'amqp'"):
        _tiny(tmp_path, "memory", 10, log_url="amqp://127.0.0.1")
    with pytest.raises(ValueError, match="--log-url puts a log in front of the memory and redis"):
        _tiny(tmp_path, "cluster", 10, log_url="kafka://127.0.0.1:9092")
    with pytest.raises(ValueError, match="not with --memory-only"):
        _tiny(tmp_path, "memory", 10, log_url="kafka://127.0.0.1:9092", memory_only=True)
    options = _tiny(tmp_path, "memory,redis", 10, log_url="sqlite+aiosqlite:///tmp/log.db")
    assert options.log_url == "sqlite+aiosqlite:///tmp/log.db"
    plan = run.backend("redis", 2, options.log_url, "bench_x_redis")
    assert plan.label == "Redis + PostgreSQL + SQLite file"
    assert run.log_of(plan) == {
        "engine": "SQLite file",
        "url": "sqlite+aiosqlite:///tmp/log.db",
        "name": "bench_x_redis",
    }
    assert run.log_of(run.backend("redis", 2)) == {
        "engine": "PostgreSQL, in the store's own tables"
    }
    assert run.log_of(run.backend("memory", 1)) == {"engine": "SQLite file beside the store"}


# --- the probes: a tiny run of each ---------------------------------------------------------


def _probe(*args: str, timeout: float = 240) -> str:
    """``rankline bench probe ARGS``: it exits 0 without a traceback; its output."""
    done = run_cli("bench", "probe", *args, timeout=timeout)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "Traceback" not in output, output
    return output


def _rate(pattern: str, output: str) -> float:
    """The figure ``pattern`` captures (digits with thousands commas), which must be > 0."""
    found = re.search(pattern, output)
    assert found, output
    value = float(found.group(1).replace(",", ""))
    assert value > 0, output
    return value


def test_the_reads_probe_times_every_read_endpoint_in_process(tmp_path: Path) -> None:
    out = _probe("reads", "--n", "300", "--count", "20", "--data-dir", str(tmp_path))
    for endpoint in ("rank", "around", "top", "deep", "friends"):
        _rate(rf"{endpoint} +([\d.]+) µs CPU/request  \(n=300, 20 requests", out)
    assert (tmp_path / "rankline.db").is_file()  # kept for the next run


def test_the_reads_probe_times_the_lean_reference_beside_rankline_round_by_round(
    tmp_path: Path,
) -> None:
    out = _probe(
        "reads", "--n", "300", "--count", "20", "--data-dir", str(tmp_path),
        "--endpoints", "rank,top,deep", "--lean", "--rounds", "2",
    )  # fmt: skip
    for endpoint in ("rank", "top"):
        assert len(re.findall(rf"\n{endpoint} +[\d.]+ µs CPU/request", "\n" + out)) == 2, out
        _rate(rf"{endpoint} +lean / rankline, median of 2 rounds: ([\d.]+)", out)
    leans = re.findall(
        r"([\d.]+) µs CPU/request, the lean reference; lean / rankline ([\d.]+)", out
    )
    assert len(leans) == 4 and all(float(a) > 0 and float(b) > 0 for a, b in leans), out
    assert "deep     lean" not in out  # the lean reference has no deep page


def test_the_reads_probe_refuses_an_endpoint_it_does_not_know() -> None:
    done = run_cli("bench", "probe", "reads", "--endpoints", "rank,nope")
    assert done.returncode == 2 and "--endpoints takes some of" in done.stderr, done.stderr


def test_the_server_probe_gives_the_cpu_per_request_beside_the_ceiling(tmp_path: Path) -> None:
    if shutil.which("wrk") is None:
        pytest.fail("wrk is not installed: run `make tools` (apt-get install wrk)")
    _probe(
        "reads", "--n", "300", "--count", "10", "--endpoints", "rank", "--data-dir", str(tmp_path)
    )
    out = _probe(
        "server", "--n", "300", "--data-dir", str(tmp_path), "--seconds", "1",
        "--connections", "4", "--lean", "rank", "top_deep",
    )  # fmt: skip
    _rate(r"ceiling +[\d,]+ req/s  CPU per request: server +([\d.]+) µs", out)
    _rate(r"lean:rank +[\d,]+ req/s  CPU per request: server +([\d.]+) µs", out)
    _rate(r"\nrank +([\d,]+) req/s  CPU per request: server", out)
    _rate(r"rank +lean reference's CPU per request over rankline's: ([\d.]+)x", out)
    assert "lean:top_deep" not in out and "top_deep  lean" not in out  # no lean deep page


def test_the_server_probe_compares_the_http_servers_round_by_round(tmp_path: Path) -> None:
    if shutil.which("wrk") is None:
        pytest.fail("wrk is not installed: run `make tools` (apt-get install wrk)")
    _probe(
        "reads", "--n", "300", "--count", "10", "--endpoints", "rank", "--data-dir", str(tmp_path)
    )
    out = _probe(
        "server", "--n", "300", "--data-dir", str(tmp_path), "--seconds", "1",
        "--connections", "4", "--servers", "uvicorn,granian", "--rounds", "2", "rank",
    )  # fmt: skip
    for software in ("uvicorn", "granian"):
        for round_ in (1, 2):
            _rate(rf"{software} round {round_}: rank +([\d,]+) req/s", out)
    assert "median of 2 round(s)" in out
    assert "| endpoint | uvicorn (req/s) | granian (req/s) | granian / uvicorn |" in out
    _rate(r"\| rank \| [\d,]+ \| [\d,]+ \| ([\d.]+) \|", out)


def test_the_ingest_probe_times_durable_batches_on_the_embedded_default() -> None:
    out = _probe(
        "ingest", "--events", "300", "--warmup", "20", "--batch", "100", "--players", "50",
    )  # fmt: skip
    _rate(r"batch: 300 submissions in [\d.]+ s = ([\d,]+)/s", out)


def test_the_ingest_probe_says_how_busy_each_server_thread_was(tmp_path: Path) -> None:
    out = _probe(
        "ingest", "--events", "3000", "--warmup", "20", "--batch", "100", "--players", "50",
        "--profile", str(tmp_path / "server.txt"),
    )  # fmt: skip
    _rate(r"server CPU [\d.]+ us/submission \(([\d.]+) of a core\)", out)
    assert re.search(r"server threads busy during the [\d.]+ s", out), out
    _rate(r"\n +(\d+)%  MainThread \(\d+\)", out)
    assert "on top of the busiest's stacks" in out, out
    assert (tmp_path / "server.txt").stat().st_size > 0


def test_the_ingest_probe_times_the_intake_alone_then_the_applying() -> None:
    # Enough submissions for the intake's CPU to span several of the kernel's clock ticks
    # (10 ms, the resolution of /proc's CPU times): a few hundred take about a millisecond.
    out = _probe(
        "ingest", "--respond-async", "--intake-only", "--events", "20000", "--warmup", "1000",
        "--batch", "1000", "--players", "50",
    )  # fmt: skip
    _rate(r"intake: 20000 submissions taken into the log in [\d.]+ s = ([\d,]+)/s", out)
    _rate(r"server CPU ([\d.]+) us/submission \(the intake alone", out)
    _rate(
        r"applied after a restart with the applier: 21000 submissions in [\d.]+ s = ([\d,]+)/s",
        out,
    )


def test_the_ratings_probe_rates_matches_through_the_api() -> None:
    out = _probe("ratings", "--matches", "100", "--players", "20", "--batch", "25")
    _rate(r"100 elo matches, batch 25, 2 clients: ([\d,]+) matches/s", out)


def test_the_log_probe_times_appends_to_the_embedded_log() -> None:
    out = _probe("log", "--batches", "3", "--batch", "40")
    _rate(r"sqlite: 120 records in 3 batches of 40 .*: ([\d,]+) rows/s", out)


def test_the_projection_probe_times_each_layout(tmp_path: Path) -> None:
    out = _probe(
        "projection", "--players", "1000", "--batch", "100", "--seconds", "0.2",
        "--layouts", "key,standings", "--data-dir", str(tmp_path),
    )  # fmt: skip
    _rate(r"key: +([\d,]+) events/s", out)
    _rate(r"standings: +([\d,]+) events/s", out)


def test_the_replay_probe_replays_the_events_it_wrote() -> None:
    out = _probe("replay", "--events", "1000", "--players", "30", "--days", "2")
    assert "1,000 events of 30 players over 2 days" in out
    _rate(r"replayed 1,000 events into [\d,]+ standings .*: ([\d,]+) events/s", out)
    assert "(unexplained: 0)" in out


def test_the_calendar_probe_times_zoned_and_cron_boards() -> None:
    out = _probe("calendar", "--count", "200", "--boards", "20")
    for row in ("UTC (daily, weekly, monthly)", "America/Los_Angeles (the same)", "a cron window"):
        found = re.search(re.escape(row) + r" +([\d.]+) +([\d.]+) +([\d,]+) B", out)
        assert found is not None, out
        assert all(float(g.replace(",", "")) > 0 for g in found.groups())
    assert re.search(r"named period [\d.]+ \(event\)", out)
    assert re.search(r"importing croniter: [\d,]+ KiB", out)


def test_the_close_events_probe_archives_with_and_without_a_webhook() -> None:
    out = _probe("close-events", "--players", "50", "--regions", "2", "--tops", "3")
    assert "50 players on one daily period, 2 region scopes (+ global): 100 archived entries" in out
    assert re.search(r"no webhook +\d+ ms +- +0 +0 +-", out), out
    found = re.search(r"webhook, top 3 +\d+ ms +\d+ ms +3 +([\d,]+) +([\d,]+) B", out)
    assert found is not None, out
    assert re.search(r"sending 3 events to a loopback receiver: [\d.]+ ms each", out), out


def test_the_rebuild_probe_rebuilds_a_redis_index_from_postgresql() -> None:
    database = PG_URL + "_rebuild_probe"
    out = _probe(
        "rebuild", "--n", "1000", "--database-url", database, "--redis-url", REDIS_URL, "--drop",
    )  # fmt: skip
    assert "loaded 1,000 players" in out
    _rate(r"run 1: +([\d,]+) entries/s \([\d.]+ s, n=1,000\)", out)


def test_measured_servers_keep_rate_limits_on_above_what_wrk_sends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """wrk sends from one address with one key: at the default 20,000 requests a second a
    fast read would be answered 429 and the endpoint reported broken, so the bench's
    servers run with the limits on (their checks cost what they cost) and out of the way."""
    monkeypatch.setenv("RANKLINE_RATE_LIMIT_ADDRESS_READS", "5/second")  # not inherited
    env = servers.bench_env(server_keys="k", rate_limit_key_writes="7/second")
    for name in list(os.environ):
        if name.startswith("RANKLINE_"):
            monkeypatch.delenv(name)
    for name, value in env.items():
        if name.startswith("RANKLINE_"):
            monkeypatch.setenv(name, value)
    settings = Settings()
    assert settings.rate_limits is True
    assert settings.rate_limit_address_reads == servers.UNBOUND_RATE
    assert settings.rate_limit_key_reads == servers.UNBOUND_RATE
    assert settings.rate_limit_address_writes == servers.UNBOUND_RATE
    assert settings.rate_limit_key_writes == "7/second"  # a setting given wins
