"""The numba cache is keyed per game on what its compiled code reads: an edit of one game recompiles that
game only, a shared module every game that reads it, and a module no kernel reads (``NOT_COMPILED``, a
reference engine) nothing; a game's run identity still covers every module it imports."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cursedsim.games import GAME_MODULES
from cursedsim.import_walk import reached as _reached
from cursedsim.numba_cache import NOT_COMPILED, PACKAGE_DIR, cache_root, source_digest


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


#: Printed by a fresh process of a copied package: every game's cache key and the shared random streams'.
_KEYS = """
import json
from cursedsim.games import GAME_MODULES
from cursedsim.numba_cache import PACKAGE_DIR, cache_key
keys = {game: cache_key(PACKAGE_DIR / "games" / game / "kernel.py") for game in GAME_MODULES}
keys["rng"] = cache_key(PACKAGE_DIR / "rng.py")
print(json.dumps(keys))
"""

#: Plays a few Verflucht! games in a fresh process and prints the numba cache's hits and misses.
_PLAY = """
import gc, json
import cursedsim
from numba.core.registry import CPUDispatcher
cursedsim.simulate("verflucht", 20, n_jobs=1, progress=False)
compiled = [d for d in gc.get_objects() if isinstance(d, CPUDispatcher) and d._cache_hits is not None]
print(json.dumps({"hits": sum(sum(d._cache_hits.values()) for d in compiled),
                  "misses": sum(sum(d._cache_misses.values()) for d in compiled)}))
"""


def _copy_package(tmp_path: Path) -> Path:
    """A copy of the package's sources under ``tmp_path`` (another checkout of the same code)."""
    shutil.copytree(PACKAGE_DIR, tmp_path / "cursedsim", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def _run(root: Path, code: str, cache: Path) -> dict:
    """Run ``code`` in a fresh process that imports the package copy at ``root``; its printed JSON."""
    env = {**os.environ, "PYTHONPATH": str(root), "CURSEDSIM_CACHE": str(cache), "NUMBA_CACHE_DIR": ""}
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True,
                         check=True, timeout=900)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _append_comment(path: Path) -> None:
    path.write_text(path.read_text() + "\n# an edit that changes no behaviour\n")


def test_an_edit_of_one_game_changes_its_own_cache_key_only(tmp_path):
    root = _copy_package(tmp_path)
    before = _run(root, _KEYS, tmp_path / "cache")
    assert len(set(before.values())) == len(before), f"two groups share a key: {before}"
    for game in GAME_MODULES:
        _append_comment(root / "cursedsim" / "games" / game / "kernel.py")
        after = _run(root, _KEYS, tmp_path / "cache")
        changed = sorted(name for name in before if after[name] != before[name])
        assert changed == [game], f"editing {game}'s kernel changed the cache keys of {changed}"
        before = after


def test_modules_no_kernel_reads_leave_every_key_and_shared_ones_change_all(tmp_path):
    root = _copy_package(tmp_path)
    before = _run(root, _KEYS, tmp_path / "cache")
    for game in GAME_MODULES:   # the readable engine, the oracle of the tests: no kernel imports it
        _append_comment(root / "cursedsim" / "games" / game / "reference.py")
    assert _run(root, _KEYS, tmp_path / "cache") == before
    _append_comment(root / "cursedsim" / "rng.py")   # the random streams: every kernel reads them
    after = _run(root, _KEYS, tmp_path / "cache")
    assert all(after[name] != before[name] for name in before), (before, after)


def test_a_cached_game_stays_cached_when_another_game_is_edited(tmp_path):
    """In fresh processes over a copy of the sources at another path (a new checkout): Verflucht! loads
    from the same cache as this checkout's; after an edit of village's kernel it still loads, compiling
    nothing."""
    root = _copy_package(tmp_path)
    cache = cache_root()
    _run(root, _PLAY, cache)   # compiles here only if no earlier run of these sources did
    _append_comment(root / "cursedsim" / "games" / "village" / "kernel.py")
    played = _run(root, _PLAY, cache)
    assert played["misses"] == 0 and played["hits"] > 0, played


#: A tiny cache group added to a copy of the package: a kernel that freezes a constant of its rules, as
#: village's kernel freezes ``AUTOMATA_TARGETS.index("rabid_cards")``.
_TOY_RULES = 'TARGETS = ("rabid", "possessed")\n'
_TOY_KERNEL = """import numba
from cursedsim.games.toyrace import rules as R

RABID = R.TARGETS.index("rabid")


@numba.njit(cache=True)
def target():
    return RABID
"""

