"""A history of concurrent writes and reads, and the rules every read must satisfy.

Each operation has the time it was invoked and the time its answer came back (one clock:
the client process's monotonic clock). A write's effect may happen at any instant between
the two; a read observes the state at one instant between its two. A history is
explainable by a serial order of the acknowledged writes when every rule below holds.

``best`` board (descending; only a strictly higher score replaces a player's score):

- ``best-monotonic``: a read that began after another read of the same player completed
  never shows a lower score for that player.
- ``best-phantom``: a score read is the score of one of that player's writes invoked
  before the read completed (the best of a set is one of its members).
- ``best-stale``: a score read is at least every score of that player acknowledged before
  the read began; a player with such a write is never missing.
- ``best-order``: within one answer, entries are in the board's order (score descending,
  then ``achieved_at``), each player appears once, ranks are consecutive, and no rank
  exceeds the total.

``sum`` board (positive increments, every ``match_id`` unique):

- ``sum-final``: at the end, each player's total equals the sum of the increments
  acknowledged, exactly (a write retried after a 503 or a timeout carries its first
  ``match_id``, so it counts once).
- ``sum-read``: a total read is the sum of every increment acknowledged before the read
  began plus some subset of those in flight during it.
- ``sum-monotonic``: a read that began after another read of the same player completed
  never shows a lower total.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable
from itertools import pairwise

import msgspec

RULES = (
    "best-monotonic",
    "best-phantom",
    "best-stale",
    "best-order",
    "sum-final",
    "sum-read",
    "sum-monotonic",
)
_SUBSET_LIMIT = 200_000  # distinct partial sums kept before a read is left undecided


class Write(msgspec.Struct, frozen=True):
    """One submission: ``acked`` when a 200 answered it (after retries with the same
    ``match_id``); otherwise it may or may not have been recorded."""

    board: str
    player: str
    match_id: str
    score: int
    invoked: float
    completed: float | None
    acked: bool


class SeenEntry(msgspec.Struct, frozen=True):
    player: str
    score: int
    rank: int
    achieved_at: str


class Read(msgspec.Struct, frozen=True):
    """One answer: the entries it showed (a top page, a player with neighbours, or one
    player), and ``absent``: a player the read asked for and got 404. An answer whose
    ``total`` equals its number of entries showed the whole leaderboard: every player it
    left out was absent then."""

    board: str
    invoked: float
    completed: float
    entries: tuple[SeenEntry, ...] = ()
    total: int | None = None
    absent: str | None = None


class Final(msgspec.Struct, frozen=True):
    """A player's total on the ``sum`` board once every write is done (None: no entry)."""

    player: str
    total: int | None


class History(msgspec.Struct):
    best_board: str
    sum_board: str
    writes: list[Write] = msgspec.field(default_factory=list)
    reads: list[Read] = msgspec.field(default_factory=list)
    finals: list[Final] = msgspec.field(default_factory=list)


class Violation(msgspec.Struct, frozen=True):
    rule: str
    player: str
    detail: str


def check(history: History) -> list[Violation]:
    """Every violation of the rules above in ``history`` (empty when it is explainable)."""
    found: list[Violation] = []
    found += _best(history)
    found += _sum(history)
    return found


def count(violations: Iterable[Violation]) -> dict[str, int]:
    counts = dict.fromkeys(RULES, 0)
    for v in violations:
        counts[v.rule] += 1
    return counts


# One observation: (invoked, completed, value or None when absent).
_Seen = tuple[float, float, int | None]


def _observations(history: History, board: str) -> dict[str, list[_Seen]]:
    players = {write.player for write in history.writes if write.board == board}
    seen: dict[str, list[_Seen]] = defaultdict(list)
    for read in history.reads:
        if read.board != board:
            continue
        for entry in read.entries:
            seen[entry.player].append((read.invoked, read.completed, entry.score))
        if read.absent is not None:
            seen[read.absent].append((read.invoked, read.completed, None))
        if read.total is not None and read.total == len(read.entries):
            # The whole leaderboard: every other player was absent at that instant.
            shown = {entry.player for entry in read.entries}
            for player in players - shown:
                seen[player].append((read.invoked, read.completed, None))
    return seen


def _writes(history: History, board: str) -> dict[str, list[Write]]:
    by_player: dict[str, list[Write]] = defaultdict(list)
    for write in history.writes:
        if write.board == board:
            by_player[write.player].append(write)
    return by_player


def _monotonic(rule: str, player: str, seen: list[_Seen]) -> list[Violation]:
    """Reads in real-time order never go down: for each read, the highest value of the
    reads that completed before it began must not exceed its own."""
    found = []
    by_completion = sorted(seen, key=lambda s: s[1])
    done = 0
    best: tuple[int, float] | None = None  # (value, completed) of the highest earlier read
    for invoked, completed, value in sorted(seen, key=lambda s: s[0]):
        while done < len(by_completion) and by_completion[done][1] < invoked:
            earlier = by_completion[done][2]
            if earlier is not None and (best is None or earlier > best[0]):
                best = (earlier, by_completion[done][1])
            done += 1
        if best is not None and (value is None or value < best[0]):
            found.append(
                Violation(
                    rule,
                    player,
                    f"read at {invoked:.3f}-{completed:.3f} showed {value}, after a read "
                    f"that completed at {best[1]:.3f} showed {best[0]}",
                )
            )
    return found


