"""The engine and research modules import one way (docs/architecture.md, "Layout"): no import circle runs
through the runner, the resolution layer, the side helpers, the contenders, the statistics or the research
tools, and ``resolve`` sits below all of them. Read from the sources (``import_walk``), imports inside
functions included: an import moved into a function does not break a circle, it hides it."""

from __future__ import annotations

from pathlib import Path

import pytest

from cursedsim.import_walk import PACKAGE_DIR, circles, imports, module_file, reached

#: The modules no circle may run through (a package: every module in it).
GUARDED = ("runner", "resolve", "sides", "contenders", "stats", "streaming", "research", "compare", "sweep",
           "tune", "target", "precision")


def _files(name: str) -> list[Path]:
    path = PACKAGE_DIR / name
    return sorted(path.rglob("*.py")) if path.is_dir() else [module_file(f"cursedsim.{name}")]


def _names(paths) -> list[str]:
    return sorted(str(path.relative_to(PACKAGE_DIR)) for path in paths)


@pytest.mark.parametrize("name", GUARDED)
def test_no_import_circle_runs_through(name):
    mine = set(_files(name))
    found = [circle for circle in circles() if set(circle) & mine]
    # a package's own modules may not import each other in a circle either
    assert not found, f"import circle through {name}: {[_names(circle) for circle in found]}"


def test_resolve_is_below_the_runner_sides_contenders_and_statistics():
    above = {path for name in GUARDED if name != "resolve" for path in _files(name)}
    below = reached([module_file("cursedsim.resolve")])
    assert not below & above, f"resolve reaches {_names(below & above)}"


def test_the_statistics_do_not_import_the_side_helpers():
    for name in ("stats", "streaming"):
        assert module_file("cursedsim.sides") not in imports(module_file(f"cursedsim.{name}")), name
