"""The Redis index's Lua scripts, shipped as ``.lua`` files beside this module, and their
loader.

Each file starts with a header of ``--`` comment lines:

- ``-- mode: read``, ``-- mode: write`` or ``-- mode: snippet``: whether the script only
  reads (a Redis Cluster sends it over its lean channel, without waiting for replicas),
  writes, or is a part that scripts include;
- ``-- include: name ...`` (optional): the snippets put before the body, in order, each
  once however many includers name it (a snippet may include others);
- ``-- cluster-flags: ...`` (optional): the script's Redis flags on a Redis Cluster, made
  its ``#!lua flags=`` line there (a single Redis runs it without flags, as it always has).

A target may replace a snippet with one of its own: loading for ``cluster``, an include of
``built`` takes ``built.cluster.lua`` where it exists. That and the cluster flags are the only
differences between a script on a single Redis and on a cluster; nothing is rewritten.

    script = load("around", "cluster")
    script.mode, script.text
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources

MODES = ("read", "write", "snippet")
TARGETS = ("single", "cluster")


@dataclass(frozen=True, slots=True)
class Script:
    name: str
    mode: str
    """``read`` or ``write`` (see the module's doc)."""
    text: str
    """The whole script as Redis runs it: flags line, included snippets, body."""


@dataclass(frozen=True, slots=True)
class _File:
    mode: str
    includes: tuple[str, ...]
    cluster_flags: str | None
    body: str


def names() -> list[str]:
    """Every script (not snippet) there is, by name."""
    found = []
    for entry in resources.files(__package__).iterdir():
        name = entry.name.removesuffix(".lua")
        if entry.name.endswith(".lua") and "." not in name and _read(name).mode != "snippet":
            found.append(name)
    return sorted(found)


@functools.cache
def load(name: str, target: str = "single") -> Script:
    """The script ``name`` (``name.lua``) as sent to a ``target`` Redis."""
    if target not in TARGETS:
        raise ValueError(f"no target {target!r}")
    found = _read(name)
    if found.mode == "snippet":
        raise ValueError(f"{name}.lua is a snippet, not a script")
    parts: list[str] = []
    _compose(name, target, parts, set())
    wanted = found.cluster_flags if target == "cluster" else None
    flags = "" if wanted is None else f"#!lua flags={wanted}\n"
    return Script(name, found.mode, flags + "".join(parts))


def _compose(name: str, target: str, parts: list[str], seen: set[str]) -> None:
    found = _read(name)
    for include in found.includes:
        if include not in seen:
            seen.add(include)
            _compose(_variant(include, target), target, parts, seen)
    parts.append(found.body)


def _variant(name: str, target: str) -> str:
    own = f"{name}.{target}"
    return own if resources.files(__package__).joinpath(f"{own}.lua").is_file() else name


@functools.cache
def _read(name: str) -> _File:
    text = resources.files(__package__).joinpath(f"{name}.lua").read_text(encoding="utf-8")
    header: dict[str, str] = {}
    lines = text.splitlines(keepends=True)
    while lines and lines[0].startswith("-- "):
        key, colon, value = lines[0][3:].partition(":")
        if not colon or key.strip() not in ("mode", "include", "cluster-flags"):
            break  # a plain comment: the body starts here
        header[key.strip()] = value.strip()
        lines.pop(0)
    mode = header.get("mode")
    if mode not in MODES:
        raise ValueError(f"{name}.lua declares no mode (-- mode: read, write or snippet)")
    includes = tuple(header.get("include", "").split())
    return _File(mode, includes, header.get("cluster-flags"), "".join(lines))


__all__ = ["MODES", "TARGETS", "Script", "load", "names"]
