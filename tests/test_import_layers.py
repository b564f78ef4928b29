"""The engine and research modules import one way (docs/architecture.md, "Layout"): no import circle runs
through the runner, the resolution layer, the side helpers, the contenders, the statistics or the research
tools, and ``resolve`` sits below all of them. Read from the sources (``import_walk``), imports inside
functions included: an import moved into a function does not break a circle, it hides it."""

from __future__ import annotations

from pathlib import Path

import pytest

from cursedsim.import_walk import PACKAGE_DIR, imports, module_file

#: The modules no circle may run through (a package: every module in it).
GUARDED = ("runner", "resolve", "sides", "contenders", "stats", "streaming", "research", "compare", "sweep",
           "tune", "target", "precision")


def _files(name: str) -> list[Path]:
    path = PACKAGE_DIR / name
    return sorted(path.rglob("*.py")) if path.is_dir() else [module_file(f"cursedsim.{name}")]


def _graph() -> dict[Path, set[Path]]:
    return {path: set(imports(path)) - {path} for path in PACKAGE_DIR.rglob("*.py")}


def _circles(graph: dict[Path, set[Path]]) -> list[set[Path]]:
    """The strongly connected components of ``graph`` with more than one module (Tarjan, iterative)."""
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    on_stack: set[Path] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def _names(paths) -> list[str]:
    return sorted(str(path.relative_to(PACKAGE_DIR)) for path in paths)


def test_the_circle_finder_finds_a_circle():
    a, b, c = Path("a.py"), Path("b.py"), Path("c.py")
    assert _circles({a: {b}, b: {c}, c: {a}}) == [{a, b, c}]
    assert _circles({a: {b}, b: {c}, c: set()}) == []


@pytest.mark.parametrize("name", GUARDED)
def test_no_import_circle_runs_through(name):
    mine = set(_files(name))
    circles = [circle for circle in _circles(_graph()) if circle & mine]
    # a package's own modules may not import each other in a circle either
    assert not circles, f"import circle through {name}: {[_names(circle) for circle in circles]}"


def test_resolve_is_below_the_runner_sides_contenders_and_statistics():
    above = {path for name in GUARDED if name != "resolve" for path in _files(name)}
    reached = set()
    todo = [module_file("cursedsim.resolve")]
    while todo:
        path = todo.pop()
        if path not in reached:
            reached.add(path)
            todo.extend(imports(path))
    assert not reached & above, f"resolve reaches {_names(reached & above)}"


def test_the_statistics_do_not_import_the_side_helpers():
    for name in ("stats", "streaming"):
        assert module_file("cursedsim.sides") not in imports(module_file(f"cursedsim.{name}")), name
