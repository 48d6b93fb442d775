"""What ``rankline serve`` serves, put together: the HTTP app and, when
``RANKLINE_GRPC_PORT`` is set, the gRPC server beside it, in each worker process and its
event loop (the workers share the gRPC port as they share the HTTP one: SO_REUSEPORT). The
gRPC server is given the HTTP app's service and admission, and each RPC's rule from the
endpoint table (``rankline.http.routes.rpc_rules``)."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

from starlette.types import ASGIApp

from rankline.http import app as http_app
from rankline.http.api import Api
from rankline.http.app import Companion
from rankline.http.routes import rpc_rules
from rankline.settings import Settings


def companion(settings: Settings) -> Companion | None:
    """The gRPC server, when the settings ask for one (grpcio is imported then only: it
    comes with the grpc extra)."""
    port = settings.grpc_port
    if port is None:
        return None
    from rankline.grpc.server import serving

    host = settings.host
    table = rpc_rules()

    def served(api: Api) -> AbstractAsyncContextManager[object]:
        # The loop is the HTTP app's: the same lateness counts in a write's deadline.
        def waited() -> float:
            return api.lag.waited()

        return serving(api.service, api.admission, table, host, port, waited)

    return served


def app_from_env() -> ASGIApp:
    """A worker's app (``rankline serve``'s factory), made from the environment."""
    return http_app.app_from_env(companion(Settings()))


def observed_app(settings: Settings) -> ASGIApp:
    """The app ``rankline serve`` runs in its own process."""
    return http_app.observed_app(settings, companion(settings))
