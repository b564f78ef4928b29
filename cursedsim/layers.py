"""The package's layers, lowest first, and the imports that break them, read from the sources (no import).

Every module belongs to one layer; a module may import its own layer and the layers below it, never one
above (an import inside a function counts too). docs/architecture.md ("Layers") prints this table, and
tests/test_layers.py checks that every module has a layer, that no import points up and that no import
circle joins two layers. ``python -m cursedsim.layers`` prints the layers with their modules and lines.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cursedsim.import_walk import PACKAGE_DIR, imports

#: (layer, what it holds, the package paths in it: a file, or a folder ending in "/"). A path is matched by
#: the longest prefix, so ``games/*/step.py`` (a game's step API, above the registry it reads) can sit in
#: a higher layer than the rest of ``games/``.
LAYERS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("foundation", "facts every layer may use: errors, random streams, bit sets, files, the numba cache, "
                   "the data-file pipeline, the source walk",
     ("version.py", "errors.py", "rng.py", "bits.py", "files.py", "console.py", "palette.py", "events.py",
      "describe.py", "import_walk.py", "layers.py", "numba_cache.py", "datafile.py", "kernel_rebuild.py")),
    ("games", "the registry and the five games: rules, data files, reference engines, compiled kernels, "
              "policies, the compiled rollouts",
     ("games/",)),
    ("step", "one decision at a time: the step API and each game's step state",
     ("step/", "games/*/step.py")),
    ("engine", "running games: resolution, the runner, run directories, statistics, plug-ins",
     ("resolve.py", "sides.py", "contenders.py", "stats.py", "streaming.py", "runner/", "rundir.py", "warm.py",
      "plugins.py", "compile_notice.py")),
    ("research", "questions asked of runs (compare, sweep, tune, target, precision, skill), and beside them "
                 "search agents and the standard interfaces",
     ("compare.py", "sweep.py", "tune.py", "target.py", "precision.py", "research.py", "skill.py",
      "fingerprint.py", "search/", "adapters/")),
    ("report", "the balance reports", ("report/",)),
    ("interface", "what a user calls: the command line, the package's API and its composition root",
     ("cli/", "__main__.py", "__init__.py", "compose.py")),
)
NAMES = tuple(name for name, _, _ in LAYERS)


def _relative(path: Path) -> str:
    return Path(path).resolve().relative_to(PACKAGE_DIR).as_posix()


def _matches(relative: str, pattern: str) -> bool:
    if pattern.endswith("/"):
        return relative.startswith(pattern)
    return Path(relative).match(pattern) and relative.count("/") == pattern.count("/")


def layer_of(path: Path | str) -> str | None:
    """The layer of a package file (a path, or one relative to the package), or None when none lists it."""
    relative = path if isinstance(path, str) else _relative(path)
    found = [(len(pattern), name) for name, _, patterns in LAYERS for pattern in patterns
             if _matches(relative, pattern)]
    return max(found)[1] if found else None


def modules() -> list[Path]:
    """Every source file of the package."""
    return sorted(PACKAGE_DIR.rglob("*.py"))


def upward_imports() -> list[tuple[str, str]]:
    """(importer, imported) for every import of a module from a layer above its own."""
    rank = {name: k for k, name in enumerate(NAMES)}
    out = []
    for path in modules():
        mine = layer_of(path)
        for target in sorted(imports(path)):
            theirs = layer_of(target)
            if mine is not None and theirs is not None and rank[theirs] > rank[mine]:
                out.append((_relative(path), _relative(target)))
    return out


def table() -> str:
    """The layers, top first, with their modules and line counts (docs/architecture.md prints it)."""
    rows = []
    for name, about, _ in reversed(LAYERS):
        files = [p for p in modules() if layer_of(p) == name]
        lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in files)
        rows.append(f"{name:<10} {len(files):>3} modules {lines:>6} lines  {about}")
    return "\n".join(rows)


if __name__ == "__main__":
    print(table())
    bad = upward_imports()
    print(f"\n{len(bad)} imports point up" + "".join(f"\n  {a} -> {b}" for a, b in bad))
    sys.exit(1 if bad else 0)
