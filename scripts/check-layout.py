"""Fail when the package's layout stops showing its architecture.

Two rules keep the tree readable: the top of ``src/rankline`` holds the contract and the
domain vocabulary, at most ``TOP_MODULES`` modules (features live in packages), and no
module grows past ``MAX_LINES`` lines (one concept per module; the generated gRPC stubs are
exempt).

    python scripts/check-layout.py        # exit 1 and each breach listed, if any
"""

from __future__ import annotations

import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "rankline"
TOP_MODULES = 20
MAX_LINES = 600
EXEMPT = ("grpc/gen",)
"""Directories under the package whose modules may be longer."""


def breaches(package: Path) -> list[str]:
    found: list[str] = []
    top = sorted(
        p.name for p in package.glob("*.py") if p.name not in ("__init__.py", "__main__.py")
    )
    if len(top) > TOP_MODULES:
        found.append(
            f"{len(top)} modules at the top of {package.name} (at most {TOP_MODULES}): "
            "put the new one in the package of its feature"
        )
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).as_posix()
        if relative.startswith(EXEMPT):
            continue
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            found.append(f"{relative}: {lines} lines (at most {MAX_LINES}): split it by concept")
    return found


def main() -> int:
    found = breaches(PACKAGE)
    for breach in found:
        print(breach, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
