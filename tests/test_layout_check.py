"""The layout check of ``make check`` (scripts/check-layout.py) finds a crowded top level and a
long module, spares the exempt directories, and passes on the package as it is."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "check-layout.py"


def _check() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_layout", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _package(root: Path, top: int, lines: dict[str, int]) -> Path:
    package = root / "rankline"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for i in range(top):
        (package / f"m{i}.py").write_text("x = 1\n")
    for relative, count in lines.items():
        path = package / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n" * count)
    return package


def test_the_package_as_it_is_passes() -> None:
    check = _check()
    assert check.breaches(check.PACKAGE) == []


def test_a_crowded_top_level_and_a_long_module_are_named(tmp_path: Path) -> None:
    check = _check()
    package = _package(tmp_path, check.TOP_MODULES + 1, {"reading/long.py": check.MAX_LINES + 1})
    found = check.breaches(package)
    assert len(found) == 2
    assert found[0].startswith(f"{check.TOP_MODULES + 1} modules at the top")
    assert found[1].startswith(f"reading/long.py: {check.MAX_LINES + 1} lines")


def test_the_limits_themselves_pass_and_exempt_directories_are_spared(tmp_path: Path) -> None:
    check = _check()
    lines = {"reading/full.py": check.MAX_LINES, "grpc/gen/stub.py": 5000}
    package = _package(tmp_path, check.TOP_MODULES, lines)
    assert check.breaches(package) == []


def test_the_maps_of_the_docs_name_every_package() -> None:
    """docs/design.md's tree and the README's table name every package of the source."""
    check = _check()
    root = check.PACKAGE.parent.parent
    packages = sorted(
        path.parent.relative_to(check.PACKAGE).as_posix()
        for path in check.PACKAGE.glob("*/__init__.py")
    )
    assert "reading" in packages and "cli" in packages
    for doc in ("docs/design.md", "README.md"):
        text = (root / doc).read_text(encoding="utf-8")
        missing = [name for name in packages if f"{name}/" not in text]
        assert not missing, f"{doc} does not name {missing}"
