"""Verflucht! numba policies: their cover helpers, their decisions on hand-built positions, their
strength, and user policies plugged into the kernel or the reference engine."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pandas as pd
import pytest
from numba import njit

import cursedsim
from cursedsim.errors import UnknownPolicyError
from cursedsim.games.verflucht import GAME, policies as pol, reference
from cursedsim.games.verflucht.reference_policies import Banish
from cursedsim.games.verflucht.rules import RuleOptions
from cursedsim.games.verflucht.state import mask_of, values_of
from cursedsim.games.verflucht.user_policies import add_numba_policy, add_python_policy
from cursedsim.rng import seed_tuple

Z = np.uint64(0)


def hands_of(*hands):
    """A MAX_PLAYERS-tuple of hand masks from value lists."""
    masks = [mask_of(h) for h in hands]
    return tuple(masks + [Z] * (5 - len(masks)))


def test_smallest_pair_takes_the_smallest_sum_and_then_the_smaller_a():
    # 30 from {10, 12, 18, 20, 25}: pairs >= 30 with the smallest sum are 10+20 and 12+18 (both 30)
    pair = pol.smallest_pair(mask_of([10, 12, 18, 20, 25]), 30)
    assert values_of(pair) == (10, 20)
    assert pol.smallest_pair(mask_of([1, 2, 3]), 30) == 0


def test_least_cover_is_the_minimal_sum_subset():
    rng = random.Random(4)
    for _ in range(400):
        hand = rng.sample(range(1, 41), rng.randint(1, 9))
        target = rng.randint(1, 40)
        sums = [sum(c) for r in range(1, len(hand) + 1) for c in itertools.combinations(hand, r)
                if sum(c) >= target]
        got = values_of(pol.least_cover(mask_of(hand), target))
        assert set(got) <= set(hand)
        assert (sum(got) if got else None) == (min(sums) if sums else None)


def test_baseline_group_answer_follows_turn_order_from_the_active_player():
    # group 19-20-21 at 3 players, P2 (index 1) active: P2 covers 21 with 23; 20 and 19 go on to
    # P3 (index 2) who holds 20 and 30, then P1.
    seal, take, use, _ = pol.baseline_attack(hands_of([19], [23], [20, 30]), 3, 1, mask_of([19, 20, 21]),
                                             True, True, seed_tuple(0, 0, 1))
    assert not seal
    assert values_of(take[1]) == (21,) and values_of(use[1]) == (23,)
    assert values_of(take[2]) == (19, 20) and values_of(use[2]) == (20, 30)
    assert values_of(take[0]) == () and values_of(use[0]) == ()


def test_baseline_seals_without_spending_when_an_attacker_is_uncovered():
    seal, take, use, _ = pol.baseline_attack(hands_of([40], [1]), 2, 0, mask_of([37, 38]), True, True,
                                             seed_tuple(0, 0, 1))
    assert seal and all(t == 0 for t in take) and all(u == 0 for u in use)


def test_forced_plan_when_a_seal_is_refused():
    # sixth creature 37 against the hand {10, 12, 15}: no single Item or pair reaches it, all three do;
    # with the Seal refused, baseline falls back to the forced plan.
    seal, take, use, _ = pol.baseline_attack(hands_of([10, 12, 15]), 1, 0, mask_of([37]), False, False,
                                             seed_tuple(0, 0, 1))
    assert not seal
    assert values_of(take[0]) == (37,) and sum(values_of(use[0])) >= 37


def test_baseline_banish_margin_of_three():
    assert pol.baseline_banish(mask_of([19]), mask_of([16, 30])) == (16, mask_of([19]))
    assert pol.baseline_banish(mask_of([20]), mask_of([16])) == (0, 0)
    # highest first: both 16 and 30 are within reach; 30 goes first
    assert pol.baseline_banish(mask_of([18, 33]), mask_of([16, 30])) == (30, mask_of([33]))


def test_smart_banishes_everything_payable_in_a_last_turn():
    params = pol.params_tuple(GAME.policy("smart").param_vector())
    c, items = pol.smart_banish(mask_of([5, 28]), mask_of([7, 23, 32, 38]), 0, Z, True, params)
    assert c == 32 and sum(values_of(items)) >= 32
    c, _ = pol.smart_banish(mask_of([5, 28]), mask_of([7, 23, 32, 38]), 30, Z, False, params)
    assert c != 32  # not during play: 28 alone does not reach 32 and pairs are off


def test_random_policy_is_reproducible_and_uses_its_own_stream():
    params = GAME.policy("random").param_vector()
    a = GAME.run_chunk(8, 0, 300, 3, RuleOptions(), "random", params)
    b = GAME.run_chunk(8, 0, 300, 3, RuleOptions(), "random", params)
    assert all((a[k] == b[k]).all() for k in a)


@pytest.mark.parametrize("players", [1, 3, 5])
def test_smart_beats_baseline_and_baseline_beats_random(players):
    """Paired on the same deals (20,000 each): the win-rate differences are many standard errors
    from zero (an SE of a paired difference of two rates near 0.15 is below 0.004 here), so a
    4-SE margin fails only if the ordering really changed."""
    n = 20_000
    rate = {p: GAME.run_chunk(31, 0, n, players, RuleOptions(), p, GAME.policy(p).param_vector())["win"]
            for p in ("random", "baseline", "smart")}
    for better, worse in (("smart", "baseline"), ("baseline", "random")):
        diff = rate[better].astype(float) - rate[worse].astype(float)
        se = diff.std(ddof=1) / np.sqrt(n)
        assert diff.mean() > 4 * se, (better, worse, diff.mean(), se)


# ---------------------------------------------------------------- user policies

@njit
def _attack(policy_id, params, rng, hands, n_players, active, display, attackers, is_group,
            seal_allowed, seals_left, deck_left, gone_creatures, gone_items):
    return pol.baseline_attack(hands, n_players, active, attackers, is_group, seal_allowed, rng)


@njit
def _banish_exactly(policy_id, params, rng, hand, n_players, player, display, seals_left, deck_left,
                    gone_creatures, gone_items, last_turn):
    """Banish only with an Item of exactly the Creature's value (a parameter adds slack)."""
    rest = display
    while rest != 0:
        c = pol.highest(rest)
        rest &= ~pol.bit(c)
        for extra in range(int(params[0]) + 1):
            if c + extra <= 40 and pol.has(hand, c + extra):
                return c, pol.bit(c + extra), rng
    return 0, pol.ZERO, rng


