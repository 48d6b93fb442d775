"""Standings from a file into the durable store: what ``rankline import`` does.

A CSV file (a header row, then one row per score) or a JSON-lines file (one object per
line) is read row by row. Each row is checked as the API checks a score submission, then
written by the group commit (``GroupCommitWriter``) in transactions of ``batch`` rows: the
same score events and standings as the same submissions sent to the API would leave, with
the board's policy deciding every standing. Score events are unique on (board, player,
match_id), so a file imported twice counts nothing twice: the second time its rows are
duplicates. A row without a ``match_id`` gets one made of the file's name and the row's
line (``import:standings.csv:7``), the same on every run.

The ranking index is not written: servers load the new standings into an in-process index
when they start, and ``rankline rebuild`` loads them into a shared (Redis) one.

    summary = await import_file(store, Path("standings.csv"), "arena", clock=SystemClock())
"""

from __future__ import annotations

import csv
import hashlib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from rankline.boards import (
    MATCH_ID_PATTERN,
    PLAYER_ID_PATTERN,
    SCOPE_VALUE_PATTERN,
    Board,
    BoardSpec,
)
from rankline.errors import Conflict, InvalidInput, KeyReused, NotFound, RanklineError
from rankline.ordering import SCORE_MAX, SCORE_MIN
from rankline.runtime.clock import SystemClock, parse_time
from rankline.settings import Settings
from rankline.store.opening import open_store
from rankline.store.sql import SqlStore
from rankline.types import Clock, IndexChange, Micros
from rankline.writing.writer import GroupCommitWriter, Outcome, Submission

FORMATS = ("csv", "jsonl")
EXTENSIONS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
BATCH = 2000
"""Rows written per transaction by default (the server's ``RANKLINE_COMMIT_MAX_BATCH``)."""
MAX_BATCH = 10_000
SHOWN_REJECTED = 10
"""Rejected rows whose line and reason the summary keeps."""

_PLAYER = "player_id"
_SCORE = "score"
_SUBSCORE = "subscore"
_AT = "achieved_at"
_AT_ALIAS = "at"
"""The API's name for ``achieved_at``: a submission's body imports as it is."""
_MATCH = "match_id"
_SCOPES = "scopes"
_METADATA = "metadata"
_CSV_COLUMNS = (_PLAYER, _SCORE, _AT, _AT_ALIAS, _MATCH, _SUBSCORE)
_is_player = re.compile(PLAYER_ID_PATTERN).match
_is_match = re.compile(MATCH_ID_PATTERN).match
_is_scope_value = re.compile(SCOPE_VALUE_PATTERN).match
_is_integer = re.compile(r"-?[0-9]{1,20}(?!\n)$").match
_MATCH_FILE_CHARS = 96
_json_line = msgspec.json.Decoder()


class ImportRefused(RanklineError):
    """The file cannot be imported at all (unreadable, a header that names no such column):
    nothing of it was written."""

    title, slug = "Import refused", "import-refused"


@dataclass(frozen=True, slots=True)
class Rejected:
    """A row that was not imported: its line in the file and why."""

    line: int
    reason: str


@dataclass(frozen=True, slots=True)
class Row:
    """A checked row, ready to submit."""

    line: int
    player: str
    score: int
    at: Micros | None
    match_id: str
    scopes: dict[str, str]
    metadata: dict[str, Any]
    subscore: int | None = None


@dataclass(slots=True)
class Summary:
    """What an import did, so far."""

    board: str
    read: int = 0
    """Rows read (blank lines aside)."""
    imported: int = 0
    """Rows recorded now: score events written."""
    changed: int = 0
    """Imported rows that changed a standing (the others lost to the policy, or landed only
    on closed periods)."""
    duplicates: int = 0
    """Rows already recorded (a previous import of the file, or an earlier row of it)."""
    rejected: int = 0
    first_rejected: list[Rejected] = field(default_factory=list)
    stopped: RanklineError | None = None
    """Why the import stopped before the end of the file (what was written stays)."""

    @property
    def written(self) -> int:
        """Rows the store has taken: imported now or recognised as imported before."""
        return self.imported + self.duplicates

    def reject(self, line: int, reason: str) -> None:
        self.rejected += 1
        if len(self.first_rejected) < SHOWN_REJECTED:
            self.first_rejected.append(Rejected(line, reason))


Progress = Callable[[int, Summary], None]
"""Told, after every transaction, the bytes of the file read so far and the summary."""


