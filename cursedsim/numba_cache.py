"""Where numba keeps compiled kernels: a directory keyed by a hash of cursedsim's own sources.

Numba invalidates a cached function only when *its own* source file changes, not when a function it
calls or inlines from another module does: after an edit to ``policies.py`` a cached ``kernel.py``
would silently run the old policy. Keying the cache directory by the sources of the whole package
makes every edit (or upgrade) start from a fresh cache, and the same sources reuse it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

PACKAGE_DIR = Path(__file__).resolve().parent


def source_digest() -> str:
    """A short hash of every Python source of the package (names and contents)."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
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
    directory = cache_root() / source_digest()
    numba.config.CACHE_DIR = str(directory)
    return str(directory)
