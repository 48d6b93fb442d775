"""The optional parts of rankline, and the settings that need them, in one place.

``pip install rankline`` serves the embedded default (in-process index + SQLite) and the
HTTP API; every engine and edge beyond it comes with an extra (``pip install
'rankline[redis,postgres]'``). A setting that needs an extra that is not installed stops a
command as it starts, with one line naming the extra, instead of a traceback from deep
inside the first import of the missing library. The core never imports an extra's
libraries: the modules that do are imported only once a setting asks for them.
"""

from __future__ import annotations

import importlib.util

from rankline.settings import Settings
from rankline.store.opening import dialect as dialect_of

EXTRAS: dict[str, tuple[str, ...]] = {
    "postgres": ("asyncpg",),
    "mariadb": ("asyncmy",),
    "redis": ("redis", "hiredis"),
    "nats": ("nats",),
    "kafka": ("aiokafka",),
    "grpc": (
        "grpc",
        "grpc_status",
        "grpc_health",
        "grpc_reflection",
        "google.protobuf",
        "google.rpc",
        "orjson",
    ),
    "otel": ("opentelemetry.sdk", "opentelemetry.exporter.otlp.proto.http"),
    "uvicorn": ("uvicorn",),
    "tokens": ("jwt", "cryptography"),
    "openskill": ("openskill",),
    "bench": ("rankline_bench",),
}
"""Each extra, and the top-level modules it installs (what is checked for it)."""

_DIALECTS = {"postgresql": "postgres", "mysql": "mariadb", "mariadb": "mariadb"}
_LOGS = {"nats": "nats", "tls": "nats", "kafka": "kafka"}
ENV_PREFIX = "RANKLINE_"


class MissingExtra(Exception):
    """A setting or a command needs an extra that is not installed; the message is the line
    the operator reads."""


def installed(extra: str) -> bool:
    """Whether every module of ``extra`` can be imported (none is imported here)."""
    for module in EXTRAS[extra]:
        try:
            if importlib.util.find_spec(module) is None:
                return False
        except ImportError:  # a parent package missing, or refused
            return False
    return True


def install_hint(extra: str) -> str:
    return f"pip install 'rankline[{extra}]'"


def needed(settings: Settings, server: str | None = None) -> list[tuple[str, str]]:
    """(the setting, the extra it needs) for every setting that needs one; ``server`` is the
    HTTP server chosen, when it differs from the setting (``rankline serve --server``)."""
    found: list[tuple[str, str]] = []
    if settings.database_url:
        dialect = dialect_of(settings.database_url)
        if dialect in _DIALECTS:
            found.append(("database_url", _DIALECTS[dialect]))
    if settings.redis_url:
        found.append(("redis_url", "redis"))
    if settings.log_url:
        scheme = settings.log_url.partition("://")[0].lower()
        if scheme in _LOGS:
            found.append(("log_url", _LOGS[scheme]))
    if settings.grpc_port is not None:
        found.append(("grpc_port", "grpc"))
    if settings.player_jwks_url is not None:
        found.append(("player_jwks_url", "tokens"))
    elif settings.player_jwt_secret is not None:
        found.append(("player_jwt_secret", "tokens"))
    if (server or settings.server) == "uvicorn":
        found.append(("server", "uvicorn"))
    return found


def check(settings: Settings, server: str | None = None) -> None:
    """Raise ``MissingExtra`` naming the first setting whose extra is not installed."""
    for setting, extra in needed(settings, server):
        if not installed(extra):
            raise MissingExtra(
                f"{ENV_PREFIX}{setting.upper()} needs the {extra} extra: {install_hint(extra)}"
            )


def check_bench(command: str) -> None:
    """Raise ``MissingExtra`` when the benchmark (the rankline-bench distribution) is not
    installed."""
    if not installed("bench"):
        raise MissingExtra(f"rankline {command} needs the bench extra: {install_hint('bench')}")
