"""What ``rankline serve`` serves: the HTTP app and, when ``RANKLINE_GRPC_PORT`` is set, the
gRPC server beside it, in each worker process and its event loop (the workers share the gRPC
port as they share the HTTP one: SO_REUSEPORT)."""

from __future__ import annotations

from starlette.types import ASGIApp

from rankline.http import app as http_app
from rankline.http.app import Companion
from rankline.settings import Settings


def companion(settings: Settings) -> Companion | None:
    """The gRPC server, when the settings ask for one (grpcio is imported then only: it
    comes with the grpc extra)."""
    port = settings.grpc_port
    if port is None:
        return None
    from rankline.grpc.server import serving

    host = settings.host
    return lambda api: serving(api, host, port)


def app_from_env() -> ASGIApp:
    """A worker's app (``rankline serve``'s factory), made from the environment."""
    return http_app.app_from_env(companion(Settings()))


def observed_app(settings: Settings) -> ASGIApp:
    """The app ``rankline serve`` runs in its own process."""
    return http_app.observed_app(settings, companion(settings))