class _PlayerWrites:
    """One player's writes on one board, indexed for the questions the rules ask."""

    def __init__(self, writes: list[Write]) -> None:
        self.first_invoked: dict[int, float] = {}
        for w in writes:
            self.first_invoked[w.score] = min(w.invoked, self.first_invoked.get(w.score, w.invoked))
        acked = sorted((w for w in writes if _acked(w)), key=lambda w: w.completed or 0.0)
        self.acked_at = [w.completed or 0.0 for w in acked]
        self.best_prefix: list[int] = []
        self.sum_prefix = [0]
        for w in acked:
            self.best_prefix.append(max([w.score, *self.best_prefix[-1:]]))
            self.sum_prefix.append(self.sum_prefix[-1] + w.score)
        self.by_invoked = sorted(writes, key=lambda w: w.invoked)
        self.invoked_at = [w.invoked for w in self.by_invoked]
        self.longest = max(((w.completed or w.invoked) - w.invoked for w in writes), default=0.0)
        self.unfinished = [w for w in writes if w.completed is None]

    def invoked_before(self, score: int, instant: float) -> bool:
        first = self.first_invoked.get(score)
        return first is not None and first < instant

    def acked_before(self, instant: float) -> tuple[int, int | None, int]:
        """(how many, the best score, the sum) of the writes acknowledged before ``instant``."""
        n = bisect_left(self.acked_at, instant)
        return n, (self.best_prefix[n - 1] if n else None), self.sum_prefix[n]

    def in_flight(self, invoked: float, completed: float) -> list[int]:
        """Increments of the writes that may have landed during a read, other than those
        acknowledged before it began."""
        lo = bisect_left(self.invoked_at, invoked - self.longest - 1.0)
        hi = bisect_left(self.invoked_at, completed)
        near = self.by_invoked[lo:hi]
        pending = [w for w in self.unfinished if w.invoked < completed and w not in near]
        return [w.score for w in [*near, *pending] if not _acked_before(w, invoked)]


def _acked(write: Write) -> bool:
    return write.acked and write.completed is not None


def _best(history: History) -> list[Violation]:
    found: list[Violation] = []
    board = history.best_board
    writes = _writes(history, board)
    for player, seen in sorted(_observations(history, board).items()):
        found += _monotonic("best-monotonic", player, seen)
        mine = _PlayerWrites(writes.get(player, []))
        for invoked, completed, value in seen:
            when = f"read at {invoked:.3f}-{completed:.3f} showed {value}"
            if value is not None and not mine.invoked_before(value, completed):
                found.append(
                    Violation(
                        "best-phantom",
                        player,
                        f"{when}, which no write invoked before it completed had",
                    )
                )
            _, before, _ = mine.acked_before(invoked)
            if before is not None and (value is None or value < before):
                found.append(
                    Violation(
                        "best-stale",
                        player,
                        f"{when}, but {before} was acknowledged before it began",
                    )
                )
    for read in history.reads:
        if read.board == board:
            found += _order(read)
    return found


def _order(read: Read) -> list[Violation]:
    found = []
    where = f"answer at {read.invoked:.3f}-{read.completed:.3f}"
    entries = read.entries
    for above, below in pairwise(entries):
        # achieved_at is shown to the millisecond: within one, the player_id tiebreak
        # cannot be told from the microseconds the order uses.
        key_above = (-above.score, above.achieved_at)
        key_below = (-below.score, below.achieved_at)
        if key_above > key_below:
            found.append(
                Violation(
                    "best-order",
                    below.player,
                    f"{where}: {below.player} ({below.score}) listed after {above.player} "
                    f"({above.score}), out of the board's order",
                )
            )
        if below.rank != above.rank + 1:
            found.append(
                Violation(
                    "best-order",
                    below.player,
                    f"{where}: rank {below.rank} follows rank {above.rank}",
                )
            )
    listed = [entry.player for entry in entries]
    for player in {p for p in listed if listed.count(p) > 1}:
        found.append(Violation("best-order", player, f"{where}: {player} listed twice"))
    if read.total is not None:
        for entry in entries:
            if not 1 <= entry.rank <= read.total:
                found.append(
                    Violation(
                        "best-order",
                        entry.player,
                        f"{where}: rank {entry.rank} outside 1..{read.total}",
                    )
                )
    return found


def _sum(history: History) -> list[Violation]:
    found: list[Violation] = []
    board = history.sum_board
    writes = _writes(history, board)
    for final in history.finals:
        expected = sum(w.score for w in writes.get(final.player, []) if w.acked)
        shown = final.total or 0
        if shown != expected:
            found.append(
                Violation(
                    "sum-final",
                    final.player,
                    f"final total {final.total}, acknowledged increments sum to {expected}",
                )
            )
    for player, seen in sorted(_observations(history, board).items()):
        found += _monotonic("sum-monotonic", player, seen)
        mine = _PlayerWrites(writes.get(player, []))
        for invoked, completed, value in seen:
            _, _, base = mine.acked_before(invoked)
            maybe = mine.in_flight(invoked, completed)
            if not _subset_sum(maybe, (value or 0) - base):
                found.append(
                    Violation(
                        "sum-read",
                        player,
                        f"read at {invoked:.3f}-{completed:.3f} showed {value}: not "
                        f"{base} (acknowledged before it) plus a subset of "
                        f"{len(maybe)} writes in flight",
                    )
                )
    return found


def _acked_before(write: Write, instant: float) -> bool:
    return write.acked and write.completed is not None and write.completed < instant


def _subset_sum(values: list[int], target: int) -> bool:
    """Whether some subset of ``values`` adds up to ``target``. Undecidable in reasonable
    memory only for long runs of in-flight writes; then the read is given the benefit."""
    sums = {0}
    for value in values:
        sums |= {s + value for s in sums}
        if len(sums) > _SUBSET_LIMIT:
            return True
    return target in sums
