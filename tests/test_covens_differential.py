"""Curses & Covens kernel vs reference, game by game: the numba engine must reproduce the readable one.

Both engines draw from the same (seed, index) streams (the deck stream for the set-up, shuffles, discard
orders and hunt picks; stream 1 for the hunter's random policy, stream 2 for the towns'), and each
built-in policy exists twice (numba in ``policies.py``, readable in ``reference_policies.py``), so every
outcome column must agree for every game; one differing game is a bug in an engine or in a policy twin.

Games through both engines (~11,100, ~40 s: the reference plays ~300 games/s): 6 option blocks
(the defaults, then 5 blocks that together set every option to each of its other values) x 3, 4 and 5
towns x the 9 pairings of hunter {random, largest_hand, tracker} and town {random, coven, bluff}: 100
games per cell at the defaults, 60 in the other blocks; and non-default policy parameters (300). Each
block also checks that its games went through what it is meant to test (every spell cast, both sides
winning, unfinished games where max_rounds is small). ``-m slow`` plays 10 times as many on new seeds.
"""

from __future__ import annotations

import numpy as np
import pytest

from cursedsim.games.covens import GAME, kernel, reference
from cursedsim.games.covens import policies as pol
from cursedsim.games.covens import reference_policies as twins
from cursedsim.games.covens import rules as R
from cursedsim.games.covens import state as S

HUNTERS = ("random", "largest_hand", "tracker")
TOWNS = ("random", "coven", "bluff")
PLAYERS = (4, 5, 6)

#: Option blocks: the defaults, then every non-default value of every option in at least one block.
BLOCKS = {
    "defaults": {},
    "no_rituals": dict(rituals=False, darkness_backs="nature", spell_icons="curses_mixed", wild_icons="both"),
    "census_shuffle": dict(fake_casts=True, shuffle_timing="census_and_arrival", short_deck_arrival="deal_none",
                           ask_empty=False, spell_icons="all_mixed"),
    "passage_doom": dict(passage_targets="any_town", nature_restart=False, doom_empty=True,
                         doom_second_pick="any_town", spell_icons="all_mixed", darkness_backs="nature",
                         wild_icons="both"),
    "short_games": dict(townsfolk_to="any_town", discard_order="ascending", shuffle_timing="never", max_rounds=3),
    "curses_mixed": dict(doom_second_pick="any_town", spell_icons="curses_mixed", fake_casts=True,
                         short_deck_arrival="deal_none"),
}
GAMES = {"defaults": 100}
GAMES_ELSEWHERE = 60


def play_both(seed, start, n_games, players, options, hunter, town, hunter_params=None, town_params=None):
    """(kernel arrays, reference arrays) of the same games."""
    h_spec, t_spec = pol.HUNTER_POLICIES[hunter], pol.TOWN_POLICIES[town]
    h_params = h_spec.param_vector(hunter_params)
    t_params = t_spec.param_vector(town_params)
    fast = kernel.run_chunk(seed, start, n_games, players, options, h_spec.policy_id, h_params, t_spec.policy_id,
                            t_params)
    slow = reference.play_chunk(seed, start, n_games, players, options, twins.make("hunter", hunter, h_params),
                                twins.make("town", town, t_params))
    return fast, slow


def differences(fast, slow, start):
    """[(game index, {column: (kernel, reference)})] of the games that differ; dtypes must match too."""
    assert list(fast) == list(slow) == list(R.OUTCOME_COLUMNS)
    for column, dtype in R.OUTCOME_DTYPES.items():
        assert fast[column].dtype == slow[column].dtype == np.dtype(dtype), column
    differing = sorted({int(i) for column in R.OUTCOME_COLUMNS for i in np.flatnonzero(fast[column] != slow[column])})
    return [(start + i, {c: (fast[c][i].item(), slow[c][i].item()) for c in R.OUTCOME_COLUMNS
                         if fast[c][i] != slow[c][i]}) for i in differing]


def check_block(name, seed, start, games_per_cell):
    """Every pairing at every player count under block ``name``: no differing game; returns the
    reference arrays of the whole block, concatenated."""
    options = R.RuleOptions(**BLOCKS[name])
    found = []
    played = []
    for players in PLAYERS:
        for hunter in HUNTERS:
            for town in TOWNS:
                fast, slow = play_both(seed, start, games_per_cell, players, options, hunter, town)
                found += [(players, hunter, town, *d) for d in differences(fast, slow, start)]
                played.append(slow)
    assert found == [], f"{len(found)} games differ, first: {found[:3]}"
    return {column: np.concatenate([p[column] for p in played]) for column in R.OUTCOME_COLUMNS}


