"""``rankline bench grpc`` against a real server, in short: the board is seeded, every
measurement made its calls without a failure (a batch item's error counts as one), and the
table shows HTTP and gRPC side by side; on the embedded stack, and on Redis + PostgreSQL with
two workers sharing the ports."""

from __future__ import annotations

import httpx
import pytest

from helpers_backends import _SLOT, REDIS_URL
from rankline_bench import grpc_run
from rankline_bench.grpc_load import BATCH, BOARD

TWO_WORKERS = grpc_run.Options(
    players=2000,
    seconds=0.5,
    rounds=1,
    processes=1,
    backend="redis",
    workers=2,
    database_url=f"postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_bench_grpc_{_SLOT}",
    redis_url=REDIS_URL,
)


@pytest.mark.parametrize(
    "options",
    [
        grpc_run.Options(players=2000, seconds=0.5, rounds=1, processes=1),
        pytest.param(TWO_WORKERS, marks=pytest.mark.services),
    ],
    ids=["embedded", "redis-2-workers"],
)
def test_a_short_run_measures_each_operation_over_both_protocols(
    monkeypatch: pytest.MonkeyPatch, options: grpc_run.Options
) -> None:
    totals: list[int] = []
    seed = grpc_run._seed

    def seeded(url: str, players: int) -> None:
        seed(url, players)
        totals.append(_total(url))

    measured = grpc_run.measure
    monkeypatch.setattr(grpc_run, "_seed", seeded)
    found = measured(options, progress=lambda line: None)
    assert totals == [2000]
    for kind in grpc_run.KINDS:
        for protocol in grpc_run.PROTOCOLS:
            [figure] = found[kind][protocol]
            assert figure.rate > 0 and figure.failures == 0, (kind, protocol, figure)
            assert figure.server_ms > 0 and figure.p99_ms > 0
    table = grpc_run.table(found)
    assert table.count("\n") == 1 + len(grpc_run.KINDS)
    assert f"| batch of {BATCH:,} |" in table and "| rank read |" in table


def _total(url: str) -> int:
    top = httpx.get(f"{url}/v1/boards/{BOARD}/top", params={"limit": 1}, timeout=10).json()
    total: int = top["total"]
    return total


def test_the_embedded_stack_serves_from_one_worker() -> None:
    with pytest.raises(ValueError, match="one worker"):
        grpc_run.Options(workers=2).plan()
    assert grpc_run.Options(backend="redis", workers=2).plan().workers == 2
