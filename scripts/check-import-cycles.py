"""Fail when any two modules of rankline import each other, directly or through others.

The layers contract (pyproject's [tool.importlinter]) keeps layers apart; this check covers
what it cannot see: cycles inside one layer or one package (``store.sql`` <-> ``store.scan``,
say). Every import counts: one inside a function (grimp reads every ``import`` statement of a
module, wherever it stands) and one under ``if TYPE_CHECKING:`` too. Deferring an import
hides a cycle from Python at import time, not from a reader: two modules that need each
other are one concept split in two, or want a contract of their own between them.

    python scripts/check-import-cycles.py        # exit 1 and each cycle listed, if any
"""

from __future__ import annotations

import sys

import grimp


def cycles(package: str) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each as a list."""
    graph = grimp.build_graph(package, exclude_type_checking_imports=False)
    modules = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(root: str) -> None:
        nonlocal counter
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))

    for module in modules:
        if module not in index:
            visit(module)
    return found


def main() -> int:
    found = cycles("rankline")
    for group in found:
        print("import cycle between: " + ", ".join(group))
    if found:
        return 1
    print("no import cycles in rankline")
    return 0


if __name__ == "__main__":
    sys.exit(main())
