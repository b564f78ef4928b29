"""Where numba keeps compiled kernels: a directory keyed by a hash of the sources the kernels use.

Numba invalidates a cached function only when *its own* source file changes, not when a function it
calls or inlines from another module does: after an edit to ``policies.py`` a cached ``kernel.py``
would silently run the old policy. Keying the cache directory by the kernel sources (the games, the
random streams, the bit helpers) makes every edit of them (or an upgrade) start from a fresh cache, and
the same sources reuse it. The same digest marks run directories, so resumed chunks always come from
the code that would play them now.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

PACKAGE_DIR = Path(__file__).resolve().parent


#: The sources that compiled kernels and game outcomes depend on: the games, the random streams and
#: the bit helpers. Edits elsewhere (runner, CLI, reports) neither recompile nor invalidate results.
KERNEL_SOURCES = ("games", "rng.py", "bits.py", "datafile.py", "kernel_rebuild.py")
#: Modules of the games that no compiled kernel reads (search, step API, solvers on the reference engine):
#: left out of the numba cache's key, so editing them does not recompile every kernel (a test checks
#: that no kernel module imports them, directly or through another module of the package).
NOT_COMPILED = ("step.py", "clairvoyant.py", "optimal_fight.py")
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
    ``compiled_only``: without the ``NOT_COMPILED`` modules (the numba cache's key); otherwise with them
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


def pin_cache_dir() -> str | None:
    """Point numba's cache at the directory of the current sources, unless the user chose one with
    ``NUMBA_CACHE_DIR``. Must run before any kernel module is imported. Returns the directory."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    directory = cache_root() / source_digest(compiled_only=True)
    numba.config.CACHE_DIR = str(directory)
    return str(directory)
