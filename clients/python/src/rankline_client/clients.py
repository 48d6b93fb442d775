"""The synchronous and the asynchronous client: how a ``Call`` is sent (httpx), retried (503
and 429, with exponential backoff honouring ``Retry-After``) and answered (``ApiError``)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from typing import Any

import httpx

from rankline_client.endpoints import Call, Endpoints, Json
from rankline_client.tokens import AsyncToken, AsyncTokenSource, Token, TokenSource

BATCH_LIMIT = 1000
_RETRYABLE = {429, 503}


class ApiError(Exception):
    """An error answer: ``status`` and the problem+json body (``problem``)."""

    def __init__(self, status: int, problem: Mapping[str, Any]) -> None:
        self.status = status
        self.problem = dict(problem)
        super().__init__(f"{status} {problem.get('title', '')}: {problem.get('detail', '')}")


def _headers(key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"} if key else {}


def _one_caller(token: object, server_key: str | None, read_key: str | None) -> None:
    if token is not None and (server_key or read_key):
        raise ValueError("a client calls as one caller: give it a player token or keys, not both")


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


class Client(Endpoints[Any]):
    """The synchronous client. Use it as a context manager, or call ``close()``.

    A game server gives it keys (``server_key``, ``read_key``); a game client gives it the
    player's ``token`` instead (a string, or a function returning one, called again once
    after a 401 to refresh it; ``rankline_client.tokens``), and calls as that player:
    ``me``, ``me_around``, ``me_friends``, every read, and ``submit`` on boards that take
    client writes."""

    def __init__(
        self,
        base_url: str,
        *,
        server_key: str | None = None,
        read_key: str | None = None,
        token: TokenSource | None = None,
        retries: int = 4,
        backoff: float = 0.1,
        timeout: float = 10.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        _one_caller(token, server_key, read_key)
        self.server_key, self.read_key = server_key, read_key
        self.token = Token(token) if token is not None else None
        self.retries, self.backoff = retries, backoff
        self.http = httpx.Client(base_url=base_url, timeout=timeout, transport=transport)

    def _call(self, call: Call) -> Any:
        response = self._send(call)
        if response.status_code == 401 and self.token is not None and self.token.refreshable:
            self.token.expire()
            response = self._send(call)
        return _answer(response)

    def _send(self, call: Call) -> httpx.Response:
        """``call`` sent, and sent again on 429 and 503 as long as the retries last."""
        key = self.token.current() if self.token is not None else self._key(call)
        headers = _headers(key)
        for attempt in range(self.retries + 1):
            response = self.http.request(
                call.method, call.path, params=call.params, json=call.body, headers=headers
            )
            if response.status_code not in _RETRYABLE or attempt == self.retries:
                return response
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


class AsyncClient(Endpoints[Coroutine[Any, Any, Any]]):
    """The asynchronous client: the same methods, to ``await``. Its ``token`` function may
    be a coroutine function."""

    def __init__(
        self,
        base_url: str,
        *,
        server_key: str | None = None,
        read_key: str | None = None,
        token: AsyncTokenSource | None = None,
        retries: int = 4,
        backoff: float = 0.1,
        timeout: float = 10.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        _one_caller(token, server_key, read_key)
        self.server_key, self.read_key = server_key, read_key
        self.token = AsyncToken(token) if token is not None else None
        self.retries, self.backoff = retries, backoff
        self.http = httpx.AsyncClient(base_url=base_url, timeout=timeout, transport=transport)

    async def _call(self, call: Call) -> Any:
        response = await self._send(call)
        if response.status_code == 401 and self.token is not None and self.token.refreshable:
            self.token.expire()
            response = await self._send(call)
        return _answer(response)

    async def _send(self, call: Call) -> httpx.Response:
        key = await self.token.current() if self.token is not None else self._key(call)
        headers = _headers(key)
        for attempt in range(self.retries + 1):
            response = await self.http.request(
                call.method, call.path, params=call.params, json=call.body, headers=headers
            )
            if response.status_code not in _RETRYABLE or attempt == self.retries:
                return response
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
