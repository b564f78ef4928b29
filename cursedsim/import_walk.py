"""Which cursedsim source files a module reaches through its imports, read from the source (no import).

Compiled code reads only the names its module imports, so the files a kernel module reaches this way are
what its compiled code can depend on: the numba cache is keyed on them (``numba_cache``), and the tests
check a game's run identity against them.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def module_file(name: str) -> Path | None:
    """The source file of the cursedsim module ``name`` (a package: its ``__init__.py``), or None."""
    base = PACKAGE_DIR.parent / Path(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _import_nodes(tree: ast.AST, at_import: bool):
    """The import statements of ``tree``; ``at_import``: only those that run when the module is imported
    (not inside a function body)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif not (at_import and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))):
            todo.extend(ast.iter_child_nodes(node))


@functools.lru_cache(maxsize=None)
def _imports_of(path: Path, at_import: bool, mtime_ns: int, size: int) -> frozenset[Path]:
    found = set()
    for node in _import_nodes(ast.parse(path.read_bytes()), at_import):
        if isinstance(node, ast.Import):
            files = [module_file(alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            files = [module_file(f"{node.module}.{alias.name}") or module_file(node.module) for alias in node.names]
        else:
            continue
        found.update(f for f in files if f is not None and f.is_relative_to(PACKAGE_DIR))
    return frozenset(found)


def imports(path: Path, at_import: bool = False) -> frozenset[Path]:
    """The cursedsim source files whose names ``path`` imports: ``import a.b`` -> a/b; ``from a import b``
    -> the submodule a/b when there is one, else a's ``__init__`` (b is defined there). ``at_import``:
    only the imports that run when ``path`` is imported (the names compiled code can read), not those
    inside its functions."""
    stat = path.stat()
    return _imports_of(path, at_import, stat.st_mtime_ns, stat.st_size)


def imports_numba(path: Path) -> bool:
    """Whether ``path`` imports numba (or a part of it): the modules that may hold compiled code."""
    stat = path.stat()
    return _imports_numba(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=None)
def _imports_numba(path: Path, mtime_ns: int, size: int) -> bool:
    for node in _import_nodes(ast.parse(path.read_bytes()), at_import=False):
        names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        if any(name == "numba" or name.startswith("numba.") for name in names):
            return True
    return False


def reached(start: Iterable[Path], stop: Iterable[Path] = (), at_import: bool = False) -> set[Path]:
    """The cursedsim source files ``start`` reaches through its imports (``start`` included), not walking
    into ``stop``; ``at_import``: through the imports that run at import only (see ``imports``)."""
    stop = frozenset(stop)
    seen: set[Path] = set()
    todo = list(start)
    while todo:
        path = todo.pop()
        if path in seen or path in stop:
            continue
        seen.add(path)
        todo.extend(imports(path, at_import))
    return seen


def circles(paths: Iterable[Path] | None = None, at_import: bool = False) -> list[list[Path]]:
    """The import circles among ``paths`` (default: every package ``.py`` file): the strongly connected
    components of more than one file of the graph ``path -> imports(path, at_import)``, each sorted, in the
    order of their first file. Without ``at_import`` an import inside a function counts: it is an arrow
    between the two modules all the same."""
    files = sorted(PACKAGE_DIR.rglob("*.py")) if paths is None else sorted(set(paths))
    graph = {path: sorted(imports(path, at_import) & set(files) - {path}) for path in files}
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    found = []
    for root in files:   # Tarjan's algorithm, iterative (no recursion limit on a deep import chain)
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            path, edge = work.pop()
            if edge == 0:
                index[path] = low[path] = len(index)
                stack.append(path)
            if edge < len(graph[path]):
                work.append((path, edge + 1))
                target = graph[path][edge]
                if target not in index:
                    work.append((target, 0))
                elif target in stack:
                    low[path] = min(low[path], index[target])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[path])
            if low[path] == index[path]:
                component = []
                while True:
                    member = stack.pop()
                    component.append(member)
                    if member == path:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


__all__ = ["PACKAGE_DIR", "circles", "imports", "imports_numba", "module_file", "reached"]
