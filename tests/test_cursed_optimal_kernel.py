"""optimal_fight in the kernel (``optimal_kernel``) against its reference twin (``optimal_fight``, the
Python DP): the same games game by game, the same value and action at every fight decision point met in
reference games (compared bit for bit), and results that do not depend on the chunking or on the table
(a table too small for a fight, cleared again and again, plays the same games)."""

from __future__ import annotations

import numpy as np
import pytest

import cursedsim
from cursedsim.games.cursed import kernel, optimal_kernel, reference
from cursedsim.games.cursed import policies as pol
from cursedsim.games.cursed.optimal_fight import PARAMS, Fight, Objective, OptimalFightPolicy, table_state
from cursedsim.games.cursed.rules import (BEWITCHING_RELIC, OUTCOME_COLUMNS, OUTCOME_DTYPES, SCROLL_OF_PURGE_LIFE,
                                          SHIELD, SMOKE_BOMB, RuleOptions)
from cursedsim.games.cursed.state import option_tuple

VARIANTS = RuleOptions(dagger_value="choose", spear_kind="choose", overshoot="zero_total", bust="soul_lost",
                       smoke_bomb_returns_items=True, ignoring_attack_spends_trait=True,
                       parity_includes_whetstone=True)
RICH = RuleOptions(starting_items=4, chest_loot="draw_pile", final_monster_captures=True)
OTHER = RuleOptions(dagger_value="split", overshoot="bust", mimic_power=6, mimic_soul=False,
                    item_timing="before_draw", whetstone_in_play=True, win_souls=6)


def vector(**overrides) -> np.ndarray:
    return np.array([float(overrides.get(name, value)) for name, value in PARAMS.items()])


def kernel_games(seed: int, start: int, count: int, options: RuleOptions, params: np.ndarray) -> dict:
    return kernel.run_chunk(seed, start, count, option_tuple(options), pol.OPTIMAL_FIGHT, params)


def assert_same_games(got: dict, expected: dict, count: int) -> None:
    for column in OUTCOME_COLUMNS:
        diff = np.flatnonzero(np.asarray(got[column]) != np.asarray(expected[column]))
        assert diff.size == 0, f"{column}: games {diff[:10].tolist()} differ (of {count})"


