"""The game registry: name -> Game, the one table of games. Game packages are imported on first use, so
startup stays fast.

A game's name is written here and in its own package only: its ``Game`` record names, as data, the
modules of its step API and report, its first compile estimate and its cache identity, which the layers
above read from the record. The registry imports none of them, nor anything above itself: what the
layers above add to every game (the plugins' policies, the search policies) the composition root
(``cursedsim.compose``) installs here with ``extend``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from cursedsim.errors import UnknownGameError, shorten
from cursedsim.games.base import Game, PolicySpec

#: Registered games and the module that defines each one's ``GAME``: the one table of games.
GAME_MODULES = {
    "verflucht": "cursedsim.games.verflucht",
    "cursed": "cursedsim.games.cursed",
    "covens": "cursedsim.games.covens",
    "gifts": "cursedsim.games.gifts",
    "village": "cursedsim.games.village",
}

_loaded: dict[str, Game] = {}
#: Run before every look-up (the plugins' entry points, loaded once: ``cursedsim.plugins``).
_before_use: list[Callable[[], object]] = []
#: Applied to each game's record once, when it is first loaded (``search.attach``: + ismcts).
_extensions: list[Callable[[Game], Game]] = []


def extend(before_use: Callable[[], object] | None = None, wrap: Callable[[Game], Game] | None = None) -> None:
    """Let a layer above the registry take part in every look-up: ``before_use()`` runs before each one,
    ``wrap(game) -> game`` turns each record as it is first loaded. Called by the composition root
    (``cursedsim.compose``) when the package is imported; a second call with the same function adds nothing."""
    if before_use is not None and before_use not in _before_use:
        _before_use.append(before_use)
    if wrap is not None and wrap not in _extensions:
        _extensions.append(wrap)


def list_games() -> list[str]:
    """Names of all registered games."""
    return list(GAME_MODULES)


def get_game(name: str) -> Game:
    """The registered game ``name``, or an UnknownGameError naming the valid games."""
    if not isinstance(name, str) or name not in GAME_MODULES:
        raise UnknownGameError(f"unknown game {shorten(name)}; valid games: {', '.join(GAME_MODULES)}")
    for hook in _before_use:
        hook()
    if name not in _loaded:
        game = importlib.import_module(GAME_MODULES[name]).GAME
        for wrap in _extensions:
            game = wrap(game)
        _loaded[name] = game
    return _loaded[name]


__all__ = ["Game", "PolicySpec", "extend", "get_game", "list_games"]
