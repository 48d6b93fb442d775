"""What the player reads take in their path and query, declared once
(``rankline.parameters``)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from rankline.bodies import PlayerIdStr
from rankline.parameters import BoardFilter, BoardIdPath, Limit, PlayerIdPath
from rankline.reading.requests import After, Period, Scope, Window, WithMetadata


class HistoryRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/players/{player_id}/history``."""

    player_id: PlayerIdPath
    board: BoardFilter | None = None
    limit: Limit = 100
    cursor: Annotated[str, Meta(description="The next_cursor of the previous page.")] | None = None


class StoredFriendsRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/boards/{board_id}/players/{player_id}/friends`` and ``…/me/friends``."""

    player_id: PlayerIdPath
    board_id: BoardIdPath
    window: Window | None = None
    period: Period | None = None
    scope: Scope | None = None
    after: After | None = None
    metadata: WithMetadata = False
    k: Annotated[int, Meta(ge=0, le=5000, description="0..5000; default all.")] | None = None


__all__ = ["HistoryRequest", "StoredFriendsRequest"]


class ProfileIn(msgspec.Struct, forbid_unknown_fields=True):
    """A player's profile. PUT replaces it whole: an omitted field becomes null (or {})."""

    display_name: Annotated[str, Meta(max_length=100)] | None = None
    avatar_url: Annotated[str, Meta(max_length=500)] | None = None
    country: Annotated[str, Meta(max_length=8)] | None = None
    metadata: dict[str, Any] | None = None


class FriendListIn(msgspec.Struct, forbid_unknown_fields=True):
    friends: Annotated[list[PlayerIdStr], Meta(max_length=5000)]
