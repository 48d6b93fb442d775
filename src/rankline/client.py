"""A typed Python client for the rankline v1 API, synchronous and asynchronous (httpx).

    from rankline.client import Client

    with Client("http://127.0.0.1:8000", server_key="rk_...") as rl:
        rl.put_board("arena", windows=["all_time", "daily"])
        rl.submit("arena", "p:42", 4500, match_id="m:1")
        print(rl.top("arena", limit=10)["entries"])

``AsyncClient`` has the same methods, to ``await``. Answers are the API's JSON as dicts.
Submissions are idempotent on (player_id, match_id), so 503 and 429 answers are retried
with exponential backoff (honouring ``Retry-After``); other errors raise ``ApiError``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx

R = TypeVar("R")
Json = dict[str, Any]
BATCH_LIMIT = 1000
_RETRYABLE = {429, 503}


class ApiError(Exception):
    """An error answer: ``status`` and the problem+json body (``problem``)."""

    def __init__(self, status: int, problem: Mapping[str, Any]) -> None:
        self.status = status
        self.problem = dict(problem)
        super().__init__(f"{status} {problem.get('title', '')}: {problem.get('detail', '')}")


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


def _headers(key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"} if key else {}


def _answer(response: httpx.Response) -> Any:
    if response.status_code >= 400:
        try:
            problem = response.json()
        except ValueError:
            problem = {"title": response.reason_phrase, "detail": response.text}
        raise ApiError(response.status_code, problem)
    if response.status_code == 204 or not response.content:
        return None
    return response.json()


def _delay(response: httpx.Response, attempt: int, backoff: float) -> float:
    after: str = response.headers.get("retry-after", "")
    wait = float(after) if after.replace(".", "", 1).isdigit() else 0.0
    return max(wait, backoff * 2.0**attempt)


class _Api(Generic[R]):
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

    # operations
    def health(self) -> R:
        return self._call(Call("GET", "/healthz"))

    def _key(self, call: Call) -> str | None:
        return self.server_key if call.write else (self.read_key or self.server_key)


def _batch_call(chunk: list[Json]) -> Call:
    return Call("POST", "/v1/scores/batch", body={"scores": chunk}, write=True)


def _shifted(answer: Json, start: int) -> list[Json]:
    """A chunk's results with ``index``, and the item's place in an error's ``loc``
    (``["body", "scores", i, ...]``), counted from the start of the whole upload."""
    results = []
    for result in answer["results"]:
        moved = result | {"index": result["index"] + start}
        problem = result.get("error")
        if start and isinstance(problem, dict) and isinstance(problem.get("errors"), list):
            moved["error"] = problem | {"errors": [_moved(e, start) for e in problem["errors"]]}
        results.append(moved)
    return results


def _moved(error: Json, start: int) -> Json:
    loc = error.get("loc")
    if not (isinstance(loc, list) and len(loc) > 2 and loc[:2] == ["body", "scores"]):
        return error
    item = loc[2]
    return error | {"loc": [*loc[:2], item + start, *loc[3:]]} if isinstance(item, int) else error


def batches(items: Iterable[Mapping[str, Any]], size: int = BATCH_LIMIT) -> Iterable[list[Json]]:
    """Split submissions into batch-sized lists for ``submit_batch``."""
    chunk: list[Json] = []
    for item in items:
        chunk.append(dict(item))
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class Client(_Api[Any]):
    """The synchronous client. Use it as a context manager, or call ``close()``."""

    def __init__(
        self,
        base_url: str,
        *,
        server_key: str | None = None,
        read_key: str | None = None,
        retries: int = 4,
        backoff: float = 0.1,
        timeout: float = 10.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.server_key, self.read_key = server_key, read_key
        self.retries, self.backoff = retries, backoff
        self.http = httpx.Client(base_url=base_url, timeout=timeout, transport=transport)

    def _call(self, call: Call) -> Any:
        headers = _headers(self._key(call))
        for attempt in range(self.retries + 1):
            response = self.http.request(
                call.method, call.path, params=call.params, json=call.body, headers=headers
            )
            if response.status_code not in _RETRYABLE or attempt == self.retries:
                return _answer(response)
            time.sleep(_delay(response, attempt, self.backoff))
        raise AssertionError("unreachable")

    def submit_batch(self, items: Sequence[Mapping[str, Any]]) -> Json:
        """Any number of submissions, each with its ``board``: sent 1,000 to a request, in
        order, and answered as one batch (``{"results": [...]}``, each result's ``index``
        its place in ``items``). A request that fails raises; the earlier ones stay
        recorded, and sending them all again is safe (submissions are idempotent)."""
        results: list[Json] = []
        for chunk in batches(items):
            results += _shifted(self._call(_batch_call(chunk)), len(results))
        return {"results": results}

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class AsyncClient(_Api[Coroutine[Any, Any, Any]]):
    """The asynchronous client: the same methods, to ``await``."""

    def __init__(
        self,
        base_url: str,
        *,
        server_key: str | None = None,
        read_key: str | None = None,
        retries: int = 4,
        backoff: float = 0.1,
        timeout: float = 10.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.server_key, self.read_key = server_key, read_key
        self.retries, self.backoff = retries, backoff
        self.http = httpx.AsyncClient(base_url=base_url, timeout=timeout, transport=transport)

    async def _call(self, call: Call) -> Any:
        headers = _headers(self._key(call))
        for attempt in range(self.retries + 1):
            response = await self.http.request(
                call.method, call.path, params=call.params, json=call.body, headers=headers
            )
            if response.status_code not in _RETRYABLE or attempt == self.retries:
                return _answer(response)
            await asyncio.sleep(_delay(response, attempt, self.backoff))
        raise AssertionError("unreachable")

    async def submit_batch(self, items: Sequence[Mapping[str, Any]]) -> Json:
        """As ``Client.submit_batch``."""
        results: list[Json] = []
        for chunk in batches(items):
            results += _shifted(await self._call(_batch_call(chunk)), len(results))
        return {"results": results}

    async def aclose(self) -> None:
        await self.http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


__all__ = ["ApiError", "AsyncClient", "Client", "batches"]
