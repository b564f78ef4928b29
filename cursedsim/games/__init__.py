"""The game registry: name -> Game. Game packages are imported on first use, so startup stays fast."""

from __future__ import annotations

import importlib

from cursedsim.errors import UnknownGameError, shorten
from cursedsim.games.base import Game, PolicySpec

#: Registered games and the module that defines each one's ``GAME``.
GAME_MODULES = {
    "verflucht": "cursedsim.games.verflucht",
    "cursed": "cursedsim.games.cursed",
    "covens": "cursedsim.games.covens",
    "gifts": "cursedsim.games.gifts",
    "village": "cursedsim.games.village",
}

_loaded: dict[str, Game] = {}


def list_games() -> list[str]:
    """Names of all registered games."""
    return list(GAME_MODULES)


def get_game(name: str) -> Game:
    """The registered game ``name``, or an UnknownGameError naming the valid games."""
    if not isinstance(name, str) or name not in GAME_MODULES:
        raise UnknownGameError(f"unknown game {shorten(name)}; valid games: {', '.join(GAME_MODULES)}")
    from cursedsim.plugins import load_entry_points
    load_entry_points()   # the policies of installed plugins, on first use (cursedsim.plugins)
    if name not in _loaded:
        from cursedsim.search.policy import attach
        _loaded[name] = attach(importlib.import_module(GAME_MODULES[name]).GAME)   # + ismcts (cursedsim.search)
    return _loaded[name]


__all__ = ["Game", "PolicySpec", "get_game", "list_games"]