def format_of(path: Path, given: str | None) -> str:
    """The file's format: ``given``, or the one its extension names."""
    if given is not None:
        if given not in FORMATS:
            raise ValueError(f"--format must be one of {', '.join(FORMATS)}, not {given!r}")
        return given
    found = EXTENSIONS.get(path.suffix.lower())
    if found is None:
        raise ValueError(
            f"cannot tell the format of {path.name} from its extension: give --format csv or "
            "--format jsonl"
        )
    return found


def derived_match_id(path: Path, line: int) -> str:
    """The match_id of a row that gives none: the file's name and the row's line, so a
    re-run of the same file recognises the row. A name that is not plain printable ASCII,
    or too long for a match_id, is cut to what fits, with a digest of the whole name."""
    name = path.name
    safe = "".join(c if "!" <= c <= "~" else "_" for c in name)
    if safe != name or len(safe) > _MATCH_FILE_CHARS:
        digest = hashlib.sha256(name.encode()).hexdigest()[:10]
        safe = f"{safe[: _MATCH_FILE_CHARS - 11]}~{digest}"
    return f"import:{safe}:{line}"


class RowReader:
    """The rows of one file, each checked against ``board`` (``Row``) or not (``Rejected``).

    ``now`` is the import's time: the latest ``achieved_at`` allowed is ``now`` plus
    ``skew_micros`` (as the API allows), and a row without one gets ``default_at``, else
    ``now`` (as a submission without ``at`` gets its receive time)."""

    def __init__(
        self,
        path: Path,
        fmt: str,
        board: Board,
        *,
        now: Micros,
        skew_micros: int,
        default_at: Micros | None = None,
        max_metadata_bytes: int = 4096,
    ) -> None:
        self.path = path
        self.format = fmt
        self.board = board
        self.bytes_read = 0
        self._now = now
        self._latest = now + skew_micros
        self._default_at = default_at
        self._max_metadata = max_metadata_bytes
        self._scopes = set(board.spec.scopes)

    def rows(self) -> Iterator[Row | Rejected]:
        """Every row in file order; ``ImportRefused`` when the file cannot be read at all."""
        try:
            with self.path.open("rb") as file:
                if self.format == "csv":
                    yield from self._csv(file)
                else:
                    yield from self._jsonl(file)
        except OSError as exc:
            raise ImportRefused(f"cannot read {self.path}: {exc.strerror or exc}") from exc

    # --- the formats -----------------------------------------------------------------------

    def _lines(self, file: BinaryIO) -> Iterator[str]:
        """The file's lines as text (UTF-8, a byte order mark dropped), counting bytes."""
        first = True
        for raw in file:
            self.bytes_read += len(raw)
            text = raw.decode("utf-8", errors="replace")
            if first:
                text, first = text.removeprefix("\ufeff"), False
            yield text

    def _csv(self, file: BinaryIO) -> Iterator[Row | Rejected]:
        reader = csv.reader(self._lines(file))
        try:
            header = next(reader, None)
        except csv.Error as exc:
            raise ImportRefused(f"{self.path.name}, line 1: {exc}") from None
        if header is None:
            return
        columns = self._columns([name.strip() for name in header])
        width = len(columns)
        line = reader.line_num + 1
        while True:
            try:
                fields = next(reader, None)
            except csv.Error as exc:
                yield Rejected(line, f"not a CSV row: {exc}")
                line = reader.line_num + 1
                continue
            if fields is None:
                return
            start, line = line, reader.line_num + 1
            if not any(value.strip() for value in fields):
                continue  # a blank line, or one of empty fields only
            if len(fields) != width:
                yield Rejected(start, f"{len(fields)} fields, where the header has {width}")
                continue
            values = {name: value.strip() for name, value in zip(columns, fields, strict=True)}
            yield self._checked(start, values, {}, {})

    def _columns(self, names: list[str]) -> list[str]:
        for required in (_PLAYER, _SCORE):
            if required not in names:
                raise ImportRefused(f"{self.path.name}: the header has no {required} column")
        seen: set[str] = set()
        for name in names:
            if name in seen:
                raise ImportRefused(f"{self.path.name}: the header names {name!r} twice")
            seen.add(name)
            if name not in _CSV_COLUMNS and name not in self._scopes:
                scopes = ", ".join(sorted(self._scopes)) or "none"
                raise ImportRefused(
                    f"{self.path.name}: column {name!r} is neither player_id, score, achieved_at "
                    f"nor match_id, nor a scope of board {self.board.id!r} (its scopes: {scopes})"
                )
        if _AT in seen and _AT_ALIAS in seen:
            raise ImportRefused(f"{self.path.name}: give achieved_at or at, not both")
        return names

    def _jsonl(self, file: BinaryIO) -> Iterator[Row | Rejected]:
        for number, text in enumerate(self._lines(file), 1):
            if not text.strip():
                continue
            try:
                item = _json_line.decode(text)
            except msgspec.DecodeError as exc:
                yield Rejected(number, f"not JSON: {exc}")
                continue
            if not isinstance(item, dict):
                yield Rejected(number, "not a JSON object")
                continue
            yield self._from_object(number, item)

    def _from_object(self, line: int, item: dict[str, Any]) -> Row | Rejected:
        values: dict[str, str] = {}
        scopes: dict[str, Any] = {}
        metadata: dict[str, Any] = {}
        for name, value in item.items():
            if name in (_SCORE, _SUBSCORE):
                if value is None and name == _SUBSCORE:
                    continue
                if type(value) is not int:
                    return Rejected(line, f"{name}: not an integer: {_shown(value)}")
                values[name] = str(value)
            elif name == _METADATA:
                if value is not None and not isinstance(value, dict):
                    return Rejected(line, "metadata: not a JSON object")
                metadata = value or {}
            elif name == _SCOPES:
                if value is not None and not isinstance(value, dict):
                    return Rejected(line, "scopes: not a JSON object")
                scopes.update(value or {})
            elif value is None:
                continue
            elif not isinstance(value, str):
                return Rejected(line, f"{name}: not a string: {_shown(value)}")
            else:
                values[name] = value
        if _AT in values and _AT_ALIAS in values:
            return Rejected(line, "give achieved_at or at, not both")
        for name in list(values):
            if name not in _CSV_COLUMNS:
                scopes[name] = values.pop(name)
        for name, value in scopes.items():
            if value is not None and not isinstance(value, str):
                return Rejected(line, f"scope {name}: not a string: {_shown(value)}")
        return self._checked(line, values, scopes, metadata)

    # --- one row, as the API checks a submission -------------------------------------------

    def _checked(
        self,
        line: int,
        values: dict[str, str],
        scopes: dict[str, Any],
        metadata: dict[str, Any],
    ) -> Row | Rejected:
        player = values.get(_PLAYER, "")
        if not player:
            return Rejected(line, "player_id: missing")
        if not _is_player(player):
            return Rejected(line, f"player_id: {_shown(player)} is not a player id")
        text = values.get(_SCORE, "")
        if not text:
            return Rejected(line, "score: missing")
        if not _is_integer(text) or not SCORE_MIN <= (score := int(text)) <= SCORE_MAX:
            return Rejected(line, f"score: not a 64-bit integer: {_shown(text)}")
        subscore = None
        text = values.get(_SUBSCORE, "")
        if text and (
            not _is_integer(text) or not SCORE_MIN <= (subscore := int(text)) <= SCORE_MAX
        ):
            return Rejected(line, f"subscore: not a 64-bit integer: {_shown(text)}")
        match_id = values.get(_MATCH) or derived_match_id(self.path, line)
        if not _is_match(match_id):
            return Rejected(line, f"match_id: {_shown(match_id)} is not a match id")
        at = self._default_at
        when = values.get(_AT) or values.get(_AT_ALIAS)
        if when:
            try:
                at = parse_time(when)
            except ValueError as exc:
                return Rejected(line, f"achieved_at: {exc}")
            if at > self._latest:
                return Rejected(line, "achieved_at: in the future")
        for name, value in values.items():
            if name not in _CSV_COLUMNS and value:
                scopes[name] = value
        scopes = {name: value for name, value in scopes.items() if value}
        for name, value in scopes.items():
            if not _is_scope_value(value):
                return Rejected(line, f"scope {name}: {_shown(value)} is not a scope value")
        try:
            self.board.check_scopes(scopes)
            self.board.check_score(score)
            self.board.check_subscore(subscore)
        except InvalidInput as exc:
            return Rejected(line, exc.detail)
        if metadata and len(msgspec.json.encode(metadata)) > self._max_metadata:
            return Rejected(line, f"metadata: longer than {self._max_metadata} bytes as JSON")
        return Row(line, player, score, at, match_id, scopes, metadata, subscore)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# --- writing -------------------------------------------------------------------------------