CASES = [
    pytest.param(2026, 80, RuleOptions(), {}, id="default"),
    pytest.param(7, 60, VARIANTS, {}, id="variants", marks=pytest.mark.slow),
    pytest.param(11, 50, RICH, {"worth_shield": 0.5, "round_cost": 3.5}, id="four-items", marks=pytest.mark.slow),
    pytest.param(13, 60, OTHER, {}, id="other-options", marks=pytest.mark.slow),
    pytest.param(17, 60, RuleOptions(), {"objective": 1}, id="expected-cards", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("seed, count, options, params", CASES)
def test_kernel_games_equal_the_reference_games_with_the_python_dp(seed, count, options, params):
    """Every outcome column of every game: the kernel's optimal_fight and the reference engine played by
    ``OptimalFightPolicy`` with the same parameters (a few hundred games over the cases)."""
    values = vector(**params)
    expected = reference.play_chunk(seed, 0, count, options, OptimalFightPolicy(dict(zip(PARAMS, values))))
    assert_same_games(kernel_games(seed, 0, count, options, values), expected, count)


class Recorder:
    """OptimalFightPolicy that records the DP state at every fight decision point it answers."""

    def __init__(self, params):
        self.inner = OptimalFightPolicy(params)
        self.states = []

    def fight(self, table, legal, rng_):
        if not table.between:
            gain = 0 if table.is_mimic and not table.options.mimic_soul else 1
            self.states.append((table.power, table.trait, len(table.souls), gain, table_state(table)))
        return self.inner.fight(table, legal, rng_)

    def attack(self, table, card, open_, rng_):
        return self.inner.attack(table, card, open_, rng_)

    def crystal(self, table, card, total, rng_):
        return self.inner.crystal(table, card, total, rng_)


def packed(state) -> tuple[np.uint64, np.uint64, np.uint64, int]:
    """A reference DP state as the kernel's words a, b, c and the pile size."""
    counts, n, total, first, spent, blocked, items, stored, ret = state
    a = sum(k << (optimal_kernel.FIELD * u) for u, k in enumerate(counts))
    a |= (total << 50) | (int(first) << 56) | (int(spent) << 57) | (blocked << 58)
    b = sum(k << (optimal_kernel.FIELD * u) for u, k in enumerate(stored)) | (ret << 50)
    c = sum(k << (optimal_kernel.ITEM_FIELD * i) for i, k in enumerate(items))
    return np.uint64(a), np.uint64(b), np.uint64(c), n


def action_code(action) -> int:
    kind = action[0]
    if kind == "stop":
        return optimal_kernel.ACT_STOP
    if kind == "draw":
        return optimal_kernel.ACT_DRAW
    if kind == "play":
        return optimal_kernel.ACT_PLAY + action[1]
    return {SHIELD: optimal_kernel.ACT_SHIELD, SCROLL_OF_PURGE_LIFE: optimal_kernel.ACT_SCROLL,
            SMOKE_BOMB: optimal_kernel.ACT_SMOKE}[action[1]]


@pytest.mark.parametrize("options", [RuleOptions(), VARIANTS, RICH], ids=["default", "variants", "four-items"])
def test_every_decision_point_has_the_reference_value_bit_for_bit(options):
    """The fight decision points of 12 reference games (a few hundred states, most with items): the
    kernel's ``node`` gives the value of ``Fight.best`` exactly (the same float) and the same action,
    through a fresh table and through the same table again (its memo hits)."""
    recorder = Recorder(PARAMS)
    for index in range(12):
        reference.play(31, index, options, recorder)
    assert len(recorder.states) >= 100
    assert any(state[6][BEWITCHING_RELIC] or state[6][SMOKE_BOMB] for *_, state in recorder.states)
    objective = Objective(PARAMS, options.win_souls)
    fights: dict[tuple, Fight] = {}
    table, meta = optimal_kernel.new_memo(1 << 16)
    optimal_kernel.load_run(meta, option_tuple(options), pol.params_tuple(vector()))
    for _ in range(2):   # a fresh table, then the same one again
        for power, trait, souls, gain, state in recorder.states:
            key = (power, trait, souls, gain)
            fight = fights.get(key) or fights.setdefault(key, Fight(options, objective, power, trait, souls, gain))
            value, action = fight.best(fight.canonical(state))
            a, b, c, n = packed(state)
            got_value, got_action = optimal_kernel.node(table, meta, power, trait, souls, gain, a, b, c, n)
            assert got_value == value and got_action == action_code(action), (state, value, action, got_value)


def test_results_do_not_depend_on_chunks_nor_on_the_table():
    """The same 300 games: in one chunk with the process's table, in 6 chunks, and with a table of 2**14
    slots, cleared hundreds of times, mid-fight too (a memo caches a pure function; a much smaller table
    would still play the same games, only exponentially slower)."""
    options = RuleOptions(starting_items=2)
    values = vector()
    whole = kernel_games(5, 0, 300, options, values)
    parts = [kernel_games(5, start, min(50, 300 - start), options, values) for start in range(0, 300, 50)]
    assert_same_games({c: np.concatenate([p[c] for p in parts]) for c in OUTCOME_COLUMNS}, whole, 300)
    small = optimal_kernel.new_memo(1 << 14)
    scalars = {c: np.empty(300, np.dtype(t)) for c, t in
               ((c, OUTCOME_DTYPES[c]) for c in kernel.SCALAR_COLUMNS)}
    used = np.empty((300, 10), np.int8)
    kernel.play_chunk(np.uint64(5), np.int64(0), np.int64(300), option_tuple(options), np.int64(pol.OPTIMAL_FIGHT),
                      pol.params_tuple(values), small, *scalars.values(), used)
    assert int(small[1][optimal_kernel.M_CLEARS]) > 100
    for column in kernel.SCALAR_COLUMNS:
        assert np.array_equal(scalars[column], whole[column]), column
    for i, column in enumerate(kernel.ITEM_COLUMNS):
        assert np.array_equal(used[:, i], whole[column]), column


def test_simulate_plays_it_in_the_kernel_and_replays_it_with_the_reference():
    frame = cursedsim.simulate("cursed", 200, policy="optimal_fight", seed=3, progress=False)
    assert frame["policy"].iloc[0] == "optimal_fight" and len(frame) == 200
    log = cursedsim.replay("cursed", 3, 17, policy="optimal_fight").splitlines()
    assert log[0].endswith(f"end: {frame['end'].iloc[17]}")
    assert int(frame["souls"].iloc[17]) == reference.play(3, 17, RuleOptions(), OptimalFightPolicy()).souls


def test_bad_parameters_are_refused_before_the_kernel_runs():
    with pytest.raises(ValueError, match="objective must be 0"):
        cursedsim.simulate("cursed", 10, policy="optimal_fight", params={"objective": 2}, progress=False)
    with pytest.raises(ValueError, match="worth_shield must be >= 0"):
        cursedsim.simulate("cursed", 10, policy="optimal_fight", params={"worth_shield": -1}, progress=False)


def test_the_memo_is_bounded_and_dropped_when_the_run_changes():
    opts = option_tuple(RuleOptions())
    params = pol.params_tuple(vector())
    memo = optimal_kernel.memo_for(opts, params)
    assert memo[0].nbytes == optimal_kernel.SLOTS * optimal_kernel.SLOT_BYTES
    assert optimal_kernel.memo_bytes() < 1 << 30
    kernel_games(1, 0, 20, RuleOptions(), vector())
    assert int(memo[1][optimal_kernel.M_FILL]) > 0
    assert optimal_kernel.memo_for(opts, params) is memo and int(memo[1][optimal_kernel.M_FILL]) > 0
    other = optimal_kernel.memo_for(opts, pol.params_tuple(vector(round_cost=3.0)))
    assert other is memo and int(memo[1][optimal_kernel.M_FILL]) == 0
