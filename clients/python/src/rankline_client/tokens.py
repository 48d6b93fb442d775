"""A player's token as the clients send it: a string, or a function that returns one (the
game's sign-in SDK refreshing its session), called when first needed and again, once, after
the server answers 401 (the token expired), before the request is sent again."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeAlias

TokenSource: TypeAlias = str | Callable[[], str]
"""What ``Client(token=...)`` takes."""
AsyncTokenSource: TypeAlias = str | Callable[[], str] | Callable[[], Awaitable[str]]
"""What ``AsyncClient(token=...)`` takes: the function may be a coroutine function."""


class Token:
    """The current token of a synchronous client."""

    def __init__(self, source: TokenSource) -> None:
        self._source = source
        self._value = source if isinstance(source, str) else None

    @property
    def refreshable(self) -> bool:
        return not isinstance(self._source, str)

    def current(self) -> str:
        if self._value is None:
            assert callable(self._source)
            self._value = self._source()
        return self._value

    def expire(self) -> None:
        """Forget the current token: the next request asks the function for a new one."""
        if self.refreshable:
            self._value = None


class AsyncToken:
    """The current token of an asynchronous client."""

    def __init__(self, source: AsyncTokenSource) -> None:
        self._source = source
        self._value = source if isinstance(source, str) else None

    @property
    def refreshable(self) -> bool:
        return not isinstance(self._source, str)

    async def current(self) -> str:
        if self._value is None:
            assert callable(self._source)
            value = self._source()
            self._value = value if isinstance(value, str) else await value
        return self._value

    def expire(self) -> None:
        if self.refreshable:
            self._value = None
