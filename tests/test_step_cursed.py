"""The step API of Cursed!? (``cursedsim.games.cursed.step``): a game stepped with ``apply_policy`` is the
runner's row of that game under every built-in policy and option set, every question of the engine is a
decision, and the player's information set hides the pile's order (only), which ``determinise`` redraws.
What every game meets (copies independent, illegal actions named, observations bounded, ...) is checked
once for all games by tests/game_contract.py; here what is Cursed!?'s own."""

from __future__ import annotations

import random

import pytest

import cursedsim
from cursedsim.errors import CursedsimError, PlayersError
from cursedsim.games.cursed import GAME
from cursedsim.games.cursed.rules import BIG_TURKEY_DINNER, OUTCOME_COLUMNS
from cursedsim.games.cursed.step import (
    ATTACK_BASE,
    CRYSTAL_KEEP,
    CRYSTAL_SPEND,
    STOP_ACTION,
    USE_BASE,
)
from cursedsim.step.api import TERMINAL, step_spec

STEP = step_spec("cursed")

#: Option sets that open every kind of decision between them (non-default rules included).
OPTION_SETS = [
    {},
    {"overshoot": "zero_total", "dagger_value": "choose", "spear_kind": "choose", "starting_items": 3},
    {"overshoot": "bust", "chest_loot": "draw_pile", "starting_items": 3, "bust": "soul_lost",
     "damage_from": "bottom", "starting_mimic": "redraw"},
    {"item_timing": "before_draw", "whetstone_in_play": True, "starting_items": 4, "turkey_cards": 6,
     "ignoring_attack_spends_trait": True},
    {"play_on_after_win": True, "smoke_bomb_returns_items": True, "final_monster_captures": True,
     "items_between_fights": False, "empty_pile_before_chest": False, "starting_item": "big_turkey_dinner"},
]

#: (options, policy, params, games): every built-in policy, parameter overrides, non-default options.
CONFIGS = [
    ({}, "threshold", None, 120),
    ({}, "random", None, 120),
    ({}, "no_items", None, 80),
    ({}, "counting", None, 80),
    ({}, "threshold", {"k": 4, "scroll_power": 9, "turkey_pile": 8}, 60),
    ({}, "counting", {"margin": 0.5, "shield_due": 1}, 60),
    ({}, "no_items", {"k": 1}, 40),
    *[(options, policy, None, 50) for options in OPTION_SETS[1:] for policy in ("threshold", "random", "counting")],
]


def frame_codes(frame, column):
    """A frame column as the engines' integer codes (categorical columns back to their codes)."""
    values = frame[column]
    return values.cat.codes.to_numpy() if hasattr(values, "cat") else values.to_numpy()


@pytest.mark.parametrize("options, policy, params, games", CONFIGS,
                         ids=[f"{c[1]}-{c[2] or ''}-{c[0] or 'defaults'}" for c in CONFIGS])
def test_apply_policy_plays_the_runner_row(options, policy, params, games):
    seed = 404
    frame = cursedsim.simulate("cursed", games, policy=policy, params=params, options=options, seed=seed,
                               progress=False)
    columns = {column: frame_codes(frame, column) for column in OUTCOME_COLUMNS}
    for index in range(games):
        state = STEP.new_state(seed, index, 1, options)
        state.play_out({0: (policy, params)})
        got = state.outcome()
        expected = {column: columns[column][index].item() for column in OUTCOME_COLUMNS}
        assert got == expected, (index, {c: (got[c], expected[c]) for c in got if got[c] != expected[c]})
        assert state.returns() == [1.0 if expected["win"] else 0.0]


def random_playout(state, seed):
    """Uniform random legal actions to the end; the request contexts met."""
    chooser = random.Random(seed)
    kinds = set()
    steps = 0
    while not state.is_terminal():
        kinds.add(state._context()[0])
        state.apply(chooser.choice(state.legal_actions()))
        steps += 1
        assert steps < 5000
    return kinds