class _NoIndex:
    """The writer's index: none. Servers load the standings from SQL (see the module doc)."""

    async def apply(self, changes: Sequence[IndexChange]) -> None:
        return None


async def find_board(store: SqlStore, board_id: str) -> Board:
    """The stored board that takes the import: NotFound without one, Conflict when it takes
    no scores (frozen, or a rating board)."""
    for definition in await store.load_boards():
        if definition.get("id") == board_id:
            board = Board(msgspec.convert(definition, BoardSpec))
            break
    else:
        raise NotFound(
            f"no board {board_id!r} in the durable store: create it first "
            f"(PUT /v1/boards/{board_id}), then import"
        )
    if board.frozen:
        raise Conflict(f"board {board_id!r} is frozen; it takes no scores")
    if board.policy == "rating":
        raise Conflict(f"board {board_id!r} is a rating board: it takes match results, not scores")
    return board


async def import_file(
    store: SqlStore,
    path: Path,
    board_id: str,
    *,
    clock: Clock,
    fmt: str | None = None,
    default_at: Micros | None = None,
    skew_seconds: float = 30,
    max_metadata_bytes: int = 4096,
    batch: int = BATCH,
    progress: Progress | None = None,
) -> Summary:
    """Import the rows of ``path`` into board ``board_id`` of ``store`` (started, migrated).

    Bad rows are counted and the first ``SHOWN_REJECTED`` kept with their line; the others
    are written. An error that is no row's own (the store down, the board deleted or frozen
    meanwhile) stops the import: ``Summary.stopped`` says why, and what was written before
    stays (importing the file again finishes it)."""
    board = await find_board(store, board_id)
    now = clock.now()
    skew = int(skew_seconds * 1_000_000)
    if default_at is not None and default_at > now + skew:
        raise ImportRefused("the achieved_at given for rows without one is in the future")
    reader = RowReader(
        path,
        format_of(path, fmt),
        board,
        now=now,
        skew_micros=skew,
        default_at=default_at,
        max_metadata_bytes=max_metadata_bytes,
    )
    summary = Summary(board.id)
    writer = GroupCommitWriter(store, _NoIndex(), clock, max_batch=batch)
    writer.start()
    try:
        for chunk in _good_rows(reader.rows(), batch, summary):
            await _write(writer, board, chunk, now, summary)
            if progress is not None:
                progress(reader.bytes_read, summary)
            if summary.stopped is not None:
                break
    finally:
        await writer.close()
    return summary


