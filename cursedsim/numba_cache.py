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

Keys describe the sources in memory, not on disk. Numba fixes a function's cache directory when it is
decorated (its module is imported), but the modules its compiled code reads may have been imported long
before (the runner, the CLI and the tests import a game's ``rules`` at start-up; its kernel only when a
game is played). Had the key been read from the disk at decoration, a file edited in between (a
developer saving while a long run or a test session runs) would have its *old* constants compiled and
saved under the key of its *new* contents, and every later process of the new sources would load them:
wrong results, no warning (this happened: village's reordered ``AUTOMATA_TARGETS`` made
``automata_targets=rabid_cards`` play ``possessed_cards``). So ``pin_cache_dir``, which
``cursedsim/__init__`` runs before importing anything else of the package, first reads every package
``.py`` file (``snapshot_sources``: ~190 files, 2.5 MB, ~5 ms) and every key is a digest of that snapshot
(``KEY_VERSION`` salts it: raised to 2 with this change, so entries written under the disk-read keys are
never read again). When numba decorates the first cached function of a compiled module, the files of its
group's closure on disk are compared with the snapshot (~0.5 ms a module, ~10 ms for every game): if one
changed, this process may hold a mix of old and new modules, so the group is marked stale for the rest
of the process, its kernels compile into a private temporary directory (removed at exit) instead of the
shared cache, and one ``StaleSourcesWarning`` names the changed files. Compiled code outside the package
(``OutsideCacheLocator``) goes private the same way when any kernel source changed. Only
``cursedsim/__init__``, this module and ``import_walk`` are read before the snapshot; a test checks that no
compiled code reads them. What this cannot see: a file edited and restored between the snapshot and the
check (the bytes compare equal), and a module whose imports run after its first ``@njit`` function (its
earlier functions keep the shared directory): the package imports at the top of its modules.

