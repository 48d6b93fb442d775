"""The OpenAPI 3.1 document, generated from the route table and the msgspec schema types."""

from __future__ import annotations

import inspect
from typing import Any

import msgspec

from rankline import __version__
from rankline.http.endpoint import Endpoint
from rankline.http.routes import ENDPOINTS
from rankline.http.schemas import Problem

_REF = "#/components/schemas/{name}"
_ERRORS = {
    "400": "Malformed JSON",
    "401": "Missing key, or a player token that does not verify",
    "403": "Wrong key, or not allowed with a player token",
    "404": "Not found",
    "409": "Conflict (frozen board, immutable field, match_id reused with another payload)",
    "413": "Body too large",
    "415": "Not application/json",
    "422": "Invalid input",
    "429": "Too many requests (see Retry-After)",
    "503": "Unavailable; nothing was recorded (see Retry-After)",
}

DOCS_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>rankline API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/static/swagger-ui.css"></head>
<body><div id="docs"></div>
<script src="/docs/static/swagger-ui-bundle.js"></script>
<script src="/static/docs.js"></script>
</body></html>
"""


def _operation_ids() -> dict[Endpoint, str]:
    """Each operation's id: its handler's name, prefixed by its tag where an earlier
    operation already has that name (the tournaments' ``top`` is ``tournaments_top``), so
    that every id is unique, as OpenAPI requires and client generators rely on."""
    ids: dict[Endpoint, str] = {}
    for endpoint in ENDPOINTS:
        name = endpoint.handler.__name__
        ids[endpoint] = f"{endpoint.tag}_{name}" if name in ids.values() else name
    return ids


def _operation(
    endpoint: Endpoint, refs: dict[type, dict[str, Any]], operation_id: str
) -> dict[str, Any]:
    problem = {"application/problem+json": {"schema": refs[Problem]}}
    ok: dict[str, Any] = {"description": "OK"}
    if endpoint.response is not None:
        ok["content"] = {"application/json": {"schema": refs[endpoint.response]}}
    for media in endpoint.download:
        ok.setdefault("content", {})[media] = {"schema": {"type": "string"}}
    cached: dict[str, Any] = {}
    if endpoint.not_modified:
        etag = {
            "ETag": {"description": "A weak validator of the page", "schema": {"type": "string"}}
        }
        ok["headers"] = etag
        cached["304"] = {
            "description": "Not Modified: the If-None-Match ETag matches",
            "headers": etag,
        }
    operation: dict[str, Any] = {
        "summary": endpoint.summary,
        "operationId": operation_id,
        "tags": [endpoint.tag],
        "parameters": [
            {
                "name": p.name,
                "in": p.where,
                "required": p.required or p.where == "path",
                "description": p.description,
                "schema": p.schema,
            }
            for p in endpoint.params
        ],
        "responses": {
            str(endpoint.status): ok,
            **{str(code): ok for code in endpoint.also},
            **(
                {
                    "202": {
                        "description": "Accepted (Prefer: respond-async): durable, not yet applied",
                        "content": {"application/json": {"schema": refs[endpoint.accepted]}},
                    }
                }
                if endpoint.accepted is not None
                else {}
            ),
            **cached,
            **{code: {"description": text, "content": problem} for code, text in _ERRORS.items()},
        },
        "security": _security(endpoint),
    }
    if endpoint.body is not None:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": refs[endpoint.body]}},
        }
    return operation


def _security(endpoint: Endpoint) -> list[dict[str, list[str]]]:
    """Who may call it (``Endpoint.auth``), as OpenAPI security requirements."""
    if endpoint.auth == "read":
        return [{}, {"readKey": []}, {"playerToken": []}]
    if endpoint.auth == "me":
        return [{"playerToken": []}]
    if endpoint.for_players:
        return [{"serverKey": []}, {"playerToken": []}]
    return [{"serverKey": []}]


def _int64(node: Any) -> Any:
    """``node`` with ``"format": "int64"`` on every integer schema: scores and counts are
    64-bit, and client generators make an integer without a format a 32-bit one."""
    if isinstance(node, list):
        return [_int64(item) for item in node]
    if not isinstance(node, dict):
        return node
    found = {key: _int64(value) for key, value in node.items()}
    if found.get("type") == "integer" and "format" not in found:
        found["format"] = "int64"
    return found


def _cleaned(schemas: dict[str, Any]) -> dict[str, Any]:
    """``schemas`` with each struct's description (its docstring) cleaned as
    ``inspect.cleandoc`` cleans one: msgspec gives a docstring's continuation lines indented
    before 0.23 and dedented from it, and the document must not change with the version."""
    return {
        name: {**schema, "description": inspect.cleandoc(schema["description"])}
        if isinstance(schema.get("description"), str)
        else schema
        for name, schema in schemas.items()
    }


def build_openapi() -> dict[str, Any]:
    kinds: list[type] = [Problem]
    for endpoint in ENDPOINTS:
        for kind in (endpoint.body, endpoint.response, endpoint.accepted):
            if kind is not None and kind not in kinds:
                kinds.append(kind)
    schemas, components = msgspec.json.schema_components(kinds, ref_template=_REF)
    components = _cleaned(components)
    refs = dict(zip(kinds, schemas, strict=True))
    paths: dict[str, dict[str, Any]] = {}
    for endpoint, operation_id in _operation_ids().items():
        operation = _operation(endpoint, refs, operation_id)
        paths.setdefault(endpoint.path, {})[endpoint.method.lower()] = operation
    for path, summary in (
        ("/healthz", "The process is up"),
        ("/readyz", "Stores reachable and ranking indexes built (503 while not)"),
        ("/metrics", "Prometheus metrics"),
    ):
        paths[path] = {
            "get": {
                "summary": summary,
                "operationId": path.strip("/"),
                "tags": ["operations"],
                "responses": {"200": {"description": "OK"}, "503": {"description": "Not ready"}},
            }
        }
    document = {
        "openapi": "3.1.0",
        "info": {
            "title": "rankline",
            "version": __version__,
            "description": "Real-time leaderboards for games. Version 1 of the HTTP API.",
        },
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "serverKey": {"type": "http", "scheme": "bearer", "description": "A server key"},
                "readKey": {"type": "http", "scheme": "bearer", "description": "A read key"},
                "playerToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "JWT",
                    "description": "A player's token from the studio's identity provider",
                },
            },
        },
    }
    result: dict[str, Any] = _int64(document)
    return result
