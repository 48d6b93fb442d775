"""What a read asks for (``Query``, built once by the edge) and the head every answer of a
leaderboard read starts with (``HeadFields``)."""

from __future__ import annotations

from typing import NamedTuple, TypedDict


class HeadFields(TypedDict):
    """The fields of ``answers.Head``, as keywords for any answer built on it."""

    board: str
    window: str
    period: str
    scope: str
    total: int
    as_of: str
    period_ends_at: str | None
    closes_at: str | None
    degraded: bool
    archived: bool


class Query(NamedTuple):
    """What a read asks for: a board and, where None, the default window (``all_time`` or
    the board's first), the current period and the ``global`` scope."""

    board: str
    window: str | None = None
    period: str | None = None
    scope: str | None = None
    metadata: bool = False
    """Entries carry the metadata of the submission that set them (as on a board with
    ``entry_metadata``)."""
