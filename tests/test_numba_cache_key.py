"""The numba cache's key leaves out the game modules no kernel reads (``NOT_COMPILED``): that is safe only
while no module a kernel imports, directly or through other cursedsim modules, is one of them."""

from __future__ import annotations

import ast
from pathlib import Path

from cursedsim.numba_cache import NOT_COMPILED, PACKAGE_DIR, source_digest


def _imports(path: Path) -> set[Path]:
    """The cursedsim source files ``path`` imports (module or package, at any depth of the file)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            if not name.startswith("cursedsim"):
                continue
            base = PACKAGE_DIR.parent / Path(*name.split("."))
            for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                if candidate.is_file():
                    found.add(candidate)
    return found


def test_no_kernel_module_reads_a_module_left_out_of_the_cache_key():
    kernels = [p for p in (PACKAGE_DIR / "games").rglob("*.py") if "njit" in p.read_text()]
    assert kernels, "no kernel modules found"
    seen, todo = set(), list(kernels)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        # a package's __init__ runs on import but compiled code reads only the modules named in imports
        todo.extend(p for p in _imports(path) if p.name != "__init__.py" or p.parent == path.parent)
    leaked = sorted(str(p.relative_to(PACKAGE_DIR)) for p in seen if p.name in NOT_COMPILED)
    assert not leaked, f"kernel modules import modules left out of the numba cache key: {leaked}"


def test_the_cache_key_ignores_only_those_modules(tmp_path, monkeypatch):
    """A run's identity keeps every source; the cache key drops exactly the NOT_COMPILED ones."""
    games = [p for p in (PACKAGE_DIR / "games").rglob("*.py") if p.name in NOT_COMPILED]
    if games:
        assert source_digest(compiled_only=True) != source_digest()
    monkeypatch.setattr("cursedsim.numba_cache.NOT_COMPILED", ())
    assert source_digest(compiled_only=True) == source_digest()