def test_every_question_of_the_engine_is_a_decision():
    kinds, actions = set(), set()
    for n, options in enumerate(OPTION_SETS):
        for index in range(40):
            state = STEP.new_state(5, index, 1, options)
            chooser = random.Random(index)
            while not state.is_terminal():
                kinds.add(state._context()[0])
                action = chooser.choice(state.legal_actions())
                actions.add(action)
                assert not state.action_name(action).startswith("unknown")
                state.apply(action)
    assert kinds == {"fight", "between", "attack", "crystal"}
    assert {CRYSTAL_KEEP, CRYSTAL_SPEND} <= actions and STOP_ACTION in actions
    assert {ATTACK_BASE + m for m in (1, 2, 4, 8, 16)} <= actions   # every attack choice was open at times
    assert USE_BASE + BIG_TURKEY_DINNER in actions


def test_random_playouts_end_under_every_option_set():
    """(The contract plays the default rules; here every option set.)"""
    for index in range(30):
        state = STEP.new_state(9, index, 1, OPTION_SETS[index % len(OPTION_SETS)])
        random_playout(state, index)
        assert state.actor() == TERMINAL and set(state.outcome()) == set(OUTCOME_COLUMNS)


def test_new_state_checks_players_and_fixed():
    assert STEP.agents(1, None) == ("player",) and STEP.agent_sides(1, None) == (None,)
    with pytest.raises(PlayersError):
        STEP.new_state(1, 0, 2)
    with pytest.raises(CursedsimError, match="nothing can be fixed"):
        STEP.new_state(1, 0, 1, None, fixed={"player": "threshold"})


def advanced(seed, index, steps, options=None, policy="random"):
    """A state after ``steps`` decisions of ``policy`` (fewer if the game ends first)."""
    state = STEP.new_state(seed, index, 1, options)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_policy(policy)
    return state


def test_determinise_keeps_the_information_and_redraws_the_pile_order():
    differs = 0
    for index in range(20):
        state = advanced(12, index, 4 + index % 5, OPTION_SETS[index % len(OPTION_SETS)])
        if state.is_terminal():
            continue
        key = state.information(0)
        a, b = state.determinise(0, 1), state.determinise(0, 2)
        for other in (a, b):                  # under every option set (the contract: the default rules)
            assert other.information(0) == key
            assert sorted(other.table.pile) == sorted(state.table.pile)
        differs += a.table.pile != b.table.pile
        assert a.clone().table.pile == a.table.pile   # a copy replays the determinisation
    assert differs >= 10


def test_a_turkey_packet_stays_at_the_bottom_of_the_pile_when_determinised():
    """The cards a Big Turkey Dinner moves out of the public discard pile are known to lie at the bottom."""
    seen = 0
    for index in range(200):
        state = STEP.new_state(21, index, 1, {"starting_item": "big_turkey_dinner", "turkey_cards": 4})
        turkey = USE_BASE + BIG_TURKEY_DINNER
        # at a fight's decision point (between fights a chest may follow before the next decision)
        while not state.is_terminal() and not (turkey in state.legal_actions() and len(state.table.discard) >= 2
                                               and len(state.table.pile) >= 3 and not state.table.between):
            state.apply_policy("no_items")
        if state.is_terminal():
            continue
        discard = set(state.table.discard)
        state.apply(turkey)
        packet = discard - set(state.table.discard)
        bottom = set(state.table.pile[:len(packet)])
        assert bottom == packet
        for seed in range(4):
            other = state.determinise(0, seed)
            assert set(other.table.pile[:len(packet)]) == packet
            assert other.information(0) == state.information(0)
        seen += 1
        if seen >= 5:
            break
    assert seen >= 5


def test_actions_by_id_are_the_policy_answers():
    """A deterministic policy's choice, read on a copy and applied by its id, is the choice itself: the
    game played that way is the runner's row (ids decode to the engine's actions, the copy's play
    leaves the original alone)."""
    options = OPTION_SETS[3]
    spec = GAME.policy("threshold")
    rows = GAME.run_chunk(8, 0, 6, 1, GAME.make_options(options), spec, spec.param_vector())
    for index in range(6):
        state = STEP.new_state(8, index, 1, options)
        while not state.is_terminal():
            state.apply(state.clone().apply_policy("threshold"))
        assert state.outcome() == {c: rows[c][index].item() for c in OUTCOME_COLUMNS}


