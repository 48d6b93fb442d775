"""The history checker of ``rankline check-history``: hand-made histories with one known
violation of each rule (it finds exactly those), histories that concurrency explains (it
finds none), and a short real recording on both backends across a restart (no violation)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers_backends import _SLOT, REDIS_URL
from helpers_procs import cli_env, run_cli
from rankline_bench.history import RULES, Final, History, Read, SeenEntry, Write, check, count

BEST, SUM = "b", "s"
AT = "2026-11-21T12:00:00.000Z"


def w(
    player: str,
    score: int,
    invoked: float,
    completed: float | None,
    *,
    board: str = BEST,
    acked: bool = True,
    match: str | None = None,
) -> Write:
    return Write(board, player, match or f"{player}-{invoked}", score, invoked, completed, acked)


def one(
    player: str,
    score: int,
    invoked: float,
    completed: float,
    board: str = BEST,
    rank: int = 1,
    total: int | None = None,
) -> Read:
    return Read(board, invoked, completed, (SeenEntry(player, score, rank, AT),), total)


def top(
    invoked: float, completed: float, *rows: tuple[str, int, int], total: int | None = None
) -> Read:
    entries = tuple(SeenEntry(p, s, r, AT) for p, s, r in rows)
    return Read(BEST, invoked, completed, entries, len(rows) if total is None else total)


def found(history: History) -> dict[str, int]:
    return {rule: n for rule, n in count(check(history)).items() if n}


def test_a_concurrent_but_explainable_history_has_no_violation() -> None:
    history = History(BEST, SUM)
    history.writes += [
        w("a", 10, 0.0, 1.0),
        w("a", 30, 2.0, 5.0),  # in flight during the reads below: either value may show
        w("a", 20, 2.5, 3.0),  # lower than 10's successor 30: it never shows alone
        w("a", 5, 6.0, 6.5),  # a lower score, applied: false
        w("a", 1, 0.0, 1.0, board=SUM),
        w("a", 2, 2.0, 4.0, board=SUM),
        w("a", 4, 2.0, None, board=SUM, acked=False),  # a timeout: never acknowledged
        w("b", 7, 0.0, 1.0),
    ]
    history.reads += [
        one("a", 10, 1.5, 2.1),  # before 30 and 20 began
        one("a", 30, 2.2, 2.4),  # 30 already visible, not yet acknowledged
        one("a", 20, 2.3, 3.5),  # concurrent with the read above: no real-time order
        one("a", 30, 5.5, 6.0),
        one("a", 30, 7.0, 7.5),
        Read(BEST, 0.0, 0.5, absent="a"),  # before any write of a was acknowledged
        top(5.5, 5.6, ("a", 30, 1), ("b", 7, 2)),
        one("a", 1, 1.5, 1.8, board=SUM),
        one("a", 7, 2.5, 5.0, board=SUM),  # 1 + the two in flight
        one("a", 3, 4.5, 5.0, board=SUM),  # 1 + 2; concurrent with the 7 above
    ]
    history.finals += [Final("a", 3)]
    assert check(history) == []


def test_each_rule_finds_its_violation_and_only_it() -> None:
    history = History(BEST, SUM)
    history.writes += [
        w("m", 50, 0.0, 1.0),
        w("m", 60, 1.0, 5.0),  # in flight while m is read: 60 then 50 overlap nothing
        w("p", 10, 0.0, 1.0),
        w("s", 40, 0.0, 1.0),
        w("o", 20, 0.0, 1.0),
        w("o2", 30, 0.0, 1.0),
        w("f", 5, 0.0, 1.0, board=SUM),
        w("f", 6, 2.0, 3.0, board=SUM),
        w("r", 5, 0.0, 1.0, board=SUM),
        w("r", 6, 2.0, 3.0, board=SUM),
        w("n", 5, 0.0, 1.0, board=SUM),
        w("n", 6, 2.0, 2.5, board=SUM),
    ]
    history.reads += [
        # best-monotonic: 60 (in flight, so allowed) then 50 by a later read
        one("m", 60, 2.0, 2.5),
        one("m", 50, 3.0, 3.5),
        # best-phantom: 11 was never written
        one("p", 11, 2.0, 2.5),
        # best-stale: 40 acknowledged at 1.0, then a read that began at 2.0 shows nothing
        Read(BEST, 2.0, 2.5, absent="s"),
        # best-order: a higher score ranked below a lower one
        top(2.0, 2.5, ("o", 20, 1), ("o2", 30, 2), total=6),
        # sum-read: 5 acknowledged before; 5 + 6 = 11, never 8
        one("r", 8, 2.5, 2.8, board=SUM),
        # sum-monotonic: 11 seen, then 5 by a later read (and 5 is a possible total then:
        # 6 was still in flight)
        one("n", 11, 2.1, 2.2, board=SUM),
        one("n", 5, 2.3, 2.4, board=SUM),
    ]
    # sum-final: 5 + 6 acknowledged, the total says 5 (a lost increment)
    history.finals += [Final("f", 5), Final("r", 11), Final("n", 11)]
    assert found(history) == dict.fromkeys(RULES, 1)


def test_a_doubled_increment_and_an_unknown_one_are_told_apart() -> None:
    history = History(BEST, SUM)
    history.writes += [
        w("d", 5, 0.0, 1.0, board=SUM),
        w("u", 5, 0.0, 1.0, board=SUM),
        w("u", 9, 2.0, None, board=SUM, acked=False),  # unknown: it may have landed
    ]
    history.reads += [one("u", 14, 2.5, 3.0, board=SUM)]  # allowed: 9 was in flight
    history.finals += [Final("d", 10), Final("u", 5)]  # d counted twice
    assert found(history) == {"sum-final": 1}


def test_a_whole_top_page_without_an_acknowledged_player_is_stale() -> None:
    history = History(BEST, SUM)
    history.writes += [w("a", 9, 0.0, 1.0), w("b", 3, 0.0, 1.0), w("c", 4, 1.5, 3.0)]
    history.reads += [
        # the whole board (total 1) without a, acknowledged at 1.0: stale; c was in flight
        Read(BEST, 2.0, 2.5, (SeenEntry("b", 3, 1, AT),), 1),
        # a page of 2 out of 5: c may be anywhere below, and rank 3 skips 2
        Read(BEST, 4.0, 4.5, (SeenEntry("a", 9, 1, AT), SeenEntry("b", 3, 3, AT)), 5),
    ]
    assert found(history) == {"best-stale": 1, "best-order": 1}


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_short_recording_on_both_backends_across_a_crash_has_no_violation(
    tmp_path: Path,
) -> None:
    result = tmp_path / "history.json"
    done = run_cli(
        "check-history",
        "--seconds",
        "12",
        "--backends",
        "redis,memory",
        "--writers",
        "3",
        "--readers",
        "3",
        "--database-url",
        f"postgresql+asyncpg://postgres@127.0.0.1:5432/rankline_history_{_SLOT}",
        "--redis-url",
        REDIS_URL,
        "--json",
        str(result),
        env=cli_env(),
        timeout=220,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    backends = {b["backend"]: b for b in json.loads(result.read_text())["backends"]}
    assert set(backends) == {"redis", "memory"}
    for backend in backends.values():
        assert backend["violations"] == dict.fromkeys(RULES, 0)
        assert backend["acknowledged"] > 100, backend["acknowledged"]
        assert backend["observations"] > 1000, backend["observations"]
        assert "SIGKILL" in backend["restart"]
        history = backend["history"]
        assert {w["board"] for w in history["writes"]} == {"history-best", "history-sum"}
    assert "killed worker" in backends["redis"]["restart"]