A run's identity (``source_digest``) is wider than the cache key: everything that decides a game's
outcomes, so resumed chunks always come from the code that would play them now. It is read from the disk
when a run starts (``at_import=True`` reads the snapshot instead), so it describes the sources a *fresh*
process would run: loky workers started for the run import those and compile or load under their own
snapshot. A process warned of stale sources is not one: it may have parsed options with old modules and,
with ``n_jobs=1`` (or reused workers started before the edit), play with old or mixed code while its
chunks carry the new sources' identity; the identity does not catch that. Heed the warning: restart.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import shutil
import sys
import tempfile
import warnings
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
    game its own package and the ``SHARED_SOURCES``. ``game``: the game's cache identity
    (``Game.cache_identity``, its package directory such as ``games/cursed``) or its name, which stands
    for ``games/<name>``."""
    package = None if game is None else game if "/" in game else f"games/{game}"
    names = KERNEL_SOURCES if package is None else (package,) + SHARED_SOURCES
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


def source_digest(game: str | None = None, compiled_only: bool = False, at_import: bool = False) -> str:
    """A short hash of the kernel sources (names and contents): of every game, or of one game (its name or
    cache identity, as ``kernel_sources``);
    ``compiled_only``: without the ``NOT_COMPILED`` modules (a kernel run's identity); otherwise with them
    and the ``SEARCH_SOURCES`` (the identity of a run whose policies search or play the reference engine).
    Read from the disk now, or ``at_import`` from the snapshot taken when cursedsim was imported."""
    digest = hashlib.sha256()
    extra = [] if compiled_only else [p for name in SEARCH_SOURCES for p in sorted((PACKAGE_DIR / name).rglob("*.py"))]
    for path in kernel_sources(game) + extra:
        if compiled_only and path.name in NOT_COMPILED:
            continue
        digest.update(str(path.relative_to(PACKAGE_DIR)).encode())
        digest.update(_SNAPSHOT.get(path, b"") if at_import else path.read_bytes())
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


#: Mixed into every cache group's key: raised when the meaning of a key changes, so entries written under
#: the old meaning are never read. 2: keys describe the sources at import (entries written before could
#: hold code compiled from modules older than their key, the bug this snapshot fixes).
KEY_VERSION = 2

#: The bytes of every package ``.py`` file as they were when ``cursedsim`` was first imported
#: (``snapshot_sources``, from ``pin_cache_dir``): the sources this process's modules were read from.
_SNAPSHOT: dict[Path, bytes] = {}
#: Cache groups whose sources on disk differed from the snapshot when one of their modules was decorated:
#: name -> the changed files (package-relative). Sticky: once mixed, always private in this process.
_STALE: dict[str, list[str]] = {}
#: The package modules already imported when the snapshot was taken (``cursedsim/__init__``, this module,
#: ``import_walk``): read before it, so no compiled code may read them (tests/test_numba_cache_key.py).
IMPORTED_BEFORE_SNAPSHOT: list[str] = []
#: This process's private cache directory (created on the first stale group, removed at exit).
_PRIVATE: list[Path] = []


class StaleSourcesWarning(UserWarning):
    """Sources of compiled code changed on disk after this process imported ``cursedsim``: its compiled
    code is cached in a private directory, not in the shared cache."""


def snapshot_sources() -> float:
    """Read every package ``.py`` file once (the first call only): the sources this process imports, against
    which the cache keys are computed and the disk is later compared. Returns the seconds it took."""
    import time
    started = time.perf_counter()
    if not _SNAPSHOT:
        IMPORTED_BEFORE_SNAPSHOT.extend(sorted(str(module.__file__) for name, module in list(sys.modules.items())
                                               if name.split(".")[0] == "cursedsim" and getattr(module, "__file__", None)))
        for path in sorted(PACKAGE_DIR.rglob("*.py")):
            try:
                _SNAPSHOT[path] = path.read_bytes()
            except OSError:   # vanished while listed: any module reading it is reported as changed
                pass
    return time.perf_counter() - started


def changed_since_import(paths: Iterable[Path]) -> list[str]:
    """The package files of ``paths`` whose bytes on disk differ from the import-time snapshot (or that are
    new or gone since), package-relative and sorted."""
    changed = []
    for path in paths:
        try:
            same = _SNAPSHOT.get(path) == path.read_bytes()
        except OSError:
            same = False
        if not same:
            changed.append(str(path.relative_to(PACKAGE_DIR)))
    return sorted(changed)


def _private_root() -> Path:
    """A cache root for this process only, removed when it exits (by the process that made it)."""
    if not _PRIVATE:
        directory = Path(tempfile.mkdtemp(prefix="cursedsim-numba-private-"))
        owner = os.getpid()
        atexit.register(lambda: os.getpid() == owner and shutil.rmtree(directory, ignore_errors=True))
        _PRIVATE.append(directory)
    return _PRIVATE[0]


def _go_private(group: str, changed: list[str]) -> None:
    if group in _STALE:
        return
    _STALE[group] = changed
    what = group if group == OUTSIDE else f"the kernels of {group}"
    warnings.warn(
        f"cursedsim: {', '.join(changed)} changed on disk after this process imported cursedsim, so its "
        f"modules in memory may be older than these files: {what} compile into a private directory "
        f"({_private_root()}), not the shared numba cache, and this process may run a mix of old and new "
        f"code: restart it to run the new sources", StaleSourcesWarning, stacklevel=2)


def group_closure(path: Path) -> set[Path]:
    """Every package file the cache group of ``path`` reaches through the imports that run when a module
    is imported: what its compiled code can read (an njit function reads module-level names only; an
    import inside a Python function feeds the kernel arguments, not compiled code)."""
    return reached(cache_group(path)[1], at_import=True)


@functools.lru_cache(maxsize=None)
def _group_closure(start: tuple[Path, ...]) -> frozenset[Path]:
    try:
        return frozenset(reached(start, at_import=True))
    except OSError as error:   # a file of the closure vanished (a branch switch): reported as changed
        if not error.filename:
            raise
        return frozenset(start) | {Path(error.filename)}


@functools.lru_cache(maxsize=None)
def _group_key(name: str, start: tuple[Path, ...]) -> str:
    snapshot_sources()
    closure = _group_closure(start)
    digest = hashlib.sha256(f"v{KEY_VERSION}-".encode())
    for path in sorted(closure):
        digest.update(str(path.relative_to(PACKAGE_DIR)).encode())
        digest.update(_SNAPSHOT.get(path, b"\0missing at import"))
    return f"{name}-{digest.hexdigest()[:16]}"


def cache_key(path: Path) -> str:
    """The cache directory name of the package file ``path``: its group and the digest of the group's
    closure *as it was when cursedsim was imported* (the snapshot; computed once per process and file)."""
    return _file_key(str(Path(path).resolve()))


@functools.lru_cache(maxsize=None)
def _file_key(path: str) -> str:
    return _group_key(*cache_group(Path(path)))


@functools.lru_cache(maxsize=None)
def _file_root(path: str) -> Path:
    """The cache root for the compiled module ``path``, checked once per module when numba decorates its
    first cached function (its imports have run by then, so its group's modules are in memory): the shared
    root if every file of its group's closure is still as imported, else (for the rest of the process, for
    the whole group) a private one, with a ``StaleSourcesWarning``."""
    name, start = cache_group(Path(path))
    if name not in _STALE:
        changed = changed_since_import(_group_closure(start))
        if changed:
            _go_private(name, changed)
    return _private_root() if name in _STALE else cache_root()


def _ours(py_file) -> bool | None:
    """Whether ``py_file`` is in the package (``GroupCacheLocator``) or outside it (``OutsideCacheLocator``);
    None for neither: numba's own locators (``NUMBA_CACHE_DIR`` set, or a path that cannot be resolved)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    try:
        return Path(py_file).resolve().is_relative_to(PACKAGE_DIR)
    except OSError:
        return None


#: numba's locator for a user-provided cache directory (renamed without its underscore in numba 0.61).
_NumbaUserDirLocator = getattr(caching, "UserProvidedCacheLocator", None) or caching._UserProvidedCacheLocator


class GroupCacheLocator(_NumbaUserDirLocator):
    """Numba's cache locator for the package's own files: ``<cache root>/<cache_key>/<package dir>``, with
    the key as the source stamp, so a cache entry is valid for every checkout of the same sources (a new
    clone or a touched file reuses it; an edit anywhere in the group's closure does not)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        resolved = Path(py_file).resolve()
        relative = resolved.relative_to(PACKAGE_DIR).parent
        self._key = cache_key(resolved)
        root = _file_root(str(resolved))
        self._cache_path = str(root / self._key / "_".join(("cursedsim",) + relative.parts))

    def get_source_stamp(self):
        return self._key

    @classmethod
    def from_function(cls, py_func, py_file):
        return super().from_function(py_func, py_file) if _ours(py_file) is True else None


#: The name under which changes seen by ``OutsideCacheLocator`` are reported.
OUTSIDE = "compiled code outside the package"


@functools.lru_cache(maxsize=None)
def _outside_stale(py_file: str) -> bool:
    """Whether a kernel source changed since import, checked once per module outside the package."""
    if OUTSIDE not in _STALE:
        changed = changed_since_import(kernel_sources())
        if changed:
            _go_private(OUTSIDE, changed)
    return OUTSIDE in _STALE


class OutsideCacheLocator(_NumbaUserDirLocator):
    """Numba's locator for compiled code outside the package (``numba.config.CACHE_DIR``, named after the
    kernel sources at import: ``pin_cache_dir``), which may call the package's kernels and streams: in a
    process that holds kernel sources older than the disk's, a private directory instead."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        if _outside_stale(str(py_file)):
            self._cache_path = str(_private_root() / "outside" / self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        return super().from_function(py_func, py_file) if _ours(py_file) is False else None


def pin_cache_dir() -> str | None:
    """Snapshot the package's sources (``snapshot_sources``), cache the package's compiled code per group
    (``GroupCacheLocator``) and point numba's cache for compiled code outside the package at the directory
    of the kernel sources as imported (``OutsideCacheLocator``), unless the user chose one with
    ``NUMBA_CACHE_DIR`` (then numba's own keying applies). Must run before any kernel module is imported
    (``cursedsim/__init__.py`` calls it first). Returns the directory for code outside the package."""
    snapshot_sources()
    for position, locator in enumerate((GroupCacheLocator, OutsideCacheLocator)):
        if locator not in caching.CacheImpl._locator_classes:
            caching.CacheImpl._locator_classes.insert(position, locator)
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    directory = cache_root() / source_digest(compiled_only=True, at_import=True)
    numba.config.CACHE_DIR = str(directory)
    return str(directory)
