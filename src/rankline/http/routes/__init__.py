"""The v1 routes by feature, and the whole endpoint table (``ENDPOINTS``): each module holds
its handlers and its rows of the table; the order of the rows is the API document's."""

from __future__ import annotations

from rankline.access.admission import Rule
from rankline.http.endpoint import Endpoint
from rankline.http.routes.exports import EXPORT_ENDPOINTS
from rankline.http.routes.keys import KEY_ENDPOINTS
from rankline.http.routes.leaderboards import LEADERBOARD_ENDPOINTS
from rankline.http.routes.matches import MATCH_ENDPOINTS
from rankline.http.routes.moderation import MODERATION_ENDPOINTS
from rankline.http.routes.players import PLAYER_ENDPOINTS
from rankline.http.routes.tournaments import TOURNAMENT_ENDPOINTS

ENDPOINTS: tuple[Endpoint, ...] = (
    *LEADERBOARD_ENDPOINTS,
    *PLAYER_ENDPOINTS,
    *MATCH_ENDPOINTS,
    *TOURNAMENT_ENDPOINTS,
    *MODERATION_ENDPOINTS,
    *EXPORT_ENDPOINTS,
    *KEY_ENDPOINTS,
)


def rpc_rules(endpoints: tuple[Endpoint, ...] = ENDPOINTS) -> dict[str, Rule]:
    """Each RPC's rule: that of the endpoint it twins (``Endpoint.rpc``)."""
    return {e.rpc: e.rule for e in endpoints if e.rpc is not None}


__all__ = ["ENDPOINTS", "rpc_rules"]