#: The race: the rules imported first (as the runner and CLI do), edited on disk, then the kernel imported
#: and compiled; prints what it played, its StaleSourcesWarnings and where numba cached it.
_RACE = """
import json, warnings
from pathlib import Path
import cursedsim.games.toyrace.rules as R
path = Path(R.__file__)
path.write_text(path.read_text().replace('("rabid", "possessed")', '("possessed", "rabid")'))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    from cursedsim.games.toyrace import kernel
    played = kernel.target()
    import outside_kernel   # compiled code outside the package (a test's, a user's policy) may read it too
    outside_kernel.one()
print(json.dumps({"file": R.__file__, "target": played, "cache_path": kernel.target._cache.cache_path,
                  "outside_path": outside_kernel.one._cache.cache_path,
                  "warnings": [str(w.message) for w in caught if w.category.__name__ == "StaleSourcesWarning"]}))
"""

#: A fresh process of the edited sources: what it plays and whether it loaded it from the cache.
_FRESH = """
import json
from cursedsim.games.toyrace import kernel
played = kernel.target()
print(json.dumps({"target": played, "hits": sum(kernel.target.stats.cache_hits.values()),
                  "cache_path": kernel.target._cache.cache_path}))
"""


def test_sources_edited_while_a_process_runs_never_reach_the_shared_cache(tmp_path):
    """A process that imported a game's rules before they were edited on disk, and its kernel after,
    compiles the old constants: it must say so and keep that code to itself, so that the next process of
    the new sources plays the new rules (the stale-kernel bug of 2026-12-05: village's reordered
    AUTOMATA_TARGETS made automata_targets=rabid_cards play possessed_cards in every fresh process)."""
    root = _copy_package(tmp_path / "src")
    toy = root / "cursedsim" / "games" / "toyrace"
    toy.mkdir()
    (toy / "__init__.py").write_text("")
    (toy / "rules.py").write_text(_TOY_RULES)
    (toy / "kernel.py").write_text(_TOY_KERNEL)
    (root / "outside_kernel.py").write_text("import numba\n\n\n@numba.njit(cache=True)\ndef one():\n    return 1\n")
    cache = tmp_path / "cache"
    raced = _run(root, _RACE, cache)
    assert Path(raced["file"]).is_relative_to(root), raced
    assert raced["target"] == 0   # the rules it imported: ("rabid", "possessed")
    fresh = _run(root, _FRESH, cache)
    assert fresh["target"] == 1, f"a fresh process of the edited rules ran the stale kernel: {raced}, {fresh}"
    assert len(raced["warnings"]) == 2, raced   # one for the game's group, one for code outside the package
    assert all("games/toyrace/rules.py" in warning for warning in raced["warnings"]), raced
    for path in (Path(raced["cache_path"]), Path(raced["outside_path"])):
        assert not path.is_relative_to(cache), raced
        assert not path.exists(), f"the private cache outlived its process: {path}"
    again = _run(root, _FRESH, cache)   # with unchanged sources the shared cache serves as before
    assert again["target"] == 1 and again["hits"] > 0 and Path(again["cache_path"]).is_relative_to(cache), again


def test_no_compiled_code_reads_a_module_imported_before_the_snapshot():
    """The snapshot of the sources is taken by ``cursedsim/__init__`` after importing ``numba_cache``: the
    modules read before it (that one, ``import_walk``, the package's ``__init__``) must be in no cache
    group's closure, or an edit just before the snapshot could go unseen."""
    from cursedsim.numba_cache import IMPORTED_BEFORE_SNAPSHOT, _compiled, group_closure
    assert IMPORTED_BEFORE_SNAPSHOT, "the snapshot recorded no package module imported before it"
    before = {Path(p).resolve() for p in IMPORTED_BEFORE_SNAPSHOT}
    assert before <= {PACKAGE_DIR / name for name in ("__init__.py", "numba_cache.py", "import_walk.py")}, before
    compiled = [p for p in PACKAGE_DIR.rglob("*.py") if _compiled(p) and p.name != "numba_cache.py"]
    assert len(compiled) > 10, compiled   # numba_cache imports numba to install its locators, compiles nothing
    for path in compiled:
        read = before & group_closure(path)
        assert not read, f"{path.relative_to(PACKAGE_DIR)}'s cache group reads {sorted(map(str, read))}"
