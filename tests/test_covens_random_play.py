"""Curses & Covens, random against random: the straight-through path (``random_play.py``, what
``kernel.run_chunk`` plays for that pairing) plays exactly the games of the phase machine
(``kernel.play_chunk`` over ``advance``), every outcome column of every game, under every rule option value
and 3-5 towns. The reference engine agrees with both (tests/test_covens_differential.py)."""

from __future__ import annotations

import numpy as np
import pytest

from cursedsim.games.covens import kernel
from cursedsim.games.covens import policies as pol
from cursedsim.games.covens import policy_specs as PS
from cursedsim.games.covens import rules as R
from cursedsim.games.covens import state as S

from test_covens_differential import BLOCKS

GAMES = 3000


def phase_machine(seed, start, n_games, players, options):
    """The outcome arrays of ``kernel.play_chunk`` (``advance``), random against random."""
    opts = tuple(np.int64(v) for v in S.option_tuple(options))
    out = {column: np.empty(n_games, np.dtype(dtype)) for column, dtype in R.OUTCOME_DTYPES.items()}
    spells = np.empty((n_games, R.N_SPELLS), np.int8)
    params = pol.params_tuple(np.zeros(0))
    game, err = kernel.play_chunk(
        np.uint64(seed), np.int64(start), np.int64(n_games), np.int64(players - 1), opts, np.int64(PS.HUNTER_RANDOM),
        params, np.int64(PS.TOWN_RANDOM), params, out["winner"], out["win_type"], out["hunter_won"],
        out["town_won"], out["rounds"], out["witches_captured"], out["fake_witch_caught"], out["rituals_taken"],
        spells, out["cards_left"], out["picks"])
    assert err == 0
    for k, name in enumerate(R.SPELL_NAMES):
        out[f"spells_{name}"] = np.ascontiguousarray(spells[:, k])
    return out


@pytest.mark.parametrize("block", sorted(BLOCKS))
@pytest.mark.parametrize("players", (4, 5, 6))
def test_straight_through_plays_the_phase_machines_games(block, players):
    options = R.RuleOptions(**BLOCKS[block])
    seed = 77 + players
    fast = kernel.run_chunk(seed, 1000, GAMES, players, options, PS.HUNTER_RANDOM, np.zeros(0), PS.TOWN_RANDOM,
                            np.zeros(0))
    slow = phase_machine(seed, 1000, GAMES, players, options)
    assert set(fast) == set(slow)
    for column in R.OUTCOME_COLUMNS:
        assert np.array_equal(fast[column], slow[column]), (block, players, column)
