"""``rankline soak``: its figures from hand-made samples (percentiles, the restart row, RSS
growth judged per process, the verdicts), and a short real soak on both backends with a
restart in the middle: every figure is a real number and no request got a 5xx."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from helpers_backends import _SLOT, REDIS_URL
from helpers_procs import cli_env, run_cli
from rankline_bench.soak import Bucket, Options, RssSampler, summarize

MB = 2**20


def sampler(samples: dict[int, list[tuple[float, int]]]) -> RssSampler:
    rss = RssSampler(lambda: [], 0.0)
    rss.samples = samples
    rss.totals = [(t, sum(v for s in samples.values() for u, v in s if u == t)) for t in range(60)]
    return rss


def test_figures_per_row_and_the_verdicts() -> None:
    options = Options(minutes=1.0)  # rows of 10 s, warm-up 12 s
    fast = [0.001 * i for i in range(1, 101)]  # p50 50 ms, p99 99 ms
    buckets = {
        0: Bucket(list(fast), Counter({"2xx": 100})),
        1: Bucket(list(fast), Counter({"2xx": 100, "404": 3})),
        2: Bucket([x * 10 for x in fast], Counter({"2xx": 100, "503 starting": 4})),
        3: Bucket(list(fast), Counter({"2xx": 100, "5xx": 1})),
    }
    long_lived = [(float(t), (100 + (8 if t >= 50 else 0)) * MB) for t in range(60)]
    short_lived = [(float(t), 50 * MB) for t in range(40, 60)]  # too short to judge
    rss = sampler({1: long_lived, 2: short_lived})
    result = summarize(options, buckets, rss, 25.0, 27.0, "restarted", 60.0)
    rows = result["rows"]
    # The last two rows were never reached by the load: shown, with no request.
    assert [r["requests"] for r in rows] == [100, 103, 104, 101, 0, 0]
    assert (rows[0]["p50_ms"], rows[0]["p99_ms"]) == (50.0, 99.0)
    assert (rows[4]["p50_ms"], rows[4]["p99_ms"]) == (None, None)
    assert [r["restart"] for r in rows] == [False, False, True, False, False, False]
    # The restart row's p99 (990 ms) is shown but left out of the stability verdict.
    assert (result["p99_median_ms"], result["p99_worst_ms"]) == (99.0, 99.0)
    assert result["errors_5xx"] == 1
    assert [(g["pid"], g["judged"]) for g in result["rss"]] == [(1, True), (2, False)]
    assert math.isclose(result["rss_growth"], 0.08)
    assert result["goals"] == {"rss": False, "p99": True, "5xx": False}


def test_a_restart_longer_than_a_row_marks_every_row_it_covers() -> None:
    options = Options(minutes=0.3)  # rows of 3 s
    ok = Bucket([0.01], Counter({"2xx": 1}))
    buckets = {i: ok for i in range(6)} | {3: Bucket([], Counter({"connection": 40}))}
    result = summarize(options, buckets, sampler({}), 8.5, 12.5, "restarted", 18.0)
    assert [r["restart"] for r in result["rows"]] == [False, False, True, True, True, False]
    # The row with no answer at all (the server was down throughout) has no latency.
    assert (result["rows"][3]["p50_ms"], result["rows"][3]["p99_ms"]) == (None, None)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_short_soak_on_both_backends(tmp_path: Path) -> None:
    figures = tmp_path / "soak.json"
    done = run_cli(
        "soak",
        "--minutes",
        "0.3",
        "--players",
        "500",
        "--rate",
        "100",
        "--clients",
        "32",
        "--database-url",
        f"postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_soak_{_SLOT}",
        "--redis-url",
        REDIS_URL,
        "--json",
        str(figures),
        env=cli_env(),
        timeout=220,
    )
    # Exit 1 would be a missed goal; the latency goal depends on a shared machine's noise.
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert "RSS growth after warm-up" in done.stderr
    backends = {b["backend"]: b for b in json.loads(figures.read_text())["backends"]}
    assert set(backends) == {"memory", "redis"}
    for name, result in backends.items():
        assert result["errors_5xx"] == 0, (name, result["errors_5xx_first"])
        assert result["goals"]["5xx"]
        assert result["requests"] > 1000, result["requests"]
        assert len(result["rows"]) == 6
        for row in result["rows"]:
            if row["requests"] == 0:  # the load fell behind and the run ended on time
                assert result["behind_s"] > 0, (row, result["behind_s"])
                continue
            if row["rss_mb"] is None:  # no server was up to sample for the row's length
                assert row["restart"], row
            else:
                assert row["rss_mb"] > 20
            if not row["restart"]:  # a restart row may have had no server for its length
                assert 0 < row["p50_ms"] <= row["p99_ms"]
        assert any(row["restart"] for row in result["rows"])
        assert isinstance(result["rss_growth"], float)
        assert any(g["judged"] for g in result["rss"])
    assert "killed worker" in backends["redis"]["restart"]
    assert "started it again" in backends["memory"]["restart"]