def test_outcome_matches_the_runner_chunk_for_a_game_with_a_mimic_start():
    options = GAME.make_options({"starting_item": "mimic"})
    spec = GAME.policy("threshold")
    rows = GAME.run_chunk(77, 0, 20, 1, options, spec, spec.param_vector())
    for index in range(20):
        state = STEP.new_state(77, index, 1, options)
        state.play_out({0: ("threshold", None)})
        assert state.outcome() == {c: rows[c][index].item() for c in OUTCOME_COLUMNS}


def test_a_logged_state_keeps_the_reference_turn_log():
    from cursedsim.games.cursed import reference
    from cursedsim.games.cursed.reference_policies import CountingPolicy

    options = GAME.make_options(OPTION_SETS[2])
    for index in range(5):
        state = STEP.new_state(6, index, 1, options, log=True)
        state.play_out({0: ("counting", None)})
        expected = reference.play(6, index, options, CountingPolicy(), log=True, label="step")
        assert state.table.log == list(expected.log) and len(expected.log) > 5


def _same(fast, logged, where):
    """The two states agree on everything the step API shows."""
    assert fast.actor() == logged.actor() and fast.legal_actions() == logged.legal_actions(), where
    assert fast.information(0) == logged.information(0), where
    assert (fast.observation(0) == logged.observation(0)).all(), where
    names = [logged.action_name(a) for a in logged.legal_actions()]
    assert [fast.action_name(a) for a in fast.legal_actions()] == names, where
    assert fast.returns() == logged.returns(), where
    if logged.is_terminal():
        assert fast.outcome() == logged.outcome(), where


def _policy_action(state, name, params=None):
    """The built-in policy's action, or its error (optimal_fight asked at an attack it did not choose)."""
    try:
        return state.apply_policy(name, params)
    except RuntimeError as error:
        return str(error)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_array_state_steps_as_the_logged_reference_state(seed):
    """The state over the kernel's arrays (log=False) and the reference engine's (log=True) agree at every
    step: actor, legal actions and their names, information, observation, returns, outcome, the pile's
    order after the same determinisations; through random actions, every built-in policy (optimal_fight's
    planned attack kept per state), play-outs and copies, under every option set."""
    from cursedsim.games.cursed.step import ArrayState, CursedState
    rnd = random.Random(seed)
    names = ["random", "threshold", "no_items", "counting", "optimal_fight"]
    asked = [(name, None) for name in names]
    asked += [("threshold", {"k": 4, "turkey_pile": 8}), ("counting", {"margin": 0.5})]
    for index in range(12):
        options = OPTION_SETS[(index + seed) % len(OPTION_SETS)]
        fast = STEP.new_state(31 + seed, index, 1, options)
        logged = STEP.new_state(31 + seed, index, 1, options, log=True)
        assert isinstance(fast, ArrayState) and isinstance(logged, CursedState)
        steps = 0
        while not logged.is_terminal():
            x = rnd.random()
            if x < 0.12:
                draw = rnd.randrange(1000)
                fast, logged = fast.determinise(0, draw), logged.determinise(0, draw)
                assert fast.table.pile == logged.table.pile, (index, steps)
            elif x < 0.15:
                name = rnd.choice(names[:4])
                ended = [s.clone() for s in (fast, logged)]
                for s in ended:
                    s.play_out({0: (name, None)})
                _same(*ended, (index, "play_out", name))
            elif x < 0.55:
                action = rnd.choice(logged.legal_actions())
                fast.apply(action)
                logged.apply(action)
            else:
                name, params = rnd.choice(asked)
                assert _policy_action(fast, name, params) == _policy_action(logged, name, params), (index, steps, name)
            if rnd.random() < 0.2:
                fast, logged = fast.clone(), logged.clone()
            _same(fast, logged, (index, steps))
            steps += 1
        assert fast.is_terminal()