def test_a_user_numba_policy_runs_in_the_kernel_and_matches_the_reference():
    spec = add_numba_policy("exact_test", _attack, _banish_exactly, params={"extra": 0.0})
    frame = cursedsim.simulate("verflucht", 300, players=3, policy="exact_test", seed=4, progress=False)
    params = spec.param_vector()
    oracle = GAME.policies["exact_test"]
    from cursedsim.games.verflucht import reference_policy
    for i in range(0, 300, 7):
        ref = reference.play(4, i, 3, RuleOptions(), reference_policy(oracle, params))
        assert (ref.win, ref.score, ref.turns) == (bool(frame.win[i]), int(frame.score[i]), int(frame.turns[i]))
    # its parameter is live: more slack changes some games
    looser = cursedsim.simulate("verflucht", 300, players=3, policy="exact_test", params={"extra": 3},
                                seed=4, progress=False)
    assert (looser.turns != frame.turns).any()
    # and it is not the baseline in disguise
    base = cursedsim.simulate("verflucht", 300, players=3, policy="baseline", seed=4, progress=False)
    assert (base.turns != frame.turns).any()


class _PassivePolicy:
    """Seal every attack it may, never banish voluntarily: once the Seals are gone it banishes with the
    forced plan (the engine refuses a Seal then while items can) until the items run short."""

    def attack(self, table, attackers, is_group, seal_allowed, rng):
        from cursedsim.games.verflucht.reference_policies import AttackChoice, forced_plan
        if seal_allowed:
            return AttackChoice(seal=True)
        return AttackChoice(seal=False, plan=forced_plan(table, attackers, is_group))

    def banish(self, table, player, last_turn, rng) -> Banish | None:
        return None


def test_a_user_python_policy_runs_through_simulate():
    add_python_policy("passive_test", lambda params: _PassivePolicy())
    frame = cursedsim.simulate("verflucht", 50, players=2, policy="passive_test", seed=1, progress=False)
    assert not frame.win.any()
    assert (frame.seals_used == 4).all()  # every seal spent before the loss


def test_a_user_policy_may_not_take_a_built_in_name():
    with pytest.raises(UnknownPolicyError, match="built-in"):
        add_python_policy("baseline", lambda params: _PassivePolicy())


def test_a_user_numba_policy_gives_the_same_frame_in_worker_processes():
    """The policy travels inside the pickled game to loky workers, which build its kernel there."""
    add_numba_policy("exact_jobs_test", _attack, _banish_exactly, params={"extra": 1.0})
    one = cursedsim.simulate("verflucht", 4000, players=2, policy="exact_jobs_test", seed=9, n_jobs=1,
                             chunk_size=1000, progress=False)
    two = cursedsim.simulate("verflucht", 4000, players=2, policy="exact_jobs_test", seed=9, n_jobs=2,
                             chunk_size=1000, progress=False)
    pd.testing.assert_frame_equal(one, two)


def test_a_user_numba_policy_is_compiled_once_per_process():
    """Workers unpickle the policy with every chunk; the unpickled copy must reuse the kernel already
    built in the process instead of compiling it again (once per chunk made runs ~100x slower)."""
    import pickle
    spec = add_numba_policy("exact_once_test", _attack, _banish_exactly)
    built = spec.impl.play_chunk()
    copy = pickle.loads(pickle.dumps(spec.impl))
    assert copy._play is None            # the compiled kernel does not travel
    assert copy.play_chunk() is built    # but is found again in this process


def test_the_extending_guide_example_runs():
    """docs/extending.md's numba policy example, run as written with fewer games and in this process (two
    workers would each compile its kernel for 2,000 games; the worker path is tested above)."""
    import re
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / "docs" / "extending.md").read_text()
    code = re.findall(r"```python\n(.*?)```", text, re.S)[0]
    assert "1_000_000" in code and "n_jobs=2" in code
    code = code.replace("1_000_000", "2_000").replace("n_jobs=2", "n_jobs=1")
    namespace: dict = {}
    exec(code, namespace)
    frame = namespace["frame"]
    assert len(frame) == 2_000 and set(frame.policy) == {"exact"}
