"""rankline's exception tree. Backend errors are mapped to these at the boundary.

    RanklineError (500)
    ├── BadRequest (400): a body that is not JSON
    ├── Unauthorized (401) / Forbidden (403)
    │   ├── InvalidToken (401): a player token that does not verify
    │   ├── NotForPlayers (403): an operation a player token may not call
    │   └── OriginNotAllowed (403): a browser's cross-origin preflight refused
    ├── NotFound (404)
    ├── MethodNotAllowed (405)
    ├── Conflict (409): a frozen board, an immutable board field
    │   └── KeyReused: a stored match_id submitted again with a different payload
    ├── PayloadTooLarge (413) / UnsupportedMediaType (415)
    ├── InvalidInput (422): a value outside the contract, with per-field errors
    │   └── ScoreRejected: a player's score refused by max_gain or the board's validator
    ├── TooManyRequests (429): a rate limit was reached; nothing was recorded, retry after
    │   │   ``Retry-After`` seconds
    │   └── Overloaded: the write path is full (the write would not meet its deadline)
    └── Unavailable (503): nothing was recorded; retry later
        ├── StoreUnavailable: the durable store cannot be reached
        ├── LogUnavailable: the ingestion log cannot be reached
        │   └── NotOwner: this consumer does not (or no longer) own the log partition
        └── IndexUnavailable: the ranking index is rebuilding or unreachable
            └── IndexDamaged: one leaderboard's index is damaged (being repaired)

The HTTP edge renders every one as ``application/problem+json`` (RFC 9457).
"""

from __future__ import annotations

from typing import Any


class RanklineError(Exception):
    status = 500
    title = "Internal error"
    slug = "internal"

    def __init__(self, detail: str = "", *, errors: list[dict[str, Any]] | None = None) -> None:
        super().__init__(detail or self.title)
        self.detail = detail or self.title
        self.errors = errors

    def problem(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": f"https://rankline.dev/problems/{self.slug}",
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
        }
        if self.errors:
            body["errors"] = self.errors
        return body


class BadRequest(RanklineError):
    status, title, slug = 400, "Malformed request", "malformed"


class Unauthorized(RanklineError):
    status, title, slug = 401, "Missing credentials", "unauthorized"
    challenge = 'Bearer realm="rankline"'
    """The answer's ``WWW-Authenticate`` header (RFC 6750)."""


class InvalidToken(Unauthorized):
    """A player token that is expired, not yet valid, for another issuer or audience, or
    not signed by a key the server trusts."""

    title, slug = "Invalid token", "invalid-token"
    challenge = 'Bearer realm="rankline", error="invalid_token"'


class Forbidden(RanklineError):
    status, title, slug = 403, "Key not accepted", "forbidden"


class OriginNotAllowed(Forbidden):
    """A browser's preflight refused: the origin, method or a header is not allowed."""

    title, slug = "Origin not allowed", "origin-not-allowed"


class NotForPlayers(Forbidden):
    """A player token on an operation that only a key may call."""

    title, slug = "Not for players", "not-for-players"


class NotFound(RanklineError):
    status, title, slug = 404, "Not found", "not-found"


class MethodNotAllowed(RanklineError):
    status, title, slug = 405, "Method not allowed", "method-not-allowed"


class Conflict(RanklineError):
    status, title, slug = 409, "Conflict", "conflict"


class KeyReused(Conflict):
    """A (player, match_id) already stored with another payload: not a retry, so nothing
    is recorded; the problem shows the stored submission as ``existing``."""

    title, slug = "Match id reused", "match-id-reused"

    def __init__(self, detail: str, existing: dict[str, Any]) -> None:
        super().__init__(detail)
        self.existing = existing

    def problem(self) -> dict[str, Any]:
        return super().problem() | {"existing": self.existing}


class PayloadTooLarge(RanklineError):
    status, title, slug = 413, "Payload too large", "too-large"


class UnsupportedMediaType(RanklineError):
    status, title, slug = 415, "Unsupported media type", "unsupported-media-type"


class InvalidInput(RanklineError):
    status, title, slug = 422, "Invalid input", "invalid"

    @classmethod
    def at(cls, loc: list[str | int], msg: str) -> InvalidInput:
        return cls(msg, errors=[{"loc": loc, "msg": msg}])


class ScoreRejected(InvalidInput):
    """A player's own score refused by a rule of the board's client writes (``max_gain``)
    or by its validator; ``reason`` says why."""

    title, slug = "Score rejected", "score-rejected"

    def __init__(self, reason: str) -> None:
        super().__init__(f"the score was rejected: {reason}")
        self.reason = reason

    def problem(self) -> dict[str, Any]:
        return {**super().problem(), "reason": self.reason}


class TooManyRequests(RanklineError):
    status, title, slug = 429, "Too many requests", "too-many-requests"
    retry_after = 1

    def __init__(self, detail: str = "", *, retry_after: int = 1) -> None:
        super().__init__(detail)
        self.retry_after = max(1, retry_after)


class Overloaded(TooManyRequests):
    """A write refused because the write path is full: it would not be written within its
    deadline, its deadline passed before it was, or the write queue's memory guard is
    reached. The same problem as any 429; the HTTP edge also holds the connection's next
    write until its ``Retry-After`` (``rankline.writing.holds``)."""


class ExtraMissing(RanklineError):
    """What a stored definition asks for needs an extra this install lacks (a board rated by
    OpenSkill without the ``openskill`` extra): its writes are refused until it is installed
    (no Retry-After: waiting does not help)."""

    status, title, slug = 503, "Extra not installed", "extra-missing"


class Unavailable(RanklineError):
    status, title, slug = 503, "Service unavailable", "unavailable"
    retry_after = 1


class StoreUnavailable(Unavailable):
    title, slug = "Durable store unavailable", "store-unavailable"


class LogUnavailable(Unavailable):
    """The ingestion log (SQL, NATS JetStream or Kafka) did not answer or refused."""

    title, slug = "Ingestion log unavailable", "log-unavailable"


class NotOwner(LogUnavailable):
    """A consumer acted on a log partition it does not own (its lease ran out and another
    consumer may have taken the partition): it must stop applying that partition."""

    title, slug = "Log partition not owned", "log-not-owner"


class IndexUnavailable(Unavailable):
    title, slug = "Ranking index unavailable", "index-unavailable"


class IndexDamaged(IndexUnavailable):
    """One leaderboard's index keys disagree (a key was lost): its reads go to SQL until
    it is repaired; the rest of the index keeps answering."""

    def __init__(self, leaderboard: Any) -> None:
        super().__init__(f"the index of leaderboard {'/'.join(leaderboard)} is damaged")
        self.leaderboard = leaderboard


class WriteConflict(Unavailable):
    """Another writer changed the same rows first; the writer retries the batch."""

    title, slug = "Write conflict", "write-conflict"
