"""The registry, the step API and search point one way (docs/architecture.md, "Layers"), read from the
sources by ``import_walk`` (no import): no import circle spans them, none of them imports a layer above
it, and a game's name is written in one table, the registry's, and in the game's own packages only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cursedsim.games import GAME_MODULES, get_game, list_games
from cursedsim.import_walk import PACKAGE_DIR, circles, imports
from cursedsim.numba_cache import cache_group, source_digest

#: The game registry, the step API, search, and the two modules that compose them (plugins' entry points
#: and ``attach``): no import circle may include one of these files.
COMPOSED = ("games/__init__.py", "games/base.py", "step/", "search/", "plugins.py", "compose.py")
#: Which layers each of them may not import (directly; an import inside a function counts).
NOT_ABOVE = {
    "games/__init__.py": ("step/", "search/", "plugins.py", "compose.py", "report/", "cli/"),
    "games/base.py": ("games/__init__.py", "step/", "search/", "plugins.py", "compose.py", "report/", "cli/"),
    "step/": ("search/", "plugins.py", "compose.py", "report/", "cli/"),
    "search/": ("compose.py", "report/", "cli/"),
}
def _relative(path: Path) -> str:
    return str(path.relative_to(PACKAGE_DIR))


def _in(relative: str, prefixes) -> bool:
    return any(relative == prefix or (prefix.endswith("/") and relative.startswith(prefix)) for prefix in prefixes)


def test_no_import_circle_spans_the_registry_step_and_search():
    found = [[_relative(path) for path in circle] for circle in circles()]
    spanning = [circle for circle in found if any(_in(member, COMPOSED) for member in circle)]
    assert spanning == [], f"import circles through the registry, step or search: {spanning}"


@pytest.mark.parametrize("layer", sorted(NOT_ABOVE))
def test_the_registry_step_and_search_import_no_layer_above_them(layer):
    files = [PACKAGE_DIR / layer] if not layer.endswith("/") else sorted((PACKAGE_DIR / layer).rglob("*.py"))
    upward = sorted({(_relative(path), _relative(target)) for path in files for target in imports(path)
                     if _in(_relative(target), NOT_ABOVE[layer])})
    assert upward == []


def _own_package(relative: str) -> str | None:
    """The game whose own package holds ``relative`` (games/<name>/..., report/<name>/...), or None."""
    parts = Path(relative).parts
    return parts[1] if len(parts) > 2 and parts[0] in ("games", "report") else None


def _names_a_game(value: str, games: list[str]) -> str | None:
    for game in games:
        if value == game or any(value.startswith(f"cursedsim.{layer}.{game}") for layer in ("games", "report")) \
                or value.startswith(f"games/{game}"):
            return game
    return None


def test_a_games_name_is_written_in_the_registry_and_its_own_packages_only():
    """No module-level table outside ``games/__init__.py`` and a game's own packages (``games/<name>/``,
    ``report/<name>/``) holds a game's name, its module or its package directory."""
    games = list_games()
    found = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        relative = _relative(path)
        if relative == "games/__init__.py":
            continue
        for node in ast.parse(path.read_bytes()).body:
            if not isinstance(node, (ast.Assign, ast.AnnAssign)):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [target.id for target in targets if isinstance(target, ast.Name)]
            for constant in ast.walk(node):
                if isinstance(constant, ast.Constant) and isinstance(constant.value, str):
                    game = _names_a_game(constant.value, games)
                    if game is not None and game != _own_package(relative):
                        found.append(f"{relative}:{node.lineno} {', '.join(names)}: {constant.value!r}")
    assert found == []


@pytest.mark.parametrize("name", list(GAME_MODULES))
def test_each_record_names_what_the_layers_above_need(name):
    """The record of each game: its step API and report modules (as strings: nothing imported by the
    registry), its cache identity, whose sources key the same cache group and run identity as its name."""
    game = get_game(name)
    assert game.step_module == f"{GAME_MODULES[name]}.step"
    assert game.report_module is not None and game.report_module.startswith("cursedsim.report.")
    assert game.compile_estimate is None or game.compile_estimate > 0
    assert game.warm_estimate is None or game.warm_estimate > 0
    assert cache_group(PACKAGE_DIR / game.cache_identity / "kernel.py")[0] == name
    assert source_digest(game.cache_identity) == source_digest(name)
    assert source_digest(game.cache_identity, compiled_only=True) == source_digest(name, compiled_only=True)


# ---------------------------------------------------------------- the whole package's layers (issue 27 point 6)

def test_every_module_has_a_layer():
    from cursedsim.layers import layer_of, modules
    assert [str(p) for p in modules() if layer_of(p) is None] == []


def test_no_import_points_to_a_layer_above():
    from cursedsim.layers import upward_imports
    assert upward_imports() == []


def test_no_import_circle_joins_two_layers():
    from cursedsim.layers import layer_of
    joined = [[_relative(p) for p in circle] for circle in circles() if len({layer_of(p) for p in circle}) > 1]
    assert joined == []


def test_the_architecture_page_prints_the_layers_in_order():
    """docs/architecture.md's "Layers" block is the table ``python -m cursedsim.layers`` prints, top first,
    layer names and what each holds (the counts may drift with the code)."""
    from cursedsim.layers import LAYERS
    page = (PACKAGE_DIR.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = page.split("## Layers", 1)[1].split("```", 2)[1]
    shown = [line.split()[0] for line in block.strip().splitlines()[1:]]
    assert shown == [name for name, _, _ in reversed(LAYERS)]
    for name, about, _ in LAYERS:
        assert about in " ".join(block.split()), name


def test_a_path_takes_its_longest_layer_prefix():
    from cursedsim.layers import layer_of
    assert layer_of("games/verflucht/step.py") == "step" and layer_of("games/verflucht/kernel.py") == "games"
    assert layer_of("step/api.py") == "step" and layer_of("games/clear_lead.py") == "games"
    assert layer_of("cli/app.py") == "interface" and layer_of("nowhere.py") is None