def assert_covered(name, games):
    """The block's games went through what it is there to test."""
    for spell in R.SPELL_NAMES:
        assert games[f"spells_{spell}"].sum() > 0, f"{name}: no {spell} cast"
    assert games["hunter_won"].any() and games["town_won"].any(), name
    if BLOCKS[name].get("max_rounds", 200) <= 3:
        assert (games["win_type"] == R.WIN_UNFINISHED).any(), name
    if not BLOCKS[name].get("rituals", True):
        assert not games["rituals_taken"].any() and not (games["win_type"] == R.WIN_RITUAL).any(), name
    else:
        assert (games["win_type"] == R.WIN_RITUAL).any(), name


@pytest.mark.parametrize("name", list(BLOCKS))
def test_kernel_equals_reference_in_every_block(name):
    games = check_block(name, 2026 + list(BLOCKS).index(name), 0, GAMES.get(name, GAMES_ELSEWHERE))
    assert_covered(name, games)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(BLOCKS))
def test_kernel_equals_reference_in_every_block_at_length(name):
    check_block(name, 4242, 100_000, 10 * GAMES.get(name, GAMES_ELSEWHERE))


@pytest.mark.parametrize("disabled", R.SPELL_NAMES)
def test_a_disabled_spell_is_never_cast_in_either_engine(disabled):
    """Study option disabled_spell: both engines play the same games and never cast that spell."""
    options = R.RuleOptions(disabled_spell=disabled, spell_icons="all_mixed")
    for players in PLAYERS:
        for hunter, town in (("tracker", "coven"), ("random", "random"), ("largest_hand", "bluff")):
            fast, slow = play_both(31, 0, 40, players, options, hunter, town)
            assert differences(fast, slow, 0) == [], (players, hunter, town)
            assert not fast[f"spells_{disabled}"].any()


PARAM_CASES = [
    ("tracker", {"ritual_fear": 3.0, "fake_fear": 0.0, "trust": 1.0, "shuffle": 0.0, "threat": 0.0}, "bluff",
     {"risk": 0.2, "feed": 0.0, "cast": 0.0}),
    ("tracker", {"ritual_fear": 0.0, "fake_fear": 2.0, "trust": -0.5, "threat": 3.0}, "coven", {"risk": 0.9, "cast": 0.0}),
]


@pytest.mark.parametrize("hunter, hunter_params, town, town_params", PARAM_CASES)
def test_policy_parameters_mean_the_same_in_both_engines(hunter, hunter_params, town, town_params):
    for players in PLAYERS:
        fast, slow = play_both(77, 500, 50, players, R.RuleOptions(shuffle_timing="census_and_arrival"), hunter,
                               town, hunter_params, town_params)
        assert differences(fast, slow, 500) == [], players


def test_the_game_record_plays_the_kernel():
    """``GAME.run_chunk`` (side -> policy) gives the kernel's arrays."""
    policy = {"hunter": pol.HUNTER_POLICIES["tracker"], "town": pol.TOWN_POLICIES["bluff"]}
    params = {"hunter": policy["hunter"].param_vector({"trust": 0.5}), "town": policy["town"].param_vector()}
    rows = GAME.run_chunk(3, 10, 200, 5, R.RuleOptions(), policy, params)
    direct = kernel.run_chunk(3, 10, 200, 5, S.option_tuple(R.RuleOptions()), 2, params["hunter"], 2,
                              params["town"])
    assert all(np.array_equal(rows[c], direct[c]) for c in R.OUTCOME_COLUMNS)


def test_an_illegal_decision_is_caught_and_replaced():
    """The kernel's check: an action outside the legal set is recorded as an error code (decoded by
    ``run_chunk`` into a RunError) and replaced by the first legal action so the game ends safely."""
    legal = pol.legal_add(pol.legal_add(pol.NO_LEGAL, S.A_TOWN + 1), S.A_TOWN + 3)
    assert kernel.checked(S.A_TOWN + 3, legal, S.D_PICK, kernel.NO_ERROR) == (S.A_TOWN + 3, kernel.NO_ERROR)
    action, err = kernel.checked(S.A_TOWN + 2, legal, S.D_PICK, kernel.NO_ERROR)
    assert action == S.A_TOWN + 1
    assert divmod(err - 1, S.N_ACTIONS) == (S.D_PICK, S.A_TOWN + 2)
    # the first error is kept
    assert kernel.checked(-5, legal, S.D_DOOM, err) == (S.A_TOWN + 1, err)
