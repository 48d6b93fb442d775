"""Every v1 endpoint of the client, described once as a ``Call`` for both the synchronous
and the asynchronous client (``rankline_client.clients``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import quote

R = TypeVar("R")
Json = dict[str, Any]


@dataclass(frozen=True)
class Call:
    """One HTTP request, described once for both clients."""

    method: str
    path: str
    params: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    write: bool = False


def _p(value: str) -> str:
    return quote(value, safe=":@")


def _edition(edition: str | None, scope: str | None) -> dict[str, Any]:
    found = {"edition": edition, "scope": scope}
    return {k: v for k, v in found.items() if v is not None}


def _where(window: str | None, period: str | None, scope: str | None) -> dict[str, Any]:
    found = {"window": window, "period": period, "scope": scope}
    return {k: v for k, v in found.items() if v is not None}


def _described(params: dict[str, Any], metadata: bool) -> dict[str, Any]:
    """``params`` asking for entry metadata (``metadata=true``) when ``metadata``."""
    return params | {"metadata": "true"} if metadata else params


class Endpoints(Generic[R]):
    """Every v1 endpoint, as a method that hands one ``Call`` to ``_call``."""

    server_key: str | None
    read_key: str | None

    def _call(self, call: Call) -> R:
        raise NotImplementedError

    # boards
    def list_boards(self) -> R:
        return self._call(Call("GET", "/v1/boards"))

    def get_board(self, board: str) -> R:
        return self._call(Call("GET", f"/v1/boards/{_p(board)}"))

    def put_board(self, board: str, **definition: Any) -> R:
        """Create or update a board: ``put_board("arena", windows=["all_time", "daily"],
        dense_rank=True)`` (every field of the definition as a keyword), for instance a time
        zone and a cron window: ``timezone="America/Los_Angeles", windows=["daily", {"id":
        "friday-event", "cron": "0 18 * * FRI", "timezone": "Europe/Paris"}]``, or a webhook
        for period-close events: ``webhook={"url": ..., "secret": ..., "top": 100}``."""
        return self._call(Call("PUT", f"/v1/boards/{_p(board)}", body=definition, write=True))

    def delete_board(self, board: str) -> R:
        return self._call(Call("DELETE", f"/v1/boards/{_p(board)}", write=True))

    # scores
    def submit(
        self,
        board: str,
        player_id: str,
        score: int,
        *,
        match_id: str,
        at: str | None = None,
        scopes: Mapping[str, str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        subscore: int | None = None,
    ) -> R:
        """Submit a score; ``subscore`` is required on a board with a subscore (and refused
        on any other)."""
        body: Json = {"player_id": player_id, "score": score, "match_id": match_id}
        if subscore is not None:
            body["subscore"] = subscore
        if at is not None:
            body["at"] = at
        if scopes:
            body["scopes"] = dict(scopes)
        if metadata:
            body["metadata"] = dict(metadata)
        return self._call(Call("POST", f"/v1/boards/{_p(board)}/scores", body=body, write=True))

    # rating boards
    def submit_match(
        self,
        board: str,
        match_id: str,
        results: Sequence[Mapping[str, Any]],
        *,
        at: str | None = None,
    ) -> R:
        """A match on a rating board: ``results`` are ``{"player_id", "place", "team"?,
        "scopes"?}`` (equal places draw). Answers each player's old and new rating and rank."""
        body: Json = {"match_id": match_id, "results": [dict(r) for r in results]}
        if at is not None:
            body["at"] = at
        return self._call(Call("POST", f"/v1/boards/{_p(board)}/matches", body=body, write=True))

    def submit_matches(self, matches: Sequence[Mapping[str, Any]]) -> R:
        """Up to 1,000 matches in one request, each with its ``board``: ``{"results": [...]}``
        with one answer or ``error`` per item, by ``index``."""
        body = {"matches": [dict(m) for m in matches]}
        return self._call(Call("POST", "/v1/matches/batch", body=body, write=True))

    def rating(
        self,
        board: str,
        player_id: str,
        *,
        window: str | None = None,
        period: str | None = None,
    ) -> R:
        """A player's rating on a rating board, also while provisional (``provisional``)."""
        path = f"/v1/boards/{_p(board)}/players/{_p(player_id)}/rating"
        return self._call(Call("GET", path, params=_where(window, period, None)))

    # reads
    def top(
        self,
        board: str,
        *,
        limit: int = 100,
        offset: int = 0,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
        tier: str | None = None,
        cursor: str | None = None,
        at: str | None = None,
        metadata: bool = False,
    ) -> R:
        """The top of a leaderboard; with ``tier``, the page is cut from that tier. A page
        with more after it carries ``next``: pass it as ``cursor`` (instead of an offset)
        for the entries after that page's last, however the board changed meanwhile. With
        ``at`` (an RFC 3339 instant), the top as the latest snapshot taken at or before it
        kept it (boards with ``snapshots``). With ``metadata``, each entry carries the
        metadata of the submission that set it."""
        params: Json = {"limit": limit, **_where(window, period, scope)}
        if offset:
            params["offset"] = offset
        extra = {"tier": tier, "cursor": cursor, "at": at}
        params |= {k: v for k, v in extra.items() if v is not None}
        path = f"/v1/boards/{_p(board)}/top"
        return self._call(Call("GET", path, _described(params, metadata)))

    def snapshots(
        self,
        board: str,
        *,
        limit: int = 100,
        before: str | None = None,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
    ) -> R:
        """The leaderboard's top-K snapshots (``taken_at``, ``total``, ``entries``), newest
        first; ``before`` (an instant) for older ones."""
        params: Json = {"limit": limit, **_where(window, period, scope)}
        if before is not None:
            params["before"] = before
        return self._call(Call("GET", f"/v1/boards/{_p(board)}/snapshots", params))

    def player(
        self,
        board: str,
        player_id: str,
        *,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
        metadata: bool = False,
    ) -> R:
        """The player's view: ``rank``, ``competition_rank``, ``percentile``, movement
        (``previous_rank``, ``best_rank``: None where not known) and, on boards that keep
        them, ``dense_rank`` and ``tier``; with ``metadata``, the ``metadata`` of the
        submission that set the entry."""
        path = f"/v1/boards/{_p(board)}/players/{_p(player_id)}"
        return self._call(Call("GET", path, _described(_where(window, period, scope), metadata)))

    def around(
        self,
        board: str,
        player_id: str,
        *,
        k: int = 5,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
        metadata: bool = False,
    ) -> R:
        path = f"/v1/boards/{_p(board)}/players/{_p(player_id)}/around"
        params = {"k": k, **_where(window, period, scope)}
        return self._call(Call("GET", path, _described(params, metadata)))

    # the player calling with a token (``token=``): their own standing
    def me(
        self,
        board: str,
        *,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
        metadata: bool = False,
    ) -> R:
        """``player`` for the player whose token the client sends."""
        path = f"/v1/boards/{_p(board)}/me"
        return self._call(Call("GET", path, _described(_where(window, period, scope), metadata)))

    def me_around(
        self,
        board: str,
        *,
        k: int = 5,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
        metadata: bool = False,
    ) -> R:
        """``around`` the player whose token the client sends."""
        params = {"k": k, **_where(window, period, scope)}
        return self._call(
            Call("GET", f"/v1/boards/{_p(board)}/me/around", _described(params, metadata))
        )

    def me_friends(
        self,
        board: str,
        *,
        k: int | None = None,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
        metadata: bool = False,
    ) -> R:
        """``friends`` of the player whose token the client sends, among their stored list."""
        params = _described(_where(window, period, scope), metadata)
        if k is not None:
            params["k"] = k
        return self._call(Call("GET", f"/v1/boards/{_p(board)}/me/friends", params))

    def rank_of(
        self,
        board: str,
        score: int,
        *,
        subscore: int | None = None,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
    ) -> R:
        """The rank, competition rank and percentile ``score`` (with ``subscore``, on a
        board with one) would get if submitted now (and its ``dense_rank`` on a board with
        dense ranks)."""
        params = {"score": score, **_where(window, period, scope)}
        if subscore is not None:
            params["subscore"] = subscore
        return self._call(Call("GET", f"/v1/boards/{_p(board)}/rank-of", params))

    def friends(
        self,
        board: str,
        player_id: str,
        friends: Sequence[str] | None = None,
        *,
        k: int | None = None,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
        metadata: bool = False,
    ) -> R:
        """Among these ``friends``; without them, among the player's stored friend list."""
        path = f"/v1/boards/{_p(board)}/players/{_p(player_id)}/friends"
        where = _described(_where(window, period, scope), metadata)
        if friends is None:
            return self._call(Call("GET", path, where | ({} if k is None else {"k": k})))
        body: Json = {"friends": list(friends)}
        if k is not None:
            body["k"] = k
        return self._call(Call("POST", path, where, body))

    def ranks(
        self,
        board: str,
        player_ids: Sequence[str],
        *,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
        metadata: bool = False,
    ) -> R:
        body = {"player_ids": list(player_ids)}
        path = f"/v1/boards/{_p(board)}/ranks"
        where = _described(_where(window, period, scope), metadata)
        return self._call(Call("POST", path, where, body))

    def periods(self, board: str, *, window: str | None = None) -> R:
        params = {} if window is None else {"window": window}
        return self._call(Call("GET", f"/v1/boards/{_p(board)}/periods", params))

    def deliveries(
        self,
        board: str,
        *,
        window: str | None = None,
        period: str | None = None,
        limit: int | None = None,
    ) -> R:
        """The board webhook's period-close events and their delivery state, newest first
        (needs the server key)."""
        params = {k: v for k, v in (("window", window), ("period", period), ("limit", limit)) if v}
        path = f"/v1/boards/{_p(board)}/deliveries"
        return self._call(Call("GET", path, params, write=True))

    # players
    def put_player(self, player_id: str, **profile: Any) -> R:
        return self._call(Call("PUT", f"/v1/players/{_p(player_id)}", body=profile, write=True))

    def get_player(self, player_id: str) -> R:
        return self._call(Call("GET", f"/v1/players/{_p(player_id)}"))

    def history(
        self,
        player_id: str,
        *,
        board: str | None = None,
        limit: int = 100,
        cursor: str | None = None,
    ) -> R:
        params: Json = {"limit": limit}
        if board is not None:
            params["board"] = board
        if cursor is not None:
            params["cursor"] = cursor
        return self._call(Call("GET", f"/v1/players/{_p(player_id)}/history", params))

    def put_friends(self, player_id: str, friends: Sequence[str]) -> R:
        path = f"/v1/players/{_p(player_id)}/friends"
        return self._call(Call("PUT", path, body={"friends": list(friends)}, write=True))

    def ban(self, player_id: str) -> R:
        return self._call(Call("POST", f"/v1/players/{_p(player_id)}/ban", write=True))

    def unban(self, player_id: str) -> R:
        return self._call(Call("DELETE", f"/v1/players/{_p(player_id)}/ban", write=True))

    def erase(self, player_id: str) -> R:
        return self._call(Call("DELETE", f"/v1/players/{_p(player_id)}", write=True))

    # moderation and audit (server key)
    def remove_entry(
        self,
        board: str,
        player_id: str,
        *,
        window: str | None = None,
        period: str | None = None,
        scope: str | None = None,
        reason: str | None = None,
    ) -> R:
        """Remove a player's entry from every leaderboard of a board, or those named."""
        params = _where(window, period, scope)
        if reason is not None:
            params["reason"] = reason
        path = f"/v1/boards/{_p(board)}/players/{_p(player_id)}"
        return self._call(Call("DELETE", path, params, write=True))

    def reset(
        self,
        board: str,
        *,
        window: str | None = None,
        scope: str | None = None,
        reason: str | None = None,
    ) -> R:
        """Restart the current period of a board's window (on every scope, or ``scope``)."""
        body = {k: v for k, v in {"window": window, "scope": scope, "reason": reason}.items() if v}
        return self._call(Call("POST", f"/v1/boards/{_p(board)}/reset", body=body, write=True))

    def void_match(self, board: str, match_id: str, *, reason: str | None = None) -> R:
        """Undo every submission under ``match_id`` on the board, as if never submitted
        (a "/" in ``match_id`` is sent percent-encoded, as every path segment is)."""
        body = {} if reason is None else {"reason": reason}
        path = f"/v1/boards/{_p(board)}/matches/{_p(match_id)}/void"
        return self._call(Call("POST", path, body=body, write=True))

    def audit(
        self,
        *,
        board: str | None = None,
        player_id: str | None = None,
        limit: int = 100,
        cursor: str | None = None,
    ) -> R:
        """A page of the audit log, newest first; pass the answer's ``next`` as ``cursor``."""
        found = {"board": board, "player": player_id, "cursor": cursor}
        params: dict[str, Any] = {"limit": limit, **{k: v for k, v in found.items() if v}}
        return self._call(Call("GET", "/v1/audit", params, write=True))

    def dead_letters(self, *, board: str | None = None, limit: int = 50) -> R:
        """The submissions taken asynchronously that could not be applied, newest first."""
        params: dict[str, Any] = {"limit": limit, **({"board": board} if board else {})}
        return self._call(Call("GET", "/v1/dead-letters", params, write=True))

    # tournaments
    def list_tournaments(self) -> R:
        return self._call(Call("GET", "/v1/tournaments"))

    def get_tournament(self, tournament: str) -> R:
        return self._call(Call("GET", f"/v1/tournaments/{_p(tournament)}"))

    def put_tournament(self, tournament: str, **definition: Any) -> R:
        path = f"/v1/tournaments/{_p(tournament)}"
        return self._call(Call("PUT", path, body=definition, write=True))

    def delete_tournament(self, tournament: str) -> R:
        return self._call(Call("DELETE", f"/v1/tournaments/{_p(tournament)}", write=True))

    def join(self, tournament: str, player_id: str) -> R:
        """Join the current (or next) edition; ``ApiError`` 409 when it is full."""
        path = f"/v1/tournaments/{_p(tournament)}/join"
        return self._call(Call("POST", path, body={"player_id": player_id}, write=True))

    def submit_tournament(
        self,
        tournament: str,
        player_id: str,
        score: int,
        *,
        match_id: str,
        at: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> R:
        """A score in a tournament; ``ApiError`` 409 outside its schedule, over
        ``max_submissions`` or without joining when ``join_required``."""
        body: Json = {"player_id": player_id, "score": score, "match_id": match_id}
        if at is not None:
            body["at"] = at
        if metadata:
            body["metadata"] = dict(metadata)
        path = f"/v1/tournaments/{_p(tournament)}/scores"
        return self._call(Call("POST", path, body=body, write=True))

    def tournament_top(
        self, tournament: str, *, limit: int = 100, offset: int = 0, edition: str | None = None
    ) -> R:
        params = {"limit": limit, "offset": offset, **_edition(edition, None)}
        return self._call(Call("GET", f"/v1/tournaments/{_p(tournament)}/top", params))

    def tournament_player(
        self,
        tournament: str,
        player_id: str,
        *,
        edition: str | None = None,
        scope: str | None = None,
    ) -> R:
        """A player in an edition; ``scope="cohort"`` reads their cohort's leaderboard."""
        path = f"/v1/tournaments/{_p(tournament)}/players/{_p(player_id)}"
        return self._call(Call("GET", path, _edition(edition, scope)))

    def tournament_around(
        self,
        tournament: str,
        player_id: str,
        *,
        k: int = 5,
        edition: str | None = None,
        scope: str | None = None,
    ) -> R:
        path = f"/v1/tournaments/{_p(tournament)}/players/{_p(player_id)}/around"
        return self._call(Call("GET", path, {"k": k, **_edition(edition, scope)}))

    def results(self, tournament: str, *, edition: str | None = None) -> R:
        """An ended edition's results with rewards (the last ended one by default)."""
        path = f"/v1/tournaments/{_p(tournament)}/results"
        return self._call(Call("GET", path, _edition(edition, None)))

    # keys (a server key without board limits)
    def create_key(
        self,
        name: str,
        *,
        role: str = "server",
        boards: Sequence[str] | None = None,
        expires_at: str | None = None,
    ) -> R:
        """A new ``server`` or ``read`` key, limited to ``boards`` patterns and expiring at
        ``expires_at`` if given: the answer's ``secret`` is shown this once."""
        body: Json = {"name": name, "role": role}
        if boards is not None:
            body["boards"] = list(boards)
        if expires_at is not None:
            body["expires_at"] = expires_at
        return self._call(Call("POST", "/v1/keys", body=body, write=True))

    def list_keys(self) -> R:
        """The keys made at runtime, without their secrets."""
        return self._call(Call("GET", "/v1/keys", write=True))

    def revoke_key(self, key_id: str) -> R:
        return self._call(Call("DELETE", f"/v1/keys/{_p(key_id)}", write=True))

    # operations
    def health(self) -> R:
        return self._call(Call("GET", "/healthz"))

    def _key(self, call: Call) -> str | None:
        return self.server_key if call.write else (self.read_key or self.server_key)
