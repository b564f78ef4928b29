"""The Verflucht! ``rollout`` search: it plays the base policy's games when it has nothing to search, kernel
and reference play the same games, chunks do not matter, it never reads what its players cannot know,
and it plays better than the heuristic it rolls out."""

from __future__ import annotations

import math

import numpy as np
import pytest

import cursedsim
from cursedsim.errors import OptionError, UnknownPolicyError
from cursedsim.games.verflucht import kernel, policies as pol, reference, rollout, rules, state
from cursedsim.games.verflucht.reference_policies import RolloutPolicy
from cursedsim.games.verflucht.state import option_vector

BASES = {"random": pol.RANDOM, "baseline": pol.BASELINE, "smart": pol.SMART}


def rollout_games(seed, start, count, players, params, options=None):
    options = options or rules.RuleOptions()
    return rollout.run_chunk(seed, start, count, players, option_vector(options, players), params,
                             options.information == "private")


@pytest.mark.parametrize("base", sorted(BASES))
@pytest.mark.parametrize("players", [1, 3, 5])
def test_without_a_search_the_rollout_plays_its_base_policys_games(base, players):
    """cap=1 (the base policy's choice alone) and n=0 (no playout) are the base policy, game by game:
    the resumable kernel halting and resuming at every decision plays the games ``play_chunk`` plays."""
    spec = pol.POLICIES[base]
    expected = kernel.run_chunk(3, 0, 400, players, option_vector(rules.RuleOptions(), players), spec.policy_id,
                                spec.param_vector())
    for params in ([16, BASES[base], 1, 6], [0, BASES[base], 8, 6]):
        got = rollout_games(3, 0, 400, players, params)
        for column in expected:
            np.testing.assert_array_equal(got[column], expected[column], err_msg=f"{column} with {params}")


@pytest.mark.parametrize("information", rules.INFORMATION_MODELS)
@pytest.mark.parametrize("players, n, margin", [(1, 4, 1.0), (2, 4, 1.0), (4, 4, 1.0), (1, 8, 0.5), (3, 8, 0.5)])
def test_kernel_and_reference_play_the_same_rollout_games(information, players, n, margin):
    """The reference engine asking ``RolloutPolicy`` (the kernel state laid out from its table, every
    playout of every candidate played) plays the kernel's rollout games (which stop hopeless candidates
    early), outcome for outcome."""
    options = rules.RuleOptions(information=information)
    params = [float(n), float(pol.BASELINE), 8.0, 6.0, margin]
    got = rollout_games(11, 5, 25, players, params, options)
    ref = reference.play_chunk(11, 5, 25, players, options, RolloutPolicy(params))
    for column in got:
        np.testing.assert_array_equal(np.asarray(ref[column]), got[column], err_msg=column)


def test_rollout_games_do_not_depend_on_the_chunks():
    params = [4.0, float(pol.SMART), 8.0, 6.0]
    whole = rollout_games(21, 0, 60, 3, params)
    parts = [rollout_games(21, start, count, 3, params) for start, count in ((0, 7), (7, 40), (47, 13))]
    for column in whole:
        np.testing.assert_array_equal(np.concatenate([p[column] for p in parts]), whole[column])


# ---------------------------------------------------------------- hidden information

def _decide(arrays, players, options, params, seed, index, decision, peek):
    n, base, base_params, cap, waste, margin = rollout.settings(params)
    deck, hands, masks, counts = (a.copy() for a in arrays)
    opts = tuple(np.int64(v) for v in option_vector(options, players))
    action = rollout.decide(deck, hands, masks, counts, np.int64(players), opts, np.int64(base), base_params,
                            np.int64(n), np.int64(cap), np.int64(waste), np.float64(margin),
                            options.information == "private",
                            np.uint64(seed), np.int64(index), np.int64(decision), peek, True,
                            rollout.new_workspace())
    return action, (deck, hands, masks, counts)


def _as_key(action):
    kind, seal, take, use, creature, items = action
    return int(kind), bool(seal), tuple(int(x) for x in take), tuple(int(x) for x in use), int(creature), int(items)


def _as_args(action):
    """A decision as ``kernel.advance`` takes it (numba types, not the Python numbers it came back as)."""
    kind, seal, take, use, creature, items = action
    return (np.int64(kind), np.bool_(seal), tuple(np.uint64(x) for x in take), tuple(np.uint64(x) for x in use),
            np.int64(creature), np.uint64(items))


def _hide(arrays, players, private, rng, decider):
    """The same decision point with everything the decider cannot see changed: the face-down cards in
    another order and another deck stream; with ``private`` also the others' Items exchanged with face-down
    Items (hand sizes kept)."""
    deck, hands, masks, counts = (a.copy() for a in arrays)
    n_deck = int(counts[state.N_DECK])
    if private:
        items = [int(c) for c in deck[:n_deck] if c & kernel.ITEM_FLAG]
        pool = items + [v | kernel.ITEM_FLAG for p in range(players) if p != decider
                        for v in state.values_of(hands[p])]
        pool = list(rng.permutation(pool))
        for p in range(players):
            if p != decider:
                size = len(state.values_of(hands[p]))
                hands[p] = state.mask_of(c & (kernel.ITEM_FLAG - 1) for c in pool[:size])
                pool = pool[size:]
        creatures = [int(c) for c in deck[:n_deck] if not c & kernel.ITEM_FLAG]
        deck[:n_deck] = creatures + pool
    deck[:n_deck] = rng.permutation(deck[:n_deck])
    masks[state.RNG_DECK:state.RNG_DECK + 4] = rng.integers(0, 2**63, 4, dtype=np.uint64)
    return deck, hands, masks, counts


