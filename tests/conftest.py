"""Shared fixtures: a tiny fake game ("coin") registered for the runner, stats and CLI tests.

Game ``i`` of the coin game is one Bernoulli(p) draw from the stream keyed by (seed, i): a win scores
1-100, a loss scores -1 and ends with code 1 or 2. It is a real numba kernel over ``rng.py``, so it
exercises everything a game offers the runner without waiting for any real game.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

import numpy as np
import pytest
from numba import njit

from cursedsim import games, rng
from cursedsim.errors import OptionError
from cursedsim.games.base import Game, PolicySpec

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
END_NAMES = ("win", "timeout", "bust")


@dataclass(frozen=True)
class CoinOptions:
    """Rule options of the coin game.

    p_percent: chance of a win, in percent.
    lucky: adds 10 percentage points to the chance of a win.
    seals: unused by the coin; ``None`` stands for the player count (resolved like Verflucht!'s).
    work: extra random draws per game (only to make the kernel slower in benchmarks).
    """

    p_percent: int = 30
    lucky: bool = False
    seals: int | None = None
    work: int = 0

    def __post_init__(self):
        if isinstance(self.p_percent, bool) or not isinstance(self.p_percent, int) or not 0 <= self.p_percent <= 100:
            raise OptionError(f"option 'p_percent' must be an integer in 0-100, got {self.p_percent!r}")
        if not isinstance(self.lucky, bool):
            raise OptionError(f"option 'lucky' must be true or false, got {self.lucky!r}")
        if self.seals is not None and (isinstance(self.seals, bool) or not isinstance(self.seals, int)
                                       or not 0 <= self.seals <= 10):
            raise OptionError(f"option 'seals' must be an integer in 0-10 or None, got {self.seals!r}")


@njit(cache=True)
def coin_kernel(seed, start, count, threshold, bonus, work):
    win = np.empty(count, dtype=np.bool_)
    score = np.empty(count, dtype=np.int16)
    turns = np.empty(count, dtype=np.int16)
    end = np.empty(count, dtype=np.int8)
    for k in range(count):
        state = rng.seed_tuple(seed, np.uint64(start + k), np.uint64(rng.STREAM_DECK))
        for _ in range(work):
            _, state = rng.next_t(state)
        draw, state = rng.below_t(state, 100)
        won = draw < threshold
        win[k] = won
        length, state = rng.below_t(state, 20)
        turns[k] = 1 + length
        if won:
            points, state = rng.below_t(state, 100)
            score[k] = 1 + points + bonus
            end[k] = 0
        else:
            cause, state = rng.below_t(state, 2)
            score[k] = -1
            end[k] = 1 + cause
    return win, score, turns, end


def coin_run_chunk(seed, start, count, players, options, policy, params):
    threshold = min(options.p_percent + (10 if options.lucky else 0), 100)
    win, score, turns, end = coin_kernel(np.uint64(seed), np.int64(start), np.int64(count),
                                         np.int64(threshold), np.int64(round(params[0])), np.int64(options.work))
    return {"win": win, "score": score, "turns": turns, "end": end}


def coin_replay(seed, index, players, options, policy, params):
    out = coin_run_chunk(seed, index, 1, players, options, policy, params)
    result = "won" if out["win"][0] else f"lost ({END_NAMES[out['end'][0]]})"
    return f"coin game {index} of seed {seed}, {players} players, policy {policy}: {result}\n"


def coin_option_columns(options, players):
    columns = {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
    columns["seals"] = players if options.seals is None else options.seals
    return columns


COIN = Game(
    name="coin",
    title="Coin (test game)",
    min_players=1,
    max_players=4,
    options_type=CoinOptions,
    policies={
        "plain": PolicySpec("plain", 0, "Flips the coin.\nSecond line.", {"bonus": 0.0}, {"bonus": "added to a score"}),
        "greedy": PolicySpec("greedy", 1, "Flips the coin greedily.", {"bonus": 5.0, "spare": 1.0}),
    },
    default_policy="plain",
    run_chunk=coin_run_chunk,
    replay=coin_replay,
    option_columns=coin_option_columns,
    outcome_columns=("win", "score", "turns", "end"),
    outcome_categories={"end": END_NAMES},
    description="A Bernoulli draw per game.",
    default_players=2,
)


@dataclass(frozen=True)
class PlainOptions:
    """Rule options of the sealless coin.

    p_percent: chance of a win, in percent.
    """

    p_percent: int = 50


def _plain_run_chunk(seed, start, count, players, options, policy, params):
    return coin_run_chunk(seed, start, count, players, CoinOptions(p_percent=options.p_percent), policy, params)


def _plain_option_columns(options, players):
    return {"p_percent": options.p_percent}


PLAIN = dataclasses.replace(COIN, name="plaincoin", title="Coin without seals", options_type=PlainOptions,
                            option_columns=_plain_option_columns, run_chunk=_plain_run_chunk)

VERFLUCHT_PRESENT = os.path.isfile(os.path.join(ROOT, "cursedsim", "games", "verflucht", "__init__.py"))


@pytest.fixture
def coin(monkeypatch):
    """The coin games, registered as "coin" and "plaincoin" for the duration of a test (and the real
    games only once their packages exist, so that ``cursedsim list`` works before they do)."""
    if not VERFLUCHT_PRESENT:
        monkeypatch.delitem(games.GAME_MODULES, "verflucht", raising=False)
    monkeypatch.setitem(games.GAME_MODULES, "coin", __name__)
    monkeypatch.setitem(games.GAME_MODULES, "plaincoin", __name__)
    monkeypatch.setitem(games._loaded, "coin", COIN)
    monkeypatch.setitem(games._loaded, "plaincoin", PLAIN)
    return COIN


@pytest.fixture
def verflucht():
    """The real Verflucht! game, once its package exists (an import error then fails the test)."""
    if not VERFLUCHT_PRESENT:
        pytest.skip("cursedsim.games.verflucht is not written yet")
    return games.get_game("verflucht")


@pytest.fixture(autouse=True)
def _no_ambient_terminal_width(monkeypatch):
    """Tables are fitted to ``COLUMNS`` when it is set: tests that read printed tables must not depend on
    the width of the shell or CI that runs them (tests of the fitting set it themselves)."""
    monkeypatch.delenv("COLUMNS", raising=False)
