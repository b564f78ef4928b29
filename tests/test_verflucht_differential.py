"""Kernel vs reference, game by game: the numba engine must reproduce the readable oracle exactly.

Both engines draw from the same (seed, index) streams, so every outcome field must agree for every
game; one differing game is a bug in one of them (or in a policy's two implementations: the baseline
exists twice, as readable Python and as numba).
"""

from __future__ import annotations

import pytest

from cursedsim.games.verflucht import GAME, reference, reference_policy
from cursedsim.games.verflucht.rules import END_NAMES, RuleOptions

FIELDS = ("win", "score", "turns", "seals_used", "end", "attacks")


def mismatches(seed, players, options, policy, n_games, start=0):
    """Games (index, kernel outcome, reference outcome) that differ between the two engines."""
    params = GAME.policy(policy).param_vector()
    kernel = GAME.run_chunk(seed, start, n_games, players, options, policy, params)
    oracle = reference_policy(policy, params)
    differing = []
    for i in range(n_games):
        ref = reference.play(seed, start + i, players, options, oracle)
        ker = tuple(int(kernel[f][i]) for f in FIELDS)
        exp = tuple(int(getattr(ref, f)) for f in FIELDS)
        if ker != exp:
            differing.append((start + i, ker, exp))
    return differing


# 5 player counts x 4 seal counts x 500 games = 10,000 baseline games through both engines.
@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("seals", [0, 2, None, 6])
def test_baseline_kernel_equals_reference(players, seals):
    assert mismatches(11, players, RuleOptions(seals=seals), "baseline", 500) == []


OPTION_CASES = [
    RuleOptions(partial_items_before_seal=True),
    RuleOptions(voluntary_seal=False),
    RuleOptions(drawer_last_turn=False),
    RuleOptions(seals=1, partial_items_before_seal=True, voluntary_seal=False, drawer_last_turn=False),
]


@pytest.mark.parametrize("options", OPTION_CASES, ids=lambda o: repr(o)[len("RuleOptions"):])
@pytest.mark.parametrize("players", [1, 3, 5])
def test_baseline_kernel_equals_reference_under_every_option(players, options):
    assert mismatches(23, players, options, "baseline", 300) == []


@pytest.mark.parametrize("policy", ["random", "smart"])
@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_other_policies_kernel_equals_reference(policy, players):
    """Numba policies run inside the reference through the KernelPolicy adapter: this checks the
    two rule engines (and the policy stream) agree under very different play."""
    for options in (RuleOptions(), RuleOptions(seals=8, partial_items_before_seal=True)):
        assert mismatches(5, players, options, policy, 80) == []


def test_a_chunk_is_the_same_games_wherever_it_starts():
    """Game i depends only on (seed, i): playing 100..199 alone gives rows 100..199 of 0..199."""
    params = GAME.policy("baseline").param_vector()
    whole = GAME.run_chunk(3, 0, 200, 3, RuleOptions(), "baseline", params)
    part = GAME.run_chunk(3, 100, 100, 3, RuleOptions(), "baseline", params)
    for f in FIELDS:
        assert (whole[f][100:] == part[f]).all(), f


def test_replay_tells_the_game_the_kernel_played():
    """The replay log of a row ends the way the row says: win with its score, or the losing attack."""
    params = GAME.policy("baseline").param_vector()
    rows = GAME.run_chunk(2, 0, 40, 4, RuleOptions(), "baseline", params)
    for i in range(40):
        log = GAME.replay(2, i, 4, RuleOptions(), "baseline", params)
        assert f"end: {END_NAMES[rows['end'][i]]}" in log.splitlines()[0]
        if rows["win"][i]:
            assert log.rstrip().endswith(f"score {rows['score'][i]}")
        else:
            assert "LOSS" in log.splitlines()[-1]