def _hidden_decisions(players, options, params, peek, games=6):
    """Play rollout games decision by decision; at each, decide again with the hidden part changed (with
    the clairvoyant variant ``peek`` when asked). Returns (decisions compared, decisions that differ)."""
    rng = np.random.default_rng(5)
    private = options.information == "private"
    opts = tuple(np.int64(v) for v in option_vector(options, players))
    compared = differ = 0
    for index in range(games):
        arrays = state.new_arrays()
        kernel.start_game(*arrays, np.uint64(9), np.int64(index), opts)
        phase = kernel.advance(*arrays, np.int64(players), opts, np.int64(pol.BASELINE), pol.params_tuple([]),
                               np.bool_(True), np.int64(kernel.ACT_NONE), np.bool_(False), kernel.NO_PLAN,
                               kernel.NO_PLAN, np.int64(0), np.uint64(0))
        decision = 0
        while phase != kernel.PH_END:
            counts = arrays[3]
            group_attack = phase == kernel.PH_ATTACK and counts[state.IS_GROUP]
            decider = int(counts[state.PLAYER] if phase == kernel.PH_LAST else counts[state.ACTIVE])
            action, after = _decide(arrays, players, options, params, 9, index, decision, peek)
            # in a private game a group attack's plans are what the players say aloud: not hidden
            if not (private and group_attack):
                hidden, _ = _decide(_hide(arrays, players, private, rng, decider), players, options, params, 9,
                                    index, decision, peek)
                compared += 1
                differ += _as_key(hidden) != _as_key(action)
            arrays = after
            phase = kernel.advance(*arrays, np.int64(players), opts, np.int64(pol.BASELINE), pol.params_tuple([]),
                                   np.bool_(True), *_as_args(action))
            decision += 1
    return compared, differ


@pytest.mark.parametrize("information", rules.INFORMATION_MODELS)
def test_rollout_never_reads_what_its_players_cannot_see(information):
    """Every decision of a few games decided twice, once with the face-down order, the deck stream (and,
    private, the others' Items) changed: identical choices. The clairvoyant variant, whose playouts
    continue the real face-down order, fails the same test: the test can see a leak."""
    options = rules.RuleOptions(information=information)
    params = [8.0, float(pol.BASELINE), 8.0, 6.0]
    compared, differ = _hidden_decisions(3, options, params, peek=False)
    assert compared > 100 and differ == 0
    if information == "team":  # (private: the clairvoyant reads the same order)
        compared, differ = _hidden_decisions(3, options, params, peek=True)
        assert differ > 0, f"the clairvoyant variant chose the same on all {compared} decisions"


# ---------------------------------------------------------------- parameters and options

def test_bad_rollout_parameters_name_the_valid_choices(monkeypatch):
    from cursedsim.games.base import PolicySpec
    # a user's policy shares the user id 0 with random: it is never a base (CI found one registered by
    # another test leaking into this list)
    monkeypatch.setitem(pol.POLICIES, "exact", PolicySpec("exact", 0, "a user's", impl=object()))
    with pytest.raises(UnknownPolicyError, match="0 \\(random\\), 1 \\(baseline\\), 2 \\(smart\\)"):
        rollout.settings([4, 3, 8, 6])
    assert rollout.settings([4, 0, 8, 6])[2] == pol.params_tuple(pol.POLICIES["random"].param_vector())
    with pytest.raises(UnknownPolicyError, match="cap must be a whole number 1 .. 16"):
        rollout.settings([4, 1, 0, 6])
    with pytest.raises(UnknownPolicyError, match="n must be a whole number"):
        rollout.settings([-1, 1, 8, 6])
    with pytest.raises(UnknownPolicyError, match="margin must be a number 0 .. 100"):
        rollout.settings([4, 1, 8, 6, -1])


def test_the_information_models_are_named_in_errors():
    with pytest.raises(OptionError, match="'private', 'team'"):
        rules.RuleOptions(information="table talk")


def test_the_rollout_plays_better_than_the_heuristic_it_rolls_out():
    """Paired on the same deals at 3 players, rollout:n=16 over baseline wins more games than baseline.
    Tolerance from the sample: the paired difference must exceed 3 of its standard errors (measured
    difference ~ +7 points, standard error ~ 0.015 at 800 games)."""
    wins = {name: cursedsim.simulate("verflucht", 800, players=3, policy=name, seed=12)
            .sort_values("game_index")["win"].to_numpy(float) for name in ("rollout", "baseline")}
    diff = wins["rollout"] - wins["baseline"]
    se = diff.std(ddof=1) / math.sqrt(diff.size)
    assert diff.mean() > 3 * se, (diff.mean(), se)
