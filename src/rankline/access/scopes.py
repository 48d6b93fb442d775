"""The boards a server key may write: ids matching one of its patterns, each a shell-style
glob (``game-a-*``). Bootstrap keys give them as ``key:pattern|pattern``
(``rankline.http.auth.parse_server_key``), keys made at runtime as a list
(``rankline.access.keys``)."""

from __future__ import annotations

import fnmatch
import re

from rankline.errors import Forbidden, InvalidInput

MAX_PATTERNS = 100
MAX_PATTERN_LENGTH = 128


class BoardScope:
    """The boards a limited server key may write: ids matching one of its patterns."""

    def __init__(self, patterns: list[str]) -> None:
        self.patterns = patterns
        self._match = re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns)).match

    def allows(self, board_id: str) -> bool:
        return self._match(board_id) is not None

    def refuse(self, board_id: str) -> Forbidden:
        return Forbidden(
            f"this key may only write boards matching {'|'.join(self.patterns)}, not {board_id!r}"
        )


def writable(scope: BoardScope | None, board_id: str) -> str:
    """``board_id`` (a board's, or a tournament's: the id of the board it ranks on) when the
    caller's key may write it: 403 for a key limited to other boards; a key not limited
    (None) writes them all."""
    if scope is not None and not scope.allows(board_id):
        raise scope.refuse(board_id)
    return board_id


def board_named(scope: BoardScope | None, board: str | None) -> None:
    """A read across boards (the audit log, the dead letters) by a key limited to boards
    (``scope``) names one of its own with ``?board=`` (422 when it names none, 403 when
    another); a key not limited (None) reads them all."""
    if scope is None:
        return
    if board is None:
        raise InvalidInput.at(
            ["query", "board"],
            f"this key is limited to boards {'|'.join(scope.patterns)}: "
            "name one of them with ?board=",
        )
    if not scope.allows(board):
        raise scope.refuse(board)


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot limit a key (None: it can)."""
    if not pattern:
        return "a board pattern cannot be empty"
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"a board pattern has at most {MAX_PATTERN_LENGTH} characters"
    if any(c.isspace() or c == "|" or not c.isprintable() for c in pattern):
        return "a board pattern has no spaces, `|` or control characters"
    return None
