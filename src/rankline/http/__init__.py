"""The HTTP edge: thin routes over ``rankline.service``; errors rendered as problem+json."""

from rankline.http.app import create_app

__all__ = ["create_app"]
