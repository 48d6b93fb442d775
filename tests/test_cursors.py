"""Cursors of top pages: a key in base64url without padding, as the first version wrote it
(clients keep cursors between pages, so its form never changes)."""

from __future__ import annotations

import base64

from hypothesis import given
from hypothesis import strategies as st

from rankline.reading.cursors import encode_cursor


@given(st.binary(min_size=17, max_size=88))
def test_a_cursor_is_the_key_in_base64url_without_padding(key: bytes) -> None:
    cursor = encode_cursor(key)
    assert cursor == base64.urlsafe_b64encode(key).rstrip(b"=").decode("ascii")
    assert base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)) == key
