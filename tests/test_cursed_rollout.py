"""The Cursed!? ``rollout`` search: it plays the base policy's games when it has nothing to search (the
kernel halting, resuming and replaying every fight from its start), chunks do not matter, stopping hopeless
candidates early changes nothing, it never reads the draw pile's order, and it plays better than the best
plain heuristic."""

from __future__ import annotations

import math

import numpy as np
import pytest

import cursedsim
from cursedsim.errors import UnknownPolicyError
from cursedsim.games.cursed import kernel, rollout, rules
from cursedsim.games.cursed import policies as pol
from cursedsim.games.cursed.state import option_tuple

BASES = {"random": pol.RANDOM, "threshold": pol.THRESHOLD, "counting": pol.COUNTING,
         "optimal_fight": pol.OPTIMAL_FIGHT}
#: Options that reach the rare paths a replay must reproduce: items before a draw, the Whetstone on a
#: weapon in play, the Smoke Bomb's shuffle with the items, the chest from the draw pile, two starting
#: items (a Mimic! redrawn), the Big Turkey Dinner's shuffle between fights.
RARE = rules.RuleOptions(item_timing="before_draw", whetstone_in_play=True, smoke_bomb_returns_items=True,
                         chest_loot="draw_pile", starting_items=2, starting_mimic="redraw", bust="soul_lost",
                         dagger_value="choose", spear_kind="choose", final_monster_captures=True)


def params(n=4, base=pol.OPTIMAL_FIGHT, cap=8, margin=2.0, finish=pol.COUNTING):
    return [float(n), float(base), float(cap), float(margin), float(finish)]


def rollout_games(seed, start, count, p, options=None, **kw):
    out = rollout.run_chunk(seed, start, count, option_tuple(options or rules.RuleOptions()), p, **kw)
    out.pop("_decisions")
    return out


@pytest.mark.parametrize("options", [rules.RuleOptions(), RARE], ids=["rulebook", "rare"])
@pytest.mark.parametrize("base", sorted(BASES))
def test_without_a_search_the_rollout_plays_its_base_policys_games(base, options):
    """cap=1 (the base policy's choice alone) and n=0 (no playout) are the base policy, game by game: the
    kernel halting at every decision and replaying the fight from its saved start plays the games
    ``play_chunk`` plays."""
    spec = pol.POLICIES[base]
    games = 60 if base == "optimal_fight" else 300
    opts = option_tuple(options)
    expected = kernel.run_chunk(3, 0, games, opts, spec.policy_id, spec.param_vector())
    for p in (params(16, BASES[base], cap=1), params(0, BASES[base]), params(16, BASES[base], cap=1, finish=-1)):
        got = rollout_games(3, 0, games, p, options)
        for column in expected:
            np.testing.assert_array_equal(got[column], expected[column], err_msg=f"{column} with {p}")


def test_rollout_games_do_not_depend_on_the_chunks():
    p = params(4)
    whole = rollout_games(21, 0, 60, p)
    parts = [rollout_games(21, start, count, p) for start, count in ((0, 7), (7, 40), (47, 13))]
    for column in whole:
        np.testing.assert_array_equal(np.concatenate([part[column] for part in parts]), whole[column])


@pytest.mark.parametrize("margin", [0.5, 2.0])
@pytest.mark.parametrize("options", [rules.RuleOptions(), RARE], ids=["rulebook", "rare"])
def test_stopping_hopeless_candidates_early_changes_no_decision(margin, options):
    """``clear_lead.still_open`` stops candidates that can no longer lead: the same games as playing every
    playout of every candidate (and the search does change games here: it is not the base's)."""
    p = params(8 if margin < 1 else 32, margin=margin)
    early = rollout_games(17, 0, 40, p, options)
    full = rollout_games(17, 0, 40, p, options, stop_early=False)
    for column in early:
        np.testing.assert_array_equal(early[column], full[column], err_msg=column)
    spec = pol.POLICIES["optimal_fight"]
    base = kernel.run_chunk(17, 0, 40, option_tuple(options), spec.policy_id, spec.param_vector())
    assert any(not np.array_equal(early[c], base[c]) for c in base)


# ---------------------------------------------------------------- hidden information

def _hidden_decisions(p, peek, games=12, options=None):
    """Every searched decision of a few games decided twice, the second time with the draw pile permuted
    and the deck stream changed at the decision (``resume.branch``, key ``scramble``). Returns (decisions
    compared, decisions that differ)."""
    compared = differ = 0
    record = np.zeros((2, rollout.MAX_RECORD), np.int64)
    for index in range(games):
        record[:] = -1
        out = rollout.run_chunk(9, index, 1, option_tuple(options or rules.RuleOptions()), p, peek=peek,
                                scramble=7, record=record)
        n = min(int(out["_decisions"]), rollout.MAX_RECORD)
        assert (record[:, :n] >= 0).all()
        compared += n
        differ += int((record[0, :n] != record[1, :n]).sum())
    return compared, differ


