"""Log lines: rankline's text format, or one JSON object per line (``json``) with the time,
level, logger, message and the request id of the request being served, plus the fields a
record carries in ``extra`` (``board``, ``status``, ``duration_ms``, ...).

No line carries a credential: every handler rankline sets up redacts an ``access_token``
in a query string and a ``Bearer`` credential (``Redacting``), whichever logger wrote it (an
HTTP server's access log prints the whole request line, query string included). The HTTP
client's loggers (``QUIET_LOGGERS``) log warnings only, whatever the level: their request
lines carry whole URLs (a validator's, a webhook's, an identity provider's key set's), which
may hold a credential of any shape."""

from __future__ import annotations

import json
import logging
import re
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, Literal

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
SERVER_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "granian", "_granian")
"""The HTTP servers' loggers, which they configure with handlers of their own."""

QUIET_LOGGERS = ("httpx", "httpcore")
"""The HTTP client's loggers: never below WARNING (``configure_logging``)."""

_request_id: ContextVar[str | None] = ContextVar("rankline_request_id", default=None)

# Attributes every LogRecord has: the rest came from ``extra`` and go into the JSON object.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "taskName",
    "color_message",  # uvicorn's, with terminal colours
}


_CREDENTIALS = re.compile(r"(?i)\b(access(?:_|%5f)token=|bearer\s+)[^&#\s\"',;]+")
REDACTED = "[redacted]"


def redact(text: str) -> str:
    """``text`` with any ``access_token=`` value and ``Bearer`` credential replaced."""
    return _CREDENTIALS.sub(r"\1" + REDACTED, text)


class Redacting(logging.Filter):
    """A handler's filter that redacts credentials (``redact``) in each record's message
    and arguments, keeping the arguments' shape for formatters that read them (uvicorn's)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        args = record.args
        if isinstance(args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in args)
        elif isinstance(args, dict):
            record.args = {k: redact(v) if isinstance(v, str) else v for k, v in args.items()}
        return True


def current_request_id() -> str | None:
    """The id of the request this task serves, if any."""
    return _request_id.get()


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None) or _request_id.get()
        if request_id:
            entry["request_id"] = request_id
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in entry:
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def configure_logging(level: str, log_format: Literal["text", "json"] = "text") -> None:
    """rankline's log lines on stderr at ``level``, in ``log_format``. In JSON, the HTTP
    server's own loggers go through the same handler (``adopt_server_loggers``)."""
    root = logging.getLogger()
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, logging.getLevelName(level.upper())))
    if log_format == "text":
        logging.basicConfig(level=level.upper(), format=TEXT_FORMAT)
        _redact_handlers(root)
        return
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root.handlers = [handler]
    root.setLevel(level.upper())
    adopt_server_loggers()


def _redact_handlers(logger: logging.Logger) -> None:
    for handler in logger.handlers:
        if not any(isinstance(f, Redacting) for f in handler.filters):
            handler.addFilter(Redacting())


def adopt_server_loggers() -> None:
    """Route the HTTP server's loggers to the root handler. Servers configure their logging
    when they start, after the app may have been built: this runs again at the app's startup."""
    for name in SERVER_LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers = []
        logger.propagate = True
    _redact_handlers(logging.getLogger())


def set_request_id(value: str | None) -> object:
    return _request_id.set(value)


def reset_request_id(token: object) -> None:
    _request_id.reset(token)  # type: ignore[arg-type]
