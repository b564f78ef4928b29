"""A fake game for the research tools (tune, sweep, compare): "dial", whose policy parameter moves the
chance of a win, so a tuner has something to find.

Game ``i`` is the coin of ``conftest`` (one draw ``u`` from the stream keyed by (seed, i); a win when
``u < threshold`` percent). Policy ``dial`` wins with ``50 - |boost - 7|`` percent (best at boost 7;
default boost 0: 43 percent), policy ``fixed`` with 30 percent; the option ``shift`` adds to both. On
common random numbers a higher threshold wins every game a lower one wins, so a paired ranking of
dial settings is exact once each percent band holds a game.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from cursedsim import games
from cursedsim.errors import OptionError
from cursedsim.games.base import Game, PolicySpec

from conftest import END_NAMES, coin_kernel

BEST_BOOST = 7


@dataclass(frozen=True)
class DialOptions:
    """Rule options of the dial game.

    shift: percentage points added to every policy's chance of a win.
    """

    shift: int = 0

    def __post_init__(self):
        if isinstance(self.shift, bool) or not isinstance(self.shift, int) or not -30 <= self.shift <= 30:
            raise OptionError(f"option 'shift' must be an integer in -30..30, got {self.shift!r}")


def threshold(policy, params, options) -> int:
    name = policy if isinstance(policy, str) else policy.name
    base = 30 if name == "fixed" else 50 - abs(int(round(params[0])) - BEST_BOOST)
    return max(0, min(100, base + options.shift))


def dial_run_chunk(seed, start, count, players, options, policy, params):
    win, score, turns, end = coin_kernel(np.uint64(seed), np.int64(start), np.int64(count),
                                         np.int64(threshold(policy, params, options)), np.int64(0), np.int64(0))
    return {"win": win, "score": score, "turns": turns, "end": end}


def dial_replay(seed, index, players, options, policy, params):
    won = dial_run_chunk(seed, index, 1, players, options, policy, params)["win"][0]
    return f"dial game {index}: {'won' if won else 'lost'}\n"


DIAL = Game(
    name="dial",
    title="Dial (test game)",
    min_players=1,
    max_players=3,
    options_type=DialOptions,
    policies={
        "dial": PolicySpec("dial", 0, "Wins 50 - |boost - 7| percent.", {"boost": 0.0, "noise": 0.0}),
        "fixed": PolicySpec("fixed", 1, "Wins 30 percent."),
    },
    default_policy="dial",
    run_chunk=dial_run_chunk,
    replay=dial_replay,
    option_columns=lambda options, players: {f.name: getattr(options, f.name) for f in dataclasses.fields(options)},
    outcome_columns=("win", "score", "turns", "end"),
    outcome_categories={"end": END_NAMES},
    default_players=1,
)


def register_dial(monkeypatch) -> Game:
    """Register the dial game as "dial" for the duration of a test (use in a fixture)."""
    monkeypatch.setitem(games.GAME_MODULES, "dial", __name__)
    monkeypatch.setitem(games._loaded, "dial", DIAL)
    return DIAL
