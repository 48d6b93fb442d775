"""Cursors of top pages: the last entry's place in the ranking order, opaque to clients; and
cursors of pages by id, newest first (``IdCursors``: the audit log, a player's history).

A cursor is the entry's ordering key (score, subscore, time, player: ``rankline.ordering``)
in base64url without padding. The next page holds the entries that sort strictly after it
(``IndexReader.after``), so a board that changes between two pages never shows a client an
entry twice or skips one that stayed in place, which an offset cannot promise.
"""

from __future__ import annotations

import base64
import binascii
from binascii import b2a_base64

from rankline.boards import Board
from rankline.errors import InvalidInput
from rankline.types import SortKey

MAX_CURSOR = 128
"""Longest cursor accepted, in characters: a key is at most 24 bytes and a 64-byte id."""
_PLAYER_ID_BYTES = 64


def encode_cursor(key: SortKey) -> str:
    # base64.urlsafe_b64encode, without its two Python layers: every top page carries one.
    return b2a_base64(key, newline=False).translate(_URLSAFE).rstrip(b"=").decode("ascii")


_URLSAFE = bytes.maketrans(b"+/", b"-_")


def decode_cursor(board: Board, cursor: str) -> SortKey:
    """The key a cursor names; InvalidInput at ``query.cursor`` when it names none of this
    board's."""
    bad = InvalidInput.at(["query", "cursor"], "not a cursor of this board's pages")
    if len(cursor) > MAX_CURSOR or not cursor.isascii():
        raise bad
    try:
        key = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    except (binascii.Error, ValueError):
        raise bad from None
    player = key[board.keys.head :]
    if not 1 <= len(player) <= _PLAYER_ID_BYTES or not player.isascii():
        raise bad
    return key


class IdCursors:
    """Cursors of a page ordered by a row id, newest first: the last id shown, prefixed with
    ``prefix`` (which pages they belong to, and their version), in base64url without
    padding. Only a cursor this gave out is read back."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def encode(self, row_id: int) -> str:
        return base64.urlsafe_b64encode(f"{self.prefix}{row_id}".encode()).decode().rstrip("=")

    def decode(self, cursor: str) -> int:
        """The id a cursor names; InvalidInput at ``query.cursor`` when it is not one."""
        try:
            text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
            if text.startswith(self.prefix):
                value = int(text.removeprefix(self.prefix))
                if 0 < value < 1 << 63 and self.encode(value) == cursor:
                    return value
        except (binascii.Error, UnicodeDecodeError, ValueError):
            pass
        raise InvalidInput.at(["query", "cursor"], "the cursor is not one this API gave out")


__all__ = ["MAX_CURSOR", "IdCursors", "decode_cursor", "encode_cursor"]
