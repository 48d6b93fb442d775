"""A typed Python client for the rankline v1 API, synchronous and asynchronous (httpx).

    from rankline_client import Client

    with Client("http://127.0.0.1:8000", server_key="rk_...") as rl:
        rl.put_board("arena", windows=["all_time", "daily"])
        rl.submit("arena", "p:42", 4500, match_id="m:1")
        print(rl.top("arena", limit=10)["entries"])

``AsyncClient`` has the same methods, to ``await``. Answers are the API's JSON as dicts.
Submissions are idempotent on (player_id, match_id), so 503 and 429 answers are retried
with exponential backoff (honouring ``Retry-After``); other errors raise ``ApiError``.
"""

from rankline_client.clients import BATCH_LIMIT, ApiError, AsyncClient, Client, batches
from rankline_client.endpoints import Call

__all__ = ["BATCH_LIMIT", "ApiError", "AsyncClient", "Call", "Client", "batches"]