@pytest.mark.parametrize("options", [rules.RuleOptions(), RARE], ids=["rulebook", "rare"])
def test_rollout_never_reads_the_draw_piles_order(options):
    """Every decision of a few games decided twice, once with the draw pile in another order and another
    deck stream: identical choices. The clairvoyant variant, whose playouts continue the real order, fails
    the same test: the test can see a leak."""
    p = params(16, margin=0.5)   # a low margin: choices follow the playouts closely, a leak shows
    compared, differ = _hidden_decisions(p, peek=False, options=options)
    assert compared > 100 and differ == 0, (compared, differ)
    compared, differ = _hidden_decisions(p, peek=True, options=options)
    assert differ > 0, f"the clairvoyant variant chose the same on all {compared} decisions"


# ---------------------------------------------------------------- parameters

def test_bad_rollout_parameters_name_the_valid_choices(monkeypatch):
    from cursedsim.games.base import PolicySpec
    # a user's policy shares the user id 0 with random: it is never a base
    monkeypatch.setitem(pol.POLICIES, "careful", PolicySpec("careful", 0, "a user's", impl=object()))
    valid = "0 \\(random\\), 1 \\(threshold\\), 2 \\(no_items\\), 3 \\(counting\\), 4 \\(optimal_fight\\)"
    with pytest.raises(UnknownPolicyError, match=f"base=5 is not a built-in policy of cursed; valid: {valid}$"):
        rollout.settings(params(base=5))
    with pytest.raises(UnknownPolicyError, match=f"finish=7 is not a built-in policy of cursed; valid: -1 "
                                                 f"\\(the base\\), {valid}$"):
        rollout.settings(params(finish=7))
    assert rollout.settings(params(base=0))[2] == pol.params_tuple(pol.POLICIES["random"].param_vector())
    assert rollout.settings(params(finish=-1))[3:5] == (-1, rollout.settings(params())[2])
    with pytest.raises(UnknownPolicyError, match="cap must be a whole number 1 .. 16"):
        rollout.settings(params(cap=0))
    with pytest.raises(UnknownPolicyError, match="n must be a whole number"):
        rollout.settings(params(n=-1))
    with pytest.raises(UnknownPolicyError, match="margin must be a number 0 .. 100"):
        rollout.settings(params(margin=-1))
    with pytest.raises(UnknownPolicyError, match="rollout takes 5 parameters \\(n, base, cap, margin, finish\\)"):
        rollout.settings([4, 4, 8])


def test_the_runner_plays_the_rollout_by_name():
    frame = cursedsim.simulate("cursed", 30, policy="rollout", params={"n": 2}, seed=4, progress=False)
    again = cursedsim.simulate("cursed", 30, policy="rollout", params={"n": 2}, seed=4, n_jobs=2, chunk_size=7,
                               progress=False)
    assert list(frame["policy"].unique()) == ["rollout"] and frame["win"].equals(again["win"])


# ---------------------------------------------------------------- strength

def test_the_rollout_plays_better_than_the_best_plain_heuristic():
    """Paired on the same deals, rollout (n=16 over optimal_fight) wins more games than threshold, the
    best plain heuristic (counting is about level with it). Tolerance from the sample: the paired
    difference must exceed 3 of its standard errors (measured ~ +9 points, standard error ~ 0.02 at 800
    games: 3 standard errors is ~ 6 points)."""
    wins = {name: cursedsim.simulate("cursed", 800, policy=name, seed=12, progress=False)
            .sort_values("game_index")["win"].to_numpy(float) for name in ("rollout", "threshold")}
    diff = wins["rollout"] - wins["threshold"]
    se = diff.std(ddof=1) / math.sqrt(diff.size)
    assert diff.mean() > 3 * se, (diff.mean(), se)


# ---------------------------------------------------------------- the reference engine

@pytest.mark.parametrize("base, games", [("random", 30), ("threshold", 30), ("counting", 30), ("optimal_fight", 8)])
@pytest.mark.parametrize("options", [rules.RuleOptions(), RARE], ids=["rulebook", "rare"])
def test_the_reference_engine_plays_the_kernels_rollout_games(base, games, options):
    """The reference engine asking ``RolloutPolicy`` (the base's readable twin, its fight decisions replaced
    by the kernel search's) plays the kernel's rollout games, outcome for outcome: the kernel's game, halted
    and replayed from each round's saved top at every decision, is the rules' game for the decisions taken
    (over optimal_fight, a replaced DRAW or PLAY answers its attack as the kernel's ``take_action``). A low
    margin, so the search leaves the base's choices often."""
    from cursedsim.games.cursed import reference
    from cursedsim.games.cursed.reference_policies import RolloutPolicy
    p = params(8, BASES[base], margin=0.5)
    got = rollout_games(11, 5, games, p, options)
    ref = reference.play_chunk(11, 5, games, options, RolloutPolicy(p))
    for column in got:
        np.testing.assert_array_equal(np.asarray(ref[column]), got[column], err_msg=column)


def test_a_rollout_game_replays_with_its_turn_log():
    """``replay`` of a rollout game: the reference engine plays the kernel search's decisions."""
    text = cursedsim.replay("cursed", 2026, 3, policy="rollout", params={"n": 4})
    assert "rollout" in text.splitlines()[0]
