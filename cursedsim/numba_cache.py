"""Where numba keeps compiled kernels: one directory per game, keyed by a hash of the sources its kernels read.

Numba invalidates a cached function only when *its own* source file changes, not when a function it
calls or inlines from another module does: after an edit to ``policies.py`` a cached ``kernel.py``
would silently run the old policy. So every cursedsim module with compiled code is cached in a
directory named after its *cache group* and a digest of the group's import closure: a game's compiled
modules form one group (``<game>-<digest>``, over every cursedsim file its kernel modules reach through
their imports: its own rules, state, kernel and policies and the shared ``rng.py``, ``bits.py``, ...);
a shared module outside the games is a group of its own. An edit of one game's kernel recompiles that
game only; an edit of a shared module recompiles every game that reads it; a reference engine, turn
log or step API that no kernel imports recompiles nothing. Compiled code outside the package (a test's
or a user's kernel) is cached under a digest of every kernel source, as before.

A run's identity (``source_digest``) is wider than the cache key: everything that decides a game's
outcomes, so resumed chunks always come from the code that would play them now.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

import numba
from numba.core import caching

from cursedsim.import_walk import PACKAGE_DIR, imports_numba, reached


#: The sources that compiled kernels and game outcomes depend on: the games, the random streams and
#: the bit helpers; their digest keys the cache of compiled code outside the package (a test's or a
#: user's kernel, which may call ``rng``). Edits elsewhere (runner, CLI, reports) invalidate nothing.
KERNEL_SOURCES = ("games", "rng.py", "bits.py", "datafile.py", "kernel_rebuild.py")
#: Modules of the games that no compiled kernel reads (search, step API, solvers on the reference engine):
#: never the start of a cache group and left out of a kernel run's identity (a test checks that no kernel
#: module imports them, directly or through another module of the package).
#: (Cursed!?'s optimal_fight.py, the DP's readable reference, is no longer one: the rollout's reference twin
#: imports it from reference_policies, which a kernel module reaches, so it keys the cache to be safe.)
NOT_COMPILED = ("step.py", "clairvoyant.py")
#: What the results of a search or reference-engine policy also depend on (the step API, the search
#: agents): part of a run's identity, not of the numba cache's key.
SEARCH_SOURCES = ("step", "search")
#: What every game's outcomes depend on besides its own package: the modules of ``games/`` shared by the
#: games (every ``games/*.py``, so a new shared module is in without a list to keep), the random streams,
#: the bit helpers, the data-file reader (decks, boards) and the kernel rebuild around a user's policy.
#: tests/test_numba_cache_key.py checks that every cursedsim module a game imports is here, in the
#: game's package, in ``SEARCH_SOURCES`` or in its short list of modules that decide no outcome.
SHARED_SOURCES = ("games/*.py", "rng.py", "bits.py", "datafile.py", "kernel_rebuild.py")


def kernel_sources(game: str | None = None) -> list[Path]:
    """The Python files the kernels depend on, in a fixed order: all of ``KERNEL_SOURCES``, or for one
    game its own package and the ``SHARED_SOURCES``."""
    names = KERNEL_SOURCES if game is None else (f"games/{game}",) + SHARED_SOURCES
    paths = []
    for name in names:
        target = PACKAGE_DIR / name
        if "*" in name:
            paths.extend(sorted(PACKAGE_DIR.glob(name)))
        elif target.is_dir():
            paths.extend(sorted(target.rglob("*.py")))
        elif target.is_file():
            paths.append(target)
    return paths


def source_digest(game: str | None = None, compiled_only: bool = False) -> str:
    """A short hash of the kernel sources (names and contents): of every game, or of one game;
    ``compiled_only``: without the ``NOT_COMPILED`` modules (a kernel run's identity); otherwise with them
    and the ``SEARCH_SOURCES`` (the identity of a run whose policies search or play the reference engine)."""
    digest = hashlib.sha256()
    extra = [] if compiled_only else [p for name in SEARCH_SOURCES for p in sorted((PACKAGE_DIR / name).rglob("*.py"))]
    for path in kernel_sources(game) + extra:
        if compiled_only and path.name in NOT_COMPILED:
            continue
        digest.update(str(path.relative_to(PACKAGE_DIR)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    """The parent of all cursedsim numba caches (``$CURSEDSIM_CACHE`` or the user cache dir)."""
    if "CURSEDSIM_CACHE" in os.environ:
        return Path(os.environ["CURSEDSIM_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "cursedsim" / "numba"


def _compiled(path: Path) -> bool:
    """Whether ``path`` holds numba-compiled code: it imports numba and is not a ``NOT_COMPILED`` module."""
    return path.name not in NOT_COMPILED and imports_numba(path)


def cache_group(path: Path) -> tuple[str, tuple[Path, ...]]:
    """The cache group of the package file ``path``: its name and the compiled files it starts from: for a
    file of ``games/<game>/``, the game and its compiled modules; otherwise the file alone, named by its
    dotted path (``rng``, ``games.intsets``)."""
    relative = path.resolve().relative_to(PACKAGE_DIR)
    if len(relative.parts) > 2 and relative.parts[0] == "games":
        package = PACKAGE_DIR / "games" / relative.parts[1]
        return relative.parts[1], tuple(sorted(p for p in package.rglob("*.py") if _compiled(p)))
    return ".".join(relative.with_suffix("").parts), (path.resolve(),)


def files_digest(paths: Iterable[Path]) -> str:
    """A short hash of ``paths`` (package-relative names and contents), in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(str(path.relative_to(PACKAGE_DIR)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def group_closure(path: Path) -> set[Path]:
    """Every package file the cache group of ``path`` reaches through the imports that run when a module
    is imported: what its compiled code can read (an njit function reads module-level names only; an
    import inside a Python function feeds the kernel arguments, not compiled code)."""
    return reached(cache_group(path)[1], at_import=True)


@functools.lru_cache(maxsize=None)
def _group_key(name: str, start: tuple[Path, ...]) -> str:
    return f"{name}-{files_digest(reached(start, at_import=True))}"


def cache_key(path: Path) -> str:
    """The cache directory name of the package file ``path``: its group and the digest of the group's
    closure (computed once per process and file)."""
    return _file_key(str(Path(path).resolve()))


@functools.lru_cache(maxsize=None)
def _file_key(path: str) -> str:
    return _group_key(*cache_group(Path(path)))


#: numba's locator for a user-provided cache directory (renamed without its underscore in numba 0.61).
_NumbaUserDirLocator = getattr(caching, "UserProvidedCacheLocator", None) or caching._UserProvidedCacheLocator


class GroupCacheLocator(_NumbaUserDirLocator):
    """Numba's cache locator for the package's own files: ``<cache root>/<cache_key>/<package dir>``, with
    the key as the source stamp, so a cache entry is valid for every checkout of the same sources (a new
    clone or a touched file reuses it; an edit anywhere in the group's closure does not)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        relative = Path(py_file).resolve().relative_to(PACKAGE_DIR).parent
        self._key = cache_key(Path(py_file))
        self._cache_path = str(cache_root() / self._key / "_".join(("cursedsim",) + relative.parts))

    def get_source_stamp(self):
        return self._key

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            inside = Path(py_file).resolve().is_relative_to(PACKAGE_DIR)
        except OSError:
            return None
        if not inside or os.environ.get("NUMBA_CACHE_DIR"):
            return None
        return super().from_function(py_func, py_file)


def pin_cache_dir() -> str | None:
    """Cache the package's compiled code per group (``GroupCacheLocator``) and point numba's cache for
    compiled code outside the package at the directory of the current kernel sources, unless the user
    chose one with ``NUMBA_CACHE_DIR`` (then numba's own keying applies). Must run before any kernel
    module is imported. Returns the directory for code outside the package."""
    if GroupCacheLocator not in caching.CacheImpl._locator_classes:
        caching.CacheImpl._locator_classes.insert(0, GroupCacheLocator)
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    directory = cache_root() / source_digest(compiled_only=True)
    numba.config.CACHE_DIR = str(directory)
    return str(directory)