async def import_into_store(
    settings: Settings,
    path: Path,
    board_id: str,
    *,
    fmt: str | None = None,
    default_at: Micros | None = None,
    batch: int = BATCH,
    progress: Progress | None = None,
) -> Summary:
    """``rankline import``: ``import_file`` into the durable store the settings name (the
    embedded SQLite is migrated first, as ``serve`` does), with the system clock."""
    async with open_store(settings) as store:
        return await import_file(
            store,
            path,
            board_id,
            clock=SystemClock(),
            fmt=fmt,
            default_at=default_at,
            skew_seconds=settings.clock_skew_seconds,
            max_metadata_bytes=settings.max_metadata_bytes,
            batch=batch,
            progress=progress,
        )


def _good_rows(rows: Iterator[Row | Rejected], size: int, summary: Summary) -> Iterator[list[Row]]:
    """The good rows, ``size`` at a time; the rejected ones go to ``summary``."""
    chunk: list[Row] = []
    for row in rows:
        summary.read += 1
        if isinstance(row, Rejected):
            summary.reject(row.line, row.reason)
            continue
        chunk.append(row)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


async def _write(
    writer: GroupCommitWriter, board: Board, rows: list[Row], now: Micros, summary: Summary
) -> None:
    """One transaction: the rows as submissions, each outcome counted."""
    submissions = [
        Submission(
            board,
            row.player,
            row.match_id,
            row.score,
            now if row.at is None else row.at,
            now,
            row.scopes,
            row.metadata,
            at_given=row.at is not None,
            subscore=row.subscore,
        )
        for row in rows
    ]
    outcomes = await writer.submit(submissions)
    for row, outcome in zip(rows, outcomes, strict=True):
        if isinstance(outcome, Outcome):
            if outcome.duplicate:
                summary.duplicates += 1
            else:
                summary.imported += 1
                summary.changed += any(s.applied for s in outcome.standings)
        elif isinstance(outcome, KeyReused):
            summary.reject(
                row.line,
                f"match_id {row.match_id!r} of player {row.player!r} is already recorded with "
                "another score, time or scopes",
            )
        elif isinstance(outcome, InvalidInput):
            summary.reject(row.line, outcome.detail)
        else:  # the whole transaction failed: nothing of it was written
            summary.stopped = outcome
            return


__all__ = ["FORMATS", "ImportRefused", "Rejected", "Summary", "format_of", "import_file"]
