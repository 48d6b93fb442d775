"""The group-commit writer on its own: an in-memory store transaction (``helpers_fakes``) and the
in-process index, no HTTP and no SQL, so every planning rule is checked directly."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers_fakes import FakeStore
from rankline.boards import Board, BoardSpec
from rankline.errors import (
    Conflict,
    KeyReused,
    NotFound,
    RanklineError,
    StoreUnavailable,
    TooManyRequests,
    WriteConflict,
)
from rankline.index.memory import MemoryIndex
from rankline.ordering import decode, encode
from rankline.runtime.clock import ManualClock, to_micros
from rankline.types import LeaderboardId
from rankline.writing.writer import SLICE, GroupCommitWriter, Outcome, Submission

NOW = to_micros(datetime(2026, 11, 21, 12, tzinfo=UTC))
ALL = LeaderboardId("arena", "all_time", "all", "global")


class Published:
    def __init__(self) -> None:
        self.changed: list[set[LeaderboardId]] = []

    def publish(self, changed: set[LeaderboardId]) -> None:
        self.changed.append(changed)


def board(**spec: Any) -> Board:
    return Board.define(spec.pop("id", "arena"), BoardSpec(**spec))


def writer(store: FakeStore, index: MemoryIndex, **options: Any) -> GroupCommitWriter:
    """The one place the writer is built here."""
    return GroupCommitWriter(store, index, ManualClock(NOW), **options)  # type: ignore[arg-type]


def sub(b: Board, player: str, match: str, score: int, at: int = NOW, **extra: Any) -> Submission:
    return Submission(b, player, match, score, at, NOW, **extra)


async def run(w: GroupCommitWriter, *subs: Submission) -> list[Outcome | RanklineError]:
    w.start()
    try:
        return await w.submit(list(subs))
    finally:
        await w.close()


@pytest.fixture
def store() -> FakeStore:
    return FakeStore()


async def test_a_first_submission_is_stored_and_indexed(store: FakeStore) -> None:
    b = board()
    store.define(b)
    index, feed = MemoryIndex(), Published()
    [outcome] = await run(writer(store, index, feed=feed), sub(b, "p1", "m1", 50))
    assert isinstance(outcome, Outcome) and not outcome.duplicate
    assert outcome.primary is not None and outcome.primary.applied
    assert store.tables.standings[ALL, "p1"] == (ALL, "p1", 50, NOW, 1, None)
    assert ("arena", "p1", "m1") in store.tables.events
    position = await index.position(ALL, "p1")
    assert position is not None and position.key == encode(50, NOW, "p1", "desc")
    assert feed.changed == [{ALL}]


@pytest.mark.parametrize(
    ("policy", "order", "scores", "final"),
    [
        ("best", "desc", [50, 40, 60, 60], 60),
        ("best", "asc", [50, 40, 60], 40),
        ("latest", "desc", [50, 40, 60], 60),
        ("sum", "desc", [50, 40, -10], 80),
        ("first", "desc", [50, 40, 60], 50),
    ],
)
async def test_each_policy_keeps_what_it_says(
    store: FakeStore, policy: str, order: str, scores: list[int], final: int
) -> None:
    b = board(policy=policy, order=order)
    store.define(b)
    index = MemoryIndex()
    w = writer(store, index)
    for n, score in enumerate(scores):
        await run(w, sub(b, "p1", f"m{n}", score, NOW - 1000 + n))
    assert store.tables.standings[ALL, "p1"][2] == final
    assert len(store.tables.events) == len(scores)
    position = await index.position(ALL, "p1")
    assert position is not None and decode(position.key, b.order)[0] == final


async def test_revisions_move_one_per_change(store: FakeStore) -> None:
    b = board(policy="latest")
    store.define(b)
    w = writer(store, MemoryIndex())
    for n in range(3):
        await run(w, sub(b, "p1", f"m{n}", n, NOW - 10 + n))
    assert store.tables.standings[ALL, "p1"][4] == 3


async def test_an_identical_retry_is_a_duplicate_and_changes_nothing(store: FakeStore) -> None:
    b = board()
    store.define(b)
    w = writer(store, MemoryIndex())
    await run(w, sub(b, "p1", "m1", 50))
    before = dict(store.tables.standings)
    [again] = await run(w, sub(b, "p1", "m1", 50))
    assert isinstance(again, Outcome) and again.duplicate
    assert [s.reason for s in again.standings] == ["duplicate"]
    assert store.tables.standings == before
    assert len(store.tables.events) == 1


async def test_the_same_match_with_another_score_is_refused(store: FakeStore) -> None:
    b = board()
    store.define(b)
    w = writer(store, MemoryIndex())
    await run(w, sub(b, "p1", "m1", 50))
    [reused] = await run(w, sub(b, "p1", "m1", 70))
    assert isinstance(reused, KeyReused)
    assert reused.problem()["existing"]["score"] == 50
    assert store.tables.standings[ALL, "p1"][2] == 50


async def test_within_one_batch_the_first_of_a_key_wins(store: FakeStore) -> None:
    b = board()
    store.define(b)
    first, same, other = await run(
        writer(store, MemoryIndex()),
        sub(b, "p1", "m1", 50),
        sub(b, "p1", "m1", 50),
        sub(b, "p1", "m1", 90),
    )
    assert isinstance(first, Outcome) and not first.duplicate
    assert isinstance(same, Outcome) and same.duplicate
    assert isinstance(other, KeyReused)
    assert store.tables.standings[ALL, "p1"][2] == 50


async def test_a_board_frozen_or_deleted_since_validation_refuses_its_items_only(
    store: FakeStore,
) -> None:
    arena, frozen, gone = board(), board(id="frozen"), board(id="gone")
    store.define(arena)
    store.define(board(id="frozen", status="frozen"))
    ok, refused, missing = await run(
        writer(store, MemoryIndex()),
        sub(arena, "p1", "m1", 50),
        sub(frozen, "p1", "m1", 50),
        sub(gone, "p1", "m1", 50),
    )
    assert isinstance(ok, Outcome)
    assert isinstance(refused, Conflict)
    assert isinstance(missing, NotFound)
    assert set(store.tables.events) == {("arena", "p1", "m1")}


async def test_a_closed_period_answers_closed_and_keeps_the_others(store: FakeStore) -> None:
    b = board(windows=["all_time", "daily"], grace_seconds=0)
    store.define(b)
    yesterday = NOW - 86_400_000_000
    [outcome] = await run(writer(store, MemoryIndex()), sub(b, "p1", "m1", 50, yesterday))
    assert isinstance(outcome, Outcome)
    reasons = {s.target.leaderboard.window: s.reason for s in outcome.standings}
    assert reasons == {"all_time": None, "daily": "closed"}
    assert [k[0].window for k in store.tables.standings] == ["all_time"]


async def test_windows_and_scopes_fan_out(store: FakeStore) -> None:
    b = board(windows=["all_time", "daily"], scopes=["region"])
    store.define(b)
    index = MemoryIndex()
    await run(writer(store, index), sub(b, "p1", "m1", 50, scopes={"region": "EU"}))
    landed = sorted((lb.window, lb.scope) for lb, _ in store.tables.standings)
    assert landed == [
        ("all_time", "global"),
        ("all_time", "region:EU"),
        ("daily", "global"),
        ("daily", "region:EU"),
    ]
    assert len(await index.leaderboards("arena")) == 4
    assert set(store.tables.periods) == {
        ("arena", "all_time", "all"),
        ("arena", "daily", "2026-11-21"),
    }


async def test_a_banned_players_score_is_recorded_but_not_ranked(store: FakeStore) -> None:
    b = board()
    store.define(b)
    store.tables.banned.add("p1")
    index = MemoryIndex()
    await run(writer(store, index), sub(b, "p1", "m1", 50), sub(b, "p2", "m1", 40))
    assert (ALL, "p1") in store.tables.standings
    assert await index.position(ALL, "p1") is None
    assert await index.position(ALL, "p2") is not None


async def test_a_write_conflict_is_retried_and_lands_once(store: FakeStore) -> None:
    b = board(policy="sum")
    store.define(b)
    store.fail_next(WriteConflict("another writer"))
    [outcome] = await run(writer(store, MemoryIndex()), sub(b, "p1", "m1", 5))
    assert isinstance(outcome, Outcome) and outcome.primary is not None
    assert store.tables.standings[ALL, "p1"][2] == 5
    assert store.transactions == 1


async def test_a_lost_store_fails_the_batch_with_nothing_recorded(store: FakeStore) -> None:
    b = board()
    store.define(b)
    store.fail_next(StoreUnavailable("the database went away"))
    index = MemoryIndex()
    first, second = await run(writer(store, index), sub(b, "p1", "m1", 5), sub(b, "p2", "m1", 6))
    assert isinstance(first, StoreUnavailable) and isinstance(second, StoreUnavailable)
    assert store.tables.events == {} and store.tables.standings == {}
    assert await index.total(ALL) == 0


async def test_concurrent_requests_share_a_transaction_and_one_is_never_split(
    store: FakeStore,
) -> None:
    b = board()
    store.define(b)
    w = writer(store, MemoryIndex(), max_batch=3)
    requests = [[sub(b, f"p{r}-{i}", "m", i) for i in range(2)] for r in range(3)]
    pending = [asyncio.ensure_future(w.submit(r)) for r in requests]
    await asyncio.sleep(0)
    w.start()
    try:
        answers = await asyncio.gather(*pending)
    finally:
        await w.close()
    assert all(isinstance(o, Outcome) for a in answers for o in a)
    # 2 + 2 would pass max_batch=3: each request commits whole, one per transaction
    assert store.transactions == 3
    assert len(store.tables.events) == 6


async def test_a_full_queue_is_refused_with_nothing_recorded(store: FakeStore) -> None:
    b = board()
    store.define(b)
    w = writer(store, MemoryIndex(), max_queued=2)
    waiting = asyncio.ensure_future(w.submit([sub(b, "p1", "m1", 1), sub(b, "p2", "m1", 2)]))
    await asyncio.sleep(0)
    with pytest.raises(TooManyRequests):
        await w.submit([sub(b, "p3", "m1", 3)])
    w.start()
    try:
        await waiting
    finally:
        await w.close()
    assert ("arena", "p3", "m1") not in store.tables.events


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["best", "latest", "sum", "first"]),
    st.lists(
        st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 3), st.integers(-5, 5)),
        min_size=1,
        max_size=12,
    ),
)
def test_any_sequence_matches_a_model_of_the_policy(
    policy: str, items: list[tuple[str, int, int]]
) -> None:
    """Submissions one at a time (retries among them) end where a dict-based model does."""

    async def go() -> None:
        store = FakeStore()
        b = board(policy=policy)
        store.define(b)
        w = writer(store, MemoryIndex())
        model: dict[str, int] = {}
        payloads: dict[tuple[str, int], tuple[int, int]] = {}
        for n, (player, match, score) in enumerate(items):
            key = (player, match)
            at = payloads[key][1] if key in payloads else NOW - 100 + n  # a retry repeats it
            [outcome] = await run(w, sub(b, player, f"m{match}", score, at))
            if key in payloads:
                if payloads[key][0] == score:
                    assert isinstance(outcome, Outcome) and outcome.duplicate
                else:
                    assert isinstance(outcome, KeyReused)
                continue
            payloads[key] = (score, at)
            assert isinstance(outcome, Outcome) and not outcome.duplicate
            current = model.get(player)
            if current is None:
                model[player] = score
            elif policy == "best":
                model[player] = max(current, score)
            elif policy == "latest":
                model[player] = score  # each new submission here is later than the last
            elif policy == "sum":
                model[player] = current + score
        stored = {p: row[2] for (lb, p), row in store.tables.standings.items()}
        assert stored == model

    asyncio.run(go())


class HeldIndex(MemoryIndex):
    """The in-process index, whose first ``apply`` waits until ``release`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.applying = asyncio.Event()
        self.release = asyncio.Event()
        self.applied: list[list[str]] = []

    async def apply(self, changes: Any) -> None:
        if not self.applied:
            self.applying.set()
            await self.release.wait()
        self.applied.append([change.player for change in changes])
        await super().apply(changes)


class SlicedIndex(MemoryIndex):
    """The in-process index, counting the changes of each ``apply``."""

    def __init__(self) -> None:
        super().__init__()
        self.sizes: list[int] = []

    async def apply(self, changes: Any) -> None:
        self.sizes.append(len(changes))
        await super().apply(changes)


async def test_a_large_batch_leaves_the_loop_turns_and_reaches_the_index_in_slices(
    store: FakeStore,
) -> None:
    """A batch of 1,000 is planned, applied to the index and answered a slice at a time:
    another task (a read) runs between the slices; its callers are answered once all of it
    is in the index."""
    b = board()
    store.define(b)
    index = SlicedIndex()
    w = writer(store, index)
    seen: list[int] = []  # the index's applies done, at each turn the other task got
    writing = True

    async def other() -> None:
        while writing:
            seen.append(len(index.sizes))
            await asyncio.sleep(0)

    w.start()
    turns = asyncio.create_task(other())
    try:
        outcomes = await w.submit([sub(b, f"p{i}", "m", i) for i in range(1000)])
    finally:
        writing = False
        await turns
        await w.close()
    assert index.sizes == [SLICE] * (1000 // SLICE) + [1000 % SLICE] * (1000 % SLICE > 0)
    assert {1, 2, 3} <= set(seen)  # it ran between the index's slices
    assert seen.count(0) >= 1000 // SLICE - 1  # and between the planning's
    assert all(isinstance(o, Outcome) for o in outcomes)
    assert await index.total(ALL) == 1000


async def test_the_next_batch_commits_while_the_last_one_goes_to_the_index(
    store: FakeStore,
) -> None:
    b = board()
    store.define(b)
    index = HeldIndex()
    w = writer(store, index, max_batch=1)
    w.start()
    try:
        first = asyncio.create_task(w.submit([sub(b, "p1", "m1", 10)]))
        second = asyncio.create_task(w.submit([sub(b, "p2", "m2", 20)]))
        await index.applying.wait()
        for _ in range(20):  # let the second batch's transaction run to its end
            await asyncio.sleep(0)
        assert ("arena", "p2", "m2") in store.tables.events  # committed in SQL...
        assert not first.done() and not second.done()  # ...and nobody answered yet
        assert await index.position(ALL, "p2") is None
        index.release.set()
        [one], [two] = await first, await second
    finally:
        index.release.set()
        await w.close()
    assert isinstance(one, Outcome) and isinstance(two, Outcome)
    assert index.applied == [["p1"], ["p2"]]  # in commit order
    assert await index.position(ALL, "p2") is not None


async def test_a_task_waiting_for_the_commit_lock_goes_before_the_next_batch(
    store: FakeStore,
) -> None:
    b = board()
    store.define(b)
    index = HeldIndex()
    w = writer(store, index, max_batch=1)
    seen: list[bool] = []

    async def ban() -> None:
        async with w.commit_lock:
            seen.append(("arena", "p3", "m3") in store.tables.events)

    w.start()
    try:
        writes = [asyncio.create_task(w.submit([sub(b, f"p{n}", f"m{n}", n)])) for n in (1, 2, 3)]
        await index.applying.wait()  # the first batch is committed, the second under way
        banning = asyncio.create_task(ban())
        await asyncio.sleep(0)
        assert w.commit_lock.wanted
        index.release.set()
        await asyncio.gather(banning, *writes)
    finally:
        index.release.set()
        await w.close()
    assert seen == [False]  # the third batch waited for the ban's turn
    assert ("arena", "p3", "m3") in store.tables.events
    assert index.applied == [["p1"], ["p2"], ["p3"]]
