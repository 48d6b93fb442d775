"""A typed Python client for the rankline v1 API, synchronous and asynchronous (httpx).

    from rankline_client import Client

    with Client("http://127.0.0.1:8000", server_key="rk_...") as rl:
        rl.put_board("arena", windows=["all_time", "daily"])
        rl.submit("arena", "p:42", 4500, match_id="m:1")
        print(rl.top("arena", limit=10)["entries"])

A game client calls as its player, with the token the studio's sign-in issued (or a
function returning the current one, called again once after a 401)::

    with Client("https://rankline.example.com", token=session.token) as rl:
        print(rl.me("arena")["rank"])

``AsyncClient`` has the same methods, to ``await``. Answers are the API's JSON as dicts.
Submissions are idempotent on (player_id, match_id), so 503 and 429 answers are retried
with exponential backoff (honouring ``Retry-After``); other errors raise ``ApiError``.
"""

from rankline_client.clients import BATCH_LIMIT, ApiError, AsyncClient, Client, batches
from rankline_client.endpoints import Call
from rankline_client.tokens import AsyncTokenSource, TokenSource

__all__ = [
    "BATCH_LIMIT",
    "ApiError",
    "AsyncClient",
    "AsyncTokenSource",
    "Call",
    "Client",
    "TokenSource",
    "batches",
]
