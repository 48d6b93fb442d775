"""``rankline.client``, kept for existing callers: the client is the ``rankline-client``
distribution (``rankline_client``), which ``pip install rankline`` installs too."""

from rankline_client import (
    BATCH_LIMIT,
    ApiError,
    AsyncClient,
    AsyncTokenSource,
    Call,
    Client,
    TokenSource,
    batches,
)

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
