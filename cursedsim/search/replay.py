"""The turn log of a game played through the step API (a run with a search policy): the game's own
events and renderer, the engine's events being the same whoever decides."""

from __future__ import annotations

import importlib
from typing import Any

from cursedsim.games.base import Game
from cursedsim.search.play import play_game


def replay_events(game: Game, seed: int, index: int, players: int, options: Any, policy: Any,
                  params: Any) -> list[dict[str, Any]]:
    """The events of game ``index`` of the run ``seed`` as the step API plays it (``search.play``)."""
    events = play_game(game, seed, index, players, options, policy, params, log=True).events()
    if not game.sides:   # a single-side engine labels its set-up with the policy it was given: the step API
        for event in events:
            if event.get("policy") == "step":
                event["policy"] = policy.name
    return events


def replay_text(game: Game, seed: int, index: int, players: int, options: Any, policy: Any, params: Any) -> str:
    """The readable turn log of that game (the game's ``turnlog.text``), after a line naming the search
    policies that decided."""
    turnlog = importlib.import_module(f"cursedsim.games.{game.name}.turnlog")
    specs = policy.items() if game.sides else [(None, policy)]
    searching = ", ".join(f"{side + ': ' if side else ''}{spec.name}" for side, spec in specs if spec.engine == "step")
    return (f"(decisions of {searching} by search through the step API, docs/search.md)\n"
            + turnlog.text(replay_events(game, seed, index, players, options, policy, params)))
