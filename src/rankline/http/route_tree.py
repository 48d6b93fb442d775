"""The v1 path templates as a tree of segments (``Routes``): a lookup is one dict lookup per
segment, not a regular expression per route. It finds what Starlette's router would find
(tests/test_route_tree.py), and which methods a path has, for a 405's ``Allow``. A parameter
with Starlette's ``path`` converter (``{match_id:path}``, ``Endpoint.route``) takes one or
more segments, "/" included, the most it can (Starlette's ``.*``).
"""

from __future__ import annotations

from collections.abc import Sequence

from rankline.http.endpoint import Endpoint


class _Node:
    """One path segment of the route tree: literal children, the parameter child (at most
    one: a ``{name}`` segment), the child of a parameter that may hold "/" (at most one: a
    ``{name:path}`` segment), and the handlers of the paths ending here, by method."""

    __slots__ = ("handlers", "literals", "param", "rest")

    def __init__(self) -> None:
        self.literals: dict[str, _Node] = {}
        self.param: _Node | None = None
        self.rest: _Node | None = None
        self.handlers: dict[str, tuple[Endpoint, tuple[str, ...]]] = {}


class Routes:
    """The path templates as a tree of segments: a lookup is one dict lookup per segment
    (a literal segment first, then a parameter), not a scan of every template."""

    def __init__(self, endpoints: Sequence[Endpoint]) -> None:
        self._root = _Node()
        for endpoint in endpoints:
            node, names = self._root, []
            for part in endpoint.route.strip("/").split("/"):
                if part.endswith(":path}"):
                    names.append(part[1:].removesuffix(":path}"))
                    if node.rest is None:
                        node.rest = _Node()
                    node = node.rest
                elif part.startswith("{"):
                    names.append(part[1:-1])
                    if node.param is None:
                        node.param = _Node()
                    node = node.param
                else:
                    node = node.literals.setdefault(part, _Node())
            node.handlers[endpoint.method] = (endpoint, tuple(names))
        self.query_names: dict[Endpoint, frozenset[str]] = {
            e: e.query_names for e in endpoints if e.auth in ("read", "me")
        }
        """The query parameters each read (a player's own too) takes: any other is 422."""

    def allowed(self, path: str) -> list[str]:
        """The methods of the v1 path ``path`` (none: no such path)."""
        parts = path[1:].split("/")
        return sorted({m for m in _METHODS if _find(self._root, m, parts, 0, []) is not None})

    def match(self, method: str, path: str) -> tuple[Endpoint, dict[str, str]] | None:
        parts = path[1:].split("/")
        values: list[str] = []
        node: _Node | None = self._root
        walked = self._root
        for part in parts:  # literal first, no turning back: every v1 path is found so
            child = walked.literals.get(part)
            if child is not None:
                walked = child
            elif walked.param is not None and part:
                values.append(part)
                walked = walked.param
            else:
                node = None
                break
        else:
            node = walked
        if node is None or method not in node.handlers:  # only a step back could find it
            values = []
            node = _find(self._root, method, parts, 0, values)
            if node is None:
                return None  # Starlette answers: 404, or 405 with the methods the path has
        endpoint, names = node.handlers[method]
        return endpoint, dict(zip(names, values, strict=True))


_METHODS = ("DELETE", "GET", "PATCH", "POST", "PUT")


def _find(node: _Node, method: str, parts: list[str], at: int, values: list[str]) -> _Node | None:
    """The node whose path is ``parts[at:]`` below ``node`` and that has ``method``,
    parameters appended to ``values``; an empty segment is no parameter (Starlette's
    ``[^/]+``), but a ``path`` parameter may be empty or hold several (Starlette's ``.*``)."""
    if at == len(parts):
        return node if method in node.handlers else None
    part = parts[at]
    child = node.literals.get(part)
    if child is not None:
        found = _find(child, method, parts, at + 1, values)
        if found is not None:
            return found
    if node.param is not None and part:
        values.append(part)
        found = _find(node.param, method, parts, at + 1, values)
        if found is not None:
            return found
        values.pop()
    if node.rest is not None:
        for stop in range(len(parts), at, -1):  # the most segments first, as ``.*`` takes
            values.append("/".join(parts[at:stop]))
            found = _find(node.rest, method, parts, stop, values)
            if found is not None:
                return found
            values.pop()
    return None
