"""``rankline bench overload`` at a tiny scale: it runs end to end on the embedded stack, and
what it counts adds up (every acknowledged submission stored, nothing refused written)."""

from __future__ import annotations

import pytest

from rankline_bench import overload


def test_the_load_is_split_over_processes_and_percentiles_are_taken() -> None:
    assert overload._split(128, 3) == [43, 43, 42]
    assert overload._split(1, 2) == [1]
    assert overload._percentile([0.3, 0.1, 0.2], 0.5) == 0.2
    assert overload._percentile([float(n) for n in range(100)], 0.99) == 99.0


@pytest.mark.timeout(300)
def test_a_small_overload_run_reports_its_row_and_loses_nothing() -> None:
    options = overload.Options(
        backends=("memory",),
        clients=6,
        batch=50,
        seconds=1.5,
        readers=2,
        rounds=1,
        processes=1,
        unloaded_clients=1,
        players=200,
        deadline_ms=200,
    )
    found = overload.measure(options, progress=lambda _: None)
    [round_] = found["backends"]["memory"]["rounds"]
    assert round_["lost_or_extra"] == 0
    assert round_["no_retry_after"] == 0
    assert round_["unloaded_rate"] > 0 and round_["goodput"] > 0
    assert round_["reads"] > 0
    assert round_["other"] == {}
    table = overload.table(found)
    assert table.splitlines()[2].startswith("| embedded (1 worker, SQLite) |")
