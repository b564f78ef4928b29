"""The numba cache's key leaves out the game modules no kernel reads (``NOT_COMPILED``): that is safe only
while no module a kernel imports, directly or through other cursedsim modules, is one of them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cursedsim.games import GAME_MODULES
from cursedsim.numba_cache import NOT_COMPILED, PACKAGE_DIR, source_digest


def _module_file(name: str) -> Path | None:
    """The source file of the cursedsim module ``name`` (a package: its ``__init__.py``), or None."""
    base = PACKAGE_DIR.parent / Path(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(path: Path) -> set[Path]:
    """The cursedsim source files whose names ``path`` imports: ``import a.b`` -> a/b; ``from a import b``
    -> the submodule a/b when there is one, else a's ``__init__`` (b is defined there)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            files = [_module_file(alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            files = [_module_file(f"{node.module}.{alias.name}") or _module_file(node.module) for alias in node.names]
        else:
            continue
        found.update(f for f in files if f is not None and str(f).startswith(str(PACKAGE_DIR)))
    return found


def _reached(start, stop=frozenset()) -> set[Path]:
    """The cursedsim source files ``start`` reaches through its imports (itself included), not walking
    into ``stop``."""
    seen, todo = set(), list(start)
    while todo:
        path = todo.pop()
        if path in seen or path in stop:
            continue
        seen.add(path)
        todo.extend(_imports(path))
    return seen


def test_no_kernel_module_reads_a_module_left_out_of_the_cache_key():
    kernels = [p for p in (PACKAGE_DIR / "games").rglob("*.py") if "njit" in p.read_text()]
    assert kernels, "no kernel modules found"
    seen = _reached(kernels)   # compiled code reads only the names its modules import
    leaked = sorted(str(p.relative_to(PACKAGE_DIR)) for p in seen if p.name in NOT_COMPILED)
    assert not leaked, f"kernel modules import modules left out of the numba cache key: {leaked}"


def test_the_cache_key_ignores_only_those_modules(tmp_path, monkeypatch):
    """A run's identity keeps every source; the cache key drops exactly the NOT_COMPILED ones."""
    games = [p for p in (PACKAGE_DIR / "games").rglob("*.py") if p.name in NOT_COMPILED]
    if games:
        assert source_digest(compiled_only=True) != source_digest()
    monkeypatch.setattr("cursedsim.numba_cache.NOT_COMPILED", ())
    monkeypatch.setattr("cursedsim.numba_cache.SEARCH_SOURCES", ())
    assert source_digest(compiled_only=True) == source_digest()


def test_a_search_runs_identity_follows_the_search_code(monkeypatch):
    """The identity of a run whose policies search includes the search agents and the step API (so its
    chunks are never resumed by other search code); the compiled key does not."""
    full, compiled = source_digest("cursed"), source_digest("cursed", compiled_only=True)
    monkeypatch.setattr("cursedsim.numba_cache.SEARCH_SOURCES", ("step",))
    assert source_digest("cursed") != full
    assert source_digest("cursed", compiled_only=True) == compiled


#: cursedsim modules a game may import that decide no outcome (so a change to them keeps runs resumable):
#: exceptions and their messages, replay event records, the plugin loader, the package's public API.
NO_OUTCOME = ("errors.py", "events.py", "plugins.py", "__init__.py")


@pytest.mark.parametrize("game", sorted(GAME_MODULES))
def test_a_games_identity_covers_every_module_it_imports(game):
    """Every cursedsim module a game's package reaches through its imports is part of the game's run
    identity (its package, SHARED_SOURCES, SEARCH_SOURCES) or named in NO_OUTCOME: a shared module left
    out would let a resumed run mix chunks of two versions of the rules without a warning."""
    from cursedsim.numba_cache import SEARCH_SOURCES, kernel_sources
    covered = set(kernel_sources(game))
    covered |= {p for name in SEARCH_SOURCES for p in (PACKAGE_DIR / name).rglob("*.py")}
    allowed = {PACKAGE_DIR / name for name in NO_OUTCOME}
    seen = _reached((PACKAGE_DIR / "games" / game).rglob("*.py"), allowed)
    missing = sorted(str(p.relative_to(PACKAGE_DIR)) for p in seen - covered)
    assert not missing, f"{game} imports modules outside its run identity: {missing}"
