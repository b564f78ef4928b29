"""A fake game of two sides for the tests of sides: "duel", the knight against the dragon.

Game ``i`` draws ``u`` uniform in 0..99 from the stream keyed by (seed, i) (``rng.Stream``, plain
Python); the knight wins when ``u`` is below his chance in percent (``knight_chance``), which depends on
both sides' policies and parameters and on the option ``arena``. So a higher chance wins every game a
lower one wins (common random numbers), and a test can compute any setting's expected win rate.

Knight: ``bold`` (chance ``BOLD[dragon] - |nerve - 5|``, best at nerve 5; default nerve 0) and ``wary``
(``WARY[dragon] + guard``). Dragon: ``fire`` (takes ``heat`` points off) and ``sleep`` (takes ``depth``
off). The option ``arena`` adds its points to the knight.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from cursedsim import games, rng
from cursedsim.errors import OptionError
from cursedsim.games.base import Game, Measure, PolicySpec, Side

#: The knight's chance in percent by his policy and the dragon's, before parameters and the arena.
BOLD = {"fire": 45, "sleep": 75}
WARY = {"fire": 50, "sleep": 55}
BEST_NERVE = 5
WINNERS = ("knight", "dragon")


@dataclass(frozen=True)
class DuelOptions:
    """Rule options of the duel.

    arena: percentage points added to the knight's chance (-30..30).
    """

    arena: int = 0

    def __post_init__(self):
        if isinstance(self.arena, bool) or not isinstance(self.arena, int) or not -30 <= self.arena <= 30:
            raise OptionError(f"option 'arena' must be an integer in -30..30, got {self.arena!r}")


def knight_chance(knight: str, dragon: str, knight_param: float, dragon_param: float, arena: int = 0) -> int:
    """The knight's chance of a win in percent (0-100) for the two policies and their parameters."""
    if knight == "bold":
        chance = BOLD[dragon] - abs(round(knight_param) - BEST_NERVE)
    else:
        chance = WARY[dragon] + round(knight_param)
    return int(max(0, min(100, chance - round(dragon_param) + arena)))


def duel_run_chunk(seed, start, count, players, options, policy, params):
    """Games start..start+count-1: ``policy`` and ``params`` are dicts by side, as the runner gives them."""
    assert list(policy) == ["knight", "dragon"] and list(params) == ["knight", "dragon"]
    chance = knight_chance(policy["knight"].name, policy["dragon"].name, params["knight"][0], params["dragon"][0],
                           options.arena)
    draws = np.empty(count, dtype=np.int64)
    rounds = np.empty(count, dtype=np.int8)
    for k in range(count):
        stream = rng.Stream(seed, start + k)
        draws[k] = stream.below(100)
        rounds[k] = 1 + stream.below(5)
    knight_won = draws < chance
    return {"knight_won": knight_won, "dragon_won": ~knight_won, "winner": np.where(knight_won, 0, 1).astype(np.int8),
            "rounds": rounds}


def duel_replay(seed, index, players, options, policy, params):
    won = duel_run_chunk(seed, index, 1, players, options, policy, params)["knight_won"][0]
    return (f"duel game {index}: knight {policy['knight'].name} vs dragon {policy['dragon'].name}: "
            f"{'knight' if won else 'dragon'} won\n")


KNIGHT = Side("knight", {
    "bold": PolicySpec("bold", 0, "Charges; best at nerve 5.", {"nerve": 0.0}, {"nerve": "how bold"}),
    "wary": PolicySpec("wary", 1, "Waits; guard adds to the chance.", {"guard": 0.0}),
}, "bold", "knight_won", "The knight, alone.")
DRAGON = Side("dragon", {
    "fire": PolicySpec("fire", 0, "Breathes fire; heat takes points off the knight.", {"heat": 0.0}),
    "sleep": PolicySpec("sleep", 1, "Sleeps; depth takes points off the knight.", {"depth": 0.0}),
}, "fire", "dragon_won", "The dragon.")

DUEL = Game(
    name="duel",
    title="Duel (test game of sides)",
    min_players=2,
    max_players=3,
    options_type=DuelOptions,
    policies={},
    default_policy="",
    run_chunk=duel_run_chunk,
    replay=duel_replay,
    option_columns=lambda options, players: {f.name: getattr(options, f.name) for f in dataclasses.fields(options)},
    outcome_columns=("knight_won", "dragon_won", "winner", "rounds"),
    outcome_categories={"winner": WINNERS},
    measures=(Measure("rounds", "mean rounds"),),
    sides=(KNIGHT, DRAGON),
)


def register_duel(monkeypatch) -> Game:
    """Register the duel game as "duel" for the duration of a test (use in a fixture)."""
    monkeypatch.setitem(games.GAME_MODULES, "duel", __name__)
    monkeypatch.setitem(games._loaded, "duel", DUEL)
    return DUEL


GAME = DUEL
